game "Missing colon"
players 2 to 4

phase game
  nothing

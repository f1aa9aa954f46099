game "Corpus"
players 2 to 2
the game has x: number
phase game:
  repeat:
    each of players secretly chooses boom
action boom:
  set x to divide(1, x)

game "Corpus"
players 2 to 2
the game has x: number = 1
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  repeat:
    add x to x

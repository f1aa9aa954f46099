game "Corpus"
players 2 to 2
the game has x: number
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  nothing
score "s": divide(10, x)

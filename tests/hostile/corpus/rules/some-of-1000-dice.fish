game "Corpus"
players 2 to 2
dice: 1000 with faces A, B
phase game:
  repeat:
    for each player:
      player chooses pick
action pick(chosen: some dice):
  nothing

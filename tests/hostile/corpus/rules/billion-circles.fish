game "Corpus"
players 2 to 2
board: circles from 1 to 1000000000
  line 1, 2
phase game:
  repeat:
    for each player:
      player chooses pick
action pick(to: one of circles):
  nothing

game "Corpus"
players 2 to 2
cards c: v from 1 to 1000000000
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  nothing

game "Corpus"
players 2 to 2
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  require "never": 1 > 2
  nothing

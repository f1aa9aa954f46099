game "Corpus"
players 2 to 2
tokens chip: colour in red x 3
the game has pile: zones from 1 to 3 of chip
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  require "r": count(pile(0)) = 0
  nothing

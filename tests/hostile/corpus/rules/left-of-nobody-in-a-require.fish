game "Corpus"
players 2 to 2
the game has who: player
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  require "r": left of who in players
  nothing

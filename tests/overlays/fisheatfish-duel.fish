# Fish Eat Fish for two on a board of two circles joined by a line, one fish each: the first fight
# that is not cancelled ends the game, with only one player's fish left on the board (or none).
extends "fisheatfish"

game "Fish Eat Fish, a duel"

replace players 2 to 2

replace board: circles from 1 to 2
  line 1, 2

replace phase placing:
  for each player starting with starfish_holder:
    player chooses place

# Fish Fish where every Fish bets all its tiles at once: every round ends on its first line ("all
# the Fish tiles have been bet"), and the game ends after its rounds.
extends "fishfish"

game "Fish Fish, all in"

replace action bet(tiles_bet: a number from 0 to min(4, your tiles)):
  require "all in": tiles_bet = min(4, your tiles)
  subtract tiles_bet from your tiles
  set your bet to tiles_bet

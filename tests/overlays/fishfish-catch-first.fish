# Fish Fish where the Fisherman sets a Catch while he holds one, and every Fish bets one tile on
# every line: both Catch cards are revealed on the first two lines and every round ends there.
extends "fishfish"

game "Fish Fish, Catch first"

replace action set_line(secret card: one of fishing_hand, bait_card: one of bait_hand):
  require "a Catch first": kind of card is Catch or no c in fishing_hand where kind is Catch
  move card to line_fishing face down
  move bait_card to line_bait face up

replace action bet(tiles_bet: a number from 0 to min(4, your tiles)):
  require "one tile a line": tiles_bet = min(1, your tiles)
  subtract tiles_bet from your tiles
  set your bet to tiles_bet

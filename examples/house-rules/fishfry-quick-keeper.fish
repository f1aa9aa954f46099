# A house rule: a short Keeper tournament — 4 rounds, 2 fish each, and a simple fish is worth 15.
#
# Why: the rulebook's Keeper tournament (7 rounds, 3 fish) is long for a lunch break or for
# children.  With fewer rounds and fewer fish, a fish is worth more (15 instead of 10, BODIES and
# PANFISH added as before), so every kept fish still matters.  The rulebook itself allows changing
# "the # of rounds/fish allowed before the game begins".
extends "fishfry-keeper"
game "Quick Keeper"
replace option rounds: number from 1 to 100 = 4
replace option fish_limit: number from 1 to 20 = 2
replace define keeper_fish_points: 15 + sum(largest(3, value of dice showing BODY)) + panfish_points

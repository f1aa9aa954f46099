# A house rule: Fisherman where the Size is worth 2.
#
# Why: in the rulebook a card of the chosen Size is worth +1 (-1 if it is of the Not Target suit),
# the same as a Target card, so the player who picks the Size has little say in the round.  Worth 2,
# the Size becomes a rule worth fighting for in the tricks, and the third player to decide (or the
# second, at three players) gets a choice as strong as the Target's.
extends "fisherman"
game "Fisherman, the Size worth 2"

replace define size_points: 2 * count(your catch where (number = size_low or number = size_low + 1) and suit is not not_target)
replace define size_penalty: 2 * count(your catch where (number = size_low or number = size_low + 1) and suit is not_target)

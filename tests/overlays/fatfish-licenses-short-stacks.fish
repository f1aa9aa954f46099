# Fat Fish with the fishing licenses and short personal stacks (see fatfish-short-stacks.fish): a
# short game whose end awards the licenses Б and В.
extends "fatfish-licenses"

game "Fat Fish with licenses, short stacks"

add rule "short stacks" at the end of phase setup:
  for each player:
    move top(max(0, 8 - 4 * player's seat), player's stack) to out_of_game face down

# Fat Fish where the personal stacks are short: the first seat has only its hand (4 cards), the
# second 4 more, the others the usual 8.  Players leave the game one after the other.
extends "fatfish"

game "Fat Fish, short stacks"

add rule "short stacks" at the end of phase setup:
  for each player:
    move top(max(0, 8 - 4 * player's seat), player's stack) to out_of_game face down

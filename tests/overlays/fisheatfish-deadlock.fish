# Fish Eat Fish on a board where nobody can ever act: twelve circles and one short line (1-2).
# Placed on 3 to 12, every player's fish stands alone: no attack, no move, no drift is possible,
# so the game ends by the deadlock rule ("a whole round with nobody able to act").
extends "fisheatfish"

game "Fish Eat Fish, a deadlock"

replace board: circles from 1 to 12
  line 1, 2

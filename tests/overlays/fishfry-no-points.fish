# Fishfry where a turn scores nothing and there is never a FISHFRY: every game is a tie for the
# win, and ONE TIE - ALL TIE starts a second chance game, again and again.
extends "fishfry"

game "Fishfry, no points"

replace define fishfry_rolled: no

replace rule "score the turn":
  nothing

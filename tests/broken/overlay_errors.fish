# An overlay of the bundled Fishfry with five mistakes, all reported at once.
extends "fishfry"

game "Fishfry, badly changed"

replace phase rolls:
  roll all dice
remove rule "one tie all tie"
add rule "bonus" after rule "score turn":
  nothing
phase round:
  nothing
define turn_points: 3

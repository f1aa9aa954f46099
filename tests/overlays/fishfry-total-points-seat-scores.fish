# The Total Points tournament where a turn scores 10 points a seat and there is never a FISHFRY:
# the tournament ends after its rounds, the last seat first.
extends "fishfry-total-points"

game "Fishfry Total Points, scores by seat"

replace define fishfry_rolled: no

replace rule "score the turn":
  add 10 * (roller's seat + 1) to roller's catch

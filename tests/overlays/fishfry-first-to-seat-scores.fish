# The FIRST-TO tournament where a turn scores 10 points a seat and there is never a FISHFRY: who
# reaches the target first, and when, is known in advance.
extends "fishfry-first-to"

game "Fishfry FIRST-TO, scores by seat"

replace define fishfry_rolled: no

replace rule "score the turn":
  add 10 * (roller's seat + 1) to roller's catch

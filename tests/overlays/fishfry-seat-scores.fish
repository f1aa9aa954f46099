# Fishfry where a turn scores 10 points a seat (p0 10, p1 20, ...), whatever the dice show, and
# there is never a FISHFRY: no tie, so the game ends once every player has rolled, the last seat
# the winner.
extends "fishfry"

game "Fishfry, scores by seat"

replace define fishfry_rolled: no

replace rule "score the turn":
  add 10 * (roller's seat + 1) to roller's catch

# Fishfry — the FIRST-TO tournament.
#
# "This can also be played as a "FIRST-TO" tournament, without a limit of 5 rounds. The player who
#  is the first to score 200 points, for example, wins. The score required can be changed if all
#  players agree."

extends "fishfry-tournament"

game "Fishfry: FIRST-TO tournament"

option target: number from 1 to 100000 = 200, "the score that wins"

# "without a limit of 5 rounds": rounds follow one another until somebody reaches the target.
remove option rounds
replace phase game:
  repeat:
    play round

# AMBIGUITY (when the target counts): the moment a turn's points are recorded; the game ends there,
# before the rest of the round, because that player is "the first to score 200 points".  Nobody
# else can be level with them then, so there is never a tie.
add rule "first to the target" after rule "score the turn":
  if roller's score >= target:
    end game

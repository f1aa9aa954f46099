# A house rule: Fishfry with six dice.  A FISHFRY now needs all six PANFISH.
#
# Why: a sixth die makes fish with three BODIES and the 2-fish rolls come much more often, so turns
# score more and a table of beginners sees the big catches the rulebook talks about; the FISHFRY,
# which ends the game at once, becomes rarer, so games are decided by the fish more than by luck.
extends "fishfry"
game "Fishfry with six dice"
replace dice: 6 with faces HEAD, TAIL, PANFISH, BODY 5, BODY 10, BODY 20

# A house rule: Fishfry with six dice.  A FISHFRY now needs all six PANFISH.
extends "fishfry"
game "Fishfry with six dice"
replace dice: 6 with faces HEAD, TAIL, PANFISH, BODY 5, BODY 10, BODY 20

# Fishfry where every roll counts as a FISHFRY: the first player's first roll wins at once.
extends "fishfry"

game "Fishfry, always a FISHFRY"

replace define fishfry_rolled: yes

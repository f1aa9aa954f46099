# The Keeper tournament where every roll holds one fish worth 10 and there is never a FISHFRY:
# players who keep every fish reach the fish limit and are done fishing.
extends "fishfry-keeper"

game "Fishfry Keeper, always a fish"

replace define fishfry_rolled: no
replace define fish_caught: 1
replace define keeper_fish_points: 10

# A house rule: a short Keeper tournament — 4 rounds, 2 fish each, and a simple fish is worth 15.
extends "fishfry-keeper"
game "Quick Keeper"
replace option rounds: number from 1 to 100 = 4
replace option fish_limit: number from 1 to 20 = 2
replace define keeper_fish_points: 15 + sum(largest(3, value of dice showing BODY)) + panfish_points

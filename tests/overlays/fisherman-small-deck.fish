# Fisherman with fish cards 1 to 3 only: a round is three or four tricks, and the game ends after
# as many rounds as there are players, each the dealer once.
extends "fisherman"

game "Fisherman, a small deck"

replace cards fish: suit in horse_mackerel, puffer_fish, sea_bream, goby, squid and number from 1 to 3

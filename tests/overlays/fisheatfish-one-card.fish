# Fish Eat Fish with a single challenge card each: a Fish card 1 (no Shark, no Octopus).  The first
# challenge leaves both players without a card: each takes their stacks off the board into their
# catch, and no player's fish remain on the board.
extends "fisheatfish"

game "Fish Eat Fish, one card each"

replace cards fish_card: colour in red, yellow, green, blue, purple and number from 1 to 1

add rule "no sea cards" at the end of phase colours:
  move sea_card to discard face up

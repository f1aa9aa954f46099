# Fisherman's hand size is a value of the game, worked out from the deck, not a define.
# expect: 6:9 error: there is no define `hand_size` to replace
# hint: `hand_size` is not a define but a value the game has, declared in fisherman (at fisherman:
# hint: as `the game has hand_size: number`
extends "fisherman"
replace define hand_size: 5

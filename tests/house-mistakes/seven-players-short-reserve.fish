# One player more than the cards serve: the reserve is what runs short.
# expect: 5:1 warning: with 7 players the cards run out during this deal: `deck` has 13 left of the 18 it should give
# hint: the set-up fits 2 to 6 players
extends "fatfish"
replace players 2 to 7

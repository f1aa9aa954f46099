# More players than the cards serve: the check passes (a warning), but at 10 players the deck runs
# out during the deal; the warning is at the line that allowed 10.
# expect: 6:1 warning: with 10 players the cards run out during this deal: `deck` has 4 left when p8 should get 12 (p8 gets 4; p9 gets none), in fatfish (at fatfish:
# hint: the set-up fits 2 to 6 players: allow at most 6 (`replace players 2 to 6`), or deal fewer cards
extends "fatfish"
replace players 2 to 10

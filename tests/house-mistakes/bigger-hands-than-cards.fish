# A bigger stack for everyone: the same deal runs out, now from 5 players on.
# expect: 6:1 warning: with 6 players the cards run out during this deal
# hint: the set-up fits 2 to 4 players
extends "fatfish"
game "Big stacks"
replace define stack_size: 20

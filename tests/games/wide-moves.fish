# Moves wider than 64 numbers: four `some` parameters in one action, three chosen together
# (tests/test_kernel_wide_moves.py plays it on the kernel against the engine).
game "Wide moves"
players 2 to 3
tokens chip: n from 1 to 12
the game has pile: zones from 1 to 5 of chip
each player has stash: zone of chip
each player has points: number
phase game:
  move chip to pile(1) face up
  move top(3, pile(1)) to pile(2) face up
  move top(2, pile(1)) to pile(3) face up
  move top(2, pile(1)) to pile(4) face up
  move top(2, pile(1)) to pile(5) face up
  repeat 3 times:
    for each player:
      player chooses take or pass
    each of players secretly chooses bid or pass

action take(a: some pile(1), b: some pile(2), c: some pile(3), d: some pile(4)):
  require "two at most": count(a) <= 2 and count(b) <= 1
  move a to pile(2) face up
  move b to pile(3) face up
  move c to pile(4) face up
  move d to your stash face up
  add count(b) + count(d) to your points

action pass:
  nothing

action bid(x: a number from 1 to 2, mine: some your stash, more: some pile(4), most: some pile(5)):
  require "one each": count(mine) <= 1 and count(more) <= 1
  add x + count(mine) to your points
  move more to pile(5) face up
  move most to pile(1) face up

score "points": your points + count(your stash)

# `x += 1` and `x = 3` to change a value.
# expect: 8:18 error: `+=` is written in words
# hint: write `add … to roller's catch` or `subtract … from roller's catch`
# expect: 9:8 error: a value is changed with `set`
# hint: write `set roll to …`
extends "fishfry"
replace rule "score the turn":
  roller's catch += turn_points
  roll = 3

# `else:` and `elif` under an `if`.
# expect: 8:3 error: `elif` is written `otherwise if`
# hint: write `otherwise if CONDITION:`
# expect: 10:3 error: `else` is written `otherwise`
# hint: `otherwise:` under an `if` block
extends "fishfry"
replace rule "score the turn":
  elif roll > 2:
    nothing
  else:
    add turn_points to roller's catch

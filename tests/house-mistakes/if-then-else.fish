# `else` from another language, in a formula.
# expect: 5:51 error: `else` is written `otherwise`
# hint: write `if CONDITION then A otherwise B` in a formula
extends "fishfry"
replace define panfish_points: if roll > 1 then 1 else 2

# `&&` and `!` from programming languages.
# expect: 7:23 error: `&&` is written as a word
# hint: write `and` for `&&`
# expect: 8:14 error: `!` is written as a word
# hint: write `not`
extends "fishfry"
define both: roll > 1 && fish_caught > 0
define none: !fishfry_rolled

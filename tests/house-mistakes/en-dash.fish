# A dash a word processor put in a range.
# expect: 5:18 error: a dash `–`: fishrules reads only the plain minus sign `-`
# hint: write `players 2 to 6`
extends "fishfry"
replace players 2–4

# `replace option rounds = 3`: the option is written whole, as the base has it.
# expect: 5:23 error: an option is written whole: its kind, then its default
# hint: write it whole, as fishfry-total-points declares it, with your default: `replace option rounds: number from 1 to 100 = 3, "how many rounds the tournament lasts"`; for one game only, `--option rounds=3`
extends "fishfry-total-points"
replace option rounds = 3

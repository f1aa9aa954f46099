# `rounds` is an option: it is replaced whole, or set with --option.
# expect: 6:9 error: there is no define `rounds` to replace
# hint: `rounds` is not a define but an option, declared in fishfry-total-points (at fishfry-total-points:
# hint: an overlay replaces it whole, as `replace option rounds: number from 1 to 100 = 5, "how many rounds the tournament lasts"` with the default changed; or set it for one game with `--option rounds=…`
extends "fishfry-total-points"
replace define rounds: 3

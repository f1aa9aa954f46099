# A name that is not there lists the names that are, of that kind, nearest first.
# expect: 6:9 error: there is no define `hand_sise` to replace
# hint: did you mean `hand_size`? the defines of fatfish, nearest first: `hand_size`, `stack_size`
# hint: to add a new define `hand_sise`, write it without `replace`
extends "fatfish"
replace define hand_sise: 5

# A turn that no longer plays the laying: the base's parts it played are left unused.
# expect: 7:1 error: phase `turn` takes no player here
# hint: write `replace phase turn for fisher:`
# expect: 7:1 warning: after this replacement, fatfish's phase `laying`, action `lay`, action `stop`, phase `fiasco_card`, phase `big_catch` and action `keep` are no longer used
# hint: use them from your version, as fatfish did (`play laying for fisher`)
extends "fatfish"
replace phase turn:
  nothing

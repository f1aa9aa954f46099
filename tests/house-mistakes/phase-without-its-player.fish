# `replace phase turn:` where the base says `phase turn for fisher`: the base's
# `play turn for player` no longer fits, and `fisher` is unknown.
# expect: 8:1 error: phase `turn` takes no player here, but fatfish plays it for one (at fatfish:
# hint: fatfish declares `phase turn for fisher`: write `replace phase turn for fisher:`
# expect: 9:19 error: unknown name `fisher`
# hint: fatfish names it in `phase turn for fisher`: write `replace phase turn for fisher:` to use `fisher`
extends "fatfish"
replace phase turn:
  play laying for fisher

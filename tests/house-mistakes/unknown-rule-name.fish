# A rule name that is not there: the named rules, nearest first.
# expect: 5:1 error: there is no rule "score a turn" to remove
# hint: did you mean `score the turn`? the named rules of fishfry, nearest first: "score the turn", "one tie, all tie"
extends "fishfry"
remove rule "score a turn"

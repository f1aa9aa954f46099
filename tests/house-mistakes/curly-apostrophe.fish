# A curly apostrophe in a possessive.
# expect: 6:18 error: a curly apostrophe `’`
# hint: write a straight one
extends "fishfry"
replace rule "score the turn":
  add 1 to roller’s catch

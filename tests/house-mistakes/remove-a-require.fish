# A `require` is not a `rule` block: it cannot be removed on its own.
# expect: 6:1 error: there is no rule "a matching colour" to remove
# hint: "a matching colour" is not a `rule` block but a `require` of action `lay` (at fatfish:
# hint: replace the whole action, `replace action lay(row: one of rows, card: one of your hand):`, with its lines
extends "fatfish"
remove rule "a matching colour"

# Removing a phase that the base still plays.
# expect: 6:1 error: there is no phase `big_catch`, in fatfish (at fatfish:
# hint: fatfish still uses phase `big_catch` there: replace that part of fatfish too (`replace action lay(row: one of rows, card: one of your hand):` without it), or replace the phase instead of removing it
# expect: 6:1 warning: after this removal, fatfish's action `keep` is no longer used
extends "fatfish"
remove phase big_catch

"""Stage 5, running: a state's values written out, for JSON and for messages.

`_listify` turns the tuples a state keeps into the lists of JSON; `short` quotes a value that came
from outside (a saved state's field, a history entry, a word of an action's text) in a message
without flooding it.
"""

from __future__ import annotations

import reprlib

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 40, 40


def short(x) -> str:
    """A value from outside, shown in a message without flooding it (however deep it is nested)."""
    r = _REPR.repr(x)
    return r if len(r) <= 60 else r[:57] + "…"


def _listify(x):
    if isinstance(x, tuple):
        return [_listify(i) for i in x]
    return x

"""Stage 5, running: a state's values written out, for JSON and for messages.

`_listify` turns the tuples a state keeps into the lists of JSON; `short` quotes a value that came
from outside (a saved state's field, a history entry, a word of an action's text) in a message
without flooding it; `check_seat` refuses a player who is not in the game, for every method that
takes one.
"""

from __future__ import annotations

from ..errors import short  # (written with the errors: the stages before this one quote values too)


def check_seat(player, n: int) -> None:
    """Refuse a player who is not in a game of `n`: a seat past the last, a negative one, or what
    is no whole number (a bool is an int to Python: `True` would read as seat 1).  `None` (a
    spectator, or whoever is to act) is for the caller to allow before asking."""
    if type(player) is not int or not (0 <= player < n):
        from ..errors import OptionError

        raise OptionError(f"there is no player {short(player)} in this game of {n}")


def check_since(since) -> None:
    """Refuse a `since` of `events_for` that is no count of actions: None (everything) or a whole
    number (a negative one counts as 0).  A bool, a float or a string is refused rather than
    compared with each event's count (a string would raise Python's own TypeError there)."""
    if since is not None and type(since) is not int:
        from ..errors import OptionError

        raise OptionError(f"`since` is a number of actions (a whole number) or None, not {short(since)}")


def _listify(x):
    if isinstance(x, tuple):
        return [_listify(i) for i in x]
    return x

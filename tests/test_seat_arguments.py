"""A seat that is not in the game — past the last, negative, `True` (a bool is an int to Python),
"0" — is the caller's mistake, said as `OptionError` by every method that takes a player, on the
engine and on the kernel alike (`legal_actions(True)` was read as seat 1)."""

from __future__ import annotations

import pytest

import fishrules

BAD = [True, False, -1, 9, 99, "0", 1.0, [0]]


def states(name: str):
    g = fishrules.load(name, backend="python")  # (the Python backend: the engine's State, while it lives)
    n = g.min_players
    out = [g.start(n, seed=1)]
    try:
        out.append(fishrules.load(name, backend="native").start(n, seed=1))
    except fishrules.FishrulesError:  # no C compiler here: the Python backend alone
        pass
    return out


@pytest.mark.parametrize("name", fishrules.bundled())
def test_a_seat_not_in_the_game_is_refused_everywhere(name):
    for s in states(name):
        for seat in BAD:
            for method in (s.legal_actions, s.legal_action_ids, s.view, s.history_for, s.events_for, s.observation):
                with pytest.raises(fishrules.OptionError, match="there is no player"):
                    method(seat)
        assert isinstance(s.legal_actions(), list)  # None: whoever is to act

"""Reading a state's record from outside: what a caller is given cannot change the state, and a
bad argument is the caller's `OptionError`, on the engine and on the kernel alike.

- `events_for(p, since)` takes None or a whole number of actions: a string, a float, a bool or a
  list is refused, even before any event exists (a string compared with an event's count was
  Python's own TypeError, and only once the game had events);
- `since=k` gives exactly the events whose `after` is past k, for every k (they are found by
  bisection, not by reading the whole game);
- `history` is a new list at each call: changing it changes nothing of the state's, and a list
  taken earlier does not grow as the game goes on (on the engine it was the state's own list);
- an `Action` cannot be changed, and a copy of it is itself: a legal list's actions are shared by
  every game of the ruleset, so `a.player = 1` in one game changed the move another game then
  played (the engine took the changed player, the kernel its own: the machines disagreed), and a
  deep copy of a kernel's action copied (or failed on) the whole kernel.
"""

from __future__ import annotations

import copy
import random

import pytest

import fishrules

BAD_SINCE = ["1", b"1", 1.5, True, [], 1j, object()]


def states(name: str, seed: int = 1):
    """The same game on the Python backend and (where a C compiler is found) on the native kernel."""
    g = fishrules.load(name, backend="python")  # (the Python backend: the engine's State, while it lives)
    n = g.min_players
    out = [g.start(n, seed=seed)]
    try:
        out.append(fishrules.load(name, backend="native").start(n, seed=seed))
    except fishrules.FishrulesError:  # no C compiler here: the Python backend alone
        pass
    return out


def play(s, rng: random.Random, steps: int):
    for _ in range(steps):
        if s.is_over:
            return
        who = s.waiting[0] if s.current == fishrules.SIMULTANEOUS else None
        s.apply(rng.choice(s.legal_actions(who)))


@pytest.mark.parametrize("name", fishrules.bundled())
def test_a_since_that_is_no_count_is_refused(name):
    for s in states(name):
        for played in (0, 12):
            play(s, random.Random(played), played)
            for since in BAD_SINCE:
                with pytest.raises(fishrules.OptionError, match="`since` is a number of actions"):
                    s.events_for(None, since)
                with pytest.raises(fishrules.OptionError, match="`since` is a number of actions"):
                    s.events_for(0, since)


@pytest.mark.parametrize("name", fishrules.bundled())
def test_since_gives_exactly_the_events_after_it(name):
    got = []
    for s in states(name, seed=3):
        play(s, random.Random(3), 40)
        n = len(s.history)
        per_seat = {}
        for p in [None, *range(s.n)]:
            every = s.events_for(p)
            assert every, "the game has events to cut"
            for k in (-5, -1, 0, 1, 2, n // 2, n - 1, n, n + 1, 10**9):
                assert s.events_for(p, k) == [e for e in every if e["after"] > k], (p, k)
            per_seat[p] = every
        got.append(per_seat)
    assert all(g == got[0] for g in got)  # the engine and the kernel agree


@pytest.mark.parametrize("name", fishrules.bundled())
def test_the_history_given_out_is_the_callers(name):
    for s in states(name):
        play(s, random.Random(5), 6)
        before = s.history
        kept = list(before)
        before.clear()
        before.append("nonsense")
        assert s.history == kept
        assert s.history_for(0) == s.clone().history_for(0)
        play(s, random.Random(6), 6)
        assert before == ["nonsense"]
        assert s.history[: len(kept)] == kept


@pytest.mark.parametrize("name", ["fishfry", "fatfish", "fisherman"])
def test_an_action_cannot_be_changed_and_copies_are_itself(name):
    for s in states(name):
        play(s, random.Random(7), 3)
        acts = s.legal_actions(s.waiting[0] if s.current == fishrules.SIMULTANEOUS else None)
        a = acts[0]
        before = (a.name, a.player, a.breaks, a.to, a.text, a.args)
        for field, value in (("player", 1 - (a.player or 0)), ("name", "x"), ("breaks", "x"), ("to", "x")):
            with pytest.raises(AttributeError):
                setattr(a, field, value)
        assert (a.name, a.player, a.breaks, a.to, a.text, a.args) == before
        assert copy.copy(a) is a and copy.deepcopy(a) is a
        assert copy.deepcopy({"moves": acts})["moves"] == acts
        other = s.clone()
        at = len(other.history)
        other.apply(a)  # still the move it was
        assert other.history[at] == before[4]

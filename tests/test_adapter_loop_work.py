"""An agent's loop through the ids and observations (fishrules.spaces, the adapters) on the kernel:
what a position already knows is worked out once for it, counted rather than timed.

- A chance node's outcomes (Actions and exact Fractions) are listed once per position however
  often the loop asks (OpenSpiel asks for them, their ids and the action of an id at every node),
  and the answers stay those of a fresh listing.
- The legal ids of a listing are read from the kernel's move records: no legal action is read into
  an Action just to learn whether one of them is numbered by position (only moves whose id is not
  known yet are read, once each).
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import fishrules
from fishrules.kernel import apistate
from fishrules.spaces import chance_probabilities

GAMES = ["fatfish", "fishfry", "fisheatfish", "fishfish", "fisherman"]


def _count(monkeypatch, cls, name):
    calls = [0]
    real = getattr(cls, name)

    def counted(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(cls, name, counted)
    return calls


@pytest.mark.parametrize("name", GAMES)
def test_chance_outcomes_listed_once_per_position(monkeypatch, name):
    game = fishrules.load(name)
    n = game.min_players
    space = game.action_space(n, {})
    s = game.start(players=n, seed=3, chance="manual")
    if not isinstance(s, apistate.KState):
        pytest.skip("not on the kernel")
    listed = _count(monkeypatch, apistate.KState, "_outcomes_at")
    rng = random.Random(3)
    nodes = 0
    while not s.is_over and nodes < 40:
        if s.current == fishrules.CHANCE:
            nodes += 1
            fresh = s._outcomes_at(s._ks[apistate._S])  # what a fresh listing says (counted too)
            before = listed[0]
            for _ in range(3):  # as an agent's loop asks: outcomes, ids, probabilities, the action of an id
                got = s.chance_outcomes()
                assert [(a.text, a._values, p) for a, p in got] == [(a.text, a._values, p) for a, p in fresh]
                assert all(type(p) is Fraction for _, p in got)
                ids = s.legal_action_ids()
                assert ids == [space.chance_id(a) for a, _ in fresh]
                probs = chance_probabilities(space, s)
                merged: dict = {}
                for a, p in fresh:
                    merged[space.chance_id(a)] = merged.get(space.chance_id(a), Fraction(0)) + p
                assert probs == sorted(merged.items())
                got.clear(), ids.clear(), probs.clear()  # (a caller's list is its own)
            assert listed[0] - before <= 1
            pick = rng.choice(s.legal_action_ids())
            s.apply(s.action_of_id(pick))
            continue
        who = s.waiting[0] if s.current == fishrules.SIMULTANEOUS else None
        s.apply(rng.choice(s.legal_actions(who)))
    if not nodes:
        pytest.skip("no chance node")


@pytest.mark.parametrize("name", GAMES)
def test_legal_ids_read_no_more_moves_than_it_numbers(monkeypatch, name):
    game = fishrules.load(name)
    n = game.min_players
    s = game.start(players=n, seed=5)
    if not isinstance(s, apistate.KState):
        pytest.skip("not on the kernel")
    kernel = s._ks[apistate._KERNEL]
    kernel.api_move_ids.clear()
    kernel.api_actions = {} if kernel.api_actions is not None else None  # (every list made afresh)
    reads = _count(monkeypatch, kernel.boundary, "move")
    moves: set = set()
    steps = 0
    rng = random.Random(5)
    while not s.is_over and steps < 150:
        who = s.waiting[0] if s.current == fishrules.SIMULTANEOUS else None
        ids = s.legal_action_ids(who)
        if s.current != fishrules.CHANCE:
            got = s._ks[apistate._LEGAL].get(who if who is not None else s.current)
            if got is not None:
                moves.update(kernel.backend.record_key(got[1], i) for i in range(got[0]))
        s.apply(s.action_of_id(rng.choice(ids), who))
        steps += 1
    # each distinct move read once to number it, and the one applied at each step at most once
    assert reads[0] <= len(moves) + steps

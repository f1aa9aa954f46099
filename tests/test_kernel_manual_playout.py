"""`playout(rng)` on the kernel from a state whose chance is the caller's, or that waits for it.

The kernel plays it out itself, one step at a time (no engine), drawing every random number from
`rng` as the engine's playout draws them: an action uniformly among the legal ones, a chance
outcome by its probability.  So it is the very game the engine's playout plays from the same
`rng`; the state stays on the kernel, and its engine twin (what it is if it must become the
engine's) plays the same steps.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

import fishrules
from fishrules import CHANCE
from fishrules.kernel.apistate import KState
from fishrules.runtime import State

from ._twins import bundled_game


def _manual_cases():
    for name in fishrules.bundled():
        g = bundled_game(name)
        if g.kernel.manual_chance:
            for players in sorted({g.min_players, g.max_players}):
                yield name, players


def _walk(g, players: int, seed: int, steps: int):
    k = g.start(players, seed=seed, chance="manual")
    assert type(k) is KState
    rng = random.Random(seed)
    for _ in range(steps):
        if k.is_over:
            break
        if k.current == CHANCE:
            k.apply(rng.choice(k.chance_outcomes())[0])
        else:
            k.apply(rng.choice(k.legal_actions(k.waiting[0])))
    return k


@pytest.mark.parametrize("name,players", list(_manual_cases()))
def test_a_manual_game_is_played_out_on_the_kernel(name, players):
    g = bundled_game(name)
    for seed, steps in ((1, 0), (2, 5), (3, 17)):
        k = _walk(g, players, seed, steps)
        waited, current, history = k.current == CHANCE, k.current, k.history
        before = k.clone()
        engine = State._new(g, players, g._options(None), seed, True)
        for text in history:
            engine.apply(text)
        want = engine.playout(random.Random(seed))
        out = k.playout(random.Random(seed))
        assert out == want and k.scores() == engine.scores(), (name, seed)  # the engine's very game
        assert type(k) is KState and k.is_over, (name, seed)
        assert out.scores == k.scores() and out.winners == k.winners()
        if waited:
            assert out.chances > 0
        # the engine twin is given the kernel's outcomes: the same game
        twin = k._twin()
        assert twin.scores() == k.scores() and twin.winners() == k.winners() and twin == k
        assert copy.copy(k).scores() == k.scores()
        # the same rng, the same game; the state played out is a copy's
        again = before.clone()
        assert again.playout(random.Random(seed)) == out and type(again) is KState
        assert before.current == current and before.history == history and type(before) is KState


def test_the_outcome_of_a_wait_is_drawn_as_the_rules_say():
    # at a die's wait, the outcome the playout draws there: every face, about as often as its
    # probability says
    g = bundled_game("fishfry")
    k = _walk(g, 2, 4, 0)
    while k.current != CHANCE:
        k.apply(k.legal_actions(k.waiting[0])[0])
    faces = {a._values[-1]: p for a, p in k.chance_outcomes()}
    counts: Counter = Counter()
    runs = 600
    for seed in range(runs):
        c = k.clone()
        c.playout(random.Random(seed))
        steps = c._ks[8][4]  # (the steps the playout played, as its engine twin plays them)
        assert steps[0][0] is None
        counts[steps[0][1]] += 1
    assert set(counts) == set(faces)
    for face, p in faces.items():
        assert abs(counts[face] / runs - float(p)) < 0.1, (face, counts[face], p)

"""`playout(rng)` on the kernel from a state whose chance is the caller's, or that waits for it.

The kernel plays it out itself, one step at a time (no engine), drawing every random number from
`rng` as the engine's playout draws them: an action uniformly among the legal ones, a chance
outcome by its probability.  So it is the very game the engine's playout plays from the same
`rng` (its outcomes frozen in tests/golden/engine/test_kernel_manual_playout.json by `freeze`,
tests/tools/freeze_engine.py, while the engine lived); the state stays on the kernel.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

import fishrules
from fishrules import CHANCE
from fishrules.kernel.apistate import KState

from ._frozen import frozen, plain
from ._twins import bundled_game


def _manual_cases():
    for name in fishrules.bundled():
        g = bundled_game(name)
        if g.kernel.manual_chance:
            for players in sorted({g.min_players, g.max_players}):
                yield name, players


#: (seed, steps walked at random before the playout)
WALKS = ((1, 0), (2, 5), (3, 17))


def _walk(g, players: int, seed: int, steps: int, k=None):
    k = g.start(players, seed=seed, chance="manual") if k is None else k
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
    for seed, steps in WALKS:
        k = _walk(g, players, seed, steps)
        assert type(k) is KState
        waited, current, history = k.current == CHANCE, k.current, k.history
        assert history == frozen("test_kernel_manual_playout")[f"{name}/{players}/{seed}"]["history"]
        before = k.clone()
        out = k.playout(random.Random(seed))
        # the engine's very game
        assert plain(out) == frozen("test_kernel_manual_playout")[f"{name}/{players}/{seed}"]["playout"], (name, seed)
        assert type(k) is KState and k.is_over, (name, seed)
        assert out.scores == k.scores() and out.winners == k.winners()
        if waited:
            assert out.chances > 0
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


def freeze(engine) -> dict:
    """The engine's playouts of the walks above (run by tests/tools/freeze_engine.py while it lived)."""
    out = {}
    for name, players in _manual_cases():
        g = bundled_game(name)
        for seed, steps in WALKS:
            e = _walk(g, players, seed, steps, engine.start(g, players, seed, "manual"))
            out[f"{name}/{players}/{seed}"] = {"history": e.history, "playout": e.playout(random.Random(seed))}
    return out

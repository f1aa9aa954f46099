"""Values of defines are kept until what they read changes (the compiler works out what each
define reads; a move forgets only the defines that read the zones it touched, and a define of one
argument only its value for the zone it reads at that argument).  A kept value that outlived a
change would make a view, a legal list or a score differ from a state that works everything out
afresh: at every step of seeded random games of every ruleset, a clone (which keeps no values)
must see exactly what the state sees."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import CHANCE, SIMULTANEOUS


def observe(s):
    seen = [s.view(p) for p in [None, *range(s.n)]]
    if s.current == SIMULTANEOUS:
        seen += [[a.text for a in s.legal_actions(p)] for p in s.waiting]
    elif s.current not in (None, CHANCE):
        seen.append([a.text for a in s.legal_actions()])
    return seen, s.scores(), s.winners() if s.is_over else None


@pytest.mark.parametrize("name", sorted(fishrules.bundled()))
def test_kept_define_values_never_outlive_a_change(name):
    game = fishrules.load(name)
    for players, seed in ((game.min_players, 1), (game.max_players, 2)):
        s = game.start(players, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not s.is_over and steps < 400:
            assert observe(s) == observe(s.clone()), (players, seed, steps)
            p = s.waiting[0] if s.current == SIMULTANEOUS else None
            acts = s.legal_actions(p)
            s.apply(acts[rng.randrange(len(acts))])
            steps += 1
        assert observe(s) == observe(s.clone())

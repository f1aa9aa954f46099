"""The game kernel plays exactly the engine's games.

Every bundled ruleset and overlay, at every player count: a kernel playout and the engine's API
loop, both choosing by the kernel's choice generator (`fishrules.kernel.reference`), reach the same
scores, winners, number of decisions and of chance outcomes; stepped one decision at a time, the
kernel offers exactly the engine's legal actions, in the engine's order, at every decision.
"""

from __future__ import annotations

import pytest

import fishrules
from fishrules.kernel import layout as L
from fishrules.kernel.boundary import Boundary
from fishrules.kernel.lower import lower
from fishrules.kernel.machine import PyBackend
from fishrules.kernel.pyruntime import below, decision_seed
from fishrules.kernel.reference import reference_playout
from fishrules.runtime import SIMULTANEOUS

RULESETS = fishrules.bundled()
_backends: dict = {}


def backend(name: str) -> tuple:
    if name not in _backends:
        g = fishrules.load(name)
        kp = lower(g._model, g._program)
        _backends[name] = (g, kp, PyBackend(kp))
    return _backends[name]


def kernel_playout(be, g, players: int, seed: int, options=None) -> tuple:
    S = be.new(players, g._options(options), seed)
    be.start(S, True)
    return be.scores(S), be.winners(S), S[L.H_DECISIONS], S[L.H_CHANCES]


@pytest.mark.parametrize("name", RULESETS)
def test_playouts_are_the_engines_games(name):
    g, kp, be = backend(name)
    for players in range(g.min_players, g.max_players + 1):
        for seed in (1, 2, 3):
            want = reference_playout(g, players, seed)
            assert kernel_playout(be, g, players, seed) == tuple(want), (players, seed)


@pytest.mark.parametrize("name", RULESETS)
def test_every_decision_offers_the_engines_actions(name):
    g, kp, be = backend(name)
    bd = Boundary(kp, g._program)
    for players in (g.min_players, g.max_players):
        seed = 11 + players
        ref = g.start(players=players, seed=seed)
        S = be.new(players, g._options(None), seed)
        be.start(S, False)
        ds, dd = decision_seed(seed), 0
        while not ref.is_over:
            assert S[L.H_CUR] != L.CUR_OVER
            if ref.current == SIMULTANEOUS:
                who = be.who_together(S)
                assert list(who) == ref.waiting
                chosen = []
                for p in who:
                    moves = be.moves(S, p)
                    acts = ref.legal_actions(p)
                    assert [bd.text(mv, True) for mv in moves] == [a.text for a in acts]
                    k, dd = below(ds, dd, len(acts))
                    chosen.append(moves[k])
                    ref.apply(acts[k])
                be.play_together(S, tuple(chosen))
            else:
                assert S[L.H_CUR] == ref.current
                moves = be.moves(S, ref.current)
                acts = ref.legal_actions()
                assert [bd.text(mv) for mv in moves] == [a.text for a in acts]
                k, dd = below(ds, dd, len(acts))
                be.play(S, moves[k])
                ref.apply(acts[k])
        assert S[L.H_CUR] == L.CUR_OVER
        assert be.scores(S) == ref.scores() and be.winners(S) == ref.winners()

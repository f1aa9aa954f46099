"""Chance handed to the generator while the kernel waits for it by hand, and `Game.replay` with a
seed that is not the history's own: the state stays a position of the kernel (a `KState`) and is,
field for field and move for move, the engine twin's (`State._new`)."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules.kernel import ir
from fishrules.runtime import CHANCE, SIMULTANEOUS, State

from ._twins import NATIVE, bundled_game, kernel

pytestmark = pytest.mark.skipif(not NATIVE, reason="no C compiler here")

RULESETS = list(fishrules.bundled())


def _has(name: str, kind: type) -> bool:
    return any(isinstance(s, kind) for f in kernel(name, "python").program.functions for s in ir.walk_stmts(f.body))


#: a ruleset that rolls dice and one that draws from a shuffled zone (the first of each)
ROLLS = next(n for n in RULESETS if _has(n, ir.Roll))
DRAWS = next(n for n in RULESETS if _has(n, ir.Draw))
CHANCY = sorted({ROLLS, DRAWS})


def _step(k, e, rng) -> None:
    """One step played on both: a chance outcome, or each waiting player's action."""
    if e.current == CHANCE:
        outs = e.chance_outcomes()
        a = outs[rng.randrange(len(outs))][0]
        k.apply(a.text)
        e.apply(a)
        return
    for p in (list(e.waiting) if e.current == SIMULTANEOUS else [None]):
        acts = e.legal_actions(p)
        j = rng.randrange(len(acts))
        k.apply(k.legal_actions(p)[j])
        e.apply(acts[j])


def _same(k, e) -> None:
    assert type(k).__name__ == "KState"
    assert (k.current, k.draws, k.history, k.is_over) == (e.current, e.draws, e.history, e.is_over)
    assert k.view(None) == e.view(None)
    assert k.to_dict() == e.to_dict()


def _mid_group(S) -> bool:
    """A die waited for that is not its group's first (the rest of the group left to roll)."""
    from fishrules.kernel import abi as A

    return S[A.H_CHANCE] == A.CHANCE_DIE and S[A.H_CHANCE_B] > 0


@pytest.mark.parametrize("name", CHANCY)
def test_chance_handed_to_the_generator_at_a_wait_stays_on_the_kernel(name):
    """`state.manual = False` at each of the first chance waits, in turn: the waited outcome then
    given by hand, or none (`_run`, as `replay` goes on); the rest of the roll or draw is the
    generator's, with the engine's draws, and the game goes on as the engine's."""
    g = bundled_game(name)
    players = g.min_players
    mid = 0
    for when in range(8):
        for by_hand in (True, False):
            rng = random.Random(when)
            k = g.start(players=players, seed=5, chance="manual")
            e = State._new(g, players, g._options(None), 5, True)
            waits = 0
            while not e.is_over and len(e.history) < 60:
                if e.current == CHANCE and k.manual:
                    waits += 1
                    if waits == when + 1:
                        mid += _mid_group(k._ks[1])
                        k.manual = e.manual = False
                        _same(k, e)
                        if not by_hand:
                            k._run()
                            e._run()
                            _same(k, e)
                            continue
                _step(k, e, rng)
                assert type(k).__name__ == "KState"
            _same(k, e)
    if name == ROLLS:
        assert mid, "no wait was handed over in the middle of a group of dice"


@pytest.mark.parametrize("name", CHANCY)
def test_a_seeded_world_drawn_at_a_chance_wait_stays_on_the_kernel(name):
    g = bundled_game(name)
    players = g.min_players
    rng = random.Random(2)
    k = g.start(players=players, seed=9, chance="manual")
    e = State._new(g, players, g._options(None), 9, True)
    waits = 0
    while not e.is_over and waits < 4:
        if e.current == CHANCE:
            waits += 1
            dk = k.determinize(0, random.Random(waits), "seeded")
            de = e.determinize(0, random.Random(waits), "seeded")
            assert type(dk).__name__ == "KState"
            play = random.Random(waits)
            for _ in range(20):
                if de.is_over:
                    break
                _step(dk, de, play)
                assert type(dk).__name__ == "KState"
                assert (dk.current, dk.draws, dk.history) == (de.current, de.draws, de.history)
                assert dk.view(None) == de.view(None)
        _step(k, e, rng)
    assert waits == 4


def _engine_replay(g, history, players, seed):
    """`Game.replay(history, seed=seed)` done by hand on the engine's machine (runtime/saving.py)."""
    s = State._new(g, players, g._options(None), seed, True)
    for text in history:
        if s.current == CHANCE:
            s._consume_chance_draws()
        s.apply(text)
    s.manual = False
    if s.current == CHANCE:
        s._run()
    return s


@pytest.mark.parametrize("name", CHANCY)
def test_replay_with_a_seed_not_the_historys_stays_on_the_kernel(name):
    """A seeded game's history replayed with other seeds, cut after each of its chance outcomes
    (in the middle of a group of dice too): the kernel's state is the engine's, and goes on as it."""
    g = bundled_game(name)
    players = g.min_players
    rng = random.Random(1)
    e = State._new(g, players, g._options(None), 100, False)
    while not e.is_over and len(e.history) < 50:
        for p in (list(e.waiting) if e.current == SIMULTANEOUS else [None]):
            acts = e.legal_actions(p)
            e.apply(acts[rng.randrange(len(acts))])
    history = list(e.history)
    cuts = list(range(1, len(history) + 1))[:: max(1, len(history) // 12)] + [len(history)]
    for cut in cuts:
        for seed in (7, 101):
            k = g.replay(history[:cut], players=players, seed=seed)
            r = _engine_replay(g, history[:cut], players, seed)
            _same(k, r)
            play = random.Random(cut)
            for _ in range(15):
                if r.is_over:
                    break
                _step(k, r, play)
            _same(k, r)


@pytest.mark.parametrize("name", CHANCY)
def test_a_state_handed_to_the_generator_at_a_wait_saves_copies_and_plays_out_as_the_engines(name):
    """At such a wait: a clone and the state its JSON reads back are KStates equal to it and to the
    engine's; a playout is the engine's game from the same `rng` (its outcomes drawn as the engine's)."""
    g = bundled_game(name)
    for outcomes in (0, 2):
        k = g.start(players=2, seed=3, chance="manual")
        e = State._new(g, 2, g._options(None), 3, True)
        for _ in range(outcomes):
            a = e.chance_outcomes()[0][0]
            k.apply(a.text)
            e.apply(a)
        k.manual = e.manual = False
        assert k.current == CHANCE
        c = k.clone()
        assert type(c).__name__ == "KState" and c == k
        back = g.state_from_json(k.to_json())
        assert type(back).__name__ == "KState" and back == k
        _same(back, e)
        for seed in (1, 2):
            p, q = k.clone().playout(random.Random(seed)), e.clone().playout(random.Random(seed))
            assert (p.scores, p.winners, p.decisions, p.chances) == (q.scores, q.winners, q.decisions, q.chances)
        _same(k, e)

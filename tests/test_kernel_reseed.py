"""Chance handed to the generator while the kernel waits for it by hand, and `Game.replay` with a
seed that is not the history's own: the state stays a position of the kernel (a `KState`) and is,
field for field and move for move, the engine's game (its answers frozen while it lived:
tests/golden/engine/test_kernel_reseed.json, each test's `_play_*` run on the engine by `freeze`)."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules.kernel import ir
from fishrules.runtime import CHANCE, SIMULTANEOUS

from ._frozen import digest, frozen, plain
from ._twins import NATIVE, bundled_game, kernel

pytestmark = pytest.mark.skipif(not NATIVE, reason="no C compiler here")

RULESETS = list(fishrules.bundled())


def _has(name: str, kind: type) -> bool:
    return any(isinstance(s, kind) for f in kernel(name, "python").program.functions for s in ir.walk_stmts(f.body))


#: a ruleset that rolls dice and one that draws from a shuffled zone (the first of each)
ROLLS = next(n for n in RULESETS if _has(n, ir.Roll))
DRAWS = next(n for n in RULESETS if _has(n, ir.Draw))
CHANCY = sorted({ROLLS, DRAWS})


def _step(s, rng) -> None:
    """One random step: a chance outcome, or each waiting player's action."""
    if s.current == CHANCE:
        outs = s.chance_outcomes()
        s.apply(outs[rng.randrange(len(outs))][0].text)
        return
    for p in (list(s.waiting) if s.current == SIMULTANEOUS else [None]):
        acts = s.legal_actions(p)
        s.apply(acts[rng.randrange(len(acts))])


def seen(s) -> str:
    """What is compared of a state with the engine's at a step (a digest: the golden file keeps it):
    whose turn, the draws, the history, whether it is over, the public view and the whole saved form."""
    return digest(plain([s.current, s.draws, s.history, s.is_over, s.view(None), s.to_dict()]))


def on_kernel(s) -> None:
    assert type(s).__name__ == "KState"


def _same(got: list, want: list, where: str) -> None:
    """The kernel's states at each step compared (`seen`) are the engine's."""
    for step, (mine, engine) in enumerate(zip(got, want)):
        assert mine == engine, f"{where}: unlike the engine's game at compared step {step}"
    assert len(got) == len(want), f"{where}: {len(got)} steps compared, the engine's game {len(want)}"


def _mid_group(S) -> bool:
    """A die waited for that is not its group's first (the rest of the group left to roll)."""
    from fishrules.kernel import abi as A

    return S[A.H_CHANCE] == A.CHANCE_DIE and S[A.H_CHANCE_B] > 0


def _play_handed(s, when: int, by_hand: bool, check=lambda s: None, mid: list | None = None) -> list:
    """`s` (chance by hand) played at random; at its `when`+1-th chance wait, chance handed to the
    generator, and the waited outcome given by hand, or none (`_run`, as `replay` goes on)."""
    rng = random.Random(when)
    out: list = []
    waits = 0
    while not s.is_over and len(s.history) < 60:
        if s.current == CHANCE and s.manual:
            waits += 1
            if waits == when + 1:
                if mid is not None:
                    mid.append(_mid_group(s._ks[1]))
                s.manual = False
                out.append(seen(s))
                if not by_hand:
                    s._run()
                    out.append(seen(s))
                    continue
        _step(s, rng)
        check(s)
    out.append(seen(s))
    return out


@pytest.mark.parametrize("name", CHANCY)
def test_chance_handed_to_the_generator_at_a_wait_stays_on_the_kernel(name):
    """`state.manual = False` at each of the first chance waits, in turn: the waited outcome then
    given by hand, or none (`_run`, as `replay` goes on); the rest of the roll or draw is the
    generator's, with the engine's draws, and the game goes on as the engine's."""
    g = bundled_game(name)
    want = frozen("test_kernel_reseed")["handed"][name]
    mid: list = []
    for when in range(8):
        for by_hand in (True, False):
            k = g.start(players=g.min_players, seed=5, chance="manual")
            got = _play_handed(k, when, by_hand, on_kernel, mid)
            _same(got, want[f"{when}/{by_hand}"], f"wait {when + 1}, by hand {by_hand}")
    if name == ROLLS:
        assert any(mid), "no wait was handed over in the middle of a group of dice"


def _play_world(s, check=lambda s: None) -> list:
    """`s` (chance by hand) played at random; at each of its first four chance waits, a seeded world
    drawn for p0 and played at random (what is compared at each of its steps)."""
    rng = random.Random(2)
    out: list = []
    waits = 0
    while not s.is_over and waits < 4:
        if s.current == CHANCE:
            waits += 1
            d = s.determinize(0, random.Random(waits), "seeded")
            check(d)
            play = random.Random(waits)
            for _ in range(20):
                if d.is_over:
                    break
                _step(d, play)
                check(d)
                out.append(digest(plain([d.current, d.draws, d.history, d.view(None)])))
        _step(s, rng)
    assert waits == 4
    return out


@pytest.mark.parametrize("name", CHANCY)
def test_a_seeded_world_drawn_at_a_chance_wait_stays_on_the_kernel(name):
    g = bundled_game(name)
    got = _play_world(g.start(players=g.min_players, seed=9, chance="manual"), on_kernel)
    _same(got, frozen("test_kernel_reseed")["world"][name], "the worlds drawn at the waits")


def _play_replay(replay, history: list) -> list:
    """`history` replayed with other seeds (`replay(history, seed)`), cut after each of its chance
    outcomes (in the middle of a group of dice too), each then played on at random."""
    cuts = list(range(1, len(history) + 1))[:: max(1, len(history) // 12)] + [len(history)]
    out: list = []
    for cut in cuts:
        for seed in (7, 101):
            s = replay(history[:cut], seed)
            out.append(seen(s))
            play = random.Random(cut)
            for _ in range(15):
                if s.is_over:
                    break
                _step(s, play)
            out.append(seen(s))
    return out


@pytest.mark.parametrize("name", CHANCY)
def test_replay_with_a_seed_not_the_historys_stays_on_the_kernel(name):
    """A seeded game's history (the engine's, frozen) replayed with other seeds, cut after each of
    its chance outcomes (in the middle of a group of dice too): the kernel's state is the engine's,
    and goes on as it."""
    g = bundled_game(name)
    want = frozen("test_kernel_reseed")["replay"][name]

    def replay(history, seed):
        k = g.replay(history, players=g.min_players, seed=seed)
        on_kernel(k)
        return k

    _same(_play_replay(replay, want["history"]), want["seen"], "replayed")


def _play_handed_at_start(g, s, outcomes: int, check=lambda s: None) -> list:
    """`s` (chance by hand) after `outcomes` first chance outcomes, chance handed to the generator:
    it, the state its JSON reads back, and its playouts from `rng` seeded 1 and 2."""
    for _ in range(outcomes):
        s.apply(s.chance_outcomes()[0][0].text)
    s.manual = False
    assert s.current == CHANCE
    c = s.clone()
    check(c)
    assert c == s
    back = g.state_from_json(s.to_json())
    check(back)
    assert back == s
    out = [seen(back)]
    for seed in (1, 2):
        p = s.clone().playout(random.Random(seed))
        out.append(digest(plain([p.scores, p.winners, p.decisions, p.chances])))
    out.append(seen(s))
    return out


@pytest.mark.parametrize("name", CHANCY)
def test_a_state_handed_to_the_generator_at_a_wait_saves_copies_and_plays_out_as_the_engines(name):
    """At such a wait: a clone and the state its JSON reads back are KStates equal to it and to the
    engine's; a playout is the engine's game from the same `rng` (its outcomes drawn as the engine's)."""
    g = bundled_game(name)
    for outcomes in (0, 2):
        got = _play_handed_at_start(g, g.start(players=2, seed=3, chance="manual"), outcomes, on_kernel)
        _same(got, frozen("test_kernel_reseed")["saved"][name][str(outcomes)], f"after {outcomes} outcomes")


def freeze(engine) -> dict:
    """What the engine answered (run by tests/tools/freeze_engine.py while it lived): each test's
    `_play_*` on the engine's machine."""
    def engine_replay(g, players):
        """`Game.replay(history, seed=seed)` done by hand on the engine's machine (runtime/saving.py)."""
        def replay(history, seed):
            s = engine.start(g, players, seed, "manual")
            for text in history:
                if s.current == CHANCE:
                    s._consume_chance_draws()
                s.apply(text)
            s.manual = False
            if s.current == CHANCE:
                s._run()
            return s
        return replay

    out: dict = {"handed": {}, "world": {}, "replay": {}, "saved": {}}
    for name in CHANCY:
        g = bundled_game(name)
        players = g.min_players
        out["handed"][name] = {f"{when}/{by_hand}": _play_handed(engine.start(g, players, 5, "manual"), when, by_hand)
                               for when in range(8) for by_hand in (True, False)}
        out["world"][name] = _play_world(engine.start(g, players, 9, "manual"))
        e, rng = engine.start(g, players, 100), random.Random(1)
        while not e.is_over and len(e.history) < 50:
            for p in (list(e.waiting) if e.current == SIMULTANEOUS else [None]):
                acts = e.legal_actions(p)
                e.apply(acts[rng.randrange(len(acts))])
        out["replay"][name] = {"history": e.history, "seen": _play_replay(engine_replay(g, players), e.history)}
        out["saved"][name] = {str(n): _play_handed_at_start(g, engine.start(g, 2, 3, "manual"), n) for n in (0, 2)}
    return out

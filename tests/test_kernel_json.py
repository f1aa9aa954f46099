"""Saved states without the engine (issue 32, step 5e): `fishrules-state/2`.

A state deciding on the kernel (`KState`) writes its JSON from its record and its kernel position,
and stays on the kernel; the engine's own states write the same JSON (their position worked out on
the kernel); a saved state is read back onto the kernel where the game's states are the kernel's,
and plays on exactly as the original.  `fishrules-state/1` files (written by the engine before /2,
kept in tests/states/v1.json) are still read.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import fishrules
from fishrules.kernel.apistate import KState

from ._twins import engine_start

ROOT = Path(__file__).resolve().parent.parent
RULESETS = sorted(p.stem for p in (ROOT / "rulesets").glob("*.fish"))
V1 = json.loads((Path(__file__).resolve().parent / "states" / "v1.json").read_text())

_games: dict = {}


def game(name: str, backend: str):
    if (name, backend) not in _games:
        _games[name, backend] = fishrules.load(name, backend=backend)
    return _games[name, backend]


def choices(s) -> list:
    if s.current == fishrules.SIMULTANEOUS:
        return [a for p in s.waiting for a in s.legal_actions(p)]
    return s.legal_actions()


def play(s, rng: random.Random, steps: int):
    for _ in range(steps):
        if s.is_over:
            break
        s.apply(rng.choice(choices(s)))
    return s


def texts(s) -> list:
    if s.is_over:
        return []
    if s.current == fishrules.SIMULTANEOUS:
        return [[a.text for a in s.legal_actions(p)] for p in s.waiting]
    return [a.text for a in s.legal_actions()]


def plays_on_alike(a, b, seed: int) -> None:
    """`a` and `b` go on alike: the same legal actions, history and scores after the same moves."""
    ra, rb = random.Random(seed), random.Random(seed)
    for _ in range(12):
        assert texts(a) == texts(b)
        assert a.history == b.history and a.scores() == b.scores() and a.current == b.current
        if a.is_over:
            break
        a.apply(ra.choice(choices(a)).text)
        b.apply(rb.choice(choices(b)).text)
    assert a.history == b.history and a.scores() == b.scores() and a.winners() == b.winners()


def on_kernel(g, chance: str) -> bool:
    """Whether this game's states (of this chance) are the kernel's: on either backend, the
    Python one too (its spelling of the kernel), where the kernel can wait for chance by hand."""
    return g.backend in ("native", "python") and (chance == "seeded" or g.kernel.manual_chance)


@pytest.mark.parametrize("name", RULESETS)
def test_round_trips_on_both_backends(name):
    by_backend = {b: game(name, b) for b in ("python", "native")}
    g = by_backend["native"]
    for players in sorted({g.min_players, g.max_players}):
        for chance in ("seeded", "manual"):
            saved: dict = {}
            for backend, g in by_backend.items():
                s = g.start(players, seed=3, chance=chance)
                rng = random.Random(players)
                kernel = type(s) is KState
                assert kernel == on_kernel(g, chance)
                for at in range(4):
                    play(s, rng, 1 + 5 * at)
                    text = s.to_json()
                    assert (type(s) is KState) == kernel, "to_json keeps a state on the kernel"
                    data = json.loads(text)
                    assert data["format"] == "fishrules-state/2"
                    # no position: a choice made in part, or chance by hand the kernel cannot wait for
                    assert isinstance(data["position"], list) or s.current == fishrules.SIMULTANEOUS or (
                        s.current == fishrules.CHANCE and not g.kernel.manual_chance)
                    saved.setdefault(backend, []).append(text)
                    for other in by_backend.values():  # read back by either backend
                        back = other.state_from_json(text)
                        assert back.to_json() == text
                        if other is g:
                            assert back == s and s == back
                            assert (type(back) is KState) == on_kernel(g, chance)
            # the same game saves the same JSON on either backend
            assert saved["python"] == saved["native"], (players, chance)


@pytest.mark.parametrize("name", RULESETS)
def test_a_state_read_back_plays_on_like_the_original(name):
    g = game(name, "native")
    for players in sorted({g.min_players, g.max_players}):
        for chance in ("seeded", "manual"):
            s = play(g.start(players, seed=8, chance=chance), random.Random(1), 9)
            back = g.state_from_json(s.to_json())
            assert (type(back) is KState) == on_kernel(g, chance)
            # the generator goes on as the original's: seeded chance to come comes out the same
            assert (back.seed, back.draws, back.manual) == (s.seed, s.draws, s.manual)
            plays_on_alike(s, back, players)
            if on_kernel(g, chance):
                assert type(back) is KState and type(s) is KState


@pytest.mark.parametrize("name", ["fishfry", "fishfish", "fatfish"])
def test_a_replayed_state_read_back(name):
    # a history replayed by hand, then seeded: its seed does not play its history's chance, so it is
    # read back by hand too (on the kernel where its chance is dice), and goes on as the original
    g = game(name, "native")
    s = play(g.start(2, seed=5), random.Random(2), 12)
    r = g.replay(s.history, players=2, seed=77)
    text = r.to_json()
    back = g.state_from_json(text)
    assert back == r and back.to_json() == text
    assert (type(back) is KState) == g.kernel.manual_chance
    plays_on_alike(r, back, 3)


def test_the_generator_of_a_state_on_the_kernel():
    # setting seed or draws leaves a state on the kernel, and chance goes on from them exactly as on
    # the engine's own machine
    k = game("fishfry", "native")
    a, b = play(k.start(2, seed=1), random.Random(4), 6), play(engine_start(k, 2, 1), random.Random(4), 6)
    assert type(a) is KState and type(b) is not KState
    for s in (a, b):
        s.draws = 3
        s.seed = 12345
    assert type(a) is KState and (a.seed, a.draws) == (b.seed, b.draws) == (12345, 3)
    assert a.to_json() == b.to_json()
    plays_on_alike(a, b, 9)
    back = k.state_from_json(a.to_json())
    assert type(back) is KState
    plays_on_alike(a, back, 9)


def test_a_choice_made_in_part():
    # a simultaneous choice some have made: its position is saved (the moves chosen so far, in
    # the position), the state stays on the kernel and is read back as it was
    g = game("fisheatfish", "native")
    s = g.start(g.max_players, seed=2)
    rng = random.Random(0)
    for _ in range(200):
        if s.current == fishrules.SIMULTANEOUS or s.is_over:
            break
        play(s, rng, 1)
    assert s.current == fishrules.SIMULTANEOUS
    p = s.waiting[0]
    s.apply(s.legal_actions(p)[0])
    assert type(s) is KState and s.current == fishrules.SIMULTANEOUS and p not in s.waiting
    data = s.to_dict()
    assert data["position"] is not None and type(s) is KState
    back = g.state_from_json(json.dumps(data))
    assert back == s and back.to_dict() == data
    plays_on_alike(s, back, 4)


def test_equal_states_save_equal_json():
    for name in ("fishfry", "fisherman", "fisheatfish"):
        g = game(name, "native")
        s = play(g.start(g.max_players, seed=6), random.Random(6), 15)
        assert s.clone().to_json() == s.to_json() and type(s) is KState
        again = play(g.start(g.max_players, seed=6), random.Random(6), 15)
        assert again == s and again.to_json() == s.to_json()
        engine = play(engine_start(g, g.max_players, 6), random.Random(6), 15)
        assert engine.to_json() == s.to_json()


@pytest.mark.parametrize("key", sorted(V1))
def test_format_1_is_still_read(key):
    # files the engine wrote before /2: read by replay on either backend, as the position they saved
    f = V1[key]
    for backend in ("python", "native"):
        g = game(f["ruleset"], backend)
        back = g.state_from_json(f["json"])
        assert back.history == f["history"]
        assert back.current == f["current"]
        old = json.loads(f["json"])
        assert (back.seed, back.draws, back.manual) == (old["seed"], old["draws"], old["manual"])
        assert json.loads(back.to_json())["format"] == "fishrules-state/2"  # and written back as /2
        # the same game played again today: equal, and its JSON the same
        s = play(g.start(f["players"], seed=11, chance=f["chance"]), random.Random(5), f["steps"])
        assert s.history == f["history"]
        assert back == s and back.to_json() == s.to_json()
        plays_on_alike(s, back, 2)

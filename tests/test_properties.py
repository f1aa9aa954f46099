"""Random legal playouts of every Fishfry mode at every player count (Hypothesis).

Each playout must end, never raise, keep the game's invariants after every action, and be
reproduced exactly by replaying its history and by a JSON round trip.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fishrules
from fishrules import CHANCE

MODES = ["fishfry", "fishfry-total-points", "fishfry-first-to", "fishfry-keeper", "fishfry-tournament"]
MAX_ACTIONS = 50_000
MAX_TURN = 70  # HEAD, TAIL and three BODY 20: the most one turn (or one fish) can be worth

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def options_for(name: str, rng: random.Random) -> dict:
    opts = {}
    g = fishrules.load(name)
    if "fry_up" in g.options:
        opts["fry_up"] = rng.choice(["roller_eats", "everyone_fries"])
    if "rounds" in g.options:
        opts["rounds"] = rng.randint(1, 4)
    if "target" in g.options:
        opts["target"] = rng.choice([30, 100, 200])
    if "fish_limit" in g.options:
        opts["fish_limit"] = rng.randint(1, 3)
    return opts


def check_invariants(name: str, s: fishrules.State, opts: dict) -> None:
    v = s.view(None)
    catches = [row["catch"] for row in v["seats"]]
    assert s.scores() == [sum(c) for c in catches]
    for c in catches:
        assert all(0 <= x <= MAX_TURN for x in c), c
    if name == "fishfry-keeper":
        assert all(len(c) <= opts["fish_limit"] for c in catches)
        assert all(x >= 10 for c in catches for x in c)  # PANFISH alone are never kept
    if name == "fishfry":
        assert all(len(c) <= 1 for c in catches)  # one turn each in a single game
    assert len(v["dice"]) == 5
    cur = s.current
    if s.is_over:
        assert cur is None and s.legal_actions() == []
    elif cur == CHANCE:
        outs = s.chance_outcomes()
        assert outs and sum(p for _, p in outs) == 1
    else:
        assert 0 <= cur < s.n and s.legal_actions()
        # legal lists are memoised by what legality reads; they must equal a fresh enumeration
        fr, info = s._pause()
        fresh = s._enumerate_fresh(info, fr[2][info.slot]).actions()
        assert [str(a) for a in s.legal_actions()] == [str(a) for a in fresh]


def check_end(name: str, s: fishrules.State, opts: dict) -> None:
    w = s.winners()
    assert w and all(0 <= p < s.n for p in w)
    sc = s.scores()
    if name == "fishfry":
        fryer = s.view(None)["values"]["fryer"]
        if fryer is not None:
            assert w == [fryer] and all(sc[p] == 0 for p in range(s.n) if p != fryer)
        else:
            assert len(w) == 1 and sc[w[0]] == max(sc)  # ties were replayed
    else:
        assert set(w) == {p for p in range(s.n) if sc[p] == max(sc)}
    if name == "fishfry-first-to":
        assert sc[w[0]] >= opts["target"] and len(w) == 1
    if name in ("fishfry-total-points", "fishfry-tournament"):
        # every turn of every round is recorded (a FISHFRY turn records nothing but adds a turn)
        turns = [len(c) for c in (row["catch"] for row in s.view(None)["seats"])]
        assert all(t <= opts["rounds"] * 6 for t in turns)


@pytest.mark.parametrize("name", MODES)
@SETTINGS
@given(players=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_seeded_random_playout(name, players, seed):
    game = fishrules.load(name)
    rng = random.Random(seed)
    opts = options_for(name, rng)
    s = game.start(players=players, seed=seed, options=opts)
    snapshot, snapshot_at = None, rng.randint(0, 40)
    n = 0
    while not s.is_over:
        check_invariants(name, s, opts)
        acts = s.legal_actions()
        s.apply(rng.choice(acts))
        n += 1
        assert n < MAX_ACTIONS, "the game does not end"
        if n == snapshot_at:
            snapshot = s.clone()
    check_invariants(name, s, opts)
    check_end(name, s, opts)
    # the history replays to the same state, with manual chance
    again = game.replay(s.history, players=players, options=opts)
    assert again == s and hash(again) == hash(s)
    assert again.scores() == s.scores() and again.winners() == s.winners()
    # and through JSON
    back = game.state_from_json(s.to_json())
    assert back == s and back.to_json() == s.to_json()
    # a mid-game state replayed with its seed continues exactly like the original
    if snapshot is not None and not snapshot.is_over:
        twin = game.replay(snapshot.history, players=players, options=opts, seed=seed)
        assert twin == snapshot
        r1, r2 = random.Random(1), random.Random(1)
        a, b = snapshot.clone(), twin
        for _ in range(30):
            if a.is_over:
                break
            a.apply(r1.choice(a.legal_actions()))
            b.apply(r2.choice(b.legal_actions()))
        assert a == b


@pytest.mark.parametrize("name", MODES)
@SETTINGS
@given(players=st.integers(2, 8), data=st.data())
def test_manual_chance_playout_explores_fishfries(name, players, data):
    """Chance chosen by Hypothesis, biased towards PANFISH so FISHFRY paths are played often."""
    game = fishrules.load(name)
    rng = random.Random(data.draw(st.integers(0, 1000)))
    opts = options_for(name, rng)
    s = game.start(players=players, chance="manual", options=opts)
    faces = st.sampled_from(["PANFISH", "PANFISH", "PANFISH", "HEAD", "TAIL", "BODY 5", "BODY 10", "BODY 20"])
    n = 0
    while not s.is_over:
        if s.current == CHANCE:
            die = s.chance_outcomes()[0][0].text.rsplit(" rolls ", 1)[0]
            face = data.draw(faces) if n < 400 else rng.choice(["HEAD", "TAIL", "BODY 5"])
            s.apply(f"{die} rolls {face}")
        else:
            s.apply(rng.choice(s.legal_actions()))
        n += 1
        assert n < MAX_ACTIONS
        check_invariants(name, s, opts)
    check_end(name, s, opts)
    assert game.replay(s.history, players=players, options=opts) == s


def test_clone_is_independent():
    game = fishrules.load("fishfry-keeper")
    s = game.start(players=3, seed=5)
    c = s.clone()
    rng = random.Random(0)
    while not c.is_over:
        c.apply(rng.choice(c.legal_actions()))
    assert s.history != c.history and not s.is_over
    assert s == game.replay(s.history, players=3)

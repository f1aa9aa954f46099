"""Positions that grow (issue 32, step 5f): a list the rules add to has room for LIST_CAPACITY
entries in a game's own kernel; a game that adds past it goes on in a roomier kernel of the same
rules (`Kernel.roomier`, tiers of `layout.ROOMS` up to the language's MAX_LIST_LENGTH), never on
the engine's machine: a state through the API stays a `KState` (its kernel changes, not its class)
and answers exactly as the engine did at every step (its answers frozen in
tests/golden/engine/test_kernel_capacity_growth.json by `freeze`, tests/tools/freeze_engine.py), whether a list outgrows its room in the
set-up, a move, a choice made together or chance given by hand; a state answers the same whichever
kernel holds it (equality, hash, JSON, views, observations, legal ids); `Kernel.playout` and
`simulate` play such games on both spellings without the engine.  Past MAX_LIST_LENGTH the
engine's own positioned error is raised in the kernel's words.
"""

from __future__ import annotations

import json
import random

import pytest

import fishrules
from fishrules.errors import RuleError
from fishrules.kernel import Kernel
from fishrules.kernel.abi import LIST_CAPACITY
from fishrules.kernel.apistate import KState
from fishrules.kernel.apistate import start as kernel_start
from fishrules.kernel.layout import ROOMS
from fishrules.limits import MAX_LIST_LENGTH
from fishrules.runtime import SIMULTANEOUS
from ._frozen import digests, freeze_game, frozen, plain, same_length, same_step
from ._twins import BACKENDS, NATIVE, outcome, watched_fallback, watched_twins

#: lists added to by the set-up (`setup` times 100 entries), by each move (`step`), after each roll
#: (`roll` times 50 or 100), by each choice made together (`pick`): the ways a list outgrows its
#: room.  (Options, so that one ruleset, built once for each room, plays every case.)
RULES = """\
game "Grow"
players 2 to 3
option setup: number from 0 to 9 = 0, "hundreds added in the set-up"
option rounds: number from 1 to 99 = 1, "rounds"
option step: number from 0 to 9 = 0, "hundreds added by a move"
option roll: number from 0 to 9 = 0, "fifties or hundreds added after a roll"
option pick: number from 0 to 9 = 0, "hundreds added by a choice made together"
cards deck: n from 1 to 100
dice: 1 with faces LOW 1, HIGH 2
the game has grown: list of numbers
the game has rolled: list of numbers
each player has mine: list of numbers
the game has kept: list of numbers
define total: sum(grown) + count(rolled)
phase game:
  set kept to n of (deck where n <= 3)
  repeat setup times:
    add n of deck to grown
  repeat rounds times:
    for each player:
      player chooses step
    roll dice
    repeat roll times:
      add n of (deck where n <= 50 * value of first(dice)) to rolled
    each of players secretly chooses pick
action step(k: a number from 1 to 3):
  repeat step times:
    add n of deck to grown
  add n of (deck where n <= k * 10) to your mine
action pick(x: a number from 1 to 2):
  repeat pick times:
    add n of deck to your mine
  add x to your mine
score "s": count(grown) + sum(your mine) + last(grown) + total + count(kept)
"""

#: a list the rules only set (past 128 entries)
ONLY_SET = """\
game "Set"
players 2 to 2
cards deck: n from 1 to 300
the game has xs: list of numbers
phase game:
  for each player:
    player chooses go
action go(k: a number from 1 to 2):
  set xs to n of (deck where n > k)
score "s": count(xs)
"""

_games: dict = {}


def game(backend: str = "native") -> fishrules.Game:
    if backend not in _games:
        _games[backend] = fishrules.loads(RULES, "grow.fish", backend=backend)
    return _games[backend]


def options(**amounts: int) -> dict:
    """The options of the game that adds `amounts` (setup, rounds, step, roll, pick)."""
    return game("python")._options(amounts)


@pytest.fixture
def twins(monkeypatch):
    """How often a KState asked the engine's machine (a twin of itself) for anything."""
    return watched_twins(monkeypatch)


_python: list = []


def begin(backend: str, seed: int, chance: str = "seeded", **amounts: int) -> KState:
    """A 2-player game of these rules through the API on `backend`: native, the game's own states;
    python, a KState on the kernel's Python spelling (`apistate.start` with that kernel)."""
    opts = options(**amounts)
    if backend == "native":
        return game("native").start(2, seed=seed, chance=chance, options=opts)
    if not _python:
        _python.append(Kernel(game("python"), "python"))
    return kernel_start(game("python"), 2, opts, seed, False, chance == "manual", kernel=_python[0])


def choices(s) -> list:
    return s.legal_actions(s.waiting[0]) if s.current == SIMULTANEOUS else s.legal_actions()


def room(s) -> int:
    """The room of the lists added to in the kernel holding KState `s`."""
    return s._ks[0].list_room


def test_a_kernel_and_its_roomier_variants():
    g = game("python")
    k = Kernel(g, "python")
    m = g.model
    slot = {v.name: ("g" if v in m.game_vars else "p", v.slot) for v in (*m.game_vars, *m.player_vars)}
    rooms = []
    while k is not None:
        cap = k.program.layout.list_cap
        assert cap[slot["grown"]] == cap[slot["rolled"]] == cap[slot["mine"]] == k.list_room
        assert cap[slot["kept"]] == 100  # a list only set: the longest value it is set to (a deck), in every variant
        rooms.append(k.list_room)
        k = k.roomier()
    assert tuple(rooms) == ROOMS and rooms[0] == LIST_CAPACITY and rooms[-1] == MAX_LIST_LENGTH
    # rules that add to no list have no roomier kernel
    only_set = fishrules.loads(ONLY_SET, "set.fish")
    assert Kernel(only_set, "python").roomier() is None


#: (what outgrows the room, the rules' amounts, the tier the game ends in, players)
CASES = [
    ("the set-up", dict(setup=2), ROOMS[1]),
    ("a move", dict(step=1), ROOMS[1]),
    ("chance", dict(roll=3), ROOMS[1]),
    ("a choice made together", dict(pick=2), ROOMS[1]),
    ("past 1,000", dict(step=1, rounds=6), ROOMS[2]),
    ("to 10,000", dict(setup=2, step=1, rounds=49), ROOMS[2]),
]


def seen(s) -> dict:
    """What a game of these rules is compared in at a step (before its move)."""
    return {"legal": [a.text for a in choices(s)], "current": s.current, "history": s.history, "scores": s.scores(),
            "view 0": s.view(0)}


def at_the_end(s) -> dict:
    return {"winners": s.winners(), "score_parts": s.score_parts(), "view": s.view(None), "json": s.to_json()}


def case_key(what: str, chance: str) -> str:
    return f"{what}/{chance}"


def play(s, want: dict, rng: random.Random) -> list:
    """Play `s` (on the kernel) to the end, checking at every step that it stays a KState and
    answers as the engine did; the texts applied."""
    applied: list = []
    while True:
        same_step(seen(s), want, len(applied), f"after {applied}")
        if s.is_over:
            break
        mine = choices(s)
        i = rng.randrange(len(mine))
        s.apply(mine[i].text if len(applied) % 3 == 2 else mine[i])  # (a text, and the kernel's own actions)
        applied.append(mine[i].text)
        assert type(s) is KState, applied
    same_length(len(applied), want, "the game")
    assert digests(plain(at_the_end(s))) == want["end"]
    return applied


def test_the_engines_answers_cover_every_case():
    assert sorted(frozen("test_kernel_capacity_growth")["outgrow"]) == sorted(
        case_key(what, chance) for what, _, _ in CASES for chance in ("seeded", "manual"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chance", ["seeded", "manual"])
@pytest.mark.parametrize("what,amounts,tier", CASES, ids=[c[0] for c in CASES])
def test_a_game_whose_lists_outgrow_their_room_stays_on_the_kernel(what, amounts, tier, chance, backend, twins):
    s = begin(backend, 3, chance, **amounts)
    assert type(s) is KState
    applied = play(s, frozen("test_kernel_capacity_growth")["outgrow"][case_key(what, chance)], random.Random(len(what)))
    assert room(s) == tier and not twins  # grown, and the engine never asked
    # a game that grew saves what the engine saved (`at_the_end`), and reads back as itself
    text = s.to_json()
    assert json.loads(text)["position"] is not None
    if backend == "native":  # (the game's own states: the native kernel's)
        back = game("native").state_from_json(text)
        assert type(back) is KState and back == s and hash(back) == hash(s) and back.to_json() == text
    # the same texts applied to a new game: the same state
    fresh = begin(backend, 3, chance, **amounts)
    for t in applied:
        fresh.apply(t)
    assert type(fresh) is KState and fresh == s and hash(fresh) == hash(s) and fresh.to_json() == text
    assert not twins


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_past_the_languages_limit_is_the_engines_error_in_the_kernels_words(backend, twins):
    # 100 + 49 rounds of 200 = 10,000 entries; the next move adds 100 more
    want = frozen("test_kernel_capacity_growth")["past the limit"]
    s = begin(backend, 5, setup=1, step=1, rounds=50)
    rng = random.Random(2)
    for _ in range(want["applied"]):  # (the moves the engine took)
        mine = choices(s)
        s.apply(mine[rng.randrange(len(mine))])
        assert type(s) is KState
    mine = choices(s)
    i = rng.randrange(len(mine))
    history = s.history
    assert want["error"][0] == "error" and "10,000" in want["error"][1]
    assert plain(outcome(lambda: s.apply(mine[i]))) == want["error"]  # the engine's error, position and hint
    assert type(s) is KState and room(s) == MAX_LIST_LENGTH and not twins  # in the kernel's own words
    assert s.history == history and [a.text for a in choices(s)] == want["legal"]  # put back
    assert plain(outcome(lambda: s.apply(mine[i].text))) == want["error"]


#: rules whose lists outgrow the room of the game's own kernel in every game, and the room they need
PLAYED = [(dict(step=1, rounds=3), ROOMS[1]), (dict(setup=2, roll=2), ROOMS[1]),
          (dict(step=1, rounds=8, pick=2), ROOMS[2])]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("amounts,tier", PLAYED, ids=["moves", "set-up and chance", "past 1,000"])
def test_whole_games_grow_without_the_engine(backend, amounts, tier):
    g, opts = game("python"), options(**amounts)
    kernel = Kernel(g, backend)
    calls = watched_fallback(kernel)
    seeds = list(range(6))
    for players in (2, 3):
        got = list(kernel.simulate(players, opts, seeds))
        assert not calls, "never the engine's machine"
        for seed in seeds[:2]:  # (the engine's very games)
            assert got[seed] == kernel.playout(players, opts, seed)
            assert plain(got[seed]) == frozen("test_kernel_capacity_growth")["whole games"][_played_key(amounts, players, seed)]
        calls.clear()
    built = kernel
    while built._roomier:  # (the roomier kernels built, each when a game first needed it)
        built = built._roomier
    assert built.list_room == tier and built.name == kernel.name


@pytest.mark.parametrize("backend", BACKENDS)
def test_whole_games_past_the_languages_limit_raise_the_engines_error(backend):
    g, opts = game("python"), options(setup=1, step=1, rounds=50)
    kernel = Kernel(g, backend)
    calls = watched_fallback(kernel)
    got = outcome(lambda: list(kernel.simulate(2, opts, [0, 1])))
    assert got[0] == "error" and "10,000" in got[1] and not calls
    assert plain(got) == frozen("test_kernel_capacity_growth")["whole games past the limit"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chance", ["seeded", "manual"])
def test_a_playout_that_grows_a_list_stays_on_the_kernel(chance, backend, twins):
    s = begin(backend, 1, chance, step=1, rounds=4, roll=1)
    s.apply(choices(s)[0])  # (still in the game's own kernel)
    assert room(s) == LIST_CAPACITY
    out = s.playout(random.Random(7))
    assert type(s) is KState and s.is_over and room(s) > LIST_CAPACITY and not twins
    assert (out.scores, out.winners) == (s.scores(), s.winners())
    # chance by hand: every random number drawn as the engine's playout drew it; seeded: the game
    # the engine played from the two seeds the kernel's playout draws from `rng` (`_played_on`)
    assert plain(out) == frozen("test_kernel_capacity_growth")["playout"][chance]


def _played_key(amounts: dict, players: int, seed: int) -> str:
    return f"{sorted(amounts.items())}/{players}/{seed}"


def test_where_a_roomier_kernel_would_be_too_large_the_engine_plays_on():
    """(About the engine's machine: it goes at step 6, and this test with it, or becomes an error.)"""
    # a hundred lists each of eight players adds to: room for 1,024 entries fits in a position,
    # for 10,000 (eight million numbers) it does not
    text = ("game \"Many\"\nplayers 2 to 8\ncards deck: n from 1 to 100\n"
            + "".join(f"each player has l{i}: list of numbers\n" for i in range(100))
            + "phase game:\n  repeat 12 times:\n    for each player:\n      player chooses go\n"
            "action go:\n  add n of deck to your l0\n" + "".join(f"  add 1 to your l{i}\n" for i in range(1, 100))
            + "score \"s\": count(your l0)\n")
    g = fishrules.loads(text, "many.fish")
    kernel = Kernel(g, "python")
    assert kernel.roomier() is not None and kernel.roomier().list_room == ROOMS[1]
    assert kernel.roomier().roomier() is None
    calls = watched_fallback(kernel.roomier())
    opts = g._options(None)
    got = kernel.playout(2, opts, 1)  # (1,200 entries: past the roomiest kernel that fits)
    assert len(calls) == 1 and got == kernel._fallback(2, opts, 1, 300)  # the engine's machine, as before


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("bot", ["MCTSBot", "ISMCTSBot"])
def test_a_bot_searches_a_state_that_grew_on_its_kernel(bot, twins):
    from fishrules import bots

    g = game("native")
    s = g.start(2, seed=1, options=options(step=1, rounds=3))
    while room(s) == LIST_CAPACITY or not isinstance(s.current, int):
        s.apply(choices(s)[0])
    chosen = getattr(bots, bot)(seed=1, iterations=30).choose(s, s.current)
    assert type(s) is KState and not twins  # searched in the state's own (roomier) kernel
    assert chosen.text in [a.text for a in s.legal_actions()]


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
def test_a_state_that_grew_determinizes_on_its_kernel(twins):
    g = game("native")
    s = g.start(2, seed=2, options=options(step=1, rounds=3))
    while room(s) == LIST_CAPACITY or not isinstance(s.current, int):
        s.apply(choices(s)[0])
    d = s.determinize(s.current, random.Random(3))
    assert type(d) is KState and type(s) is KState and room(d) == room(s)
    assert d.view(s.current) == s.view(s.current)
    d.apply(choices(d)[-1])
    assert type(d) is KState and not twins


# ---- the engine's answers, frozen (tests/tools/freeze_engine.py) -------------------------------------


def freeze(engine) -> dict:
    """What the engine answered in the games above (run by tests/tools/freeze_engine.py while the
    engine lived)."""
    from fishrules.limits import MAX_PLAYOUT_DECISIONS

    g = game("python")
    out: dict = {"outgrow": {}}
    for what, amounts, _ in CASES:
        for chance in ("seeded", "manual"):
            rng = random.Random(len(what))

            def move(e, rng=rng):
                its = choices(e)
                e.apply(its[rng.randrange(len(its))])
                return e

            e = engine.start(g, 2, 3, chance, options(**amounts))
            frozen_game = freeze_game(e, lambda e, step: seen(e), move)
            frozen_game["end"] = digests(plain(at_the_end(e)))
            out["outgrow"][case_key(what, chance)] = frozen_game
    e = engine.start(g, 2, 5, "seeded", options(setup=1, step=1, rounds=50))
    rng, applied = random.Random(2), 0
    while True:
        its = choices(e)
        error = outcome(lambda: e.apply(its[rng.randrange(len(its))]))
        if error != ("ok",):
            break
        applied += 1
    out["past the limit"] = {"applied": applied, "error": error, "legal": [a.text for a in choices(e)]}
    kernel = Kernel(g, "python")
    out["whole games"] = {_played_key(amounts, players, seed): engine.fallback(kernel, players, options(**amounts), seed, 300)
                          for amounts, _ in PLAYED for players in (2, 3) for seed in (0, 1)}
    out["whole games past the limit"] = outcome(
        lambda: engine.fallback(kernel, 2, options(setup=1, step=1, rounds=50), 0, 300))
    out["playout"] = {}
    for chance in ("seeded", "manual"):
        e = engine.start(g, 2, 1, chance, options(step=1, rounds=4, roll=1))
        e.apply(choices(e)[0])
        if chance == "manual":
            out["playout"][chance] = e.playout(random.Random(7))
        else:  # as `KState.playout(rng)` plays: two seeds from `rng` (`apistate._played_on`)
            rng = random.Random(7)
            cseed, dseed = rng.getrandbits(63), rng.getrandbits(63)
            e.seed, e.draws = cseed, 0
            got = engine.playout(g, 2, cseed, options(step=1, rounds=4, roll=1), state=e, dseed=dseed,
                                 limit=MAX_PLAYOUT_DECISIONS + 1)
            out["playout"][chance] = [got.scores, got.winners, got.decisions, got.chances]
    return out

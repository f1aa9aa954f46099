"""Positions that grow (issue 32, step 5f): a list the rules add to has room for LIST_CAPACITY
entries in a game's own kernel; a game that adds past it goes on in a roomier kernel of the same
rules (`Kernel.roomier`, tiers of `layout.ROOMS` up to the language's MAX_LIST_LENGTH), never on
the engine's machine: a state through the API stays a `KState` (its kernel changes, not its class)
and answers exactly as its engine twin at every step, whether a list outgrows its room in the
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
from fishrules.runtime import SIMULTANEOUS, State
from ._twins import BACKENDS, NATIVE, engine_start, outcome, watched_fallback, watched_twins

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


def play_both(s, e, rng: random.Random) -> list:
    """Play `s` (on the kernel) and its engine twin `e` to the end, alike, checking at every step
    that `s` stays a KState and answers as `e`; the texts applied."""
    applied = []
    while not e.is_over:
        mine, its = choices(s), choices(e)
        assert [a.text for a in mine] == [a.text for a in its]
        i = rng.randrange(len(its))
        s.apply(mine[i].text if len(applied) % 3 == 2 else mine[i])  # (a text, and the kernel's own actions)
        e.apply(its[i])
        applied.append(its[i].text)
        assert type(s) is KState, applied
        assert (s.current, s.history, s.scores(), s.view(0)) == (e.current, e.history, e.scores(), e.view(0)), applied
    assert s.is_over and (s.winners(), s.score_parts(), s.view(None)) == (e.winners(), e.score_parts(), e.view(None))
    return applied


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chance", ["seeded", "manual"])
@pytest.mark.parametrize("what,amounts,tier", CASES, ids=[c[0] for c in CASES])
def test_a_game_whose_lists_outgrow_their_room_stays_on_the_kernel(what, amounts, tier, chance, backend, twins):
    s = begin(backend, 3, chance, **amounts)
    e = engine_start(game("python"), 2, 3, chance, options(**amounts))
    assert type(s) is KState and type(e) is State
    applied = play_both(s, e, random.Random(len(what)))
    assert room(s) == tier and not twins  # grown, and the engine never asked
    # a game that grew saves what its engine twin saves, and reads back as itself
    text = s.to_json()
    assert json.loads(text)["position"] is not None and text == e.to_json()
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
    amounts = dict(setup=1, step=1, rounds=50)
    s, e = begin(backend, 5, **amounts), engine_start(game("python"), 2, 5, "seeded", options(**amounts))
    rng = random.Random(2)
    while True:
        mine, its = choices(s), choices(e)
        i = rng.randrange(len(its))
        want = outcome(lambda: e.apply(its[i]))
        if want != ("ok",):
            break
        s.apply(mine[i])
        assert type(s) is KState
    history = s.history
    assert want[0] == "error" and "10,000" in want[1]
    assert outcome(lambda: s.apply(mine[i])) == want  # the engine's error, position and hint
    assert type(s) is KState and room(s) == MAX_LIST_LENGTH and not twins  # in the kernel's own words
    assert s.history == history and [a.text for a in choices(s)] == [a.text for a in choices(e)]  # put back
    assert outcome(lambda: s.apply(mine[i].text)) == want


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chance", ["seeded", "manual"])
def test_a_position_answers_the_same_whichever_kernel_holds_it(chance, backend, twins):
    g, opts = game(backend), options(step=1, rounds=3, pick=1)
    space, spec = g.action_space(2, opts), g.observation_spec(2, opts)
    twins.clear()  # (the spaces start a game of their own, on the engine, to count its dice)
    s = begin(backend, 9, chance, step=1, rounds=3, pick=1)  # (a list passes 128 in its second move)
    rng = random.Random(4)
    while not s.is_over:
        moved = s.clone()
        if room(moved) < ROOMS[-1]:
            assert moved._grow()
        assert room(moved) > room(s)
        assert moved == s and s == moved and hash(moved) == hash(s) and moved.to_json() == s.to_json()
        assert type(moved) is KState
        for p in (None, 0, 1):
            assert moved.view(p) == s.view(p)
            assert moved.history_for(p) == s.history_for(p)
            if p is not None:
                assert moved.observation(p) == s.observation(p)
                assert moved.events_for(p) == s.events_for(p)
        who = s.waiting[0] if s.current == SIMULTANEOUS else None
        assert space.legal_ids(moved, who) == space.legal_ids(s, who)
        assert (moved.phase, moved.rules_fired, moved.empty_draws, moved.score_parts()) == (
            s.phase, s.rules_fired, s.empty_draws, s.score_parts())
        # an action listed by one kernel is taken by the other
        mine, theirs = choices(s), choices(moved)
        i = rng.randrange(len(mine))
        s.apply(theirs[i])
        moved.apply(mine[i])
        assert moved == s and type(s) is KState and type(moved) is KState
    assert len(spec.encode(s.view(0))) == len(s.observation(0))
    assert not twins


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
            assert got[seed] == kernel.playout(players, opts, seed) == kernel._fallback(players, opts, seed, 300)
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
    assert got == outcome(lambda: kernel._fallback(2, opts, 0, 300))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chance", ["seeded", "manual"])
def test_a_playout_that_grows_a_list_stays_on_the_kernel(chance, backend, twins):
    opts = options(step=1, rounds=4, roll=1)
    s = begin(backend, 1, chance, step=1, rounds=4, roll=1)
    s.apply(choices(s)[0])  # (still in the game's own kernel)
    assert room(s) == LIST_CAPACITY
    out = s.playout(random.Random(7))
    assert type(s) is KState and s.is_over and room(s) > LIST_CAPACITY and not twins
    assert (out.scores, out.winners) == (s.scores(), s.winners())
    if chance == "manual":  # chance by hand: every random number drawn as the engine's playout draws it
        e = engine_start(game("python"), 2, 1, chance, opts)
        e.apply(choices(e)[0])
        assert e.playout(random.Random(7)) == out
    else:  # the game the kernel played out, on the engine's machine: the same
        assert s._twin().scores() == out.scores


def test_where_a_roomier_kernel_would_be_too_large_the_engine_plays_on():
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

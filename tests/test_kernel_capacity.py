"""The kernel's room for lists: a list the rules only `set` gets room for the longest value it is
set to (`Bounds.list_lengths`, `Layout.list_cap`), so a list past the kernel's old 128 for all plays
on the kernel, both spellings, exactly as on the engine (up to MAX_LIST_LENGTH, the most cards a
game may have).  A list the rules add to keeps LIST_CAPACITY in a game's own kernel (see
`Layout._list_capacities` for why): past it, the game goes on in a roomier kernel of the same rules
(tests/test_kernel_capacity_growth.py).

The engine's answers are frozen in tests/golden/engine/test_kernel_capacity.json (`freeze`, run by
tests/tools/freeze_engine.py while the engine lived).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import fishrules
from fishrules.bounds import Bounds
from fishrules.kernel import Kernel
from fishrules.kernel.abi import LIST_CAPACITY
from fishrules.kernel.lower import lower
from fishrules.kernel.native import NativeError, compiler
from fishrules.limits import MAX_LIST_LENGTH
from ._frozen import digest, frozen, plain
from ._twins import watched_fallback

try:
    compiler()
    BACKENDS = ("python", "native")
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    BACKENDS = ("python",)

CORPUS = Path(__file__).resolve().parent / "hostile" / "corpus" / "rules"
LONG = CORPUS / "long-lists-set.fish"

#: a list set to every card's number, a player's list set to some of them; lists added to
RULES = """\
game "Lists"
players 2 to 3
cards deck: n from 1 to CARDS
the game has xs: list of numbers
each player has mine: list of numbers
the game has grown: list of numbers
the game has copied: list of numbers
phase game:
  set xs to n of deck
  repeat 2 times:
    for each player:
      player chooses keep
action keep(k: a number from 1 to 3):
  set your mine to n of (deck where n > k * 10)
  add k to grown
  set copied to grown
  remove first(xs) from xs
score "s": sum(your mine) + count(xs)
"""


def _rules(cards: int) -> fishrules.Game:
    return fishrules.loads(RULES.replace("CARDS", str(cards)), "lists.fish")


def test_a_list_only_set_is_bounded_by_what_it_is_set_to_and_one_added_to_is_not():
    g = _rules(700)
    m = g.model
    slot = {v.name: v.slot for v in (*m.game_vars, *m.player_vars)}
    lengths = Bounds(m, m.max_players, 0, {o.name: None for o in m.options}).list_lengths()
    assert lengths[("g", slot["xs"])] == 700
    assert lengths[("p", slot["mine"])] == 700
    assert lengths[("g", slot["grown"])] is None  # added to
    assert lengths[("g", slot["copied"])] is None  # set to a list no bound is known of
    cap = lower(m).layout.list_cap
    assert cap[("g", slot["xs"])] == cap[("p", slot["mine"])] == 700
    assert cap[("g", slot["grown"])] == cap[("g", slot["copied"])] == LIST_CAPACITY


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cards", [LIST_CAPACITY + 1, 700, MAX_LIST_LENGTH])
def test_lists_longer_than_128_play_on_the_kernel_as_on_the_engine(backend, cards):
    g = _rules(cards)
    kernel = Kernel(g, backend)
    calls = watched_fallback(kernel)
    opts = g._options(None)
    for seed in range(3):
        for n in (2, 3):
            got = kernel.playout(n, opts, seed)
            assert plain(got) == frozen("test_kernel_capacity")["long"][f"{cards}/{n}/{seed}"], (seed, n)  # the engine's game
    assert not calls  # the kernel never gave up


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_corpus_rules_with_long_lists_play_on_the_kernel(backend):
    g = fishrules.load(LONG)
    kernel = Kernel(g, backend)
    calls = watched_fallback(kernel)
    for seed in range(4):
        kernel.playout(4, g._options(None), seed)
    assert not calls


@pytest.mark.skipif("native" not in BACKENDS, reason="no C compiler")
def test_the_api_keeps_a_game_with_long_lists_on_the_native_kernel():
    text = LONG.read_text()
    kernel_game = fishrules.loads(text, "long.fish", backend="native")
    want = frozen("test_kernel_capacity")["api"]
    s = kernel_game.start(3, seed=11)
    legal = [[str(a) for a in s.legal_actions()] for _ in [0]]
    pick = random.Random(5)
    while not s.is_over:
        mine = s.legal_actions()
        s.apply(mine[pick.randrange(len(mine))])
        legal.append([str(a) for a in s.legal_actions()])
    assert type(s).__name__ == "KState"  # never handed to the engine's machine
    assert digest(legal) == want["legal"]  # the engine's legal actions at every step
    assert plain([s.history, s.scores(), s.view(0)]) == want["end"]


# ---- frames: a phase that plays itself, waiting deep inside ----------------------------------------

#: a phase that plays itself 40 deep, then waits in a loop over a list of 600 at each depth: a
#: frame of about 600 slots a depth, far past the 4,096 the kernel kept for blocks that call
#: themselves (the engine's machine then took the game over whenever it waited deep)
DEEP = """\
game "Deep"
players 2 to 2
cards deck: n from 1 to 600
the game has xs: list of numbers
the game has level: number
the game has total: number
phase game:
  set xs to n of deck
  play deeper
phase deeper:
  add 1 to level
  if level < 40:
    play deeper
  for each x in xs:
    if x < 3:
      for each player:
        player chooses go
action go(k: a number from 1 to 2):
  add k * level to total
score "s": total
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_game_waiting_deep_in_phases_that_play_themselves_keeps_its_frames(backend):
    from fishrules.kernel.abi import CUR_OVER

    g = fishrules.loads(DEEP, "deep.fish")
    be = Kernel(g, backend).backend
    S = be.new(2, g._options(None), 7)
    be.start(S, False)
    played = 0
    while S[0] != CUR_OVER:
        moves = be.moves(S, S[0])  # (a frame past the kernel's room: KFault(FAULT_CAPACITY))
        be.play(S, moves[played % len(moves)])
        played += 1
    assert played == 40 * 2 * 2


@pytest.mark.skipif("native" not in BACKENDS, reason="no C compiler")
def test_the_api_keeps_a_game_waiting_deep_on_the_native_kernel():
    s = fishrules.loads(DEEP, "deep.fish", backend="native").start(2, seed=1)
    while not s.is_over:
        s.apply(s.legal_actions()[-1])
    assert type(s).__name__ == "KState"
    assert plain([s.history, s.scores()]) == frozen("test_kernel_capacity")["deep"]  # the engine's game


def freeze(engine) -> dict:
    """What the engine answered in the games above (run by tests/tools/freeze_engine.py while the
    engine lived)."""
    out: dict = {"long": {}}
    for cards in (LIST_CAPACITY + 1, 700, MAX_LIST_LENGTH):
        g = _rules(cards)
        kernel = Kernel(g, "python")
        for seed in range(3):
            for n in (2, 3):
                out["long"][f"{cards}/{n}/{seed}"] = engine.fallback(kernel, n, g._options(None), seed, 300)
    g = fishrules.loads(LONG.read_text(), "long.fish", backend="python")
    e = engine.start(g, 3, 11)
    legal = [[str(a) for a in e.legal_actions()]]
    pick = random.Random(5)
    while not e.is_over:
        its = e.legal_actions()
        e.apply(its[pick.randrange(len(its))])
        legal.append([str(a) for a in e.legal_actions()])
    out["api"] = {"legal": digest(legal), "end": [e.history, e.scores(), e.view(0)]}
    e = engine.start(fishrules.loads(DEEP, "deep.fish", backend="python"), 2, 1)
    while not e.is_over:
        e.apply(e.legal_actions()[-1])
    out["deep"] = [e.history, e.scores()]
    return out

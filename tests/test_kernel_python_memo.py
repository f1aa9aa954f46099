"""The Python kernel keeps a define's values on the position across calls, as the engine keeps its
memo on its state (issue 32, step 6: the Python backend's gate, docs/performance.md).

A kept define (one that loops over something) is worked out once while nothing it reads changes:
listing the moves, playing one and listing the next are three calls into the kernel on one
position, played in place, and the values found in the first serve the others (the kernel used to
forget them at every call: Fish Eat Fish's `owner` was worked out 150,000 times in 84 games).
What it keeps are the values of the position the last call ended on: a call on any other
position (a clone, a copy, another state of a search, another kernel's) forgets them first, so
that no position is ever answered with another's values, and a caller that writes a position
between two calls says so (`PyBackend.forget`).  The work counted stays the engine's
(tests/test_kernel_work.py).
"""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.kernel import Kernel
from fishrules.kernel import abi as A
from fishrules.kernel.apistate import start as kernel_start

from ._twins import engine_start

RULES = """game "Memo"
players 2 to 3
board: circles from 1 to 30
  line 1, 2
the game has t: number
the game has u: number
define hot: count(circles where it > t)
phase game:
  repeat:
    for each player:
      player chooses pick or cool

action pick(a: a number from 1 to 5):
  require "far": hot > a
  add 1 to u

action cool:
  require "warm": u > 3
  add 1 to t
  set u to 0
"""


def _t_at(kernel) -> int:
    """Where the game value `t` is in a position of `kernel`."""
    slot = next(v.slot for v in kernel.program.model.game_vars if v.name == "t")
    return kernel.program.layout.g_index[slot]


def _counted(game, name: str):
    """A kernel of `game` on the Python spelling, and the list of the values of `t` each time the
    body of define `name` ran (its `_raw` function: a value kept is not worked out again)."""
    kernel = Kernel(game, "python")
    ns = kernel.backend.ns
    raw_name = f"d{list(game.model.defines).index(name)}_raw"
    raw, t = ns[raw_name], _t_at(kernel)
    runs: list = []

    def counting(S, *args):
        runs.append(S[t])
        return raw(S, *args)

    ns[raw_name] = counting
    return kernel, runs


def _start(game, kernel, players: int = 2, seed: int = 3):
    return kernel_start(game, players, game._options(None), seed, False, kernel=kernel)


def _pick(state) -> None:
    state.apply(next(a for a in state.legal_actions() if a.text.startswith("pick")))


def test_a_define_is_worked_out_once_while_what_it_reads_stands():
    game = fishrules.loads(RULES, "memo.fish", backend="python")
    kernel, runs = _counted(game, "hot")
    s = _start(game, kernel)
    assert type(s).__name__ == "KState"
    for _ in range(4):  # u goes 1 to 4 (`cool` is offered once u > 3), `hot` read at every listing
        _pick(s)
    # the set-up, four moves and the listings after each: one value of `hot` (t has not
    # changed); the kernel used to work it out at each of these nine calls
    assert len(runs) == 1, runs
    s.apply("cool")  # t changes: `hot` is worked out again, once, for the next listings
    for _ in range(3):
        _pick(s)
    assert runs == [0, 1], runs


def test_each_position_works_its_values_out_for_itself():
    # a clone is another position (the engine's clone starts with an empty memo): listing its
    # moves works `hot` out again, and so does the original's next call after it
    game = fishrules.loads(RULES, "memo.fish", backend="python")
    kernel, runs = _counted(game, "hot")
    s = _start(game, kernel)
    _pick(s)
    assert len(runs) == 1
    c = s.clone()
    c.legal_actions()
    assert len(runs) == 2
    _pick(c)
    _pick(s)
    assert len(runs) == 3
    _pick(s)  # s again, as its last call left it: kept
    assert len(runs) == 3


def test_a_position_written_between_calls_is_forgotten_when_the_caller_says_so():
    game = fishrules.loads(RULES, "memo.fish", backend="python")
    kernel = Kernel(game, "python")
    be = kernel.backend
    S = be.new(2, game._options(None), 5)
    be.start(S, False)
    before = len(be.moves(S, S[A.H_CUR]))
    S[_t_at(kernel)] = 28  # hot is 2 now: only `pick 1` keeps the rules
    be.forget()
    after = be.moves(S, S[A.H_CUR])
    ok = [m for m in after if m[0] == after[0][0]]
    assert before > len(after) and len(ok) <= 2, (before, after)


CASES = [("fisheatfish", 2), ("fisheatfish", 5), ("fishfry", 3)]


@pytest.mark.parametrize("name, players", CASES)
def test_values_of_one_position_never_answer_for_another(name, players):
    """States of one game on one Python kernel, cloned, played and asked in a random order (as a
    search interleaves them), each beside its engine twin: the same legal actions and scores at
    every step, whichever state the kernel's last call was on."""
    game = fishrules.load(name, backend="python")
    kernel = Kernel(game, "python")
    rng = random.Random(players)
    pool = [(engine_start(game, players, 11), _start(game, kernel, players, 11))]
    for _ in range(120):
        k = rng.randrange(len(pool))
        e, s = pool[k]
        if e.is_over:
            pool[k] = (engine_start(game, players, rng.randrange(1000)), None)
            seed = pool[k][0].seed
            pool[k] = (pool[k][0], _start(game, kernel, players, seed))
            continue
        if len(pool) < 4 and rng.random() < 0.2:
            pool.append((e.clone(), s.clone()))
            continue
        who = e.waiting[0] if e.current == SIMULTANEOUS else None
        texts = [a.text for a in e.legal_actions(who)]
        assert [a.text for a in s.legal_actions(who)] == texts
        assert s.scores() == e.scores()
        pick = texts[rng.randrange(len(texts))]
        e.apply(pick)
        s.apply(pick)
        assert type(s).__name__ == "KState"


# ---- lists of moves kept by what the listing reads (the engine's memo of legal lists) ----------------


def test_a_list_of_moves_found_again_is_not_listed_again_and_counts_the_same_work():
    # Fishfry's moves read only which dice show PANFISH: a position with those dice, the same
    # chooser, finds the list listed at another (as the engine's `ChoosePause.memo` does), and
    # counts the work its listing counted (the engine twin without shared lists counts it too)
    game = fishrules.load("fishfry", backend="python")
    kernel = Kernel(game, "python")
    be, ns = kernel.backend, kernel.backend.ns
    listed: list = []
    raw = ns["site0_raw"]
    ns["site0_raw"] = lambda S, w: listed.append(w) or raw(S, w)
    S = be.new(2, game._options(None), 5)
    be.start(S, False)
    who = S[A.H_CUR]
    first = be.moves(S, who)
    work = S[A.H_WORK]
    assert listed == [who] and work > len(first)
    T = kernel.copy_state(S)
    again = be.moves(T, who)
    assert listed == [who] and again == first and T[A.H_WORK] == work
    again.clear()  # (the caller's list: the kept one is not touched)
    assert be.moves(S, who) == first


_STATES = """game "Lists"
players 2 to 3
dice: 2 with faces HEAD, TAIL, PANFISH
cards fish: colour in red, yellow and value in 1 x 3, 2 x 3
the game has deck: zone of fish
the game has row: zone of fish
each player has hand: zone of fish
each player has tally: number
the game has x: number
phase game:
  move fish to deck face down
  shuffle deck
  for each player:
    draw 3 from deck to player's hand
  repeat:
    for each player:
      roll all dice
      player chooses lay, pass or push

action lay(card: one of your hand):
  require "colour": count(row) = 0 or colour of card is colour of last(row)
  move card to row face up
  add 1 to your tally

action pass:
  require "tails": any die shows TAIL
  add 1 to x
  if count(deck) > 0:
    draw from deck to your hand

action push(n: a number from 1 to 3):
  require "small": n <= x + your tally
  set x to 0
  if count(row) > 2:
    move row to deck face down
    shuffle deck
"""


@pytest.mark.parametrize("players", [2, 3])
def test_kept_lists_are_the_lists_of_every_position(players):
    """Rules whose legality reads a player's zone, a player's value in every seat, a game value,
    a game zone and which kinds the dice show, played on the Python kernel beside the engine for
    many decisions: the texts of the moves offered are the engine's at every one, lists found
    again included."""
    from fishrules.kernel.pyruntime import decision_seed

    from ._twins import decide_both

    game = fishrules.loads(_STATES, "lists.fish", backend="python")
    kernel = Kernel(game, "python")
    be, bd, ns = kernel.backend, kernel.boundary, kernel.backend.ns
    found = [0]
    ref = engine_start(game, players, 9)
    S = be.new(players, game._options(None), 9)
    be.start(S, False)
    ds, dd = decision_seed(9), 0
    for _ in range(150):
        if ref.is_over:
            break
        before = ns["TRIAL0"][1]
        dd = decide_both(be, bd, S, ref, ds, dd)
        found[0] += ns["TRIAL0"][1] - before
    assert found[0] > 10  # lists found again, and each the engine's


def test_the_last_position_keeps_no_kernel_alive():
    # (the position the last call ended on is remembered, not its kernel: a server that loads
    # rule texts all day must not keep every one)
    import gc
    import weakref

    game = fishrules.loads(RULES, "memo.fish", backend="python")
    kernel = Kernel(game, "python")
    s = _start(game, kernel)
    _pick(s)
    ref = weakref.ref(kernel.backend)
    del s, kernel
    gc.collect()
    assert ref() is None

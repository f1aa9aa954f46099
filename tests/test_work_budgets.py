"""The work a call counts, on the engine and on the kernel (issue 32, docs/one-machine-plan.md §2.7 (1)).

The engine counts the work of each call (`state._work`: `apply` plays the move, runs to the next
decision and lists its legal actions) against `WORK_BUDGET`; the kernel counts the work of each
call into it (`S[H_WORK]`: playing a move and running on is one call, listing the moves at the next
decision another) against `KERNEL_BUDGET`, the same budget.  What `kernel/abi.py` and
docs/performance.md ("Untrusted rules stay harmless") claim: the kernel counts at least what the
engine counts (exactly what it counts, but for the values the engine keeps from one call to the
next: tests/test_kernel_work.py).  Here that is held call by call, for every bundled ruleset at its fewest
and most players and for hostile rules that do much work a move: the work of one `apply` on the
engine is at most the kernel's work for the same step (the move played, plus the moves listed at the
decision it reaches), and rules the engine refuses as too much work the kernel refuses too.

It also measures the ratio (kernel ÷ engine, per call), which step 6 needs: there the kernel's count
becomes the budget and must count as the engine does (the plan's decision 3).  Run this file as a
script to print the table (docs/performance.md quotes it):

    PYTHONPATH=src python tests/test_work_budgets.py
"""

from __future__ import annotations

import random
import statistics
from typing import Any, Optional

import pytest

import fishrules
from fishrules.errors import RuleError
from fishrules.kernel import Kernel, KFault, NativeError
from fishrules.kernel import abi as A
from fishrules.kernel import pyruntime
from fishrules.limits import WORK_BUDGET
from fishrules.variants import find_ruleset

from ._twins import engine_start

BUNDLED = ["fishfry", "fishfish", "fisherman", "fatfish", "fisheatfish"]
SEED = 7
#: the kernel's budget while measuring rules that do much work a move (the Python kernel only:
#: the native one has its budget compiled in), so that what the kernel would count is seen even
#: past KERNEL_BUDGET
MEASURING_BUDGET = 20 * WORK_BUDGET

HEAD = 'game "Heavy"\nplayers 2 to 3\n'
TURNS = "phase game:\n  repeat:\n    for each player:\n      player chooses heavy\n\n"
BOARD = "board: circles from 1 to 1000\n  line 1, 2\n"

#: Rules that do much work a move, each a kind of work (the shapes of tests/hostile/test_limits.py's
#: budget tests and of test_openspiel.py's HEAVY, whose 9,000 marks the kernel cannot hold: its lists
#: hold 128).  Each does well under WORK_BUDGET a move on the engine.
HEAVY = {
    # a loop's steps: about 80,000 a move
    "loop": HEAD + "the game has x: number\n" + TURNS
            + "action heavy:\n  repeat 40000 times:\n    add 1 to x\n  subtract 40000 from x\n",
    # test_openspiel.py's rules of about 900,000 steps a move, with a list the kernel holds
    "list sum": HEAD + "the game has marks: list of numbers\nthe game has total: number\n"
                + "phase game:\n  repeat 100 times:\n    add 1 to marks\n  repeat:\n    for each player:\n"
                + "      player chooses heavy\n\naction heavy:\n  repeat 9000 times:\n    set total to sum(marks)\n",
    # cards moved: 10,000 cards from zone to zone, ten times a move
    "cards": HEAD + "cards c: v from 1 to 10000\nthe game has deck: zone of c\nthe game has spare: zone of c\n" + TURNS
             + "action heavy:\n  repeat 5 times:\n    move c to spare face down\n    move c to deck face down\n",
    # a filter over a board, worked out again and again
    "board filter": HEAD + BOARD + "the game has x: number\nthe game has total: number\n" + TURNS
                    + "action heavy:\n  repeat 300 times:\n    set total to count(circles where it > x)\n",
    # a define that loops (kept: the engine's memo), made stale and asked for again and again
    "kept define": HEAD + BOARD + "the game has total: number\nthe game has x: number\n"
                   + "define hot: count(circles where it > x)\n" + TURNS
                   + "action heavy:\n  repeat 200 times:\n    add hot to total\n    add 1 to x\n  set total to 0\n  set x to 0\n",
    # the legal moves: 200 choices, each tested by a rule that looks at a thousand circles
    "heavy listing": HEAD + BOARD + "phase game:\n  repeat:\n    for each player:\n      player chooses pick\n\n"
                     + "action pick(a: a number from 1 to 200):\n  require \"far\": count(circles where it > a) >= 0\n",
}
#: Rules that do more than WORK_BUDGET in one call (tests/hostile/test_limits.py's runaway bodies,
#: in the set-up and in a move): the engine refuses them, and the kernel must too.
RUNAWAY = {
    "endless repeat at the start": HEAD + "phase game:\n  repeat:\n    nothing\n",
    "a billion steps at the start": HEAD + "phase game:\n  repeat 1000000000 times:\n    nothing\n"
                                    + "  for each player:\n    player chooses heavy\n\naction heavy:\n  nothing\n",
    "a filter in a loop, in a move": HEAD + BOARD + "the game has x: number\n" + TURNS
                                     + "action heavy:\n  repeat while count(circles where it > x) > 0:\n    nothing\n",
}


def fresh(name: str) -> Any:
    """A bundled ruleset loaded afresh (`loads` keeps no cache: the engine's memo of legal lists
    starts empty, so its counts do not depend on what ran before), playing on the engine."""
    path = find_ruleset(name)
    return fishrules.loads(path.read_text(encoding="utf-8"), name=path.stem, base_dir=str(path.parent),
                           backend="python")


def native_kernel(game: Any) -> Optional[Kernel]:
    try:
        return Kernel(game, "native")
    except NativeError:
        return None


def calls(game: Any, kernel: Kernel, players: int, seed: int, most: int = 1000) -> list[tuple[int, int]]:
    """The same seeded game played on the engine (`game.start`, a State of the engine's machine)
    and on `kernel`, the same random choices on both: per call of the engine (the start, then each
    `apply` that plays a move), (the engine's work, the kernel's work for the same step: the move
    played and run on, plus the moves listed where it stops).  Checks on the way that both offer the
    same moves in the same order.  KFault if the kernel cannot play a step; RuleError if the engine
    cannot (its positioned error)."""
    be, bd = kernel.backend, kernel.boundary
    state = engine_start(game, players, seed)  # (`backend="python"` starts the kernel's state now)
    S = be.new(players, game._options(None), seed)
    be.start(S, False)
    engine, ran = state._work, S[A.H_WORK]  # the engine's call, and the kernel's of the same step
    rnd = random.Random(seed)
    out = []
    for _ in range(most):
        if state.is_over:
            assert S[A.H_CUR] == A.CUR_OVER
            break
        cur = S[A.H_CUR]
        who = be.who_together(S) if cur == A.CUR_SIMUL else (cur,)
        assert cur >= 0 or cur == A.CUR_SIMUL, cur
        listed, chosen, actions = 0, [], []
        for p in who:
            moves = be.moves(S, p)
            listed += S[A.H_WORK]
            legal = state.legal_actions(p) if cur == A.CUR_SIMUL else state.legal_actions()
            assert [bd.text(m, cur == A.CUR_SIMUL) for m in moves] == [a.text for a in legal]
            k = rnd.randrange(len(moves))
            chosen.append(moves[k])
            actions.append(legal[k])
        out.append((engine, ran + listed))
        for a in actions:  # at a simultaneous choice, the last apply plays them all
            state.apply(a)
        engine = state._work
        if cur == A.CUR_SIMUL:
            be.play_together(S, tuple(chosen))
        else:
            be.play(S, chosen[0])
        ran = S[A.H_WORK]
    else:
        return out
    out.append((engine, ran))
    return out


def python_kernel(game: Any, budget: int) -> Kernel:
    """The Python kernel of `game`, counting against `budget` (the caller puts the module's back)."""
    kernel = Kernel(game, "python")
    kernel.backend.ns["BUDGET"] = budget
    pyruntime.KERNEL_BUDGET = budget
    return kernel


def summary(pairs: list[tuple[int, int]]) -> tuple[float, float, float, int, int]:
    """(least, median, most) of kernel ÷ engine over the calls where the engine did some work, and
    the most work of one call on each."""
    r = [k / e for e, k in pairs if e]
    return min(r), statistics.median(r), max(r), max(e for e, _ in pairs), max(k for _, k in pairs)


def check_counts_at_least_the_engine(what: str, pairs: list[tuple[int, int]]) -> None:
    less = [(i, e, k) for i, (e, k) in enumerate(pairs) if k < e]
    assert not less, f"{what}: the kernel counts less than the engine at (call, engine, kernel) {less[:5]}"


# ---- the bundled rulesets -------------------------------------------------------------------------------

def measure_bundled() -> dict:
    """{(ruleset, players): {backend: per-call pairs}} at the fewest and the most players, on the
    Python kernel and (where a C compiler is found) on the native one."""
    out: dict = {}
    for name in BUNDLED:
        probe = fishrules.load(name, backend="python")
        for players in sorted({probe.min_players, probe.max_players}):
            row = out[name, players] = {}
            game = fresh(name)
            row["python"] = calls(game, Kernel(game, "python"), players, SEED)
            game = fresh(name)
            native = native_kernel(game)
            if native is not None:
                row["native"] = calls(game, native, players, SEED)
    return out


@pytest.fixture(scope="module")
def bundled() -> dict:
    return measure_bundled()


def test_every_bundled_game_is_measured_at_its_fewest_and_most_players(bundled):
    assert {name for name, _ in bundled} == set(BUNDLED)
    assert len(bundled) == 10
    for key, row in bundled.items():
        assert len(row["python"]) > 5, key  # whole games, more than a few calls


@pytest.mark.parametrize("backend", ["python", "native"])
def test_the_kernel_counts_at_least_what_the_engine_counts_in_every_call(bundled, backend):
    if not any(backend in row for row in bundled.values()):
        pytest.skip("no C compiler here: the native kernel is not built")
    for (name, players), row in bundled.items():
        if backend in row:
            check_counts_at_least_the_engine(f"{name}, {players} players, {backend}", row[backend])


def test_no_call_of_a_bundled_game_comes_near_the_budget(bundled):
    # so the kernel's count becoming the budget (step 6) refuses no bundled game, whichever counts
    for key, row in bundled.items():
        for backend, pairs in row.items():
            assert summary(pairs)[4] < A.KERNEL_BUDGET // 20, (key, backend)


# ---- rules that do much work a move -----------------------------------------------------------------------


def measure_heavy() -> dict:
    """{rules: per-call pairs} of HEAVY on the Python kernel counting against MEASURING_BUDGET, and
    {rules: the fault} of the same rules with the kernel's own budget (where it gives up)."""
    measured, faults = {}, {}
    saved = pyruntime.KERNEL_BUDGET
    try:
        for what, text in HEAVY.items():
            game = fishrules.loads(text, name="heavy.fish", backend="python")
            try:
                measured[what] = calls(game, python_kernel(game, MEASURING_BUDGET), 2, SEED, most=3)
            except KFault as f:
                measured[what] = f.code
            try:
                calls(game, python_kernel(game, saved), 2, SEED, most=3)
                faults[what] = 0
            except KFault as f:
                faults[what] = f.code
    finally:
        pyruntime.KERNEL_BUDGET = saved
    return {"measured": measured, "faults": faults}


@pytest.fixture(scope="module")
def heavy() -> dict:
    return measure_heavy()


def test_heavy_moves_play_on_the_engine_under_its_budget(heavy):
    for what, pairs in heavy["measured"].items():
        assert isinstance(pairs, list), (what, pairs)
        engine, kernel = max(e for e, _ in pairs), max(k for _, k in pairs)
        assert engine < WORK_BUDGET, (what, engine)  # played
        assert max(engine, kernel) > WORK_BUDGET // 20, (what, engine, kernel)  # heavy indeed


def test_on_heavy_moves_the_kernel_counts_at_least_what_the_engine_counts(heavy):
    for what, pairs in heavy["measured"].items():
        check_counts_at_least_the_engine(what, pairs)


def test_the_kernel_gives_up_exactly_where_its_count_passes_its_budget(heavy):
    # with its own budget (the engine's), the kernel plays the heavy moves it counts under it,
    # and stops with FAULT_BUDGET (the engine then plays the step) on those it counts over it
    for what, pairs in heavy["measured"].items():
        over = max(k for _, k in pairs) > A.KERNEL_BUDGET
        assert heavy["faults"][what] == (A.FAULT_BUDGET if over else 0), (what, heavy["faults"][what])


@pytest.mark.parametrize("what", list(RUNAWAY))
def test_what_the_engine_refuses_as_too_much_work_the_kernel_refuses_too(what):
    game = fishrules.loads(RUNAWAY[what], name="runaway.fish", backend="python")
    be = Kernel(game, "python").backend
    with pytest.raises(KFault) as got:
        S = be.new(2, game._options(None), SEED)
        be.start(S, False)
        for _ in range(3):
            be.play(S, be.moves(S, S[A.H_CUR])[0])
    assert got.value.code == A.FAULT_BUDGET
    with pytest.raises(RuleError, match=f"{WORK_BUDGET:,} steps"):  # and the engine, saying why
        state = engine_start(game, 2, SEED)
        for _ in range(3):
            state.apply(state.legal_actions()[0])


# ---- the table --------------------------------------------------------------------------------------------


def table(bundled: dict, heavy: dict) -> str:
    lines = ["| rules | players | backend | calls | kernel ÷ engine: least | median | most | most work of a call: engine | kernel |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for (name, players), row in bundled.items():
        for backend, pairs in row.items():
            lo, med, hi, e, k = summary(pairs)
            lines.append(f"| {name} | {players} | {backend} | {len(pairs)} | {lo:.2f} | {med:.2f} | {hi:.2f} | {e:,} | {k:,} |")
    for what, pairs in heavy["measured"].items():
        if isinstance(pairs, int):
            lines.append(f"| {what} (hostile) | 2 | python | fault {pairs} | | | | | |")
            continue
        lo, med, hi, e, k = summary(pairs)
        gives_up = " (gives up: over KERNEL_BUDGET)" if heavy["faults"][what] == A.FAULT_BUDGET else ""
        lines.append(f"| {what} (hostile){gives_up} | 2 | python | {len(pairs)} | {lo:.2f} | {med:.2f} | {hi:.2f} | {e:,} | {k:,} |")
    return "\n".join(lines)


def test_print_the_table(bundled, heavy):
    print("\n" + table(bundled, heavy))


if __name__ == "__main__":
    print(table(measure_bundled(), measure_heavy()))

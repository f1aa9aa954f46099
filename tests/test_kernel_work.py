"""The game kernel counts the work of a call as the engine counts it (issue 32, docs/one-machine-plan.md §2.7).

Both spellings of the kernel (the Python one and the native C one) count, in `S[H_WORK]`, the work of
each call into the kernel against `abi.KERNEL_BUDGET`, which is the engine's `WORK_BUDGET`.  Here,
seeded games are played step by step as the API plays them on the kernel (a move played and run on,
then the moves of whoever is to choose listed, each a call into the kernel; at a choice made
together, each chooser's moves listed), beside two twins on the engine's machine that make the same
choices, for every bundled ruleset (`rulesets/*.fish`) at its fewest and most players, the hostile
rule corpus (tests/hostile/corpus/rules, tests/games) and rules written to stress each construct:

- **equal**: the work of every call (`apply`, and the start) is exactly the engine's `_work` for it,
  on an engine twin whose memo of defines is forgotten where the kernel's is, and whose lists of
  legal moves are not shared between positions (the engine's `ChoosePause.memo`; the kernel lists
  the moves of every position).  The Python kernel keeps a define's values across calls on the same
  position, as the engine keeps its memo on its state, until something they read changes (its twin
  keeps its memo); the native kernel keeps them for one call (its twin forgets its memo at each
  call into the kernel: `ACROSS_CALLS`).
  The work of a call at a choice made together is compared as the engine spends it: a chooser's
  `apply` lists that chooser's moves again (the kernel listed them in a call of their own).
- **the bound**, against the engine as it is (its memo kept across calls, its legal lists shared):
  the kernel never counts less.  It counts more by the work of the legal lists the engine finds
  from an earlier position (and, natively, of the kept values it finds from an earlier call: each
  worked out again once a call); on the bundled rulesets that is at most 14 times and 640 steps a
  call more natively (the table this file prints as a script, for either backend).
- a step the kernel refuses for its budget, the engine twin refuses too, in the same words.

Run as a script to print the table of the bound:  PYTHONPATH=src:. python -m tests.test_kernel_work [native|python]
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

import fishrules
from fishrules import model as m
from fishrules.errors import FishrulesError, RuleError
from fishrules.kernel import Kernel, KFault, faults
from fishrules.kernel import abi as A
from fishrules.kernel.apistate import KState
from fishrules.limits import WORK_BUDGET
from fishrules.runtime import CHANCE, SIMULTANEOUS, State
from fishrules.runtime.decisions import Decisions

from ._twins import BACKENDS, NATIVE

HERE = Path(__file__).resolve().parent
RULESETS = sorted((HERE.parent / "rulesets").glob("*.fish"))
CORPUS = sorted((HERE / "hostile" / "corpus" / "rules").glob("*.fish")) + sorted((HERE / "games").glob("*.fish"))
SEED = 7
#: calls played of a game of the corpus or of the stress rules (a bundled game is played to its end)
CORPUS_CALLS = 40

_HEAD = 'game "Work"\nplayers 2 to 3\n'
_TURNS = "phase game:\n  repeat:\n    for each player:\n      player chooses go\n\n"
_DICE = "dice: 5 with faces HEAD, TAIL, PANFISH, BODY 5, BODY 10, BODY 20\n"
_BOARD = "board: circles from 1 to 30\n  line 1, 2\n"
_STACKS = ("tokens fish: colour in red x 7, yellow x 7\nboard: circles from 1 to 9\n  line 1, 2, 3\n  line 4, 5, 6\n"
           "  line 7, 8, 9\n  line 1, 4, 7\n  line 2, 5, 8\n  line 3, 6, 9\nthe game has stack: zones from 1 to 9 of fish\n"
           "the game has sup: zone of fish\nthe game has x: number\n")
_ON_STACKS = ("phase game:\n  move fish to sup face up\n  for each c in circles:\n    move first(sup) to stack(c) face up\n"
              "  repeat:\n    for each player:\n      player chooses go\n\n")
_CARDS = ("cards fish: colour in red, yellow, green and value in 1 x 4, 2 x 4\nthe game has deck: zone of fish\n"
          "the game has rows: zones from 1 to 3 of fish\neach player has hand: zone of fish\nthe game has x: number\n")
_DEAL = ("phase deal:\n  move fish to deck face down\n  shuffle deck\n  for each player:\n    draw 4 from deck to player's hand\n"
         "  for each r in rows:\n    draw from deck to rows(r) face up\n\n")

#: Rules that stress one construct each (the work of each kind of loop, stage, choice and step).
STRESS = {
    "filters": _HEAD + _BOARD + "the game has x: number\n" + _TURNS
               + "action go:\n  set x to count((circles where it > 3) where it < 20)\n  set x to count(circles where it > x)\n",
    "maps and sums": _HEAD + _DICE + "the game has x: number\n" + _TURNS
                     + "action go:\n  roll all dice\n  set x to sum(largest(3 * min(count(dice showing HEAD), 2), value of dice showing BODY))\n"
                     + "  set x to x + max(value of dice showing BODY) + min(value of dice)\n",
    "quantifiers": _HEAD + _DICE + _BOARD + "the game has x: number\n" + _TURNS
                   + "action go:\n  roll all dice\n  if every die shows PANFISH or any c in circles where c > 28:\n    add 1 to x\n"
                   + "  if no c in (circles where it > 3) where c = 40:\n    add 1 to x\n  if x in circles:\n    add 1 to x\n",
    "best of": _HEAD + "each player has catch: list of numbers\nthe game has x: number\nscore \"c\": sum(your catch)\n" + _TURNS
               + "action go:\n  add 3 to your catch\n  if count(winners) > 1:\n    add 1 to x\n"
               + "  set x to count(players with the highest count(catch))\n",
    "kept defines": _HEAD + _BOARD + "the game has t: number\ndefine hot: count(circles where it > 0)\n"
                    + "phase game:\n  repeat:\n    for each player:\n      player chooses pick\n\n"
                    + "action pick(a: a number from 1 to 5):\n  require \"far\": hot > a\n  repeat 200 times:\n    add hot to t\n  set t to 0\n",
    "kept defines of an argument": _HEAD + _STACKS + "define top_colour(c: number): colour of last(stack(c))\n"
                                   + "define owner(c: number): first(players where top_colour(c) is red)\n"
                                   + "define mine(p: player): circles where owner(it) is p\n" + _ON_STACKS
                                   + "action go:\n  set x to count(mine(you))\n  move first(stack(2)) to stack(3) face up\n"
                                   + "  set x to count(mine(you))\n  if any t in slide(1, circles where count(stack(it)) > 0) where"
                                   + " any a in adjacent(t) where count(stack(a)) > 0:\n    add 1 to x\n",
    "loops": _HEAD + "the game has x: number\nthe game has xs: list of numbers\n" + _TURNS
             + "action go:\n  repeat while x < 30:\n    add 1 to x\n  repeat until x = 0:\n    subtract 1 from x\n"
             + "  repeat 4 times:\n    add 1 to xs\n  for each v in xs:\n    add v to x\n  play spin\n  clear xs\n\n"
             + "phase spin:\n  repeat:\n    add 1 to x\n    if x > 20:\n      set x to 0\n      end spin\n",
    "phases ended": _HEAD + "the game has x: number\nphase game:\n  repeat:\n    play inner\n\n"
                    + "phase inner:\n  repeat 3 times:\n    if x > 2:\n      set x to 0\n      end inner\n    for each player:\n"
                    + "      player chooses go or stop\n\naction go:\n  add 1 to x\naction stop:\n  end inner\n",
    "choices made together": _HEAD + "the game has t: number\nphase game:\n  repeat:\n    play round\n\n"
                             + "phase round:\n  each of players where it is not nobody secretly chooses go\n  add 1 to t\n\n"
                             + "action go(n: a number from 1 to 3):\n  add n to t\n",
    "cards, draws, reveals": _HEAD + _CARDS + "phase game:\n  repeat:\n    play deal\n    repeat 3 times:\n      for each player:\n"
                             + "        player chooses lay\n    move fish to deck face down\n\n" + _DEAL
                             + "action lay(row: one of rows, card: one of your hand):\n"
                             + "  require \"m\": colour of card is colour of last(rows(row)) or no r in rows where colour of last(rows(r)) is colour of card\n"
                             + "  when \"m\" is broken:\n    reveal your hand\n  move card to rows(row) face up\n  add 1 to x\n",
}


# ---- playing the kernel beside the engine -----------------------------------------------------------


#: The kernels that keep a define's values across calls on the same position, as the engine's memo
#: lives on its state (emit_python's `kept`, kernel/machine.py `_LAST`); the others keep them for
#: one call.
ACROSS_CALLS = {"python"}


@contextlib.contextmanager
def memo_per_call(on: bool = True) -> Iterator[None]:
    """While inside (and `on`): the engine forgets its kept define values whenever it lists a
    player's moves (as a kernel that keeps them for one call does, listing them in a call of their
    own)."""
    if not on:
        yield
        return
    real = Decisions._enumerate_for

    def listing(self, info, actor):
        self._dmemo.clear()
        return real(self, info, actor)

    Decisions._enumerate_for = listing
    try:
        yield
    finally:
        Decisions._enumerate_for = real


def _no_shared_lists(game: Any) -> None:
    for info in game.program.pauses.values():
        if getattr(info, "key", None) is not None:
            info.key, info.memo = None, {}


class Call:
    """One API call: the kernel's work (each of its calls into the kernel summed), the work of
    the engine twin whose memo lives one call (`per_call`), of the engine as it is (`engine`)."""

    __slots__ = ("what", "kernel", "per_call", "engine")

    def __init__(self, what: str, kernel: int, per_call: int, engine: int):
        self.what, self.kernel, self.per_call, self.engine = what, kernel, per_call, engine

    def __repr__(self) -> str:
        return f"<{self.what}: kernel {self.kernel:,}, engine {self.per_call:,} ({self.engine:,} with its memo)>"


def _engine_call(call) -> Optional[str]:
    try:
        call()
    except RuleError as e:
        return e.render()
    return None


def play(text: str, name: str, backend: str, players: int, seed: int = SEED, most: int = 10_000,
         base_dir: Optional[str] = None, manual: bool = False) -> tuple[list[Call], Optional[str]]:
    """The calls of a seeded game of the rules `text`, played on the kernel (`backend`) and on two
    engine twins (see the module's docstring), each the same random choice at each decision (with
    `manual`, chance is the caller's: each outcome drawn at random too), up to `most` calls; and how
    it stopped early: None (played to its end, or `most` calls), "kernel" (a fault the kernel leaves
    to the engine: its capacities), or the error both raised."""
    kw: dict = {"name": name, "backend": "python"}
    if base_dir is not None:
        kw["base_dir"] = base_dir
    per_game, real_game = fishrules.loads(text, **kw), fishrules.loads(text, **kw)
    _no_shared_lists(per_game)
    kernel = Kernel(per_game, backend)
    be, kp = kernel.backend, kernel.program
    out: list[Call] = []
    rnd = random.Random(seed)
    S = be.new(players, per_game._options(None), seed)
    if manual:
        S[A.H_MANUAL] = 1

    def stopped(error: Optional[str], f: KFault, context: tuple) -> str:
        """How a call the kernel faulted in ends: its capacities are the engine's to play; a rule
        that goes wrong, or too much work, the engine twin refuses too, a budget in the same words."""
        if f.code in (A.FAULT_CAPACITY, A.FAULT_ENDLESS):
            return "kernel"
        assert error is not None, f"{name}: the kernel stopped (fault {f.code}) where the engine played"
        if f.code == A.FAULT_BUDGET:
            said = faults.error(kp, S, f.code, context)
            assert said is not None and said.render() == error, (name, said, error)
        return error

    def step(run) -> tuple[int, dict, int]:
        """A call of the kernel that runs the rules, then the moves of whoever is to choose listed:
        (the run's work, {player: (moves, work of listing them)}, the listing's work); raises
        _Stop."""
        try:
            run()
        except KFault as f:
            raise _Stop(f, faults.PLAYING) from None
        ran = S[A.H_WORK]
        cur = S[A.H_CUR]
        who = be.who_together(S) if cur == A.CUR_SIMUL else (cur,) if cur >= 0 else ()
        lists, work = {}, 0
        for p in who:
            try:
                lists[p] = (be.moves(S, p), S[A.H_WORK])
            except KFault as f:
                raise _Stop(f, faults.listing(p, faults.phase_at(kp, S) or "the game")) from None
            if not lists[p][0]:  # a player who must choose may do nothing: the game is stuck
                raise _Stop(KFault(A.FAULT_STUCK), ())
            work += S[A.H_WORK]
        return ran, lists, work

    try:
        first: Any = step(lambda: be.start(S, False))
    except _Stop as stop:
        if stop.fault.code in (A.FAULT_CAPACITY, A.FAULT_ENDLESS):
            return out, "kernel"  # (the engine's to play: not started on it)
        first = stop
    per_call = backend not in ACROSS_CALLS
    with memo_per_call(per_call):
        per, error = _started(per_game, players, seed, manual)
    real, _ = _started(real_game, players, seed, manual)
    if isinstance(first, _Stop):
        return out, stopped(error, first.fault, first.context)
    ran, lists, work = first
    assert per is not None, f"{name}: the engine refused to start ({error}), the kernel started"
    out.append(Call("start", ran + work, per._work, real._work if real is not None else -1))
    while len(out) < most and not per.is_over:
        if per.current == CHANCE:  # (the caller's: `manual`)
            assert S[A.H_CUR] == A.CUR_CHANCE, name
            outcomes = per.chance_outcomes()
            a = outcomes[rnd.randrange(len(outcomes))][0]
            per._dmemo.clear()
            per.apply(a)
            if real is not None:
                real.apply(a.text)
            try:
                ran, lists, work = step(lambda: be.play_chance(S, a._values[-1]))
            except _Stop as stop:
                return out, stopped(None, stop.fault, stop.context)
            out.append(Call(f"chance {len(out)}", ran + work, per._work, real._work if real is not None else -1))
            continue
        together = per.current == SIMULTANEOUS
        who = list(lists)
        assert who == (per.waiting if together else [per.current]), name
        chosen, acts = [], []
        for p in who:
            moves, _ = lists[p]
            offered = per.legal_actions(p) if together else per.legal_actions()
            assert len(moves) == len(offered), name
            k = rnd.randrange(len(moves))
            chosen.append(moves[k])
            acts.append(offered[k])
        for i, (p, a) in enumerate(zip(who, acts)):
            if per_call:
                per._dmemo.clear()  # (a new call into the kernel)
            with memo_per_call(per_call):
                error = _rendered(lambda: per.apply(a))
            if real is not None and _rendered(lambda: _same(real, a, p, together)) is not None:
                real = None  # (played with the kernel's memo, refused with its own: not seen so far)
            engine = real._work if real is not None else -1
            if i < len(acts) - 1:  # a choice made together, not the last: it waits for the others
                assert error is None, (name, error)
                out.append(Call(f"choice {len(out)}", lists[p][1], per._work, engine))
                continue
            relisted = lists[p][1] if together else 0  # (the engine's apply lists the chooser's moves again)
            try:
                ran, lists, work = step((lambda: be.play_together(S, tuple(chosen))) if together
                                        else (lambda: be.play(S, chosen[0])))
            except _Stop as stop:
                return out, stopped(error, stop.fault, stop.context)
            assert error is None, (name, error)
            out.append(Call(f"move {len(out)}", relisted + ran + work, per._work, engine))
    return out, None


class _Stop(Exception):
    def __init__(self, fault: KFault, context: tuple):
        self.fault, self.context = fault, context


def _started(game: Any, players: int, seed: int, manual: bool) -> tuple[Any, Optional[str]]:
    try:
        return State._new(game, players, game._options(None), seed, manual), None
    except RuleError as e:
        return None, e.render()


def _rendered(call) -> Optional[str]:
    try:
        call()
    except RuleError as e:
        return e.render()
    return None


def _same(real: Any, a: Any, p: int, together: bool) -> Any:
    """The engine as it is (`real`) applies the action its twin applied (found by its text)."""
    offered = real.legal_actions(p) if together else real.legal_actions()
    return real.apply(next(x for x in offered if x.text == a.text))


def check(what: str, calls: list[Call]) -> None:
    unequal = [c for c in calls if c.kernel != c.per_call]
    assert not unequal, f"{what}: the kernel's work is not the engine's: {unequal[:5]}"
    less = [c for c in calls if 0 <= c.engine and c.kernel < c.engine]
    assert not less, f"{what}: the kernel counts less than the engine: {less[:5]}"


# ---- the bundled rulesets ----------------------------------------------------------------------------


def _bundled(path: Path) -> tuple[str, list[int]]:
    text = path.read_text(encoding="utf-8")
    g = fishrules.loads(text, name=path.stem, base_dir=str(path.parent), backend="python")
    return text, sorted({g.min_players, g.max_players})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_every_call_of_a_bundled_game_counts_the_engines_work(path, backend):
    text, counts = _bundled(path)
    for players in counts:
        calls, stop = play(text, path.stem, backend, players, base_dir=str(path.parent))
        assert stop is None and len(calls) > 5, (path.stem, players, stop)  # whole games, on the kernel
        check(f"{path.stem} at {players}", calls)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_with_chance_the_callers_every_call_counts_the_engines_work(path, backend):
    # the dice and the draws from a shuffled zone waited for, each outcome given (`play_chance`)
    text, counts = _bundled(path)
    model = fishrules.loads(text, name=path.stem, base_dir=str(path.parent), backend="python").model
    has_chance = model.dice is not None or next(model.find_all(m.ShuffleZone), None) is not None
    for players in counts:
        calls, stop = play(text, path.stem, backend, players, base_dir=str(path.parent), manual=True, most=CORPUS_CALLS)
        chance = any(c.what.startswith("chance") for c in calls)
        assert stop is None and chance == has_chance, (path.stem, players, stop)
        check(f"{path.stem} at {players}, chance by hand", calls)


# ---- the hostile corpus ---------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_call_of_the_hostile_corpus_counts_the_engines_work(path, backend):
    try:
        text = path.read_text(encoding="utf-8")
        g = fishrules.loads(text, name=path.stem, backend="python")
        Kernel(g, backend)
    except (FishrulesError, UnicodeDecodeError):
        pytest.skip("these rules do not load, or are too large for the kernel")
    for players in sorted({g.min_players, g.max_players}):
        calls, _ = play(text, path.stem, backend, players, most=CORPUS_CALLS // 2)
        check(f"{path.name} at {players}", calls)


# ---- each construct ----------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("what", list(STRESS))
def test_every_call_of_rules_that_stress_a_construct_counts_the_engines_work(what, backend):
    for players in (2, 3):
        calls, stop = play(STRESS[what], "stress.fish", backend, players, most=CORPUS_CALLS)
        assert stop is None and len(calls) >= CORPUS_CALLS, (what, stop)
        assert max(c.kernel for c in calls) > 10, what  # work done indeed
        check(f"{what} at {players}", calls)


def test_a_kept_value_found_again_counts_nothing_more():
    # a define over thirty circles, asked for 200 times a move: once worked out (the kernel kept
    # its value and its work counted 200 times, 200,605 steps a move where the engine counted 1,603)
    calls, _ = play(STRESS["kept defines"], "stress.fish", "python", 2, most=6)
    assert all(c.kernel < 2_000 for c in calls), calls


# ---- the budget --------------------------------------------------------------------------------------


def test_the_kernels_budget_is_the_engines():
    assert A.KERNEL_BUDGET == WORK_BUDGET
    assert faults.counts_as_the_engine()


#: Rules that do more than WORK_BUDGET in one call, at the start, in a move and while the moves are
#: listed (tests/hostile/test_limits.py's runaway bodies): the engine refuses them, the kernel too.
RUNAWAY = {
    "at the start": _HEAD + "phase game:\n  repeat:\n    nothing\n",
    "a billion steps at the start": _HEAD + "phase game:\n  repeat 1000000000 times:\n    nothing\n"
                                    + "  for each player:\n    player chooses go\n\naction go:\n  nothing\n",
    "a filter in a loop, in a move": _HEAD + _BOARD + "the game has x: number\n" + _TURNS
                                     + "action go:\n  repeat while count(circles where it > x) > 0:\n    nothing\n",
    "listing": _HEAD + "board: circles from 1 to 1000\n  line 1, 2\n"
               + "phase game:\n  repeat:\n    for each player:\n      player chooses pick\n\n"
               + "action pick(a: a number from 1 to 1200):\n  require \"far\": count(circles where it > a) >= 0\n",
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("what", list(RUNAWAY))
def test_too_much_work_is_refused_by_the_kernel_in_the_engines_words(what, backend):
    calls, stop = play(RUNAWAY[what], "runaway.fish", backend, 2, most=4)
    assert stop is not None and f"{WORK_BUDGET:,} steps" in stop, (what, stop)
    check(what, calls)


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("what", list(RUNAWAY))
def test_through_the_api_too_much_work_is_the_kernels_to_refuse(what, monkeypatch):
    """A game on the native kernel (a KState) that does too much work raises the engine's error
    in the kernel's words: the engine's machine is not asked (no twin, no game started on it)."""
    asked: list = []
    monkeypatch.setattr(KState, "_twin", lambda self: asked.append("twin"))
    real_new = State._new.__func__
    monkeypatch.setattr(State, "_new", classmethod(lambda cls, *a, **k: asked.append("engine") or real_new(cls, *a, **k)))
    game = fishrules.loads(RUNAWAY[what], "runaway.fish", backend="native")
    with pytest.raises(RuleError, match=f"{WORK_BUDGET:,} steps"):
        state = game.start(2, seed=SEED)
        assert type(state) is KState
        for _ in range(3):
            state.apply(state.legal_actions()[0])
    assert not asked


# ---- the table ---------------------------------------------------------------------------------------


def table(backend: str = "native") -> str:
    lines = ["| rules | players | calls | kernel = engine (its twin) | kernel ÷ engine as it is: most | most more | most work of a call |",
             "|---|---:|---:|---|---:|---:|---:|"]
    for path in RULESETS:
        text, counts = _bundled(path)
        for players in counts:
            calls, _ = play(text, path.stem, backend, players, base_dir=str(path.parent))
            ratio = max(c.kernel / c.engine for c in calls if c.engine > 0)
            more = max(c.kernel - c.engine for c in calls)
            lines.append(f"| {path.stem} | {players} | {len(calls)} | {all(c.kernel == c.per_call for c in calls)} | "
                         f"{ratio:.2f} | {more:,} | {max(c.kernel for c in calls):,} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(table(*sys.argv[1:2]))

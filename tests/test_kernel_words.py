"""A rule that goes wrong on the kernel is said in the kernel's own words: the engine's exact error.

Each kind of fault of tests/test_kernel_faults.py's catalog (at a turn, in a phase played from a
phase, at a choice made together; in a `define` reached from a `require` while the moves are
listed, alone or together, and from a phase's `if`; too many numbers for a decision) and the
hostile corpus's rules that go wrong, on both spellings of the kernel (Python and native C):

- `Kernel.playout` (and `simulate`) raises the engine's `RuleError`, rendered exactly as the
  engine's own playout renders it (message, line, caret, "while playing …", "while listing what
  pN may do in …"), without playing the game on the engine (`Kernel._fallback` is never called),
  past the work budget too (the kernel's is the engine's, `abi.KERNEL_BUDGET`), except where the
  kernel has no words by design: its own capacities (a list of more than 128);
- step by step, as the API calls the kernel (a move played, then the moves of whoever is to act
  listed), `faults.error` of the position a fault leaves, with what was being done, is the error
  the engine's `State.apply` raises.

The engine's words are frozen in tests/golden/engine/test_kernel_words.json (`freeze`, run by
tests/tools/freeze_engine.py while the engine lived).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fishrules
from fishrules.errors import FishrulesError, RuleError
from fishrules.kernel import Kernel, KFault, faults
from fishrules.kernel import abi as A
from fishrules.kernel.native import NativeError, compiler
from fishrules.kernel.pyruntime import below

from .test_kernel_faults import _EXPRESSION_CONTEXTS, CASES, EXPRESSIONS, FAULTS, rules_with
from ._frozen import frozen, plain
from ._twins import watched_fallback

try:
    compiler()
    BACKENDS = ("python", "native")
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    BACKENDS = ("python",)

LIMIT = 300
#: the fault whose cases take seconds of the engine's each: worded in one context, on one backend
#: each way (`test_the_work_budget_is_worded_as_the_engines`), not in every one
BUDGET = "the work budget"
CORPUS = Path(__file__).resolve().parent / "hostile" / "corpus" / "rules"
#: the corpus's rules that go wrong in a playout, in the kernel's words
CORPUS_FAULTS = ("doubling-in-an-action.fish", "fault-at-a-simultaneous-choice.fish", "left-of-nobody-in-a-require.fish",
                 "pile-0-in-a-require.fish", "softlock.fish", "some-of-1000-dice.fish", "squaring.fish")
# (quadratic-list.fish, a list past the kernel's 128, and moving-cards-for-ever.fish, past its
# budget, are the engine's: tests/hostile/test_kernel_rules.py holds the two machines to agree)


def _said(call) -> list:
    try:
        return plain(["ok", list(call())])
    except RuleError as e:
        return ["error", e.render()]
    except FishrulesError as e:
        return ["other", type(e).__name__, str(e)]


def engine(key: str) -> list:
    """What the engine said (frozen by `freeze`)."""
    return frozen("test_kernel_words")[key]


def _rules(context: str, fault: str):
    statement = EXPRESSIONS[fault] if context in _EXPRESSION_CONTEXTS else FAULTS.get(fault, "")
    return fishrules.loads(rules_with(context, statement), "faults.fish")


#: the catalog's cases, in every context and on every backend (the work budget's: below)
WORDED = [c for c in CASES if c[1] != BUDGET]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("context,fault", WORDED)
def test_a_playout_that_goes_wrong_raises_the_engines_error_in_the_kernels_words(context, fault, backend):
    g = _rules(context, fault)
    opts = g._options(None)
    kernel = Kernel(g, backend)
    assert kernel.name == backend
    calls = watched_fallback(kernel)
    for seed in (1, 2):
        want = engine(f"playout/{context}/{fault}/{seed}")
        assert want[0] == "error", (context, fault, want)
        assert _said(lambda: kernel.playout(2, opts, seed, limit=LIMIT).outcome) == want, (context, fault, seed)
    assert not calls, (context, fault, "the engine's machine played it")


@pytest.mark.parametrize("backend", BACKENDS)
def test_simulate_raises_the_error_of_the_first_game_that_goes_wrong_without_the_engine(backend):
    g = _rules("turn", "divide by zero")
    opts = g._options(None)
    kernel = Kernel(g, backend)
    calls = watched_fallback(kernel)
    want = engine("simulate")
    assert want[0] == "error" and "divide by zero" in want[1]
    assert _said(lambda: [p.outcome for p in kernel.simulate(2, opts, [3, 4, 5], limit=LIMIT)]) == want
    assert not calls


@pytest.mark.parametrize("name", sorted(CORPUS_FAULTS))
def test_the_hostile_corpus_goes_wrong_in_the_kernels_words(name, monkeypatch):
    monkeypatch.chdir(CORPUS.parents[3])  # (an error names its file from the checkout, as the engine's did)
    g = fishrules.load(str(CORPUS / name))
    opts = g._options(None)
    for backend in BACKENDS:
        kernel = Kernel(g, backend)
        calls = watched_fallback(kernel)
        players = g.max_players
        want = engine(f"corpus/{name}")
        assert want[0] == "error", name
        assert _said(lambda: kernel.playout(players, opts, 1, limit=LIMIT).outcome) == want, (name, backend)
        assert not calls, (name, backend)


#: more rules that go wrong when `boom` is played: {fault} is its effect (a score, the winners)
_MORE = """\
game "More faults"
players 2 to 3
tokens chip: colour in red x 3
the game has pile: zones from 1 to 3 of chip
the game has x: number
the game has holder: player
each player has hand: zone of chip
each player has points: number
score "points": your points
{score}
winners: {winners}

phase game:
  repeat:
    for each player:
      player chooses safe or boom

action safe:
  add 1 to your points

action boom:
  {fault}

phase other:
  nothing
"""

#: where a fault is said to be met (the statement, a condition, a loop's test, the scores, ...)
MORE = {
    # a loop that never waits tests again at its last statement's line, one that waits at its own
    "a loop's test after its body": dict(fault="set x to 3\n  repeat while count(pile(x)) > -1:\n"
                                               "    subtract 1 from x\n    add 1 to your points"),
    "a waiting loop's test": dict(fault="set x to 3\n  repeat while count(pile(x)) > -1:\n"
                                        "    subtract 1 from x\n    play other"),
    "an otherwise if": dict(fault="if x = 5:\n    nothing\n  otherwise if count(pile(x)) > 0:\n    nothing"),
    "a repeat's count": dict(fault="repeat count(pile(x)) times:\n    nothing"),
    "a zone of nobody read": dict(fault="set x to count(holder's hand)"),
    "a card moved to a zone of nobody": dict(fault="move first(your hand) to holder's hand"),
    "cards moved to a zone of nobody": dict(fault="move your hand to holder's hand"),
    "a value of nobody read": dict(fault="set x to holder's points"),
    "the end of a phase not played": dict(fault="end other"),
    "a score": dict(fault="end game", score='score "ratio": divide(10, x)'),
    "the winners": dict(fault="end game", winners="players with the highest divide(10, x)"),
}


def _more(case: str):
    return fishrules.loads(_MORE.format(**{"score": "", "winners": "players with the highest score", **MORE[case]}),
                           "more.fish")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(MORE))
def test_where_and_what_the_kernel_says_are_the_engines(case, backend):
    g = _more(case)
    opts = g._options(None)
    kernel = Kernel(g, backend)
    calls = watched_fallback(kernel)
    want = engine(f"more/{case}")
    assert want[0] == "error", case
    assert _said(lambda: kernel.playout(2, opts, 1, limit=LIMIT).outcome) == want, case
    assert not calls, case


# ---- step by step, as the API calls the kernel ----------------------------------------------------


def _listed(be, kp, S, who) -> None:
    """List the moves of each of `who` at the decision S waits at, as the engine's `apply` does
    after a move (and `legal_actions`): a fault is the error of listing them."""
    for p in who:
        try:
            be.moves(S, p)
        except KFault as f:
            where = faults.phase_at(kp, S)  # (the rules here decide in phases only)
            raise faults.error(kp, S, f.code, faults.listing(p, where)) or AssertionError("no words") from None


def _played(be, kp, S, call) -> None:
    try:
        call()
    except KFault as f:
        raise faults.error(kp, S, f.code, faults.PLAYING) or AssertionError("no words") from None
    who = be.who_together(S) if S[A.H_CUR] == A.CUR_SIMUL else (S[A.H_CUR],) if S[A.H_CUR] >= 0 else ()
    _listed(be, kp, S, who)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("context,fault", WORDED)
def test_faults_words_a_step_of_the_api_as_the_engine_does(context, fault, backend):
    """The engine's `apply` and the kernel's step (`play`, then the moves of whoever acts next
    listed), from the same position with the same choices: the same error, from `faults.error`."""
    g = _rules(context, fault)
    opts = g._options(None)
    kernel = Kernel(g, backend)
    be, kp, bd = kernel.backend, kernel.program, kernel.boundary
    want = engine(f"api/{context}/{fault}")
    trace = iter(want["trace"])
    S = be.new(2, opts, 1)
    _played(be, kp, S, lambda: be.start(S, False))
    ds, dd = 7, 0
    for _ in range(40):
        together = S[A.H_CUR] == A.CUR_SIMUL
        who = be.who_together(S) if together else (S[A.H_CUR],)
        chosen = []
        offered = []
        for p in who:
            moves = be.moves(S, p)
            offered.append([bd.text(m, together) for m in moves])
            j, dd = below(ds, dd, len(moves))
            chosen.append(moves[j])
        assert [list(who), offered] == next(trace), (context, fault, backend)
        play = (lambda: be.play_together(S, tuple(chosen))) if together else (lambda: be.play(S, chosen[0]))
        got = _said(lambda: _played(be, kp, S, play) or ())
        if got[0] == "error":
            assert got == want["error"] and next(trace, None) is None, (context, fault, backend)
            return
    raise AssertionError(f"{context}, {fault}: the rules never went wrong")


def test_the_work_budget_is_worded_as_the_engines():
    """The kernel's budget is the engine's: past it, a playout (native) and a step of the API
    (the Python spelling) raise the engine's error in the kernel's words, without its machine."""
    assert ("turn", BUDGET) in CASES
    test_a_playout_that_goes_wrong_raises_the_engines_error_in_the_kernels_words("turn", BUDGET, BACKENDS[-1])
    test_faults_words_a_step_of_the_api_as_the_engine_does("turn", BUDGET, "python")


# ---- the engine's words, frozen (tests/tools/freeze_engine.py) --------------------------------------


def freeze(engine) -> dict:
    """What the engine said in the cases above (run by tests/tools/freeze_engine.py while it lived;
    from the checkout, as the corpus's errors name their files)."""
    from fishrules.runtime import SIMULTANEOUS

    out = {}
    for context, fault in CASES:
        g = _rules(context, fault)
        for seed in (1, 2):
            out[f"playout/{context}/{fault}/{seed}"] = _said(lambda: engine.playout(g, 2, seed, limit=LIMIT))
        # step by step: the legal texts at each decision, and the error of the step that went wrong
        e = engine.start(g, 2, 1)
        ds, dd, trace, error = 7, 0, [], None
        for _ in range(40):
            together = e.current == SIMULTANEOUS
            who = list(e.waiting) if together else [e.current]
            acts, offered = [], []
            for p in who:
                legal = e.legal_actions(p)
                offered.append([a.text for a in legal])
                j, dd = below(ds, dd, len(legal))
                acts.append(legal[j])
            trace.append([who, offered])
            for a in acts[:-1]:
                e.apply(a)  # (all but the last of a choice made together only wait for the others)
            said = _said(lambda: e.apply(acts[-1]) and ())
            if said[0] == "error":
                error = said
                break
        out[f"api/{context}/{fault}"] = {"trace": trace, "error": error}
    out["simulate"] = _said(lambda: engine.playout(_rules("turn", "divide by zero"), 2, 3, limit=LIMIT))
    for name in CORPUS_FAULTS:
        g = fishrules.load(str(CORPUS / name))
        out[f"corpus/{name}"] = _said(lambda: engine.playout(g, g.max_players, 1, limit=LIMIT))
    for case in MORE:
        out[f"more/{case}"] = _said(lambda: engine.playout(_more(case), 2, 1, limit=LIMIT))
    return out

"""The kernel beside its engine twin, for the kernel's tests: one player decision played on both
(the kernel's moves must be the engine's actions, in order), and what a call ended in, to compare."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import fishrules
from fishrules.errors import FishrulesError, RuleError
from fishrules.kernel import Kernel, NativeError
from fishrules.kernel import abi as A
from fishrules.kernel.native import compiler
from fishrules.kernel.pyruntime import below
from fishrules.runtime import SIMULTANEOUS

try:
    compiler()
    NATIVE = True
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    NATIVE = False

# The two backends as a parametrization: native is skipped, and said, where no C compiler runs.
BACKENDS = ["python", pytest.param("native", marks=pytest.mark.skipif(not NATIVE, reason="no C compiler here"))]

_games: dict = {}
_kernels: dict = {}


def bundled_game(name: str, backend: str = "native") -> Any:
    """The bundled ruleset `name`, loaded once for every test that plays it on `backend`."""
    if (name, backend) not in _games:
        _games[name, backend] = fishrules.load(name, backend=backend)
    return _games[name, backend]


def kernel(name: str, backend: str) -> Kernel:
    """The kernel of the bundled ruleset `name` on `backend`, built once for every test file."""
    if (name, backend) not in _kernels:
        _kernels[name, backend] = Kernel(fishrules.load(name), backend)
    return _kernels[name, backend]


def engine_start(game: Any, players: int, seed: int, chance: str = "seeded", options: Any = None) -> Any:
    """A game on the engine's own machine (its `State`), whatever the game's backend: the twin the
    kernel's states are held to while the engine lives (`start` gives a kernel state on both
    backends)."""
    from fishrules.runtime import State

    return State._new(game, players, game._options(options), seed, chance == "manual")


def decide_both(be: Any, bd: Any, S: Any, ref: Any, ds: int, dd: int) -> int:
    """The player decision the engine's state `ref` waits for, chosen by the kernel's decision
    generator (`ds`, `dd`) and played on the kernel position `S` and on `ref`, after checking that
    the kernel offers exactly the engine's actions; the generator's next `dd`."""
    if ref.current == SIMULTANEOUS:
        who = be.who_together(S)
        assert list(who) == ref.waiting
        chosen = []
        for p in who:
            moves = be.moves(S, p)
            acts = ref.legal_actions(p)
            assert [bd.text(mv, True) for mv in moves] == [a.text for a in acts]
            j, dd = below(ds, dd, len(acts))
            chosen.append(moves[j])
            ref.apply(acts[j])
        be.play_together(S, tuple(chosen))
        return dd
    assert S[A.H_CUR] == ref.current
    moves = be.moves(S, ref.current)
    acts = ref.legal_actions()
    assert [bd.text(mv) for mv in moves] == [a.text for a in acts]
    j, dd = below(ds, dd, len(acts))
    be.play(S, moves[j])
    ref.apply(acts[j])
    return dd


def outcome(call: Callable[[], Any], error: type = RuleError) -> tuple:
    """What `call()` ended in: ("ok",), or the error of kind `error` as the user reads it (the
    whole rendered `RuleError`, else its words), or another of the library's errors (shown when
    two machines disagree)."""
    try:
        call()
    except error as e:
        return ("error", e.render(), str(e)) if isinstance(e, RuleError) else ("error", str(e))
    except FishrulesError as e:
        return ("other", type(e).__name__, str(e))
    return ("ok",)


def watched_fallback(kernel: Any) -> list:
    """The calls of the kernel's `_fallback` (the game played on the engine's machine) from now on
    (none ever, once the engine's machine is gone: issue 32, step 6)."""
    calls: list = []
    engine = getattr(kernel, "_fallback", None)
    if engine is None:
        return calls

    def fallback(*args):
        calls.append(args)
        return engine(*args)

    kernel._fallback = fallback
    return calls


def watched_twins(monkeypatch: Any) -> list:
    """The kernel states that ask the engine's machine for anything (a twin of themselves replayed
    there, `KState._twin`) from now on, one entry a time (none ever, once the engine's machine is
    gone: issue 32, step 6)."""
    from fishrules.kernel.apistate import KState

    asked: list = []
    real = getattr(KState, "_twin", None)
    if real is None:
        return asked

    def twin(self):
        asked.append(self)
        return real(self)

    monkeypatch.setattr(KState, "_twin", twin)
    return asked


def skip_without_compiler() -> None:
    """Skip the calling test module where no C compiler can build the native kernel."""
    try:
        compiler()
    except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
        pytest.skip("no C compiler here", allow_module_level=True)


def no_engine_start(monkeypatch: Any) -> None:
    """From now on, the engine's machine may set no game up (`State._new` of the engine's `State`
    raises): what the kernel says, it says alone.  Nothing to do once the engine's `State` is gone
    (issue 32, step 6: `State` is then the kernel's)."""
    import importlib.util

    if importlib.util.find_spec("fishrules.kernel.apistate") is None:
        return
    from fishrules.runtime import State

    def engine(*args: Any, **kw: Any) -> Any:
        raise AssertionError("the engine's machine set the game up")

    monkeypatch.setattr(State, "_new", engine)


def played_texts(kernel: Any, players: int, seed: int, texts: list, options: Any = None) -> Any:
    """A position of `kernel` (on its backend, no API) from `seed`, the moves of `texts` played in
    order (each found by its text among the moves of whoever is waited for; at a choice made
    together, one player's choice at a time)."""
    be, bd = kernel.backend, kernel.boundary
    S = be.new(players, kernel.game._options(options), seed)
    be.start(S, False)
    for text in texts:
        if S[A.H_CUR] == A.CUR_SIMUL:
            move = next(m for p in be.waiting_together(S) for m in be.moves(S, p) if bd.text(m, True) == text)
            be.choose(S, move)
        else:
            be.play(S, next(m for m in be.moves(S, S[A.H_CUR]) if bd.text(m) == text))
    return S


def decided_playout(state: Any, seed: int) -> Any:
    """Play `state` (seeded) to its end through the API, every choice by the kernel's decision
    generator of `seed` (move `below(n)` of the `n` legal actions; at a choice made together, one
    for each waiting player in turn): the game `Kernel.playout(players, options, seed)` plays.
    The state, played out."""
    from fishrules.kernel.pyruntime import decision_seed

    ds, dd = decision_seed(seed), 0
    while not state.is_over:
        for p in list(state.waiting) if state.current == SIMULTANEOUS else [None]:
            acts = state.legal_actions(p)
            j, dd = below(ds, dd, len(acts))
            state.apply(acts[j])
    return state

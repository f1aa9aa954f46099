"""The game kernel: a ruleset lowered to one flat integer program, run as native code or Python.

What plays many games runs here: `Game.simulate`/`playouts`, `fishrules simulate` and `compare`,
the search bots' rollouts.  The stages are modules of this package:

    lower (lower_expr, lower_blocks, hoist) -> ir -> arms -> emit_python / emit_c -> machine / native

`Kernel(game, backend)` is what the rest of the engine uses: `backend="auto"` (the default) runs
native code where a C compiler can build it and Python otherwise, with one `NativeUnavailable`
warning saying why; `"native"` insists (raising `NativeError`); `"python"` never compiles.

A kernel plays exactly the engine's games (tests/test_kernel.py): chance by the state's seeded
generator, every random choice by a second generator seeded `decision_seed(seed)`.  When a step
goes wrong in the kernel (a rule that fails, more work than a step may do, one of the kernel's own
capacities), the game is played again on the engine's own machine (`reference_playout`), which
gives the same result or raises the engine's own positioned error.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterator, NamedTuple, Optional

from ..errors import OptionError
from ..limits import MAX_PLAYOUT_DECISIONS
from . import layout as L
from .boundary import Boundary
from .lower import KernelProgram, lower
from .machine import PyBackend
from .native import NativeBackend, NativeError
from .pyruntime import KFault, decision_seed
from .lower_blocks import FAULT_ENDLESS
from .reference import Outcome, endless, reference_playout

__all__ = ["Kernel", "Played", "NativeError", "NativeUnavailable", "KFault", "Outcome", "BACKENDS", "decision_seed"]

BACKENDS = ("auto", "native", "python")

#: Games played per call into native code by `Kernel.simulate` (a progress bar moves between).
CHUNK = 256


class Played(NamedTuple):
    """A game played out: its outcome, how often each named rule fired (in the engine's order),
    and the draws that found their zone empty ({zone name: [during the set-up, later]})."""

    outcome: Outcome
    fires: list
    empty: dict


class NativeUnavailable(UserWarning):
    """Native code could not be built here; the kernel runs as Python (slower, the same games)."""


_warned: set = set()


def check_backend(backend: Any) -> str:
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    return backend


class _Engine:
    """In place of a backend, for rules the kernel cannot hold (`layout.TooLarge`): every game is
    played by the engine's own machine."""

    name = "engine"


class Kernel:
    """The kernel of one game: its lowered program and the backend that runs it."""

    def __init__(self, game: Any, backend: str = "auto"):
        check_backend(backend)
        self.game = game
        self.why_not_native: Optional[str] = None
        try:
            self.program: KernelProgram = lower(game._model, game._program)
        except L.TooLarge as exc:  # the engine's own machine plays every game (see `_fallback`)
            if backend == "native":
                raise NativeError(f"these rules are too large for the game kernel: {exc}") from None
            self.program = None  # type: ignore[assignment]
            self.why_not_native = f"these rules are too large for the game kernel: {exc}"
            self.backend: Any = _Engine()
            return
        self.boundary = Boundary(self.program, game._program)
        be: Any = None
        if backend in ("auto", "native"):
            try:
                be = NativeBackend(self.program)
            except NativeError as exc:
                if backend == "native":
                    raise
                self.why_not_native = str(exc)
                if str(exc) not in _warned:
                    _warned.add(str(exc))
                    warnings.warn(f"fishrules runs its game kernel as Python, which is slower: {exc}",
                                  NativeUnavailable, stacklevel=3)
        if be is None:
            try:
                be = PyBackend(self.program)
            except (SyntaxError, RecursionError) as exc:  # its Python nests deeper than CPython reads
                self.why_not_native = self.why_not_native or f"the game kernel's Python cannot be compiled: {exc.msg if isinstance(exc, SyntaxError) else exc}"
                be = _Engine()
        self.backend = be

    @property
    def name(self) -> str:
        """"native" or "python": what runs the games ("engine" for rules too large for the kernel)."""
        return self.backend.name

    # ---- whole games ---------------------------------------------------------------------------

    def playout(self, players: int, options: dict, seed: int, limit: int = MAX_PLAYOUT_DECISIONS) -> Played:
        """One whole game from its set-up.  A game that has not ended after `limit` decisions
        raises `RuleError`; so does a rule that goes wrong (the engine's own error)."""
        be = self.backend
        if isinstance(be, _Engine):
            return self._fallback(players, options, seed, limit)
        try:
            S = be.new(players, options, seed, limit=limit)
            be.start(S, True)
            lay = self.program.layout
            return Played(self._outcome(S), list(S[lay.fires:lay.fires + lay.nrules]),
                          self._empty(S[lay.empty:lay.empty + 2 * len(lay.zones)]))
        except KFault as f:
            if f.code == FAULT_ENDLESS:
                raise endless(self.game, limit) from None
            return self._fallback(players, options, seed, limit)
        except (TypeError, IndexError, KeyError, ValueError, ZeroDivisionError, RecursionError, OverflowError):
            return self._fallback(players, options, seed, limit)  # the Python backend's way of going wrong

    def simulate(self, players: int, options: dict, seeds: list, limit: int = MAX_PLAYOUT_DECISIONS) -> Iterator[Played]:
        """One game per seed, in order."""
        if isinstance(self.backend, NativeBackend):
            nrules = self.program.layout.nrules
            for at in range(0, len(seeds), CHUNK):
                part = seeds[at:at + CHUNK]
                scores, wins, dec, ch, faults, extra = self.backend.simulate(players, options, part, limit)
                for i, seed in enumerate(part):
                    if faults[i] == FAULT_ENDLESS:
                        raise endless(self.game, limit)
                    if faults[i]:
                        yield self._fallback(players, options, seed, limit)
                        continue
                    w = wins[i]
                    yield Played(Outcome(list(scores[i * players:(i + 1) * players]),
                                         [p for p in range(players) if w >> p & 1], dec[i], ch[i]),
                                 list(extra[i][:nrules]), self._empty(extra[i][nrules:]))
            return
        for seed in seeds:
            yield self.playout(players, options, seed, limit)

    def _outcome(self, S) -> Outcome:
        be = self.backend
        return Outcome(be.scores(S), be.winners(S), S[L.H_DECISIONS], S[L.H_CHANCES])

    def _empty(self, counts) -> dict:
        """Draws that found their zone empty, by the zone's name: {name: [set-up, later]}."""
        if not any(counts):
            return {}
        out: dict = {}
        prog, lay = self.game._program, self.program.layout
        for zid in range(len(lay.zones)):
            a, b = counts[2 * zid], counts[2 * zid + 1]
            if a or b:
                is_game, slot, _ = lay.zone_names[zid]
                name = prog.game_var_names.get(slot, "?") if is_game else prog.player_var_names.get(slot, "?")
                c = out.setdefault(name, [0, 0])
                c[0] += a
                c[1] += b
        return dict(sorted(out.items()))

    def _fallback(self, players: int, options: dict, seed: int, limit: int) -> Played:
        """The game played on the engine's own machine (which raises the engine's error, if a rule
        goes wrong)."""
        from ..runtime import State
        from ..simulation import empty_draws

        state = State._new(self.game, players, options, seed, False, count_rules=True)
        setup = dict(state.empty_draws)
        out = reference_playout(self.game, players, seed, state=state, dseed=decision_seed(seed), limit=limit)
        return Played(Outcome(out.scores, out.winners, out.decisions, len(state.history) - out.decisions), state.fires,
                      empty_draws(self.game, setup, state.empty_draws))

    # ---- states --------------------------------------------------------------------------------

    def state_of(self, state: Any) -> Any:
        """The kernel state of an engine state (seeded, with its whole history): the game replayed
        in the kernel, decision by decision; chance comes out the same from the same seed (each
        outcome the kernel resolves is one entry of the history, skipped).  Raises KFault if the
        kernel cannot play it."""
        if state.manual or state._history is None or isinstance(self.backend, _Engine):
            raise KFault(3)
        be, bd = self.backend, self.boundary
        S = be.new(state.n, {o.name: state.g[o.slot] for o in self.program.model.options}, state.seed)
        be.start(S, False)
        texts = state._history.list()
        i = S[L.H_CHANCES]
        pending: dict = {}
        while i < len(texts):
            cur = S[L.H_CUR]
            text = texts[i]
            if cur == L.CUR_SIMUL:
                who = be.who_together(S)
                head, _, _ = text.partition(": ")
                p = int(head[1:]) if head[1:].isdigit() else -1
                mv = next((m for m in be.moves(S, p) if bd.text(m, True) == text), None) if p in who else None
                if mv is None:
                    raise KFault(1)
                pending[p] = mv
                i += 1
                if len(pending) == len(who):
                    before = S[L.H_CHANCES]
                    be.play_together(S, tuple(pending[q] for q in who))
                    pending = {}
                    i += S[L.H_CHANCES] - before
                continue
            if cur < 0:
                raise KFault(1)
            mv = next((m for m in be.moves(S, cur) if bd.text(m) == text), None)
            if mv is None:
                raise KFault(1)
            before = S[L.H_CHANCES]
            be.play(S, mv)
            i += 1 + S[L.H_CHANCES] - before
        if pending:
            raise KFault(3)  # some players chose at a simultaneous decision, not all: the API keeps that
        return S

"""The game kernel: a ruleset lowered to one flat integer program, run as native code or Python.

What plays many games runs here: `Game.simulate`/`playouts`, `fishrules simulate` and `compare`,
the search bots' rollouts.  The stages are modules of this package:

    lower (lower_expr, lower_blocks, hoist) -> ir -> arms -> emit_python / emit_c -> machine / native

and, for the API (`apistate`), what a seat sees of a position (`views`) and the record of a game
from the kernel's own trace (`record`).

`Kernel(game, backend)` is what the rest of the engine uses: `backend="auto"` (the default) runs
native code where a C compiler can build it and Python otherwise, with one `NativeUnavailable`
warning saying why; `"native"` insists (raising `NativeError`); `"python"` never compiles.

A kernel plays exactly the engine's games (tests/test_kernel.py): chance by the state's seeded
generator, every random choice by a second generator seeded `decision_seed(seed)`.  A rule that
goes wrong in the kernel raises the engine's own positioned error, in the kernel's words
(`faults`).  A game that grows a list the rules add to past the room the kernel keeps goes on in a
roomier kernel of the same rules (`Kernel.roomier`: tiers of `layout.ROOMS`, up to the language's
own limit).  Where the kernel has no words (one of its own capacities past its roomiest variant),
the game is played again on the engine's own machine (`reference_playout`), which gives the same
result or raises its error.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterator, NamedTuple, Optional

from ..errors import OptionError
from ..backends import BACKENDS, check_backend
from ..runtime import CHANCE, recorded_moves
from ..forms import FACE_UP
from ..limits import MAX_PLAYOUT_DECISIONS
from . import abi as A
from . import faults
from . import layout as L
from .abi import FAULT_CAPACITY, FAULT_ENDLESS, FAULT_RULE, decision_seed
from .boundary import Boundary
from .lower import KernelProgram, lower
from .machine import PyBackend
from .native import NativeBackend, NativeError, is_known
from .pyruntime import KFault
from .reference import Outcome, endless, reference_playout

__all__ = ["Kernel", "Played", "NativeError", "TooLargeForKernel", "NativeUnavailable", "KFault", "Outcome", "BACKENDS", "decision_seed"]


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


def _signed(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


class TooLargeForKernel(NativeError, OptionError):
    """`backend="native"` asked of rules too large for the game kernel (`layout.TooLarge`): with
    `"auto"` the engine's own machine plays them.  An `OptionError` too: the backend asked for
    cannot play these rules."""


class _Engine:
    """In place of a backend, for rules the kernel cannot hold (`layout.TooLarge`): every game is
    played by the engine's own machine."""

    name = "engine"


def native_is_cached(game: Any) -> bool:
    """Whether the game's native kernel is in the cache already, by its rules' hash: nothing is
    lowered or compiled (a first `start` of strangers' rules does no work for the kernel).  Rules
    too large for the kernel (`layout.TooLarge`) never have one: False."""
    return is_known(game._identity)


class Kernel:
    """The kernel of one game: its lowered program and the backend that runs it."""

    def __init__(self, game: Any, backend: str = "auto", list_room: int = A.LIST_CAPACITY):
        check_backend(backend)
        self.game = game
        #: the room of each list the rules add to (`Layout.list_room`), and the kernel of the same
        #: rules with the next tier's (`roomier`): None until asked for, False where there is none
        self.list_room = list_room
        self._roomier: Any = None
        #: the API's lists of legal actions, shared by the positions that offer the same moves
        #: ((actor, chosen together, move records) -> actions; kernel/apistate.py)
        self.api_actions: Optional[dict] = {}
        self.api_shared = 0  # how many positions found their list since it was last emptied
        #: how to read what a seat sees from a position (kernel/views.py), made when first needed
        self.sight: Any = None
        #: by action space, the actions whose ids depend on the position (the others' ids are kept
        #: with the legal lists: apistate)
        self.api_by_position: dict = {}
        #: by action space, the ids of moves by their records (apistate: `ids_on_kernel`)
        self.api_move_ids: dict = {}
        self.why_not_native: Optional[str] = None
        #: how the kernel's traces become the engine's record (kernel/record.py), made when first needed
        self.recorder: Any = None
        try:
            self.program: KernelProgram = lower(game.model, list_room)
        except L.TooLarge as exc:  # the engine's own machine plays every game (see `_fallback`)
            if backend == "native":
                raise TooLargeForKernel(f"these rules are too large for the game kernel: {exc}") from None
            self.program = None  # type: ignore[assignment]
            self.why_not_native = f"these rules are too large for the game kernel: {exc}"
            self.backend: Any = _Engine()
            return
        self.boundary = Boundary(self.program)
        be: Any = None
        if backend in ("auto", "native"):
            try:
                # (a roomier variant is no game's own kernel: `native_is_cached` asks after that one)
                be = NativeBackend(self.program, rules=game._identity if list_room == A.LIST_CAPACITY else None)
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

    def roomier(self) -> Optional["Kernel"]:
        """The kernel of the same rules on the same backend with the next tier of room for the
        lists the rules add to (`layout.ROOMS`), built when first asked for (a native build of its
        own, cached on disk as every kernel is): where a game that outgrew this kernel's room goes
        on.  Everything a position says is the same on either (`apistate.position_of` reads each
        list by its length; the moves are the same records).  None where there is none: rules
        that add to no list, room at the language's limit already, or a variant the backend cannot
        build (too large for the kernel, no compiler): the engine's machine then plays on, as
        before."""
        got = self._roomier
        if got is None:
            got = self._roomier = False
            room = L.roomier(self.list_room)
            if room is not None and self.program is not None and self.program.layout.grows \
                    and not isinstance(self.backend, _Engine):
                try:
                    bigger = Kernel(self.game, self.backend.name, list_room=room)
                except NativeError:  # (too large at this room, or no build: `TooLargeForKernel` is one)
                    bigger = None
                if bigger is not None and bigger.name == self.name:
                    got = self._roomier = bigger
        return got or None

    def holds(self, other: Any) -> bool:
        """Whether `other` is this kernel or one of its roomier variants (a state of this game that
        grew a list is a position of one of them)."""
        k: Any = self
        while k:
            if k is other:
                return True
            k = k._roomier
        return False

    @property
    def name(self) -> str:
        """"native" or "python": what runs the games ("engine" for rules too large for the kernel)."""
        return self.backend.name

    # ---- whole games ---------------------------------------------------------------------------

    def playout(self, players: int, options: dict, seed: int, limit: int = MAX_PLAYOUT_DECISIONS) -> Played:
        """One whole game from its set-up.  A game that has not ended after `limit` decisions
        raises `RuleError`; so does a rule that goes wrong (the engine's own error, in the kernel's
        words: `faults`; past the kernel's own budget or capacities, the game played by the engine)."""
        be, kp = self.backend, self.program
        if isinstance(be, _Engine):
            return self._fallback(players, options, seed, limit)
        S: Any = None
        context: Any = None  # until the game has ended: the rules ran, or a player's moves were listed
        try:
            S = be.new(players, options, seed, limit=limit)
            be.start(S, True)
            context = faults.SCORES
            scores = be.scores(S)
            context = faults.WINNERS
            outcome = Outcome(scores, be.winners(S), S[A.H_DECISIONS], S[A.H_CHANCES])
        except KFault as f:
            if f.code == FAULT_ENDLESS:
                raise endless(self.game, limit) from None
            if S is not None:
                if context is None:
                    if S[A.H_CUR] >= 0 and S[A.H_DECISIONS] >= S[A.H_LIMIT]:
                        # listing a decision past the limit: the engine stops before it lists
                        raise endless(self.game, limit) from None
                    err = faults.in_playout(kp, S, f.code, be)
                else:
                    err = faults.error(kp, S, f.code, context)
                if err is not None:
                    raise err from None
            elif f.code == FAULT_RULE:  # the set-up itself: the number of dice, from the options
                err = faults.setting_up(self, players, options, seed)
                if err is not None:
                    raise err from None
            if f.code == FAULT_CAPACITY:
                bigger = self.roomier()
                if bigger is not None:  # a list outgrew its room: the same game in a roomier kernel
                    return bigger.playout(players, options, seed, limit)
            return self._fallback(players, options, seed, limit)
        except (TypeError, IndexError, KeyError, ValueError, ZeroDivisionError, RecursionError, OverflowError):
            return self._fallback(players, options, seed, limit)  # (the backends word their own errors: never)
        lay = kp.layout
        return Played(outcome, list(S[lay.fires:lay.fires + lay.nrules]),
                      self._empty(S[lay.empty:lay.empty + 2 * len(lay.zones)]))

    def simulate(self, players: int, options: dict, seeds: list, limit: int = MAX_PLAYOUT_DECISIONS) -> Iterator[Played]:
        """One game per seed, in order."""
        if isinstance(self.backend, NativeBackend):
            nrules, tail = self.program.layout.nrules, self.backend.tail
            for at in range(0, len(seeds), CHUNK):
                part = seeds[at:at + CHUNK]
                scores, wins, dec, ch, stops, extra = self.backend.simulate(players, options, part, limit)
                for i, seed in enumerate(part):
                    if stops[i] == FAULT_ENDLESS:
                        raise endless(self.game, limit)
                    if stops[i]:
                        # the same game again, one step at a time: its fault in the kernel's words
                        # (a list past its room: in a roomier kernel; past the kernel's other
                        # limits, the game on the engine's machine)
                        bigger = self.roomier() if stops[i] == FAULT_CAPACITY else None
                        yield (bigger or self).playout(players, options, seed, limit)
                        continue
                    w, e = wins[i], i * tail
                    yield Played(Outcome(list(scores[i * players:(i + 1) * players]),
                                         [p for p in range(players) if w >> p & 1], dec[i], ch[i]),
                                 list(extra[e:e + nrules]), self._empty(extra[e + nrules:e + tail]))
            return
        for seed in seeds:
            yield self.playout(players, options, seed, limit)

    def _empty(self, counts) -> dict:
        """Draws that found their zone empty, by the zone's name: {name: [set-up, later]}."""
        if not any(counts):
            return {}
        out: dict = {}
        prog, lay = self.game.program, self.program.layout
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
        from ..runtime import State, empty_draws

        state = State._new(self.game, players, options, seed, False, count_rules=True)
        setup = dict(state.empty_draws)
        out = reference_playout(self.game, players, seed, state=state, dseed=decision_seed(seed), limit=limit)
        return Played(Outcome(out.scores, out.winners, out.decisions, len(state.history) - out.decisions), state.fires,
                      empty_draws(self.game, setup, state.empty_draws))

    @property
    def manual_chance(self) -> bool:
        """Whether a game whose chance is the caller's (`start(chance="manual")`) is played on the
        kernel: wherever the kernel runs the rules (a die, a card drawn from a shuffled zone: each
        is a wait of the kernel)."""
        return self.program is not None and not isinstance(self.backend, _Engine)

    # ---- states --------------------------------------------------------------------------------

    def copy_state(self, S):
        """A copy of a kernel state (copying is copying the array)."""
        from array import array

        return array("q", S) if isinstance(S, array) else list(S)

    def state_of(self, state: Any) -> Any:
        """The kernel state of an engine state (seeded, with its whole history): the game replayed
        in the kernel, decision by decision, each move as the typed `Move` its record keeps beside
        its text (`recorded_moves`), found among the kernel's legal moves by its key (no text written
        or read); chance comes out the same from the same seed (each outcome the kernel resolves
        is one entry of the history, skipped).  Raises KFault if the kernel cannot play it (a
        move the kernel does not list)."""
        if state._history is None or state.cur == CHANCE or isinstance(self.backend, _Engine):
            raise KFault(FAULT_CAPACITY)  # no whole record to replay, waiting for chance, or no kernel: the engine's machine
        origin = getattr(state, "_kernel_origin", None)
        if origin is not None and origin[2] == len(state._history):  # a determinization, as drawn
            det, orders, _ = origin
            S = det.kernel_state(self, orders)
            S[A.H_SEED], S[A.H_DRAWS] = state.seed, 0
            return S
        be = self.backend
        texts = state._history.list()
        moves = recorded_moves(state)
        S = be.new(state.n, {o.name: state.g[o.slot] for o in self.program.model.options}, state.seed)
        S[A.H_MANUAL] = 1  # chance waits, and each outcome is read from the record
        be.start(S, False)
        i = 0
        while i < len(moves):
            cur = S[A.H_CUR]
            if cur == A.CUR_CHANCE:
                if moves[i] is not None:
                    raise KFault(FAULT_RULE)
                be.play_chance(S, self._chance_outcome(S, texts[i], state))
                i += 1
                continue
            if cur == A.CUR_SIMUL:  # (kept in the position; the kernel refuses a second choice: KFault)
                be.choose(S, self._replayed(S, moves[i], texts[i], True, be.who_together(S))[1])
                i += 1
                continue
            if cur < 0:
                raise KFault(FAULT_RULE)
            _, km = self._replayed(S, moves[i], texts[i], False, (cur,))
            i += 1
            be.play(S, km)
        if S[A.H_CUR] in (A.CUR_RUN, A.CUR_CHANCE) or (S[A.H_CUR] == A.CUR_OVER) != state.is_over:
            raise KFault(FAULT_CAPACITY)
        S[A.H_MANUAL] = 0  # from here on, chance from the state's own generator
        S[A.H_SEED], S[A.H_DRAWS] = _signed(state.seed), state.draws
        return S

    def _replayed(self, S: Any, move: Any, text: str, together: bool, who: tuple) -> tuple:
        """(actor, kernel move) of a move of the record, one of `who`'s legal moves in S, found by
        its typed `Move`'s key.  KFault if it is none of them."""
        be, bd = self.backend, self.boundary
        if move is not None:
            actor = move.actor
            km = bd.kernel_move(move) if move.together == together and actor in who else None
            if km is None or km not in be.moves(S, actor):
                raise KFault(FAULT_RULE)
            return actor, km
        # A record kept as text only: a determinization's, which holds what one player saw and no
        # typed moves (they could tell apart identical cards its texts do not).  Its move is found
        # by its text among the kernel's.
        if together:
            head = text.partition(": ")[0]
            actor = int(head[1:]) if head[:1] == "p" and head[1:].isdigit() else -1
        else:
            actor = who[0]
        km = next((m for m in be.moves(S, actor) if bd.text(m, together) == text), None) if actor in who else None
        if km is None:
            raise KFault(FAULT_RULE)
        return actor, km

    def _chance_outcome(self, S: Any, text: str, state: Any) -> int:
        """The outcome the kernel waits for at S (CUR_CHANCE), as the record's entry `text` says
        it: a card of the zone drawn from with the label it names (`draw LABEL`), or the face the
        die shows (`die N rolls FACE`, the die the one waited for).  KFault if it says neither."""
        prog = state.prog
        if S[A.H_CHANCE] == A.CHANCE_DRAW:
            if text.startswith("draw "):
                lay = self.program.layout
                at, labels = lay.zones[S[A.H_CHANCE_A]][0], prog.card_labels
                label, up = text[5:], 0
                if label.endswith(FACE_UP):
                    label, up = label[:-len(FACE_UP)], 1
                card = next((c for c in S[at + 1:at + 1 + S[at]] if labels[c] == label and bool(S[lay.up + c]) == up),
                            None)
                if card is not None:
                    return card
            raise KFault(FAULT_RULE)
        parts = text.split(" ", 3)  # a face's label may have a space: `die 2 rolls BODY 10`
        if len(parts) == 4 and parts[0] == "die" and parts[2] == "rolls" and parts[1] == str(S[A.H_CHANCE_A] + 1):
            face = next((i for i, f in enumerate(prog.faces) if f.label == parts[3]), None)
            if face is None:
                face = next((i for i, lab in enumerate(prog.face_labels) if lab == parts[3]), None)
            if face is not None:
                return prog.face_canonical[face]
        raise KFault(FAULT_RULE)

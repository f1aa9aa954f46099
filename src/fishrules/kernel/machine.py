"""Running a kernel program: set a game up, play it out, or step it one decision at a time.

`Machine` is the part both backends share: it sets up a state array (options, starting values,
empty zones), runs the game block until the game waits or ends (playing `play again` as a new
set-up), and reads and writes the state's header.  A backend supplies the functions: `PyBackend`
runs the program `emit_python` wrote; `fishrules.kernel.native` the compiled C.

Every step the kernel cannot finish (a rule that goes wrong, more work than a step may do, one of
the kernel's own capacities) raises `KFault`; a rule that goes wrong says what in the header, as
the C spelling does (Python's own errors, the engine's way of going wrong, are written there by
`_worded`), for kernel/faults.py to word.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from ..limits import MAX_DICE, MAX_PLAYOUT_DECISIONS
from . import abi as A
from .abi import FAULT_CAPACITY, FAULT_ENDLESS, FAULT_RULE, FAULT_STUCK, M64, RESTART_WORK, below, decision_seed
# (the header's cells the hot path writes, as plain globals)
from .abi import CUR_RUN as _CUR_RUN, H_CUR as _H_CUR, H_MODE as _H_MODE, H_MOVE as _H_MOVE, H_SITE as _H_SITE
from .abi import H_WHY as _H_WHY, H_WORK as _H_WORK, WHY_NONE as _WHY_NONE
from .arms import AskAll
from .emit_python import emit_python, frame_slots_python
from .lower import KernelProgram
from .lower_blocks import PAUSE, RESTART
from .pyruntime import KFault, charge, load

__all__ = ["PyBackend", "encode_option", "why_of"]

#: What the Python spelling raises of its own where the C spelling checks (nothing where a value
#: is needed, divide by zero, rules that nest too deeply): the engine words these by their type.
_PLAIN = (TypeError, IndexError, KeyError, ValueError, ZeroDivisionError, RecursionError, OverflowError, MemoryError)


def why_of(exc: BaseException) -> int:
    """S[H_WHY] for one of Python's own errors, as the engine words it (runtime/machine.py `_fault`)."""
    if isinstance(exc, RecursionError):
        return A.WHY_NESTED
    if isinstance(exc, TypeError) and "NoneType" in str(exc):
        return A.WHY_NOBODY
    if isinstance(exc, ZeroDivisionError):
        return A.WHY_DIVIDE
    if isinstance(exc, MemoryError):
        return A.WHY_MEMORY
    return A.WHY_NONE


def give_outcome(S: Any, outcome: int) -> None:
    """Write the chance outcome the position waits for (S[H_CUR] == CUR_CHANCE, else FAULT_RULE)
    where the kernel reads it, for either backend to run on: a die's face, or a card of the zone
    drawn from (S[H_CHANCE] says which).  What is no 64-bit whole number is a KFault
    (FAULT_CAPACITY) before the position is touched; the kernel checks the rest."""
    if S[A.H_CUR] != A.CUR_CHANCE:
        raise KFault(FAULT_RULE)
    if outcome.__class__ is not int or not -(1 << 63) <= outcome < 1 << 63:
        raise KFault(FAULT_CAPACITY)
    S[A.H_MOVE] = outcome
    S[A.H_CUR] = A.CUR_RUN


#: The Python kernel and the position its last call ended on ([the kernel's token, S]; S None
#: after a call that did not end; a token, not the kernel, so that no kernel is kept alive here).  Kept define values (emit_python's `kept`) are the values of that position:
#: a call on it again (the API's next call on the same state, played in place) keeps them, as
#: the engine keeps its memo on its state; a call on any other position (a copy, a clone, another
#: state of a search, another kernel's) forgets them first (`PyBackend._enter`).  One for every
#: Python kernel: a position written by another kernel's call is another position.
_LAST: list = [None, None]


def _worded(method: Callable) -> Callable:
    """A call into the program that ends in one of Python's own errors ends as the C spelling's
    fault: FAULT_RULE, with S[H_WHY] what the engine says of that error (S[H_AT] is where).  A call
    that does not end keeps no values for the next (the engine's call that fails is undone, its
    memo forgotten)."""

    @functools.wraps(method)
    def call(self, S, *args, **kwargs):
        S[_H_WHY] = _WHY_NONE  # (what an earlier fault said)
        try:
            return method(self, S, *args, **kwargs)
        except _PLAIN as exc:
            _LAST[1] = None
            S[_H_WHY] = why_of(exc)
            S[A.H_WHY_ARG] = 0
            raise KFault(FAULT_RULE) from None
        except BaseException:
            _LAST[1] = None
            raise

    return call


def encode_option(kp: KernelProgram, value: Any) -> Any:
    """An option's value as the kernel keeps it: a number, 1/0, or a choice's symbol number."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    return kp.symbols.index(value) if value in kp.symbols else -1


class PyBackend:
    """The kernel as plain Python: a state is a list."""

    name = "python"

    def __init__(self, kp: KernelProgram):
        self.kp = kp
        self.source = emit_python(kp)
        ns = self.ns = load(kp, self.source)
        lay = kp.layout
        self._game = ns[kp.block_fn[kp.game_block]]
        self._blocks = {b: ns[name] for b, name in kp.block_fn.items()}
        self._sites = ns["SITES"]
        self._score = ns["score"]
        self._terms = [ns[f"t{i}"] for i in range(len(kp.model.scores))]
        self.term = 0  # the score line `score_parts` was working out last (where it went wrong, after a fault)
        self._winners = ns["winners"]
        self._init_values = ns["init_values"]
        self._dice_count = ns["dice_count"]
        self._zones = (lay.zones[0][0], lay.zones[-1][0] + 1 + lay.zones[-1][1]) if lay.zones else (0, 0)
        faces = kp.model.dice.faces if kp.model.dice is not None else ()
        self._unrolled = len(faces)
        self._restart_cost = RESTART_WORK + kp.model.n_game_slots + len(kp.model.cards)
        self._nplayer_vars = len(kp.model.player_vars)
        self._slots = {f.name: frame_slots_python(kp, f) for f in kp.functions if f.kind == "block"}
        self._forget_kept = ns["forget"]
        self._token = object()  # (what `_LAST` knows this kernel by)
        self._trace = ns["TRACE"]

    # ---- setting a game up -------------------------------------------------------------------

    def new(self, players: int, options: dict, seed: int, dseed: Optional[int] = None,
            limit: int = MAX_PLAYOUT_DECISIONS) -> list:
        """A new game's state, set up (KFault if it cannot be): `limit` decisions at most in a playout."""
        S: list = [0] * self.kp.layout.size
        self._set_up(S, players, options, seed, dseed, limit)
        return S

    @_worded
    def _set_up(self, S: list, players: int, options: dict, seed: int, dseed: Optional[int], limit: int) -> None:
        kp, lay = self.kp, self.kp.layout
        S[A.H_N] = players
        S[A.H_LIMIT] = limit
        S[A.H_SEED] = seed & M64
        S[A.H_DSEED] = decision_seed(seed) if dseed is None else dseed
        S[A.H_CUR] = A.CUR_RUN
        for o in kp.model.options:
            S[lay.g_index[o.slot]] = encode_option(kp, options[o.name])
        k = self._dice_count(S)
        if k.__class__ is not int or not (0 <= k <= MAX_DICE):
            raise KFault(FAULT_RULE)
        if k > lay.dice_cap:
            raise KFault(FAULT_CAPACITY)
        S[A.H_NDICE] = k
        self._reset(S)

    def _reset(self, S: list) -> None:
        """Every value to its starting value, every card out of every zone (options, the random
        generators and the counts kept): the set-up, and `play again`."""
        lay = self.kp.layout
        self._forget_kept()  # (the engine's memo is forgotten at `play again`)
        _LAST[0], _LAST[1] = self._token, S
        self._init_values(S)
        for d in range(S[A.H_NDICE]):
            S[lay.dice + d] = self._unrolled
        n = lay.ncards
        S[lay.where:lay.where + n] = [-1] * n
        S[lay.up:lay.up + n] = [0] * n
        S[lay.mixed:lay.mixed + len(lay.zones)] = [0] * len(lay.zones)
        a, b = self._zones
        S[a:b] = [0] * (b - a)
        S[lay.active:lay.active + lay.nblocks] = [0] * lay.nblocks
        S[A.H_DEPTH] = 0

    # ---- running ------------------------------------------------------------------------------

    @_worded
    def run(self, S: list, resume: bool) -> None:
        """Run until the game waits for a player (`S[H_CUR]` says who) or ends (CUR_OVER)."""
        trace = self._trace[0]
        if trace is None:
            self._run(S, resume)
            return
        mark = len(trace)
        try:
            self._run(S, resume)
        except BaseException:
            del trace[mark:]  # a call that fails leaves no trace
            raise

    def _enter(self, S: list) -> None:
        """A call on S begins: the values kept are S's if the last call into a Python kernel was
        this kernel's and ended on S (see `_LAST`), else they are forgotten."""
        if _LAST[1] is not S or _LAST[0] is not self._token:
            self._forget_kept()
            _LAST[0], _LAST[1] = self._token, S

    @staticmethod
    def forget() -> None:
        """Keep no define's values for the next call: for a caller that wrote a position between
        two calls on it (beyond the header's generators and counts: values, zones, dice), and for
        the calls whose work must be counted as the engine counts it from an empty memo."""
        _LAST[1] = None

    def _run(self, S: list, resume: bool) -> None:
        playout = S[A.H_MODE]
        if playout:  # the engine forgets its memo as a playout starts (runtime/playout.py)
            _LAST[1] = None
        self._enter(S)
        frames = self.kp.layout.frames
        while True:
            if resume:
                r = self._blocks[S[frames]](S, frames, 1)
            else:
                r = self._game(S, frames, 0)
            if r == RESTART:
                if self._trace[0] is not None:
                    self._trace[0].append((7,))
                charge(S, self._restart_cost + S[A.H_N] * self._nplayer_vars)
                self._reset(S)
                resume = False
                continue
            if playout:  # (a playout keeps values where the engine's calls forget them: reveals)
                _LAST[1] = None
            if r == PAUSE:
                return
            S[A.H_CUR] = A.CUR_OVER
            S[A.H_DEPTH] = 0
            if self._trace[0] is not None:
                self._trace[0].append((8,))
            return

    # ---- the record (kernel/record.py) ------------------------------------------------------------

    def trace_on(self) -> None:
        """Keep a trace of what happens (chance, moves of cards, reveals, values set, restarts, the
        end) from the next call on, until `trace_off`."""
        self._trace[0] = []

    def trace_off(self) -> list:
        """Stop keeping the trace; the records kept since `trace_on`, as tuples (record.py reads them)."""
        got, self._trace[0] = self._trace[0], None
        return got if got is not None else []

    def start(self, S: list, playout: bool) -> None:
        S[A.H_MODE] = 1 if playout else 0
        if playout:  # a playout's chance is the generator's, whoever had it before
            S[A.H_MANUAL] = 0
        S[A.H_WORK] = 0
        self.run(S, False)

    def playout(self, S: list) -> None:
        """Play on to the end, every choice at random (from the state's own choice generator)."""
        cur = S[A.H_CUR]
        if cur == A.CUR_OVER:
            return
        if cur == A.CUR_RUN:  # set up, not yet started
            self.start(S, True)
            return
        if cur == A.CUR_CHANCE:  # (no playout goes on from an outcome the caller is to give, yet)
            raise KFault(FAULT_CAPACITY)
        _LAST[1] = None  # (the engine forgets its memo as a playout starts)
        move = pick_waiting(self, S)
        S[A.H_MODE] = 1
        if cur == A.CUR_SIMUL:
            for m in move:  # (the last one runs on)
                self.choose(S, m, playout=True)
        else:
            self.play(S, move, playout=True)

    @_worded
    def moves(self, S: list, player: int) -> list:
        """The legal moves of `player` at the decision the game waits at: tuples (block, actor,
        values...), those that keep the rules first."""
        self._enter(S)
        S[_H_WORK] = 0
        return self._sites[S[_H_SITE]](S, player)

    # ---- the API's fast path (NativeBackend's calls, for a state on either backend) -----------------
    # A listing's "records" are the moves themselves here (a list of tuples); `NativeBackend`'s are
    # the C records, decoded only when asked.

    def moves_raw(self, S: list, player: int) -> tuple:
        """(how many moves, the moves): `moves` as `NativeBackend.moves_raw` gives them."""
        got = self.moves(S, player)
        return len(got), got

    @staticmethod
    def decode(records: list, i: int) -> tuple:
        return records[i]

    def step_raw(self, S: list, records: list, i: int) -> tuple:
        """Play move `i` of a listing and list the moves of the player to choose next: (n, moves),
        or (0, None) where no single player is to choose (`NativeBackend.step_raw`)."""
        move = records[i]  # (`play`, `_run_on` and `moves` inline: the API loop's every step)
        S[_H_MOVE:_H_MOVE + len(move)] = move
        S[_H_CUR] = _CUR_RUN
        S[_H_WORK] = 0
        S[_H_MODE] = 0
        self.run(S, True)
        cur = S[_H_CUR]
        if cur < 0:
            return 0, None
        got = self.moves(S, cur)
        return len(got), got

    def choose_raw(self, S: list, records: list, i: int) -> None:
        self.choose(S, records[i])

    @staticmethod
    def records_key(records: list) -> tuple:
        """What a listing is known by (equal listings, equal keys): the moves."""
        return tuple(records)

    @staticmethod
    def record_key(records: list, i: int) -> tuple:
        """What move `i` of a listing is known by (the same move, the same key)."""
        return records[i]

    @_worded
    def domain(self, S: list, action: int, param: int, move: tuple) -> list:
        """What parameter `param` of `action` may be at S, given the actor and the earlier values
        of `move` (a move as `moves` gives them; the later values are not read): an action's text
        is read against these (`BlockLowering.domains`).  S's move slots and work count are
        written: give a copy of the position."""
        name = self.kp.action_domains[action][param][0]
        self._enter(S)
        S[A.H_MOVE:A.H_MOVE + len(move)] = move
        S[A.H_WORK] = 0
        return list(self.ns[name](S))

    @_worded
    def why(self, S: list, action: int, move: tuple) -> int:
        """Which rule of `action` the move breaks at S: 0 none, k + 1 the first broken is its
        rule k and is refused, -(k + 1) its handler accepts it (`BlockLowering.why`; S as for
        `domain`)."""
        self._enter(S)
        S[A.H_MOVE:A.H_MOVE + len(move)] = move
        S[A.H_WORK] = 0
        return self.ns[self.kp.action_why[action]](S)

    def play(self, S: list, move: tuple, playout: bool = False) -> None:
        """Play a move (one of `moves`) and run to the next decision (or, with `playout`, to the
        end, every choice at random)."""
        S[A.H_MOVE:A.H_MOVE + len(move)] = move
        self._run_on(S, playout)

    def _run_on(self, S: list, playout: bool) -> None:
        """Run from the move just given to the next decision (or, with `playout`, to the end)."""
        S[A.H_CUR] = A.CUR_RUN
        S[A.H_WORK] = 0
        S[A.H_MODE] = 1 if playout else 0
        if playout:  # a playout's chance is the generator's, whoever had it before
            S[A.H_MANUAL] = 0
        self.run(S, True)

    def play_chance(self, S: list, outcome: int) -> None:
        """Give the chance outcome the game waits for (`give_outcome`); run on to the next wait."""
        give_outcome(S, outcome)
        S[A.H_WORK] = 0
        S[A.H_MODE] = 0
        _LAST[1] = None  # (the engine forgets its memo at a chance outcome given: decisions.py `_apply_chance`)
        self.run(S, True)

    def play_together(self, S: list, chosen: tuple, playout: bool = False) -> None:
        """Everybody at a simultaneous choice has chosen: `chosen` their moves, in the order the
        rules name them; play them (as `play`)."""
        top = self.top_frame(S)
        S[top + 2 + self._together_slot(S, top, "chosen")] = tuple(chosen)
        self._run_on(S, playout)

    def choose(self, S: list, move: tuple, playout: bool = False) -> None:
        """One player's move at the simultaneous choice the game waits at (a move of `moves` for
        that player), kept in the position (the waiting frame's `chosen`); once everybody has
        chosen, their moves are played in the order the rules name the players and the game runs
        on (as `play`).  KFault (FAULT_RULE), the position untouched, for a move of a player who
        is not choosing here or has chosen already."""
        if S[A.H_CUR] != A.CUR_SIMUL:
            raise KFault(FAULT_RULE)
        top = self.top_frame(S)
        who = tuple(S[top + 2 + self._together_slot(S, top, "who")])
        at = top + 2 + self._together_slot(S, top, "chosen")
        chosen = tuple(S[at])
        actor = move[1]
        if actor not in who or any(m[1] == actor for m in chosen):
            raise KFault(FAULT_RULE)
        chosen += (tuple(move),)
        if len(chosen) < len(who):
            S[at] = chosen
            return
        order = {p: i for i, p in enumerate(who)}
        S[at] = tuple(sorted(chosen, key=lambda m: order[m[1]]))
        self._run_on(S, playout)

    def rechoose(self, S: list, k: int, move: tuple) -> None:
        """Put `move` in place of the `k`-th move chosen so far (in the order they were made) at
        the simultaneous choice the game waits at (a determinization draws the others' secret
        choices again).  The move is not checked: it is one of `moves` for that player."""
        top = self.top_frame(S)
        at = top + 2 + self._together_slot(S, top, "chosen")
        chosen = list(S[at])
        if not 0 <= k < len(chosen):  # (a move chosen so far)
            raise KFault(FAULT_RULE)
        chosen[k] = tuple(move)
        S[at] = tuple(chosen)

    def waiting_together(self, S: list) -> list:
        """The players still to choose at the simultaneous choice the game waits at, in order."""
        done = {m[1] for m in self.chosen_together(S)}
        return [p for p in self.who_together(S) if p not in done]

    def chosen_together(self, S: list) -> tuple:
        """The moves chosen so far at the simultaneous choice the game waits at, in the order
        they were chosen."""
        top = self.top_frame(S)
        return tuple(tuple(m) for m in S[top + 2 + self._together_slot(S, top, "chosen")])

    def who_together(self, S: list) -> tuple:
        """The players choosing at once at the simultaneous choice the game waits at, in order."""
        top = self.top_frame(S)
        return tuple(S[top + 2 + self._together_slot(S, top, "who")])

    def _together_slot(self, S: list, top: int, what: str) -> int:
        name = self.kp.block_fn[S[top]]
        ask = _ask_all(self.kp, name, S[A.H_SITE])
        return self._slots[name].index(getattr(ask, what))

    def top_frame(self, S: list) -> int:
        """Where the frame of the block that waits starts."""
        fp = self.kp.layout.frames
        for _ in range(S[A.H_DEPTH] - 1):
            fp += 2 + len(self._slots[self.kp.block_fn[S[fp]]])
        return fp

    @_worded
    def scores(self, S: list) -> list:
        self._enter(S)
        S[A.H_WORK] = 0
        return [self._score(S, p) for p in range(S[A.H_N])]

    @_worded
    def score_parts(self, S: list) -> list:
        """Each player's score in its parts (the rules' `score` lines, `t{i}`, in order): a row a
        player.  After a fault, `term` is the line that went wrong."""
        self._enter(S)
        S[A.H_WORK] = 0
        out = []
        for p in range(S[A.H_N]):
            row = []
            for i, t in enumerate(self._terms):
                self.term = i
                row.append(t(S, p))
            out.append(row)
        return out

    @_worded
    def winners(self, S: list) -> list:
        self._enter(S)
        S[A.H_WORK] = 0
        return list(self._winners(S))

    def looks(self, S: list) -> tuple[list, list]:
        """(values, faults) of the program's `looks` at this position: each value (None for
        nothing), and 0 or the fault that stopped working it out (-1: the Python of the kernel
        went wrong, as it may where the engine says what is wrong)."""
        values: list = []
        faults: list = []
        ns = self.ns
        self._enter(S)
        for _, fn in self.kp.looks:
            S[A.H_WORK] = 0
            try:
                values.append(ns[fn](S))
                faults.append(0)
            except KFault as f:
                values.append(None)
                faults.append(f.code)
            except (TypeError, IndexError, KeyError, ValueError, ZeroDivisionError, RecursionError, OverflowError):
                values.append(None)
                faults.append(-1)
        return values, faults

    def frame_blocks(self, S: list) -> list:
        """The blocks running where the game waits (a frame each), outermost first."""
        fp, out = self.kp.layout.frames, []
        for _ in range(S[A.H_DEPTH]):
            b = S[fp]
            out.append(b)
            fp += 2 + len(self._slots[self.kp.block_fn[b]])
        return out


def pick_waiting(be, S) -> Any:
    """The random choice a playout makes where the game waits (a move, or at a simultaneous
    choice one move per player still to choose, in the rules' order), by the state's choice
    generator, as the kernel itself chooses (`choose`): counted as decisions, cut at the state's
    decision limit."""
    cur = S[A.H_CUR]
    who = be.waiting_together(S) if cur == A.CUR_SIMUL else (cur,)
    out = []
    for p in who:
        moves = be.moves(S, p)
        if not moves:
            raise KFault(FAULT_STUCK)
        S[A.H_DECISIONS] += 1
        if S[A.H_DECISIONS] > S[A.H_LIMIT]:
            raise KFault(FAULT_ENDLESS)
        k, S[A.H_DDRAWS] = below(S[A.H_DSEED] & M64, S[A.H_DDRAWS], len(moves))
        out.append(moves[k])
    return tuple(out) if cur == A.CUR_SIMUL else out[0]


def _ask_all(kp: KernelProgram, fn: str, site: int):
    """The simultaneous choice of site `site` in block function `fn`."""
    for code in kp.arms[fn].code.values():
        for s in code:
            if isinstance(s, AskAll) and s.site == site:
                return s
    raise AssertionError(site)  # pragma: no cover

"""Stage 5, running: the interpreter loop.

`_run` runs the rules' compiled blocks, frame by frame from the top of the stack (`[block, pc,
locals]`), until they wait for a decision or for chance, or the game ends; every step counts
against the work budget of the call.  A rule that goes wrong becomes a `RuleError` at its line
(`_fault`); a call that fails is undone (`_snapshot`, `_restore`).  `play again` sets every value
back to its start (`_restart`).  The scores and winners are the rules' own functions, run here too.
"""

from __future__ import annotations

from typing import Any, Optional

from ..compiler import OVER_BUDGET, Fail, Located, Unplayable, charge
from .. import reasons
from ..errors import Diagnostic, FishrulesError, RuleError
from ..limits import WORK_BUDGET
from .fields import Fields


class Machine(Fields):
    """The layer of `State` that runs the rules (see fields.py for the layers)."""

    __slots__ = ()

    # ---- the start of a game, and `play again` ---------------------------------------------------

    def _init_values(self) -> None:
        prog = self.prog
        for slot, f in prog.game_inits:
            self.g[slot] = f(self, ())
        self.p = [[f(self, ()) for f in prog.player_inits] for _ in range(self.n)]
        self.dice = [prog.unrolled] * len(self.dice_ids)
        ncards = len(prog.cards)
        self.where = [-1] * ncards  # the zone key of every card; -1: in the box
        self.up = [False] * ncards  # face up: everybody sees it, whatever zone it is in
        self.mixed = frozenset()  # keys of shuffled zones, drawn from at random
        game_block = prog.phase_block["game"]
        self.stack = [[game_block, 0, [None] * prog.block_nlocals[game_block]]]

    def _restart(self) -> None:
        """`play again`: everything back to the start but the options and the history.  Setting up
        a game is work, counted as one step per value and card (an endless `play again` ends at
        the budget in a moment, not after a million set-ups)."""
        prog = self.prog
        charge(self, 16 + prog.G + len(prog.cards) + self.n * len(self.p[0]) if self.p else 16)
        self._init_values()
        self._dmemo.clear()
        # the caller's frame is gone; the new game frame runs next

    # ---- the interpreter -------------------------------------------------------------------------

    def _run(self) -> None:
        """Run the rules until they wait for somebody (or chance), or the game ends.  Steps count
        against the work budget of the call, with what expressions look at (`charge`)."""
        blocks = self.prog.blocks
        stack = self.stack
        steps = 0
        budget = WORK_BUDGET - self._work
        fr = None
        try:
            while stack:
                fr = stack[-1]
                if blocks[fr[0]](self, fr):
                    self._work += steps
                    return
                stack = self.stack  # `play again` replaces it
                steps += 1
                if steps > budget:
                    raise Fail(OVER_BUDGET)
        except FishrulesError:
            raise
        except Unplayable as exc:
            raise reasons.unavailable(self.prog.model.title, str(exc)) from None
        except Exception as exc:  # a rule went wrong at run time: report where
            context = reasons.while_playing(self.prog.block_names[fr[0]] if fr is not None else None)
            raise self._fault(exc, None, context) from None
        self._work += steps
        self.cur = None
        if self.events is not None:
            self.events.append(("over", len(self._history)))

    def _fault(self, exc: BaseException, span, context: str) -> RuleError:
        """The RuleError for a rule that went wrong while running: the failing piece's own
        position when it knows it, else `span` (what was being worked out)."""
        if isinstance(exc, Located):  # from a block: where its statement is written
            span = exc.span or span
            exc = exc.exc
        if isinstance(exc, Fail):
            msg = str(exc)
            span = exc.span or span
        elif isinstance(exc, RecursionError):
            msg = reasons.NESTED
        elif isinstance(exc, TypeError) and "NoneType" in str(exc):
            msg = reasons.NOBODY
        elif isinstance(exc, ZeroDivisionError):
            msg = reasons.DIVIDE
        elif isinstance(exc, MemoryError):
            msg = reasons.MEMORY
        else:
            msg = f"the rules went wrong here ({type(exc).__name__}: {exc})"
        if span is None:
            span = self.prog.model_span
        return RuleError(Diagnostic(span, msg, context))

    # ---- undoing a call that failed --------------------------------------------------------------

    def _snapshot(self) -> tuple:
        """Everything a call may change, copied, so a call that fails leaves the state as it was."""
        return (self.g[:], [row[:] for row in self.p], self.dice[:], [[f[0], f[1], f[2][:]] for f in self.stack],
                len(self._history) if self._history is not None else 0, self.redact, self.where[:], self.up[:], self.mixed, self.cur, self.draws,
                self._legal, len(self.events) if self.events is not None else 0,
                # (counted only for simulations: a failed call counts nothing, as on the kernel)
                self.fires[:] if self.fires is not None else None,
                dict(self.empty_draws) if self.empty_draws is not None else None)

    def _restore(self, snap: tuple) -> None:
        (self.g, self.p, self.dice, self.stack, nh, self.redact, self.where, self.up, self.mixed, self.cur, self.draws,
         self._legal, ne, self.fires, self.empty_draws) = snap
        if self._history is not None:  # (a quiet game, or one played out, keeps none)
            self._history.truncate(nh)
        if self.events is not None:
            self.events.truncate(ne)
        self._dmemo.clear()

    # ---- where the rules stand -------------------------------------------------------------------

    @property
    def phase(self) -> list[str]:
        """The phases being played, outermost first."""
        prog = self.prog
        return [prog.block_names[f[0]] for f in self.stack if prog.block_is_phase[f[0]]]

    def _pause(self):
        fr = self.stack[-1]
        return fr, self.prog.pauses[(fr[0], fr[1])]

    def _pause_span(self):
        if not self.stack:
            return None
        fr = self.stack[-1]
        info = self.prog.pauses.get((fr[0], fr[1]))
        return info.span if info is not None else None

    def _where(self) -> str:
        """The phase being played, for messages."""
        phases = self.phase
        return f"phase {phases[-1]}" if phases else "the game"

    def _push_action(self, ap: Any, player: Optional[int], values: tuple, block: Optional[int] = None) -> None:
        """Start an action's effects (or, with `block`, its violation handler) for `player`."""
        L: list = [None] * ap.nlocals
        L[0] = player
        for p, v in zip(ap.params, values):
            L[p.slot] = v
        self.stack.append([ap.block if block is None else block, 0, L])

    # ---- results ---------------------------------------------------------------------------------

    def scores(self) -> list[int]:
        """Each player's score as the rules define it (running during the game, final at the end)."""
        f = self.prog.score
        self._work = 0
        try:
            return [f(self, p) for p in range(self.n)]
        except FishrulesError:
            raise
        except Exception as exc:
            scores = self.prog.model.scores
            raise self._fault(exc, scores[0].span if scores else None, reasons.WHILE_SCORES) from None

    def winners(self) -> list[int]:
        """The winners (ties share the victory) once the game is over; [] before."""
        if self.stack:
            return []
        self._work = 0
        try:
            return list(self.prog.winners(self))
        except FishrulesError:
            raise
        except Exception as exc:
            raise self._fault(exc, self.prog.winners_span, reasons.WHILE_WINNERS) from None

    def ranking(self) -> list[int]:
        """Each player's place, competition style: two tied for second are both 2nd and nobody is
        3rd.  Once the game is over the winners (as the rules' `winners:` decides, tie-breaks
        included) share 1st place and the others follow by score; before, places go by score."""
        sc = self.scores()
        won = set(self.winners())
        if not won:
            return [1 + sum(1 for o in sc if o > x) for x in sc]
        rest = [p for p in range(self.n) if p not in won]
        return [1 if p in won else 1 + len(won) + sum(1 for o in rest if sc[o] > sc[p]) for p in range(self.n)]

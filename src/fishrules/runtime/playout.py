"""Stage 5, running: the fast path of simulations.

`State.playout` plays a state to its end with random players: no `Action` goes through `apply()`,
and no history text or event is written.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import NamedTuple, Optional

from ..compiler import CHANCE, SIMULTANEOUS, DrawPause
from ..errors import Diagnostic, OptionError, RuleError
from ..limits import MAX_PLAYOUT_DECISIONS
from .decisions import Action, Decisions
from .text import short


def endless(model, limit: int) -> RuleError:
    """The error of a playout that made `limit` decisions and the game had not ended."""
    ph = model.phases.get("game")
    return RuleError(Diagnostic(ph.span if ph is not None else model.span,
                                f"the game did not end within {limit:,} random decisions: its phases play on for ever",
                                "a random playout stops here; rules that end the game only by skill need a rule that "
                                "ends it, or a limit of turns"))


class Playout(NamedTuple):
    """What `State.playout` returns: the final scores and winners, how many player decisions and
    how many chance outcomes (dice rolled, cards drawn at random) the playout took (the two add up
    to the length a history of the same game would have, from the playout's start)."""

    scores: list
    winners: list
    decisions: int
    chances: int


class Playouts(Decisions):
    """The layer of `State` that plays it out to the end, quickly."""

    __slots__ = ()

    def playout(self, rng: Optional[random.Random] = None) -> "Playout":
        """Play this state to the end: at every decision an action chosen uniformly at random
        among the legal ones (at a simultaneous choice, one for each player choosing), chance by
        the rules' probabilities.  This is the fast path simulations use: no `Action` goes through
        `apply()`, and no history text or event is written, so afterwards the state holds the
        final position but no longer its history (`history` is None; a saved or replayed game
        needs the API loop).  The random choices and dice come from `rng` (a `random.Random`, by
        default one seeded from the state's own seed), not from the state's generator.

        Returns a `Playout`: scores, winners, how many decisions and chance outcomes there were.
        A rule that goes wrong raises `RuleError` and leaves the state as it was before the
        playout (its history too), as every call that fails does; so does a game that has not
        ended after `MAX_PLAYOUT_DECISIONS` random decisions (rules whose phases play on for ever),
        as `Game.simulate` says it."""
        if rng is not None and not isinstance(rng, random.Random):
            raise OptionError(f"playout(rng) takes a random.Random (or None: one seeded from the state's seed), "
                              f"not {short(rng)}")
        rng = rng if rng is not None else random.Random(self.seed)
        rnd, pick = rng.random, rng.randrange
        snap, kept = self._snapshot(), (self._history, self.events, self._chances)
        if self._history is not None:  # else a quiet start's outcomes are counted already
            self._chances = 0
        self._history = None
        self.events = None
        self.redact = ()
        self._fast = pick
        self._legal = None
        decisions = chances = 0
        limit = MAX_PLAYOUT_DECISIONS
        try:
            while self.stack:
                if decisions > limit:
                    raise endless(self.prog.model, limit)
                cur = self.cur
                self._work = 0
                if cur == SIMULTANEOUS:
                    fr, info = self._pause()
                    L = fr[2]
                    chosen = {}
                    for p in L[info.slot]:
                        moves = self._enumerate_for(info, p).moves
                        chosen[p] = moves[int(rnd() * len(moves))]
                    decisions += len(chosen)
                    fr[1] += 1
                    for p in reversed(L[info.slot]):
                        ap, values, _ = chosen[p]
                        self._push_action(ap, p, values)
                elif cur == CHANCE:  # a manual state: outcomes by their probabilities
                    outcomes = self.chance_outcomes()
                    x, acc = rnd(), Fraction(0)
                    for a, prob in outcomes:
                        acc += prob
                        if x < acc:
                            break
                    chances += 1
                    self._apply_chance_quietly(a)
                    continue
                elif cur is not None:
                    fr, info = self._pause()
                    moves = self._enumerate_for(info, cur).moves
                    ap, values, breaks = moves[int(rnd() * len(moves))]
                    decisions += 1
                    fr[1] += 1
                    if breaks is not None:
                        self._push_action(ap, cur, values, ap.broken[breaks][1])
                    else:
                        self._push_action(ap, cur, values)
                self.cur = None
                self._run()
        except BaseException:
            self._history, self.events, self._chances = kept
            self._restore(snap)
            raise
        finally:
            self._fast = None
        return Playout(self.scores(), self.winners(), decisions, chances + self._chances)

    def _apply_chance_quietly(self, a: Action) -> None:
        fr, info = self._pause()
        L = fr[2]
        if isinstance(info, DrawPause):
            self._move((a._values[0],), L[info.slot + 2], info.facing)
            L[info.slot] -= 1
        else:
            die, face = a._values
            self.dice[die] = face
            L[info.slot + 1] += 1
        self._dmemo.clear()
        self.cur = None
        self._run()

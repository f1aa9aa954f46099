"""The engine's own machine, played by the kernel's rules of chance and choice.

A kernel playout of a game seeded `seed` resolves chance with the state's seeded generator (as
`Game.start(seed=seed)` does) and makes each random choice with a second generator,
`decision_seed(seed)`: at a decision, move `below(n)` of the `n` legal actions; at a simultaneous
choice, one for each player in the order the rules name them.  `reference_playout` plays the same
game through the API on the engine's own machine (`legal_actions`/`apply`): it is what the kernel is proven against, and what
plays a game the kernel cannot finish (a rule that goes wrong is then reported by the engine,
exactly as the API reports it).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from ..errors import RuleError
from ..limits import MAX_PLAYOUT_DECISIONS
from ..runtime import CHANCE, SIMULTANEOUS, State
from ..runtime.playout import endless as playout_endless
from .pyruntime import below, decision_seed

__all__ = ["Outcome", "reference_playout", "endless"]


class Outcome(NamedTuple):
    """What a played-out game came to: each player's score, the winners, the number of decisions
    (each player's choice at a simultaneous one counts one) and of chance outcomes."""

    scores: list
    winners: list
    decisions: int
    chances: int


def endless(game: Any, limit: int) -> RuleError:
    """The error of a playout that made `limit` decisions and the game had not ended (the words
    `State.playout` gives)."""
    return playout_endless(game.model, limit)


def reference_playout(game: Any, players: int, seed: int, options: Optional[dict] = None, trace: Optional[list] = None,
                      state: Any = None, dseed: Optional[int] = None, limit: int = MAX_PLAYOUT_DECISIONS) -> Outcome:
    """Play a game to its end through the API, every choice by the kernel's choice generator.
    With `trace`, each decision's legal action texts are appended to it.  With `state`, play on
    from that (seeded, unfinished) state instead of a new one, choices from `dseed`.  A game that
    has not ended after `limit` decisions raises `RuleError` (`endless`)."""
    # the engine's own State, never one deciding on the kernel (fishrules.kernel.apistate)
    st = state if state is not None else State._new(game, players, game._options(options), seed, False)
    ds, dd = (decision_seed(seed) if dseed is None else dseed), 0
    decisions = 0
    start = len(st.history) if state is not None else 0
    while not st.is_over:
        cur = st.current
        if cur == CHANCE:  # pragma: no cover - a seeded state resolves chance itself
            raise ValueError("reference_playout needs a seeded state")
        who = list(st.waiting) if cur == SIMULTANEOUS else [None]
        for p in who:
            if decisions + 1 > limit:
                raise endless(game, limit)
            acts = st.legal_actions(p)
            if trace is not None:
                trace.append([a.text for a in acts])
            k, dd = below(ds, dd, len(acts))
            st.apply(acts[k])
            decisions += 1
    return Outcome(st.scores(), st.winners(), decisions, len(st.history) - start - decisions)

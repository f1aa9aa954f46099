"""Random play through the public API: one random legal action, or a whole game of them.

`random_step(state, rng)` applies one uniformly random legal action, whoever is to act (a player,
chance, or one of the players of a simultaneous choice); `play_random(state, rng)` plays such
actions until the game ends.  They go through `State.legal_actions` and `State.apply` one action at a
time, as an embedding program would, so tests and examples use them to exercise that path;
`State.playout` and `Game.simulate` play random games on the fast path instead.
"""

from __future__ import annotations

import random
from typing import Optional

from .runtime import SIMULTANEOUS, State

__all__ = ["next_chooser", "random_step", "play_random"]


def next_chooser(state: State, prefer_not: Optional[int] = None) -> Optional[int]:
    """Who acts next: the player to act, or at a simultaneous choice one still choosing (another than
    `prefer_not` when there is one); None at chance or at the end."""
    waiting = state.waiting
    if not waiting:
        return None
    others = [p for p in waiting if p != prefer_not]
    return (others or waiting)[0]


def random_step(state: State, rng: random.Random) -> None:
    """One random legal action, whoever is to act (chance and simultaneous choices included)."""
    p = next_chooser(state)
    acts = state.legal_actions(p) if state.current == SIMULTANEOUS else state.legal_actions()
    state.apply(acts[rng.randrange(len(acts))])


def play_random(state: State, rng: random.Random, max_actions: int = 1_000_000) -> State:
    """Play random legal actions until the game ends (`RuntimeError` if it has not ended after
    `max_actions`)."""
    n = 0
    while not state.is_over:
        random_step(state, rng)
        n += 1
        if n > max_actions:
            raise RuntimeError(f"the game did not end within {max_actions} actions")
    return state

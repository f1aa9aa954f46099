"""A ruleset compiled again with the compiler's thresholds moved, and a seeded game as plain data,
so that two compilations of the same rules can be compared step by step.

The compiler cuts what it writes into pieces CPython can read (see fishrules.compiler): a part of an
expression nested too deep becomes a function of its own (`HOIST_DEPTH`), long `if` chains and block
dispatches become several chains (`_CHAIN`), statements nested deep become arms of the dispatch
(`_INLINE_DEPTH`, `_INLINE_LOOPS`), an action's many parameters are enumerated by several functions
(`LOOPS_PER_FUNCTION`), many score terms are added up by `sum` (`_MANY_TERMS`).  Moving a threshold
to its smallest value makes the compiler cut everywhere it can; the rules must play the same."""

from __future__ import annotations

import importlib
import random
from typing import Any, Optional

import fishrules

#: Each threshold, and the module it lives in.
KNOBS = {
    "HOIST_DEPTH": "fishrules.compiler.expressions",
    "_MANY_TERMS": "fishrules.compiler.expressions",
    "_CHAIN": "fishrules.compiler.blocks",
    "_INLINE_DEPTH": "fishrules.compiler.blocks",
    "_INLINE_LOOPS": "fishrules.compiler.blocks",
    "LOOPS_PER_FUNCTION": "fishrules.compiler.actions",
}
#: The thresholds at their smallest, two ways.  Both: every part of every expression below the top
#: is a function of its own, every `if` chain and dispatch is cut after each link, every parameter
#: is enumerated by a function of its own, score terms go through `sum`.  The first writes
#: statements inline where they fit (so `if` chains are cut with a flag); the second makes every
#: statement that nests an arm of the dispatch (so `if` chains are cut between jumps).
SPLIT = [
    {"HOIST_DEPTH": 1, "_MANY_TERMS": 0, "_CHAIN": 1, "LOOPS_PER_FUNCTION": 1},
    {"HOIST_DEPTH": 1, "_MANY_TERMS": 0, "_CHAIN": 1, "LOOPS_PER_FUNCTION": 1, "_INLINE_DEPTH": 1, "_INLINE_LOOPS": 0},
]


def compiled_with(game: fishrules.Game, knobs: dict) -> fishrules.Game:
    """`game` compiled again with the compiler's thresholds set as `knobs` says."""
    from fishrules.compiler import compile_model

    saved = {}
    try:
        for name, value in knobs.items():
            module = importlib.import_module(KNOBS[name])
            saved[name] = getattr(module, name)
            setattr(module, name, value)
        program = compile_model(game._model)
    finally:
        for name, value in saved.items():
            setattr(importlib.import_module(KNOBS[name]), name, value)
    # A Game is not copied by copy.copy (a loaded game is shared: `Game.__copy__`), so this is a new
    # one holding the same model and the program compiled again; it plays on the engine, which runs
    # that program (the kernel, lowered from the model, would not).
    again = object.__new__(type(game))
    again.__dict__.update(game.__dict__)
    again.__dict__.pop("_space_cache", None)
    again._program = program
    again._kernel, again._backend, again._cached = None, "python", None
    program.identity = game._identity
    return again


def playthrough(game: fishrules.Game, players: Optional[int] = None, seed: int = 0, actions: int = 40) -> list:
    """A seeded game of random legal actions as plain data: at every step the position (`to_dict`,
    but for where the blocks stand: the program counters of two compilations differ), the scores,
    every view and each chooser's legal actions, then the action; an error ends it (its class and
    message).  Two compilations of the same rules give the same list."""
    rng = random.Random(seed)
    out: list[Any] = []
    try:
        state = game.start(players=game.min_players if players is None else players, seed=seed)
        for _ in range(actions):
            out.append({k: v for k, v in state.to_dict().items() if k != "stack"})
            out.append(state.scores())
            out.append([state.view(p) for p in [None, *range(state.n)]])
            if state.is_over:
                out.append(state.winners())
                break
            if state.current == fishrules.SIMULTANEOUS:
                legal = {p: state.legal_actions(p) for p in state.waiting}
                choices = legal[state.waiting[0]]
            else:
                legal = {state.current: state.legal_actions()}
                choices = legal[state.current]
            out.append({p: [str(a) for a in acts] for p, acts in legal.items()})
            state.apply(choices[rng.randrange(len(choices))])
    except fishrules.FishrulesError as exc:
        out.append((type(exc).__name__, str(exc)))
    return out

"""Stage 5, running: what a state is made of.

`Fields` declares every slot of a `State`, with its type.  `State` is built in layers, one per
module of this package, each a class that adds methods and no slots (`__slots__ = ()`) to the one
below it:

    Fields -> Machine -> Record -> Zones -> Chance -> Decisions -> Views, Saving, Playouts -> State
    fields    machine    record    zones    chance    decisions    views  saving  playout    state

A layer calls only what it or a layer below defines (a type checker holds it to that), as the
stages of the pipeline import only earlier stages.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..compiler import Program


class Fields:
    """The slots of a state.  The code the compiler writes reads and writes some of them directly
    (`fishrules.runtime.contract` names which)."""

    __slots__ = (
        "game", "prog", "n", "seats", "dice_ids", "g", "p", "dice", "stack", "_history", "cur",
        "seed", "draws", "manual", "where", "up", "mixed", "redact", "events", "_legal", "_work", "_dmemo", "_fast",
        "_chances", "fires", "empty_draws", "_kernel_origin", "_ks",
    )
    # (declared for type checkers)
    game: Any
    prog: Program
    n: int
    seats: tuple
    dice_ids: tuple
    g: list
    p: list
    dice: list
    stack: list
    _history: Any  # a Log, or None after a playout
    cur: Any
    seed: Any  # an int (None only while a state is being built)
    draws: int
    manual: bool
    where: list
    up: list
    mixed: frozenset
    redact: tuple
    events: Any  # a Log, or None while a playout runs
    _legal: Any
    _work: int
    _dmemo: dict
    _fast: Optional[Callable[..., int]]
    _chances: int
    fires: Optional[list]
    _kernel_origin: Any  # a determinization: (its Determinizer, the cards' orders, its record's length)
    _ks: Any  # a state deciding on the game kernel (fishrules.kernel.apistate.KState): what it keeps; else None
    empty_draws: Optional[dict]

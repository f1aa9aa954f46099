"""Determinization: a full state that one player cannot tell from the real one.

`State.determinize(player, rng)` draws one; `Determinizer(state, player)` works out what the
player knows once, to draw many (`sample(rng)`).  Both belong to the runtime, which
`State.determinize` is part of: the code, with the interpretation and its limits, is in
`fishrules.runtime.determinize`.  This module is their public name.
"""

from .runtime.determinize import Determinizer, determinize

__all__ = ["Determinizer", "determinize"]

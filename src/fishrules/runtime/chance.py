"""Stage 5, running: the random generator.

A seeded state resolves chance on the spot with its own generator: splitmix64 of the seed and the
number of draws so far (`fishrules.splitmix`, the kernel's generator too), two integers, so the
generator is plain data like the rest of the state (a playout brings a generator of its own
instead).  A manual state stops at each chance node
instead; its outcomes are listed and applied like a player's actions (decisions.py).
"""

from __future__ import annotations

from ..compiler import DrawPause, RollPause, roll_faces
from ..splitmix import below
from .zones import Zones


class Chance(Zones):
    """The layer of `State` that draws from the state's generator."""

    __slots__ = ()

    def _randbelow(self, k: int) -> int:
        fast = self._fast
        if fast is not None:  # a playout's own generator
            return fast(k)
        r, self.draws = below(self.seed, self.draws, k)
        return r

    def _consume_chance_draws(self) -> None:
        """Advance the generator as a seeded game did at this chance node (used by `replay` with a
        seed): a seeded game rolls a whole group of dice with one draw, at the group's first die."""
        fr, info = self._pause()
        L = fr[2]
        if isinstance(info, RollPause) and L[info.slot + 1] == 0:
            roll_faces(self, len(L[info.slot]), len(self.prog.faces))
        elif isinstance(info, DrawPause):
            self._randbelow(len(self._zget(L[info.slot + 1])))

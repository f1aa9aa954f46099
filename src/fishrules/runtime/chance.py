"""Stage 5, running: the random generator.

A seeded state resolves chance on the spot with its own generator: splitmix64 of the seed and the
number of draws so far, two integers, so the generator is plain data like the rest of the state
(a playout brings a generator of its own instead).  A manual state stops at each chance node
instead; its outcomes are listed and applied like a player's actions (decisions.py).
"""

from __future__ import annotations

from ..compiler import DrawPause, RollPause, roll_faces
from .zones import Zones

_M64 = (1 << 64) - 1


def _mix(seed: int, n: int) -> int:
    """splitmix64 of the n-th draw: a counter-based generator, so its state is two integers."""
    z = (seed + (n + 1) * 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class Chance(Zones):
    """The layer of `State` that draws from the state's generator."""

    __slots__ = ()

    def _randbelow(self, k: int) -> int:
        fast = self._fast
        if fast is not None:  # a playout's own generator
            return fast(k)
        limit = (1 << 64) - ((1 << 64) % k)
        while True:
            r = _mix(self.seed, self.draws)
            self.draws += 1
            if r < limit:
                return r % k

    def _consume_chance_draws(self) -> None:
        """Advance the generator as a seeded game did at this chance node (used by `replay` with a
        seed): a seeded game rolls a whole group of dice with one draw, at the group's first die."""
        fr, info = self._pause()
        L = fr[2]
        if isinstance(info, RollPause) and L[info.slot + 1] == 0:
            roll_faces(self, len(L[info.slot]), len(self.prog.faces))
        elif isinstance(info, DrawPause):
            self._randbelow(len(self._zget(L[info.slot + 1])))

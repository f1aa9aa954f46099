"""Which kept define values a change of the state makes stale: the kernel's version of the memo.

A define that loops over something (`fishrules.compiler.expressions.loops`) keeps its values
(`ir.Function.memo`): one entry per argument, stamped with the define's version.  A write to a
part of the state (a game value or zone, a player's value or zone in any seat, the dice) bumps
the version of every kept define that reads that part (`fishrules.compiler.expressions.reads`,
the same analysis the engine's memo uses), so what it does not read keeps its values across the
turns: who owns each circle of a board survives the turn counter moving on.  A define whose reads
cannot be told is made stale by every write.  Each call into the kernel starts a new epoch
(another state may be passed in), and so does setting a game up again.
"""

from __future__ import annotations

from typing import Optional

from .. import model as m
from ..compiler.expressions import reads
from .layout import Layout

__all__ = ["Keep"]


class Keep:
    """The kept defines of a program (by number) and the parts whose writes make them stale."""

    def __init__(self, model: m.Model, layout: Layout, memo: dict, fn_of: dict):
        self.layout = layout
        self.index: dict[str, int] = {}  # kept define's function name -> its number
        self.stale: dict = {}  # part -> kept define numbers it makes stale
        self.always: list[int] = []  # kept defines whose reads cannot be told
        for name, kept in memo.items():
            if not kept:
                continue
            k = self.index[fn_of[name]] = len(self.index)
            r: Optional[set] = reads(model, model.defines[name].expr)
            if r is None:
                self.always.append(k)
                continue
            for part in r:
                if part == "dice" or (isinstance(part, tuple) and part[0] == "shows"):
                    part = "dice"  # a roll changes the faces: every kind a die shows with them
                self.stale.setdefault(part, set()).add(k)

    def of(self, part) -> tuple[int, ...]:
        """The kept defines a write of `part` makes stale (("g", slot), ("p", slot) or "dice")."""
        if not self.index:
            return ()
        return tuple(sorted(set(self.stale.get(part, ())) | set(self.always)))

    def of_zone(self, zid: int) -> tuple[int, ...]:
        is_game, slot, _ = self.layout.zone_names[zid]
        return self.of(("g", slot) if is_game else ("p", slot))

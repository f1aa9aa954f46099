"""Which kept define values a change of the state makes stale: the kernel's version of the memo.

A define that loops over something (`fishrules.analysis.kept_defines`) keeps its values
(`ir.Function.memo`): one entry per argument, stamped with the define's version.  A write to a
part of the state (a game value or zone, a player's value or zone in any seat, the dice) bumps
the version of every kept define that reads that part (`fishrules.analysis.reads`, the same
analysis the engine's memo uses), so what it does not read keeps its values across the
turns: who owns each circle of a board survives the turn counter moving on.  A define whose reads
cannot be told is made stale by every write.  On the native kernel each call starts a new epoch
(another state may be passed in); the Python spelling keeps its values across calls that go on
from the very position the last one ended on, as the engine's memo lives on its state
(`machine.PyBackend._enter`).  Setting a game up again starts a new epoch on both.
"""

from __future__ import annotations

from typing import Optional

from .. import model as m
from ..analysis import kept_reads, reads
from .layout import Layout

__all__ = ["Keep"]

#: a write of a value that makes more kept defines stale than this makes every one stale (the
#: engine's compiler clears its memo then: `compiler/blocks.py` `changed`)
_FORGETS = 4


class Keep:
    """The kept defines of a program (by number) and the parts whose writes make them stale.

    A define of one argument that reads a family of zones only at its argument (`top of
    stack(c)`) keeps a version per argument as well (`by_arg`): a write of `stack(3)` makes only
    its value for 3 stale, as the engine's memo forgets it (`fishrules.analysis.reads_by_argument`)."""

    def __init__(self, model: m.Model, layout: Layout, memo: dict, fn_of: dict):
        self.layout = layout
        self.index: dict[str, int] = {}  # kept define's function name -> its number
        self.stale: dict = {}  # part -> kept define numbers it makes stale
        self.always: list[int] = []  # kept defines whose reads cannot be told
        self.by_arg: dict[str, tuple[int, int, int]] = {}  # function -> (low, count, offset in the argument versions)
        self.arg_stale: dict = {}  # part -> [offset of the argument version it bumps]
        self.arg_versions = 0
        known: dict = {}  # what each define reads by argument (see analysis.kept_reads)
        for name, kept in memo.items():
            if not kept:
                continue
            fn = fn_of[name]
            k = self.index[fn] = len(self.index)
            d = model.defines[name]
            r: Optional[set]
            families: frozenset
            r, families = kept_reads(model, name, known)
            # versions by argument need exactly one range of arguments; else it is read as a whole
            # (and what the engine's memo sees it read besides)
            if len(d.params) == 1 and len({(low, count) for _, low, count in families}) != 1:
                wholly = reads(model, d.expr)
                r, families = (None if r is None or wholly is None else wholly | r), frozenset()
            if r is None:
                self.always.append(k)
                continue
            if families:
                low, count = next(iter(families))[1:]
                offset = self.arg_versions
                self.arg_versions += count
                self.by_arg[fn] = (low, count, offset)
                for base, _, _ in families:
                    for i in range(count):
                        self.arg_stale.setdefault(("g", base + i), []).append(offset + i)
            for part in r:
                if part == "dice" or (isinstance(part, tuple) and part[0] == "shows"):
                    part = "dice"  # a roll changes the faces: every kind a die shows with them
                self.stale.setdefault(part, set()).add(k)

    # What a write makes stale is at least what the engine's memo forgets for it (so a value the
    # kernel finds kept, counting no work, is one the engine finds kept too: the kernel never
    # counts less work than the engine): a write of a value forgets the defines that read it, or
    # every one when more than four do (`compiler/blocks.py` `changed`); a change of a zone those
    # that read it (a family's at its argument); a roll, a shuffle or a card shown (outside a
    # playout: emit_python's `s_Do`), every one; and when any kept define's reads cannot be told,
    # every write forgets every one.

    def all(self) -> tuple[int, ...]:
        """Every kept define (a roll, a shuffle, cards shown: the engine forgets every value)."""
        return tuple(range(len(self.index)))

    def of(self, part) -> tuple[int, ...]:
        """The kept defines a write of the value `part` makes stale (("g", slot), ("p", slot); or
        "dice": every one)."""
        if not self.index:
            return ()
        stale = set(self.stale.get(part, ()))
        if part == "dice" or self.always or len(stale) > _FORGETS:
            return self.all()
        return tuple(sorted(stale))

    def of_zone(self, zid: int) -> tuple[int, ...]:
        if not self.index:
            return ()
        if self.always:
            return self.all()
        return tuple(sorted(self.stale.get(self.part_of_zone(zid), ())))

    def args_of_zone(self, zid: int) -> tuple[int, ...]:
        """The argument versions a change of zone `zid` bumps (see `by_arg`)."""
        return tuple(self.arg_stale.get(self.part_of_zone(zid), ()))

    def part_of_zone(self, zid: int):
        is_game, slot, _ = self.layout.zone_names[zid]
        return ("g", slot) if is_game else ("p", slot)

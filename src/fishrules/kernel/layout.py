"""The kernel's state: one array of integers, laid out from what the rules declare.

`Layout(model)` gives every part of a position a fixed place in the array `S`:

- a header: who is to act, the players, the two random generators (chance, and the choices of a
  playout), the work done in this step, how deep the phases are, the move being played;
- each option and game-wide value one slot; each player's value one slot per seat (the rules' most
  players); a list of numbers a length and room for the most entries it can hold (`list_cap`:
  what `Bounds.list_lengths` finds the rules can put in it, or for a list the rules add to the
  layout's `list_room`: `LIST_CAPACITY`, or a larger tier of `ROOMS` in a roomier variant of the
  kernel, which a game moves to when it grows such a list past its room: fishrules.kernel);
- the dice's faces;
- every zone a length and as many slots as cards it can hold (the cards of its kind), with where
  each card is, whether it is face up, and which zones were shuffled;
- how many times each phase is being played (`end PHASE` must find it) and each named rule fired;
- frames: where a waiting phase keeps its place and its locals (written only when the game waits).

Nothing here depends on the number of players or the options of one game: the same program runs
every game of the rules.  Copying a position is copying the array.
"""

from __future__ import annotations

from .. import model as m
from ..bounds import Bounds, zones_moved_into
from ..limits import MAX_DICE, MAX_LIST_LENGTH, MAX_PLAYERS
# The header, what S[H_CUR] holds and the lists' capacity are the ABI's (abi.py); the names the
# lowering and the tests still read here are re-exported.
from .abi import CUR_OVER, CUR_RUN, CUR_SIMUL, H_CUR, H_DDRAWS, H_DSEED, H_MOVE, H_N, H_NDICE, LIST_CAPACITY

__all__ = ["Layout", "TooLarge", "MAX_STATE_SLOTS", "MAX_FRAME_SLOTS", "ROOMS", "roomier",
           "LIST_CAPACITY", "CUR_OVER", "CUR_SIMUL", "CUR_RUN", "H_CUR", "H_DDRAWS", "H_DSEED", "H_N", "H_NDICE"]

#: Frames: slots for the locals of waiting phases, at most.
MAX_FRAME_SLOTS = 1 << 12
#: The most integers a position may take in the kernel (16 MiB: every zone holds room for every
#: card of its kind): rules that need more are played by the engine's own machine (`TooLarge`),
#: which keeps only what is there.  A move has no width of its own to stay within: its record is
#: in the position (the move being played, and the moves chosen together, in a frame), and the
#: native kernel's lists of moves are bounded in bytes (`abi.MOVE_BYTES`).
MAX_STATE_SLOTS = 1 << 21
#: The room a list the rules add to has, tier by tier: every kernel starts at the first; a game that
#: grows such a list past its room goes on in the kernel of the next (the same rules lowered with
#: that room), built when first needed.  Few tiers, because each is a build of native code; an
#: intermediate one, because a position's room is copied at every playout's start and written
#: whole by `set`.
ROOMS = (LIST_CAPACITY, 1024, MAX_LIST_LENGTH)


def roomier(room: int) -> "int | None":
    """The tier of `ROOMS` after `room` (None past the last: the language's own limit)."""
    return next((r for r in ROOMS if r > room), None)


class TooLarge(Exception):
    """The rules would make a kernel position larger than the kernel keeps; `span`: the
    declaration that takes it past, where one does (a list's room), else None."""

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.span = span


class Layout:
    """Where everything of a position lives in `S`."""

    def __init__(self, model: m.Model, max_subset: int, list_room: int = LIST_CAPACITY):
        """(Long, and kept whole: it lays the parts of a position out one after the other, `at`
        moving on past each, so the order of its lines is the order of the array.)  `list_room`:
        the room of each list the rules add to (a tier of `ROOMS`)."""
        self.model = model
        self.list_room = list_room
        #: the lists the rules add to, ("g"/"p", slot): those `list_room` sizes
        self.grows: frozenset = frozenset()
        self.seats = model.max_players
        assert self.seats <= MAX_PLAYERS
        ncards = len(model.cards)
        self.ncards = ncards
        self.max_subset = max_subset
        #: a move's record: its block, the actor, then each parameter where `params_at` puts it (a
        #: `some` parameter: how many things, then room for `max_subset` of them); every record of
        #: the rules is as wide as the widest action's
        self.params_at: dict[str, tuple[int, ...]] = {}
        width = 2
        for name, a in model.actions.items():
            at, offsets = 2, []
            for p in a.params:
                offsets.append(at)
                at += 1 + max_subset if p.kind == "some" else 1
            self.params_at[name] = tuple(offsets)
            width = max(width, at)
        self.move_width = width
        self.list_cap = self._list_capacities()
        self._into = zones_moved_into(model)
        at = H_MOVE + self.move_width
        # game-wide values and options: model slot -> S index (scalars and lists); zones: zone id
        self.g_index: dict[int, int] = {}
        self.g_zone: dict[int, int] = {}
        self.g_list: set[int] = set()
        self.zones: list[tuple[int, int]] = []  # zone id -> (S index of its length, capacity)
        self.zone_names: list[tuple[bool, int, int]] = []  # zone id -> (game zone?, model slot, seat)
        for o in model.options:
            self.g_index[o.slot] = at
            at += 1
        for v in model.game_vars:
            count = v.family[1] if v.family else 1
            for i in range(count):
                slot = v.slot + i
                if v.type.kind == "zone":
                    self.g_zone[slot] = len(self.zones)
                    self.zones.append((-1, self._zone_room("g", v.slot, v.type)))
                    self.zone_names.append((True, slot, -1))
                elif v.type.kind == "list":
                    self.g_index[slot] = at
                    self.g_list.add(slot)
                    at += 1 + self.list_cap[("g", slot)]
                    self._within(at, v, f"`{v.name}` keeps room for {self.list_cap[('g', slot)]:,} numbers")
                else:
                    self.g_index[slot] = at
                    at += 1
        # each player's values: slot -> S index of seat 0 (scalars: one slot a seat; lists: 1 +
        # their capacity a seat, `list_stride`); zones: zone id of seat 0 (then one a seat)
        self.p_index: dict[int, int] = {}
        self.p_zone: dict[int, int] = {}
        self.p_list: set[int] = set()
        for v in model.player_vars:
            if v.type.kind == "zone":
                self.p_zone[v.slot] = len(self.zones)
                room = self._zone_room("p", v.slot, v.type)
                for seat in range(self.seats):
                    self.zones.append((-1, room))
                    self.zone_names.append((False, v.slot, seat))
            elif v.type.kind == "list":
                self.p_index[v.slot] = at
                self.p_list.add(v.slot)
                at += self.list_stride(v.slot) * self.seats
                self._within(at, v, f"each player's `{v.name}` keeps room for {self.list_cap[('p', v.slot)]:,} "
                                    f"numbers at each of {self.seats} seats")
            else:
                self.p_index[v.slot] = at
                at += self.seats
        self.dice_cap = self._dice_capacity()
        self.dice = at
        at += self.dice_cap
        self.where = at
        at += ncards
        self.up = at
        at += ncards
        self.mixed = at
        at += len(self.zones)
        # draws that found their zone empty, per zone: [before the first decision, after]
        self.empty = at
        at += 2 * len(self.zones)
        if at + sum(1 + cap for _, cap in self.zones) > MAX_STATE_SLOTS:
            raise TooLarge(f"a position would take more than {MAX_STATE_SLOTS:,} numbers in the kernel "
                           f"({len(self.zones):,} zones, {self.ncards:,} cards)")
        placed = []
        for zid, (_, cap) in enumerate(self.zones):
            placed.append((at, cap))
            at += 1 + cap
        self.zones = placed
        self.nblocks = 0
        self.active = at  # set by `reserve_blocks`
        self.fires = at
        self.nrules = 0
        self.frames = at
        self.frames_size = 0
        self.size = at

    @staticmethod
    def _within(at: int, v: m.Variable, why: str) -> None:
        if at > MAX_STATE_SLOTS:
            raise TooLarge(f"a position would take more than {MAX_STATE_SLOTS:,} numbers in the kernel: here {why}",
                           v.span)

    def _list_capacities(self) -> dict[tuple[str, int], int]:
        """("g"/"p", slot) of each list variable -> the most entries the kernel keeps room for.

        A list the rules only `set` holds at most the longest value it is set to (`Bounds`, at the
        most players and dice: every length it finds grows with them), up to MAX_LIST_LENGTH, past
        which the rules fail anyway.  A list the rules add to has no bound the rules show; it gets
        `list_room` (LIST_CAPACITY in a game's own kernel), and a game that grows it longer faults
        (FAULT_CAPACITY) and goes on in a roomier kernel (the next tier of ROOMS).  Room for
        MAX_LIST_LENGTH entries in every kernel was measured and refused: every position of the
        game carries the room (a native playout copies it at its start), and a bundled dice game's
        playouts at 2 players went from 289,000 games/s to 17,000 with it."""
        model = self.model
        if not any(v.type.kind == "list" for v in (*model.game_vars, *model.player_vars)):
            return {}
        d = model.dice
        dice = 0 if d is None else self._dice_capacity()
        lengths = Bounds(model, self.seats, dice, {o.name: None for o in model.options}).list_lengths()
        self.grows = frozenset(k for k, n in lengths.items() if n is None)
        return {k: self.list_room if n is None else min(n, MAX_LIST_LENGTH) for k, n in lengths.items()}

    def list_stride(self, slot: int, scope: str = "p") -> int:
        """The slots a list variable takes (one seat's, for a player's): its length, then its room."""
        return 1 + self.list_cap[(scope, slot)]

    def _zone_room(self, scope: str, slot: int, t: m.Type) -> int:
        """The room a zone variable (each zone of a family, each seat's) keeps: every card of its
        kind if the rules move or draw cards into it, else none (zones start empty: cards only
        come into a zone by `move` and `draw`)."""
        if self._into is not None and (scope, slot) not in self._into:
            return 0
        return self._capacity(t)

    def _capacity(self, t: m.Type) -> int:
        """The most cards a zone of type `t` can hold: the cards of its kind (of every kind if it
        is a zone of any card)."""
        dom = t.element.domain if t.element is not None else None
        if dom is None:
            return len(self.model.cards)
        cs = next(c for c in self.model.card_sets if c.name == dom)
        return cs.count

    def _dice_capacity(self) -> int:
        d = self.model.dice
        if d is None:
            return 0
        c = d.count
        if isinstance(c, m.Const) and isinstance(c.value, int) and not isinstance(c.value, bool):
            return max(0, min(c.value, MAX_DICE))
        return MAX_DICE  # worked out from options when the game starts

    def reserve_blocks(self, nblocks: int, nrules: int, frames: int) -> None:
        """Places for the counts of phases being played and rules fired, and for frames."""
        at = self.active
        self.nblocks = nblocks
        at += nblocks
        self.fires = at
        self.nrules = nrules
        at += nrules
        self.frames = at
        self.frames_size = frames
        at += frames
        self.size = at
        if at > MAX_STATE_SLOTS:
            raise TooLarge(f"a position would take more than {MAX_STATE_SLOTS:,} numbers in the kernel")

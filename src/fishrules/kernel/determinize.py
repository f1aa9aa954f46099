"""Stage 5, running on the kernel: determinization of a kernel position.

The same determinization as fishrules.runtime.determinize (the interpretation and its limits are
written there), read from a kernel position and the kernel's record instead of the engine's state:
the card classes from the record's events and redactions (`card_classes`: the kernel's record keeps
the engine's event tuples), where each card is, face up or not, and each zone's cards from the
layout (`where`, `up`, the zones' slots), who may look at a zone from the rules' visibility as the
kernel's record reads it (`Recorder.zones`; a `seen by` zone by the kernel's own `looks`).  A
determinization is a copy of the position with the cards the player cannot tell apart shuffled
into their places, the others' secret choices made so far at a choice made together drawn again
among their legal ones (`choices`, put in the waiting frame's `chosen` by `rechoose`), the
player's record, and a new seed for chance.

`KDeterminizer.groups` are in kernel zone ids: places `(zone id, index)`, -1 the box.  The groups,
their order and the random numbers drawn are the engine's (the groups are ordered by the engine's
zone keys), so a KState and its twin on the engine draw the same worlds from the same `rng`.
Nothing here imports the API state: `KState.determinize` makes the state, `kernel/search.py`'s
`Worlds` the search's positions.
"""

from __future__ import annotations

import random
from typing import Any, Optional

from ..runtime import Log
from ..runtime.determinize import card_classes, card_groups, seen_by
from .abi import CUR_SIMUL, H_CUR, H_DRAWS, H_MANUAL, H_SEED
from .record import KRecord, Recorder

__all__ = ["KDeterminizer", "Unseen", "rechoose", "place"]


class Unseen(Exception):
    """The kernel cannot say who may look at a zone here (a `seen by` the kernel could not work
    out): the engine's determinization must be drawn."""


class KDeterminizer:
    """What player `v` knows of the cards of position `S` (kernel `kernel`) with record `rec` (a
    `KRecord`), worked out once, to draw many determinizations from."""

    def __init__(self, kernel: Any, S: Any, rec: KRecord, v: Optional[int]):
        rc = kernel.recorder
        if rc is None:
            rc = kernel.recorder = Recorder(kernel)
        lay = kernel.program.layout
        self.kernel, self.S, self.rec, self.player = kernel, S, rec, v
        self.where, self.zones = lay.where, lay.zones
        ncards = lay.ncards
        labels = rc.labels
        zinfo = rc.zones  # zone id -> (engine key, visibility, owner, look)
        looks: Any = None
        if any(vis == "seen by" for _, vis, _, _ in zinfo):
            got, faults = kernel.backend.looks(kernel.copy_state(S))
            looks = (got, faults)

        def sees(zid: int) -> bool:
            _, vis, owner, look = zinfo[zid]
            if vis == "public":
                return True
            if vis == "secret":
                return v is not None and v == owner
            if vis == "seen by":
                if looks[1][look]:
                    raise Unseen()
                return v is not None and v == looks[0][look]
            return False

        where, up, zones = lay.where, lay.up, lay.zones
        seen_zone: dict[int, bool] = {}
        index_of: dict[int, dict] = {}

        def hidden(c: int) -> bool:
            if S[up + c]:
                return False
            zid = S[where + c]
            if zid < 0:
                return True
            if zid not in seen_zone:
                seen_zone[zid] = sees(zid)
            return not seen_zone[zid]

        def place(c: int) -> tuple:
            zid = S[where + c]
            if zid < 0:
                return -1, -1
            at = index_of.get(zid)
            if at is None:
                z = zones[zid][0]
                at = index_of[zid] = {card: i for i, card in enumerate(S[z + 1:z + 1 + S[z]])}
            return zinfo[zid][0], at[c]

        cls = card_classes(rec.events.list(), rec.redact, ncards, v)
        zid_of = {info[0]: zid for zid, info in enumerate(zinfo)}
        zid_of[-1] = -1
        self.groups = [([(zid_of[key], i) for key, i in places], cards)
                       for places, cards in card_groups(cls, labels, hidden, place)]
        self.choices = self._secret_choices()
        self._record: Optional[KRecord] = None

    def _secret_choices(self) -> list[tuple]:
        """The choices others made at the simultaneous decision the game waits at that the player
        has not seen, as the engine's `_secret_choices` finds them: (their place in the waiting
        frame's `chosen`, in the order they were made; the player who made it; its entry in the
        history: the choices are the history's last entries, made one after the other)."""
        S, v = self.S, self.player
        if S[H_CUR] != CUR_SIMUL:
            return []
        chosen = self.kernel.backend.chosen_together(S)
        first = len(self.rec.history) - len(chosen)
        hidden = {i for i, _, aud in self.rec.redact if v not in aud}
        return [(k, m[1], first + k) for k, m in enumerate(chosen) if m[1] != v and first + k in hidden]

    def record(self, picks: tuple = ()) -> KRecord:
        """The record as the player knows it: their history, and the events as they saw them (the
        redactions kept: what each entry hides is public); a new one, with the others' secret
        choices drawn again (`picks`, from `sample`) written in the history as the engine's
        `_redraw_choices` writes them (their text)."""
        if self._record is None:
            rec = self.rec
            history, events = seen_by(rec.history_for(self.player), rec.events.list(), self.player)
            self._record = KRecord(history, rec.hidden.copy(), events)
        base = self._record
        if not picks:
            return base.copy()
        hist = list(base.history.list())
        for (_, _, i), (_, move) in zip(self.choices, picks):
            hist[i] = self.kernel.boundary.text(move, True)
        history = Log()
        for text in hist:
            history.append(text)
        return KRecord(history, base.hidden.copy(), base.events.copy())

    def place(self, S: Any, orders: list) -> None:
        """Put each group's cards, in `orders`, into its places of position S."""
        place(self.kernel.program.layout, self.groups, S, orders)

    def sample(self, rng: random.Random, manual: bool) -> tuple:
        """(position, seed, the cards' orders, the secret choices drawn again: (which of the
        player's legal choices, the move) each, in the order of `choices`) of one
        determinization drawn with `rng` (the random numbers the engine's `Determinizer.sample`
        draws: a shuffle a group, then the seed, then one choice among the legal ones for each
        secret choice, `_redraw_choices`); chance the caller's if `manual`.  KFault where a
        player's choices cannot be listed in the determinization (a rule that goes wrong)."""
        S = self.kernel.copy_state(self.S)
        orders = []
        for _, cards in self.groups:
            order = cards[:]
            rng.shuffle(order)
            orders.append(order)
        self.place(S, orders)
        seed = rng.getrandbits(63)
        S[H_SEED], S[H_DRAWS], S[H_MANUAL] = seed, 0, 1 if manual else 0
        picks = []
        be = self.kernel.backend
        for k, p, _ in self.choices:
            moves = be.moves(S, p)  # (its legal choices here, as the engine lists them in the world)
            j = rng.randrange(len(moves))
            rechoose(be, S, k, moves[j])
            picks.append((j, moves[j]))
        return S, seed, orders, tuple(picks)


def place(lay: Any, groups: list, S: Any, orders: list) -> None:
    """Put each group's cards (`KDeterminizer.groups`), in `orders`, into its places of position S
    of layout `lay` (a kernel's, or a roomier variant's of the same rules: the zone ids are the same)."""
    where, zones = lay.where, lay.zones
    for (places, _), order in zip(groups, orders):
        for (zid, i), c in zip(places, order):
            if zid < 0:
                S[where + c] = -1
            else:
                S[zones[zid][0] + 1 + i] = c
                S[where + c] = zid


def rechoose(be: Any, S: Any, k: int, move: tuple) -> None:
    """Put `move` in place of the `k`-th move chosen so far at the simultaneous decision position S
    waits at (the backend's `rechoose`, on either spelling)."""
    be.rechoose(S, k, move)
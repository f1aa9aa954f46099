"""Stage 5, running: cards in zones.

A zone is a tuple of card numbers in a game value (`g[key]`) or a player's (`p[player][slot]`),
addressed by one integer key (game slots first, then `G + slot * 64 + player`); `where[card]` is
the key of the zone each card is in (-1: in the box) and `up[card]` whether it lies face up.
Moving cards keeps the three in step, records the move as an event, and forgets the defines'
values that read a zone it touched.  A card drawn at random is a chance outcome in the history.
"""

from __future__ import annotations

from typing import Optional

from ..compiler import OVER_BUDGET, Fail, charge
from ..forms import draw_text
from ..limits import WORK_BUDGET
from .record import Record


def _zones_of(s):
    """(key, cards) of every zone of a state."""
    model = s.prog.model
    for v in model.game_vars:
        if v.type.kind == "zone":
            for i in range(v.family[1] if v.family else 1):
                yield v.slot + i, s.g[v.slot + i]
    for v in model.player_vars:
        if v.type.kind == "zone":
            for p in range(s.n):
                yield s.prog.G + v.slot * 64 + p, s.p[p][v.slot]


def empty_draws(game, setup: dict, total: dict) -> dict:
    """The draws of one game that found their zone empty, by the zone's name (`deck`, `stack`: a
    player's zones and a family's count as one): {name: [during the set-up, later]}.  The set-up
    is everything before the first decision.  `setup` and `total` are a state's `empty_draws` (by
    zone key, counted by `compiler.program.draw_wait` with `count_rules`) then and at the end."""
    if not total:
        return {}
    prog = game.program
    out: dict[str, list[int]] = {}
    for key, k in total.items():
        is_game, slot, _ = prog.zone_of_key(key)
        name = prog.game_var_names.get(slot, "?") if is_game else prog.player_var_names.get(slot, "?")
        counts = out.setdefault(name, [0, 0])
        early = setup.get(key, 0)
        counts[0] += early
        counts[1] += k - early
    return dict(sorted(out.items()))


class Zones(Record):
    """The layer of `State` that moves cards: zones, moves, draws, the `where` and `up` bookkeeping."""

    __slots__ = ()

    def _zget(self, key: int) -> tuple:
        G = self.prog.G
        if key < G:
            return self.g[key]
        k = key - G
        return self.p[k % 64][k // 64]

    def _zset(self, key: int, cards: tuple) -> None:
        G = self.prog.G
        if key < G:
            self.g[key] = cards
        else:
            k = key - G
            self.p[k % 64][k // 64] = cards

    def _move(self, cards: tuple, dest: int, facing) -> None:
        """Put `cards` on top of the zone `dest` (in their order), from wherever they are.  Every
        zone they leave is rebuilt once, and the work counts against the call's budget."""
        if not cards:
            return
        if self.events is not None:
            if len(cards) > 1:
                cards = tuple(dict.fromkeys(cards))
            self._note_move(cards, dest, facing)
        where = self.where
        G = self.prog.G
        if len(cards) == 1:  # the common case, with the zones read and written in line
            c = cards[0]
            src = where[c]
            if src >= 0:
                if src < G:
                    t = self.g[src]
                    i = t.index(c)
                    self.g[src] = t[:i] + t[i + 1:]
                else:
                    k = src - G
                    row = self.p[k & 63]
                    t = row[k >> 6]
                    i = t.index(c)
                    row[k >> 6] = t[:i] + t[i + 1:]
                w = self._work + 1 + len(t)
                self._work = w
                if w > WORK_BUDGET:
                    raise Fail(OVER_BUDGET)
            if dest < G:
                self.g[dest] += cards
            else:
                k = dest - G
                self.p[k & 63][k >> 6] += cards
            where[c] = dest
            if facing is not None:
                self.up[c] = facing == "up"
            if self._dmemo:
                self._forget_zone(dest)
                if src >= 0:
                    self._forget_zone(src)
            return
        cards = tuple(dict.fromkeys(cards))
        moving = set(cards)
        sources = {where[c] for c in cards if where[c] >= 0}
        charge(self, len(cards) + sum(len(self._zget(k)) for k in sources))
        for k in sources:
            self._zset(k, tuple(c for c in self._zget(k) if c not in moving))
        self._zset(dest, self._zget(dest) + cards)
        for c in cards:
            where[c] = dest
        if facing == "up":
            up = self.up
            for c in cards:
                up[c] = True
        elif facing == "down":
            up = self.up
            for c in cards:
                up[c] = False
        if self._dmemo:
            self._forget_zone(dest)
            for k in sources:
                self._forget_zone(k)

    def _forget_zone(self, key: int) -> None:
        """The zone `key` changed: forget the defines' values that read it (all, when the compiler
        could not tell which do).  Which cards are face up is read by no define."""
        prog = self.prog
        G = prog.G
        stale = prog.stale_g[key] if key < G else prog.stale_p[(key - G) >> 6]
        memo = self._dmemo
        if stale is None:
            memo.clear()
        else:
            for entry in stale:
                if entry.__class__ is int:
                    memo.pop(entry, None)
                else:  # (index, argument): a define that reads this zone only at that argument
                    values = memo.get(entry[0])
                    if values:
                        values.pop(entry[1], None)

    def _same_card(self, cards: tuple, card: int) -> int:
        """The first card of `cards` that nobody can tell from `card` (same label, same face)."""
        labels, up = self.prog.card_labels, self.up
        lab, u = labels[card], up[card]
        for c in cards:
            if labels[c] == lab and up[c] == u:
                return c
        return card  # pragma: no cover

    def _draw(self, card: int, dest: int, facing) -> None:
        """A card drawn at random: recorded as a chance outcome (seen by those who may see where it
        lands), then moved."""
        if self._history is None:  # a playout: counted, not recorded
            self._chances += 1
            self._move((card,), dest, facing)
            return
        was_up = self.up[card]
        text = draw_text(self.prog.card_labels[card], was_up)
        if facing is not None:
            self.up[card] = facing == "up"  # who sees it is who sees it where it lands
        audience = self._audience(dest, card)
        self.up[card] = was_up
        self._record(text, "draw ?", audience)
        self._move((card,), dest, facing)

    def _audience(self, key: int, card: Optional[int] = None) -> Optional[tuple]:
        """Who may see the zone `key` (or the card in it); None for everybody."""
        if card is not None and self.up[card]:
            return None
        can = self.prog.can_see_zone
        who = tuple(p for p in range(self.n) if can(self, key, p))
        return None if len(who) == self.n else who

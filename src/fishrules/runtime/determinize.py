"""Stage 5, running: determinization, a full state that one player cannot tell from the real one.

A bot that searches ahead needs whole states to play on, but may know only what its player knows.
`State.determinize(player, rng)` gives it one: a copy of the state in which everything hidden
from `player` is drawn at random among what it could be, given what that player has seen.  It is
worked out from the ruleset's declared visibility and the state's own record of what happened
(its events and history), never from anything a ruleset says about itself, so it serves every
game.  A state on the kernel draws the same determinizations from its position and the kernel's
record (kernel/determinize.py, `KState.determinize`): the card classes and groups are worked out
here, by `card_classes` and `card_groups`, for both.

What "could be" means here — the interpretation, and its limits:

* **Cards.**  The player's knowledge of the cards is followed through the game, event by event,
  as a partition of the cards into *classes*: cards the player cannot tell apart.  At the start
  every card is its own class (the rules put them where they put them: the player knows that).
  A card the player sees — in a zone they may look at, face up, or moving into or out of one —
  is identified: its own class again.  A card that moves where the player does not see it
  stays in its class when the player could follow the move (it takes every face-down card of
  the zone it leaves, or the zone held only identified cards and no secret choice or hidden draw
  caused it); otherwise — a random draw they did not see, another player's secret choice, a rule
  picking some of cards the player cannot tell apart — the player only knows it is one of the
  face-down cards that were in that zone, and their classes merge.
  A determinization shuffles, class by class, the cards the player cannot see *now* among the
  places they occupy now: identified cards stay where they are, and so does every card the player
  sees.  Cards with the same label are interchangeable (nobody can tell them apart), and the
  order of a shuffled zone is drawn anew with them.
* **Secret simultaneous choices** that other players have made and `player` has not seen are
  drawn again, uniformly among the choices the rules give them in the determinized state.
* **Chance to come**: the determinization has a new random seed (from `rng`), so the real
  state's future dice and draws are not in it.
* **The record**: its `history` is `history_for(player)` — what the player read, with `?`
  where they read `?` — and its events are the player's own (`events_for(player)`), so nothing in
  a determinization names a card or choice the player has not seen.  A determinization is for
  searching: it plays on like any state, but it cannot be replayed, and `to_json` refuses it
  (OptionError, `NOT_SAVED`).

Limits, said plainly: what a player could infer from the *consequences* of hidden cards (a score
that moved, a choice the rules did not offer, a rule that picked cards by what they are) is not
used, so a determinization is drawn from a superset of the positions the player holds possible —
never a narrower one: it never keeps a hidden card in place because it is there in the real
state.  Values other than cards that are hidden from the player (a `secret` or `hidden` number,
say) keep their real values, as do the rules' own `internal` bookkeeping and the locals of the
phase being played; no bundled ruleset hides a value that is not a zone of cards (a test checks
it), and a ruleset that does should not be searched with determinizations.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Callable, Optional

from ..compiler import SIMULTANEOUS
from ..errors import OptionError
from .record import Log
from .text import check_seat

if TYPE_CHECKING:  # pragma: no cover
    from .state import State

#: The error's words for a state that keeps no record (played out by `playout`).
PLAYED_OUT = ("this state was played out by playout(): it keeps no record of what each player saw, so it cannot "
              "be determinized")

#: The error's words for saving a determinization (`to_json`): no history reaches it.
NOT_SAVED = ("this state is a determinization: its record holds what one player saw, and no history reaches it, "
             "so it cannot be saved (save the state it was drawn from)")

__all__ = ["Determinizer", "determinize", "card_classes", "card_groups", "as_seen", "seen_by", "check_chance", "PLAYED_OUT",
           "NOT_SAVED"]


class Determinizer:
    """What one player knows of one state's cards, worked out once, to draw many
    determinizations from (`sample`).  `State.determinize(player, rng)` is one draw."""


    def __init__(self, state: "State", player: Optional[int]):
        self._kernel = None
        if getattr(state, "_ks", None) is not None:
            # a state on the game kernel works it out from its position and record, and draws
            # the same worlds from the same random numbers (kernel/apistate.py `_Draws`)
            self._kernel = state.determinizer_on_kernel(player)  # type: ignore[attr-defined]
            self.state, self.player = state, player
            self.groups, self.choices = self._kernel.groups, self._kernel.choices
            return
        if player is not None:
            check_seat(player, state.n)
        if state._history is None or state.events is None:
            raise OptionError(PLAYED_OUT)
        self.state = state
        self.player = player
        self._at = state.clone()  # the position drawn from, should the state be played on later
        self.groups = self._groups()
        self.choices = self._secret_choices()
        self._record = None  # the player's history and events, built on the first sample

    # ---- what the player knows ---------------------------------------------------------------

    def _classes(self) -> list[int]:
        """The class of every card now: cards of one class the player cannot tell apart."""
        s = self.state
        return card_classes(s.events.list(), s.redact, len(s.prog.card_labels), self.player)

    def _groups(self) -> list[tuple[list, list]]:
        """For every class with two or more cards the player cannot see now: the places they are
        in (zone key, index), in a fixed order, and their cards ordered by label (`card_groups`)."""
        s, v = self.state, self.player
        prog = s.prog
        up, where = s.up, s.where
        seen_zone: dict[int, bool] = {}

        def hidden(c: int) -> bool:
            key = where[c]
            if up[c]:
                return False
            if key not in seen_zone:
                seen_zone[key] = key >= 0 and prog.can_see_zone(s, key, v)
            return not seen_zone[key]

        def place(c: int) -> tuple:
            key = where[c]
            return key, s._zget(key).index(c) if key >= 0 else -1

        return card_groups(self._classes(), prog.card_labels, hidden, place)

    def _secret_choices(self) -> list[int]:
        """The indices, in the pending simultaneous choice, of choices others made that the
        player has not seen."""
        s, v = self.state, self.player
        if s.cur != SIMULTANEOUS:
            return []
        fr, info = s._pause()
        hidden = {i for i, _, aud in s.redact if v not in aud}
        return [k for k, (p, _, _, i) in enumerate(fr[2][info.slot + 1]) if p != v and i in hidden]

    # ---- drawing one ------------------------------------------------------------------------

    def kernel_state(self, kernel, orders: tuple):
        """The kernel state of a determinization drawn with `orders` (one per group): the real
        state replayed into the kernel once, the cards put in their places (the kernel gives it
        the determinization's seed: `fishrules.kernel.Kernel.state_of`)."""
        cache = self.__dict__.setdefault("_kernel_base", {})
        base = cache.get(id(kernel))
        if base is None:
            base = cache[id(kernel)] = (kernel, kernel.state_of(self._at))
        S = kernel.copy_state(base[1])
        lay = kernel.program.layout
        G = self._at.prog.G
        # the kernel's zone id of each engine zone key (compiler/program.py: a game zone's key is
        # its slot, a player's G + slot * 64 + seat)
        zid_of = {slot if is_game else G + slot * 64 + seat: zid
                  for zid, (is_game, slot, seat) in enumerate(lay.zone_names)}
        for (places, _), order in zip(self.groups, orders):
            for (key, i), c in zip(places, order):
                if key < 0:
                    S[lay.where + c] = -1
                else:
                    zid = zid_of[key]
                    S[lay.zones[zid][0] + 1 + i] = c
                    S[lay.where + c] = zid
        return S

    def _player_record(self):
        """The history and events as the player knows them, for every determinization."""
        if self._record is None:
            self._record = seen_by(self.state.history_for(self.player), self.state.events.list(), self.player)
        return self._record

    def sample(self, rng: random.Random, chance: Optional[str] = None) -> "State":
        """One determinization, drawn with `rng`.  `chance` ("seeded" or "manual") says how the
        determinization resolves chance from now on; by default as the state does."""
        check_chance(chance)
        if self._kernel is not None:
            return self._kernel.sample(rng, chance)
        orders = []
        for _, cards in self.groups:
            order = cards[:]
            rng.shuffle(order)
            orders.append(order)
        d = self.world(orders, rng.getrandbits(63), chance)
        if self.choices:
            _redraw_choices(d, self.choices, rng)
        return d

    def world(self, orders: list, seed: int, chance: Optional[str] = None, groups: Optional[list] = None,
              picks: Optional[list] = None) -> "State":
        """The determinization with each group's cards in `orders` (`groups`: these places, in
        engine zone keys, instead of this determinizer's own), chance from `seed` (or the
        caller's); the secret choices as they are, or with `picks` (which legal choice each, in
        the order of `choices`) drawn again so."""
        s = self.state
        d = s.clone()
        for (places, _), order in zip(self.groups if groups is None else groups, orders):
            _place(d, places, order)
        history, events = self._player_record()
        d._history = history.copy()
        d.events = events.copy()
        d.seed = seed
        d.draws = 0
        # its kernel state, should a search want one: the real position's, with these cards placed
        # (fishrules.kernel.Kernel.state_of); good while nothing is played on it
        d._kernel_origin = (self, tuple(orders), len(d._history))
        if chance is not None:
            d.manual = chance == "manual"
        d._legal = None
        d._dmemo = {}
        if picks:
            _redraw_choices(d, self.choices, random.Random(), list(picks))
        return d


def check_chance(chance: Optional[str]) -> None:
    """How a determinization resolves chance: "seeded", "manual" or None (as the state does)."""
    if chance not in (None, "seeded", "manual"):
        raise OptionError(f"chance must be 'seeded' or 'manual', not {chance!r}")


def card_classes(events: list, redact: tuple, ncards: int, v: Optional[int]) -> list[int]:
    """The class of every card now, for player `v` (None: a spectator): cards of one class `v`
    cannot tell apart.  Read from the record only: `events` (the engine's event tuples, which the
    kernel's record keeps too) and `redact` (what each entry of the history hides from whom)."""
    hidden_at = {i for i, _, aud in redact if v not in aud}  # history entries v read as `?`

    def fresh():
        return list(range(ncards)), {c: {c} for c in range(ncards)}, [-1] * ncards, [False] * ncards

    cls, members, loc, up = fresh()
    zone: dict[int, set] = {-1: set(range(ncards))}
    next_id = ncards

    def sees(aud) -> bool:
        return aud is None or (v is not None and v in aud)

    def detach(c: int) -> None:
        nonlocal next_id
        if len(members[cls[c]]) > 1:
            members[cls[c]].discard(c)
            cls[c] = next_id
            members[next_id] = {c}
            next_id += 1

    def merge(cards) -> None:
        ids = {cls[c] for c in cards}
        if len(ids) < 2:
            return
        keep = min(ids, key=lambda i: -len(members[i]))
        for i in ids - {keep}:
            for c in members.pop(i):
                cls[c] = keep
                members[keep].add(c)

    for e in events:
        kind = e[0]
        if kind == "restart":
            cls, members, loc, up = fresh()
            zone = {-1: set(range(ncards))}
            continue
        if kind == "reveal":
            for c in e[2]:
                detach(c)
                up[c] = True
            continue
        if kind != "move":
            continue
        _, after, cards, srcs, dest, auds, dest_aud, face_up, facing = e
        secret_cause = (after - 1) in hidden_at
        unseen: dict[int, list] = {}
        for c, src, u in zip(cards, srcs, face_up):
            if u or sees(dest_aud) or sees(auds[src]):
                detach(c)
            else:
                unseen.setdefault(src, []).append(c)
        for src, moved in unseen.items():
            down = [c for c in zone.get(src, ()) if not up[c]]
            if len(moved) == len(down):
                continue  # every face-down card of the zone went: the player knows which
            if not secret_cause and all(len(members[cls[c]]) == 1 for c in down):
                continue  # cards the player knows, moved by rules the player can follow
            merge(down)
        for c in cards:
            zone.setdefault(loc[c], set()).discard(c)
            zone.setdefault(dest, set()).add(c)
            loc[c] = dest
            if facing == "up":
                up[c] = True
            elif facing == "down":
                up[c] = False
    return cls


def card_groups(cls: list, labels: list, hidden: Callable[[int], bool],
                place: Callable[[int], tuple]) -> list[tuple[list, list]]:
    """For every class (`cls`, from `card_classes`) with two or more cards the player cannot see
    now (`hidden`): the places they are in (`place(card)`: (zone key, index), the key -1 the box),
    sorted, and their cards ordered by label; the groups in the order of their first place.  All of
    it things the player knows, so a draw from them depends on nothing hidden.  A group of cards
    all alike in one zone is left out: there is nothing to draw."""
    by_class: dict[int, list] = {}
    for c in range(len(labels)):
        if hidden(c):
            by_class.setdefault(cls[c], []).append(c)
    groups = []
    for cards in by_class.values():
        if len(cards) < 2:
            continue
        places = sorted(place(c) for c in cards)
        cards = sorted(cards, key=lambda c: labels[c])
        if len({labels[c] for c in cards}) < 2 and all(k >= 0 for k, _ in places) and len({k for k, _ in places}) < 2:
            continue  # all alike, in one zone: nothing to draw
        groups.append((places, cards))
    groups.sort(key=lambda g: g[0][0])
    return groups


def _place(d: "State", places: list, cards: list) -> None:
    """Put `cards` in `places` (zone key, index), in order: the zones are rewritten once each."""
    zones: dict[int, list] = {}
    where = d.where
    for (key, i), c in zip(places, cards):
        if key < 0:
            where[c] = -1
            continue
        z = zones.get(key)
        if z is None:
            z = zones[key] = list(d._zget(key))
        z[i] = c
        where[c] = key
    for key, z in zones.items():
        d._zset(key, tuple(z))


def _redraw_choices(d: "State", indices: list, rng: random.Random, picks: Optional[list] = None) -> None:
    """Draw again the secret simultaneous choices at `indices`, among the legal ones in `d` (or,
    with `picks`, take the `picks[n]`-th legal one for the n-th: a world drawn on the kernel,
    kernel/determinize.py, whose twin on the engine this is)."""
    fr, info = d._pause()
    L = fr[2]
    chosen = list(L[info.slot + 1])
    hist = d._history.list()
    for n, k in enumerate(indices):
        p, _, _, i = chosen[k]
        actions = d._enumerate_for(info, p).actions()
        a = actions[rng.randrange(len(actions)) if picks is None else picks[n]]
        chosen[k] = (p, a.name, a._values, i)
        hist[i] = a.text
    L[info.slot + 1] = tuple(chosen)
    # the Log's list view is the one just edited: rebuild the chain so copies agree
    log = Log()
    for text in hist:
        log.append(text)
    d._history = log


def seen_by(history: list, events: list, v: Optional[int]) -> tuple:
    """The history (as `v` reads it) and the events as `v` saw them, as two new Logs: the record
    of a determinization for `v`, on either machine."""
    h = Log()
    for text in history:
        h.append(text)
    seen = Log()
    for e in events:
        kept = as_seen(e, v)
        if kept is not None:
            seen.append(kept)
    return h, seen


def as_seen(e: tuple, v: Optional[int]) -> Optional[tuple]:
    """An event record as player `v` saw it, readable by anyone: whoever renders it sees what `v`
    saw.  Values `v` did not see are left out."""
    kind = e[0]
    if kind == "move":
        _, after, cards, srcs, dest, auds, dest_aud, face_up, facing = e

        def as_v(aud):
            return None if aud is None or (v is not None and v in aud) else ()

        return ("move", after, cards, srcs, dest, {k: as_v(a) for k, a in auds.items()}, as_v(dest_aud), face_up,
                facing)
    if kind == "set":
        aud = e[6]
        if aud is not None and (v is None or v not in aud):
            return None
        return e[:6] + (None,)
    return e


def determinize(state: "State", player: Optional[int], rng: random.Random, chance: Optional[str] = None) -> "State":
    """One determinization of `state` for `player` (see the module's docstring)."""
    return Determinizer(state, player).sample(rng, chance)

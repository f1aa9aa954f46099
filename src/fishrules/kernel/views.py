"""What a seat sees, read from a kernel position: the fields of `State.view(player)` but its history.

`Sight(kernel)` is made once for a kernel: where each value of the rules lives in the array `S`
(the kernel's `Layout`), how the kernel holds it (numbers; yes/no as 1/0; a player as a seat; a
choice or a text as its number among the program's symbols; nothing as NIL) and what the engine's
view shows of it.  `Sight.view(...)` then gives, from a position alone, what the engine's
`Views._view` gives (runtime/views.py: the same keys and values, by the same visibility), without
the history: values by their declared visibility (a `seen by` value by the kernel's own function
of who sees it), zones as card labels or None where the viewer may not see a card (face-up cards
are seen by everybody), the dice, the scores, the options, the phases being played (the blocks of
the frames the position keeps), the public game-wide defines (worked out by the kernel: a define
that cannot be worked out yet is left out, as the engine leaves it out), who is to act, who the
game waits for, the legal actions and the winners.

The history is the record's (kernel/record.py: a `KState`'s `view` puts it in).  Any part the
kernel cannot work out as the engine does (a define the kernel stops on for a capacity or a budget
of its own, a value of a kind it does not hold): then `view` returns None and the caller asks the
engine.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Optional

from ..analysis import number_blocks
from ..forms import forms_of
from ..runtime import SIMULTANEOUS
from ..spaces import put
from . import abi as A
from .abi import FAULT_RULE, NIL

__all__ = ["Sight"]

# How the kernel holds a scalar value of each kind, read back as the engine holds it.
_SCALAR = ("number", "bool", "player", "symbol", "text")


class _Unseeable(Exception):
    """Something of this position the kernel cannot show as the engine does: ask the engine."""


class Sight:
    """How to read what a seat sees from a position of one kernel (see the module's docstring)."""

    def __init__(self, kernel: Any):
        kp = kernel.program
        lay = kp.layout
        model = kp.model
        forms = forms_of(model)
        self.backend = kernel.backend
        self.title = model.title
        self.symbols = kp.symbols
        self.labels = forms.card_labels
        self.face_labels = forms.face_labels
        self.unrolled = forms.unrolled
        self.dice_at = lay.dice
        self.up = lay.up
        self.zones = lay.zones
        blocks = number_blocks(model)
        self.phase_names = {b: name for b, name in enumerate(blocks.names) if blocks.is_phase[b]}
        self.options = [o.name for o in model.options]
        looks = {key: i for i, (key, _) in enumerate(kp.looks)}
        # each game-wide value: (name, kind, visibility, where, seen-by look or None); a family of
        # zones: where is a list of (number as text, kernel zone id)
        self.game: list[tuple] = []
        for v in model.game_vars:
            if v.visibility == "internal":
                continue
            k = v.type.kind
            if k != "zone" and k not in _SCALAR and k != "list":
                self.game = None  # type: ignore[assignment]  # a kind the kernel's view does not read
                break
            look = looks.get(("seen by", v.slot)) if v.visibility == "seen by" else None
            if v.visibility == "seen by" and look is None:
                self.game = None  # type: ignore[assignment]
                break
            if v.family:
                lo, count = v.family
                where: Any = [(str(lo + i), lay.g_zone[v.slot + i]) for i in range(count)]
                self.game.append((v.name, "family", v.visibility, where, look))
            elif k == "zone":
                self.game.append((v.name, k, v.visibility, lay.g_zone[v.slot], look))
            else:
                self.game.append((v.name, k, v.visibility, lay.g_index[v.slot], look))
        # each player's value (internal ones are in no view): (name, kind, visibility, where of seat 0, stride)
        self.seat: Optional[list[tuple]] = []
        for v in model.player_vars:
            if v.visibility == "internal":
                continue
            k = v.type.kind
            if k == "zone":
                self.seat.append((v.name, k, v.visibility, lay.p_zone[v.slot], 1))
            elif k == "list":
                self.seat.append((v.name, k, v.visibility, lay.p_index[v.slot], lay.list_stride(v.slot)))
            elif k in _SCALAR and v.visibility != "seen by":
                self.seat.append((v.name, k, v.visibility, lay.p_index[v.slot], 1))
            else:
                self.seat = None
                break
        # the public game-wide defines a view shows, in the rules' order: (name, is yes/no, look)
        self.derived: Optional[list[tuple]] = []
        for name, d in model.defines.items():
            if not d.per_player and not d.params and d.type.kind in ("number", "bool") and name in forms.public_defines:
                look = looks.get(("define", name))
                if look is None:
                    self.derived = None
                    break
                self.derived.append((name, d.type.kind == "bool", look))
        self.looks = bool(kp.looks)
        self.encoders: dict = {}  # observation layout -> (its options, `encoder`)

    @property
    def can(self) -> bool:
        """Whether views of this kernel's positions can be read here at all."""
        return self.game is not None and self.seat is not None and self.derived is not None

    # ---- reading values ----------------------------------------------------------------------------

    def _scalar(self, kind: str, v: Any) -> Any:
        if v is None or v == NIL:
            return False if kind == "bool" else None  # (a yes/no is never nothing)
        if kind == "number":
            return v
        if kind == "bool":
            return bool(v)
        if kind == "player":
            return v
        return self.symbols[v]  # a choice, a text

    def _zone(self, S: Any, zid: int, ok: bool) -> list:
        at, _ = self.zones[zid]
        labels = self.labels
        cards = S[at + 1:at + 1 + S[at]]
        if ok:
            return [labels[c] for c in cards]
        up = self.up
        return [labels[c] if S[up + c] else None for c in cards]

    def view(self, S: Any, n: int, options: dict, player: Optional[int], current: Any, waiting: list,
             scores: Callable[[], list], winners: Callable[[], list],
             legal: Optional[Callable[[int], list]]) -> Optional[dict]:
        """The view of `player` (None: a spectator) at position `S` of a game of `n` players, but
        its history; None where the engine must be asked (see the module's docstring).  `current`
        and `waiting` are the state's, `scores`, `winners` and `legal` (a seat's legal actions'
        texts; None: leave them out) work them out when needed.  (Long, and kept whole: it is
        `Views._view` field by field, in the same order, read from the array instead.)"""
        if not self.can:
            return None
        try:
            got, faults = self.backend.looks(S) if self.looks else ((), ())
            for f in faults:
                if f and f != FAULT_RULE:
                    raise _Unseeable()  # not a rule that cannot be worked out yet: the kernel's own limit

            def sees(vis: str, owner: int, look: Optional[int]) -> bool:
                if vis == "public":
                    return True
                if vis == "secret":
                    return player is not None and player == owner
                if vis == "seen by":
                    assert look is not None
                    if player is None:  # (the engine asks who sees it only for a seat)
                        return False
                    if faults[look]:
                        raise _Unseeable()  # the engine says what is wrong
                    return player == got[look]
                return False

            values: dict[str, Any] = {}
            for name, kind, vis, where, look in self.game:
                ok = sees(vis, -1, look)
                if kind == "family":
                    values[name] = {key: self._zone(S, zid, ok) for key, zid in where}
                elif kind == "zone":
                    values[name] = self._zone(S, where, ok)
                elif ok:
                    if kind == "list":
                        values[name] = list(S[where + 1:where + 1 + S[where]])
                    else:
                        values[name] = self._scalar(kind, S[where])
            sc = scores()
            rows = []
            for i in range(n):
                row: dict[str, Any] = {"player": i}
                for name, kind, vis, where, stride in self.seat:  # type: ignore[union-attr]
                    ok = sees(vis, i, None)
                    if kind == "zone":
                        row[name] = self._zone(S, where + i, ok)
                    elif ok:
                        at = where + i * stride
                        row[name] = list(S[at + 1:at + 1 + S[at]]) if kind == "list" else self._scalar(kind, S[at])
                row["score"] = sc[i]
                rows.append(row)
            over = S[A.H_CUR] == A.CUR_OVER
            out: dict[str, Any] = {
                "title": self.title,
                "viewer": player,
                "players": n,
                "current": current,
                "over": over,
                "phase": [self.phase_names[b] for b in self.backend.frame_blocks(S) if b in self.phase_names],
                "options": {name: options[name] for name in self.options},
                "values": values,
                "seats": rows,
            }
            ndice = S[A.H_NDICE]
            if ndice:
                labels, unrolled, at = self.face_labels, self.unrolled, self.dice_at
                out["dice"] = [labels[f] if f != unrolled else None for f in S[at:at + ndice]]
            derived = {}
            for name, is_bool, look in self.derived:  # type: ignore[union-attr]
                if not faults[look]:  # (a define that cannot be worked out yet: nothing rolled)
                    v = got[look]
                    derived[name] = bool(v) if is_bool else v
            out["derived"] = derived
            if over:
                out["winners"] = winners()
            if current == SIMULTANEOUS:
                out["waiting"] = waiting
            if legal is not None and player is not None and player in waiting:
                out["legal_actions"] = legal(player)
            return out
        except _Unseeable:
            return None

    # ---- observations, straight from the position ------------------------------------------------------

    def encoder_of(self, spec: Any, options: dict) -> Optional[Callable[..., Optional[list]]]:
        """`encoder(spec, options)`, made once for a layout (a layout is made for one number of
        players and one set of options: `Game.observation_spec` keeps it)."""
        got = self.encoders.get(spec)
        if got is None or got[0] != options:
            if len(self.encoders) >= 64:
                self.encoders.clear()
            got = self.encoders[spec] = (dict(options), self.encoder(spec, options))
        return got[1]

    def encoder(self, spec: Any, options: dict) -> Optional[Callable[..., Optional[list]]]:
        """A function giving `spec.encode(view)` of a position's view (the same floats) from the
        position itself, with no view made: `encode(S, player, current, waiting, scores)`, None
        where the engine must be asked.  None if some field of `spec` is not one this reads.
        (Long, and kept whole: one small function per field of the layout, each filling its floats
        as `spaces.put` fills them from the view's value.)"""
        if not self.can:
            return None
        game = {entry[0]: entry for entry in self.game}
        seat = {entry[0]: entry for entry in self.seat}  # type: ignore[union-attr]
        derived = {name: look for name, _, look in self.derived}  # type: ignore[union-attr]
        labels, backend, zones, up, ncards = self.labels, self.backend, self.zones, self.up, len(self.labels)
        phase_names, scalar = self.phase_names, self._scalar
        base = [0.0] * spec.size
        # each field: fill(S, out, player, looks' values, faults, ctx) -> False where the engine
        # must be asked; ctx holds what several fields share ([current, waiting, scores fn, scores, ups])
        fills: list[Callable[..., Any]] = []
        # what every viewer sees alike, filled in one loop each: (offset, S index of the zone,
        # place of each card's label) and (offset, S index of the number)
        public_zones: list[tuple[int, int, list]] = []
        public_numbers: list[tuple[int, int]] = []

        def sees(vis: str, look: Optional[int], owner: int) -> Callable[..., Optional[bool]]:
            """Whether the viewer sees a value: True, False, or None where the engine must say."""
            if vis == "public":
                return lambda player, got, faults: True
            if vis == "secret":
                return lambda player, got, faults: player is not None and player == owner
            if vis == "seen by":
                assert look is not None
                return lambda player, got, faults: player is not None and (None if faults[look] else player == got[look])
            return lambda player, got, faults: False

        def zone(o: int, zid: int, ok: Callable, cidx: list, last: int) -> Callable[..., Any]:
            at = zones[zid][0]

            def fill(S, out, player, got, faults, ctx):
                n = S[at]
                if not n:
                    return True
                seen = ok(player, got, faults)
                if seen is None:
                    return False
                cards = S[at + 1:at + 1 + n]
                if not seen:
                    # the face-down cards are counted as unseen, the face-up ones by their label
                    ups = ctx[4]
                    if ups is None:
                        ups = ctx[4] = S[up:up + ncards]
                    cards = [c for c in cards if ups[c]]
                    out[o + last] += n - len(cards)
                for c in cards:
                    out[o + cidx[c]] += 1.0
                return True
            return fill

        def value(o: int, at: int, ok: Callable, how: str, kind: str, size: int, index: dict) -> Callable[..., Any]:
            if how == "number" and kind == "number":  # the commonest: a number a view shows as it is
                def number(S, out, player, got, faults, ctx):
                    seen = ok(player, got, faults)
                    if seen is None:
                        return False
                    if seen:
                        v = S[at]
                        if v is not None and v != NIL:
                            out[o] = float(v)
                            out[o + 1] = 1.0
                    return True
                return number

            def fill(S, out, player, got, faults, ctx):
                seen = ok(player, got, faults)
                if seen is None:
                    return False
                if seen:
                    if kind == "list":
                        put(out, how, o, size, index, list(S[at + 1:at + 1 + S[at]]))
                    else:
                        v = scalar(kind, S[at])
                        if v is not None:
                            put(out, how, o, size, index, v)
                return True
            return fill

        def score(o: int, i: int) -> Callable[..., Any]:
            def fill(S, out, player, got, faults, ctx):
                if ctx[3] is None:
                    ctx[3] = ctx[2]()
                out[o] = float(ctx[3][i])
                out[o + 1] = 1.0
                return True
            return fill

        def die(o: int, d: int, faces: list) -> Callable[..., Any]:
            at, unrolled = self.dice_at + d, self.unrolled

            def fill(S, out, player, got, faults, ctx):
                if d < S[A.H_NDICE]:
                    f = S[at]
                    if f != unrolled and faces[f] is not None:
                        out[o + faces[f]] = 1.0
                return True
            return fill

        def define(o: int, look: int) -> Callable[..., Any]:
            def fill(S, out, player, got, faults, ctx):
                if not faults[look] and got[look] is not None:  # (one that cannot be worked out yet: left out)
                    out[o] = float(got[look])
                    out[o + 1] = 1.0
                return True
            return fill

        def current(o: int, size: int, index: dict) -> Callable[..., Any]:
            def fill(S, out, player, got, faults, ctx):
                cur = ctx[0]
                out[o + (size - 1 if cur is None else cur if cur.__class__ is int else index[cur])] = 1.0
                return True
            return fill

        def viewer(o: int) -> Callable[..., Any]:
            def fill(S, out, player, got, faults, ctx):
                if player is not None:
                    out[o + player] = 1.0
                return True
            return fill

        def waiting(o: int) -> Callable[..., Any]:
            def fill(S, out, player, got, faults, ctx):
                if ctx[0] == SIMULTANEOUS:
                    for x in ctx[1]:
                        out[o + x] = 1.0
                return True
            return fill

        def phase(o: int, index: dict) -> Callable[..., Any]:
            def fill(S, out, player, got, faults, ctx):
                for b in backend.frame_blocks(S):
                    name = phase_names.get(b)
                    if name is not None and name in index:
                        out[o + index[name]] = 1.0
                return True
            return fill

        for path, how, o, size, index in spec.fields_to_fill():
            head, rest = path[0], path[1:]
            if not rest and head in ("current", "viewer", "waiting", "phase"):
                fills.append(current(o, size, index) if head == "current" else viewer(o) if head == "viewer" else
                             waiting(o) if head == "waiting" else phase(o, index))
            elif head == "options" and len(rest) == 1:
                v = options[rest[0]]
                if v is not None:
                    put(base, how, o, size, index, v)  # the same in every position of the game
            elif head == "values" and rest[0] in game:
                name, kind, vis, where, look = game[rest[0]]
                if kind == "family":
                    zid = dict(where).get(rest[1]) if len(rest) == 2 else None
                    if zid is None:
                        return None
                    kind, where = "zone", zid
                elif len(rest) != 1:
                    return None
                if kind == "zone" and vis == "public":
                    public_zones.append((o, zones[where][0], [index.get(lab, size - 1) for lab in labels]))
                elif kind == "zone":
                    fills.append(zone(o, where, sees(vis, look, -1), [index.get(lab, size - 1) for lab in labels], size - 1))
                elif how == "number" and kind == "number" and vis == "public":
                    public_numbers.append((o, where))
                else:
                    fills.append(value(o, where, sees(vis, look, -1), how, kind, size, index))
            elif head == "seats" and len(rest) == 2 and rest[1] == "score":
                fills.append(score(o, rest[0]))
            elif head == "seats" and len(rest) == 2 and rest[1] in seat:
                name, kind, vis, where, stride = seat[rest[1]]
                i = rest[0]
                if kind == "zone" and vis == "public":
                    public_zones.append((o, zones[where + i][0], [index.get(lab, size - 1) for lab in labels]))
                elif kind == "zone":
                    fills.append(zone(o, where + i, sees(vis, None, i), [index.get(lab, size - 1) for lab in labels], size - 1))
                elif how == "number" and kind == "number" and vis == "public":
                    public_numbers.append((o, where + i * stride))
                else:
                    fills.append(value(o, where + i * stride, sees(vis, None, i), how, kind, size, index))
            elif head == "dice" and len(rest) == 1:
                fills.append(die(o, rest[0], [index.get(lab) for lab in self.face_labels]))
            elif head == "derived" and len(rest) == 1 and rest[0] in derived:
                fills.append(define(o, derived[rest[0]]))
            else:
                return None
        looks = self.looks

        def encode(S: Any, player: Optional[int], current: Any, waiting: list, scores: Callable[[], list]) -> Optional[list]:
            got, faults = backend.looks(S) if looks else ((), ())
            for f in faults:
                if f and f != FAULT_RULE:
                    return None  # the kernel's own limit, not a rule that cannot be worked out yet
            out = base[:]
            for o, at in public_numbers:
                v = S[at]
                if v is not None and v != NIL:
                    out[o] = float(v)
                    out[o + 1] = 1.0
            for o, at, cidx in public_zones:
                n = S[at]
                if n:
                    for c in S[at + 1:at + 1 + n]:
                        out[o + cidx[c]] += 1.0
            ctx = [current, waiting, scores, None, None]
            for fill in fills:
                if not fill(S, out, player, got, faults, ctx):
                    return None
            return out

        return encode

"""The record of a game on the kernel: the engine's history, redactions and events, from a trace.

While a caller keeps a record (`trace_on` / `trace_off` of a backend; never in a playout), the
kernel writes a trace of typed records as it runs, worked out at the moment they happen (who sees
a zone may change later): each record a tuple of integers and tuples of integers, the same from
both spellings (the Python kernel appends them as they are; the C kernel writes them flat into a
buffer of its context, which `native.py` reads back into these tuples):

- `(1, die, face)`: a die rolled (one record a die, in the order they are rolled);
- `(2, card)`: a card drawn at random from a shuffled zone; its move is the next record;
- `(3, dest, facing, seen, cards, sources, ups)`: cards moved onto zone `dest` (`facing` 0, or 1
  up, 2 down), each from its zone (-1: the box) and face up or not before;
- `(4, cards, zones)`: cards turned face up where they lie;
- `(5, value, at, old, new, seen)`: a value the players may see changed (`value` its number in
  `KernelProgram.noted`, `at` where in the state, `old`/`new` its items);
- `(7,)`: `play again`; `(8,)`: the game is over.

`seen` holds, for the moves and changes, who sees each `seen by` value at that moment (the
program's look of each, in order).  A `Recorder` (one per kernel) turns the trace into exactly
what the engine records (runtime/record.py, runtime/zones.py): the history's texts with what each
player may not read (`redact`), and the events as the engine's tuples, kept in `Log`s that clones
share.  A player's move is written into the history by the action's declared form from its typed
record (`move`), before its effects are traced, as the engine writes it.

Where the kernel cannot say who saw something, the engine still keeps the record (`Recorder.can`
is False, and the caller becomes the engine's state as before): a `seen by` value with no look of
the kernel's (the checker refuses a player's own value `seen by` somebody, so none today), or a
value of a kind the kernel does not hold as the engine does.  A trace the native kernel cannot
grow (`REC_MAX` numbers in one call) stops the call with FAULT_CAPACITY, and a record worked out
again that the kernel cannot finish (a fault of its own, the work recording adds past its budget)
is the engine's too: the caller treats either as any fault of the kernel's.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..forms import draw_text, forms_of
from ..runtime import Log
from ..runtime.record import events_since, render_event
from ..runtime.text import check_seat, check_since

__all__ = ["Recorder", "KRecord", "R_ROLL", "R_DRAW", "R_MOVE", "R_REVEAL", "R_SET", "R_RESTART", "R_OVER"]

R_ROLL, R_DRAW, R_MOVE, R_REVEAL, R_SET, R_RESTART, R_OVER = 1, 2, 3, 4, 5, 7, 8
_FACING = (None, "up", "down")
#: the engine's seats per player zone key (compiler/program.py MAX_SEATS)
_SEATS = 64


class KRecord:
    """The engine's record of one game: `history` (a `Log` of texts), `hidden` (a `Log` of what
    some may not read of the history: (history index, what the others read, who reads the text),
    in order; `redact` is it as the engine's tuple) and `events` (a `Log` of the engine's event
    tuples).  Copies share what they had (appending to one does not change the other), and
    appending takes constant time: a game of many secret entries is not quadratic in its length."""

    __slots__ = ("history", "hidden", "events")

    def __init__(self, history: Optional[Log] = None, hidden: Optional[Log] = None, events: Optional[Log] = None):
        self.history = history if history is not None else Log()
        self.hidden = hidden if hidden is not None else Log()
        self.events = events if events is not None else Log()

    def copy(self) -> "KRecord":
        return KRecord(self.history.copy(), self.hidden.copy(), self.events.copy())

    @property
    def redact(self) -> tuple:
        return tuple(self.hidden.list())

    def write(self, text: str, redacted: Optional[str] = None, audience: Optional[tuple] = None) -> None:
        """An entry of the history (runtime/record.py `_record`)."""
        if audience is not None and redacted is not None:
            self.hidden.append((len(self.history), redacted, audience))
        self.history.append(text)

    def marks(self) -> tuple:
        """Where the record ends now, for `rewind`."""
        return len(self.history), len(self.hidden), len(self.events)

    def rewind(self, marks: tuple) -> None:
        """Forget what was written after `marks` (a call that failed)."""
        self.history.truncate(marks[0])
        self.hidden.truncate(marks[1])
        self.events.truncate(marks[2])

    def history_for(self, player: Optional[int]) -> list[str]:
        hist = list(self.history.list())
        for i, text, audience in self.hidden.list():
            if player not in audience:
                hist[i] = text
        return hist


def events_for(rec: KRecord, prog: Any, n: int, player: Optional[int], since: Optional[int],
               winners: Callable[[], list], scores: Callable[[], list]) -> list[dict]:
    """`State.events_for` of a record (the engine's own rendering of each event)."""
    if player is not None:
        check_seat(player, n)
    check_since(since)
    out = []
    for e in events_since(rec.events.list(), since):
        shown = render_event(prog, e, player, winners, scores)
        if shown is not None:
            out.append(shown)
    return out


class Recorder:
    """Turns a kernel's traces into the engine's record (see the module's docstring); one per kernel."""

    def __init__(self, kernel: Any):
        kp = kernel.program
        prog = kernel.game.program
        model = kp.model
        lay = kp.layout
        self.prog = prog
        self.boundary = kernel.boundary
        self.forms = forms_of(model)
        self.labels = self.forms.card_labels
        self.symbols = kp.symbols
        seen_slots = [key[1] for key, _ in kp.looks if key[0] == "seen by"]
        self.can = True
        game = {}
        for v in model.game_vars:
            for i in range(v.family[1] if v.family else 1):
                game[v.slot + i] = v
        player = {v.slot: v for v in model.player_vars}

        def sight(v: Any, slot: int, is_game: bool) -> tuple:
            """(visibility, which `seen by` look) of a value."""
            if v.visibility == "seen by":
                if not is_game or slot not in seen_slots:
                    self.can = False  # nobody can say who sees it on the kernel: the engine's
                    return ("internal", -1)
                return ("seen by", seen_slots.index(slot))
            return (v.visibility, -1)

        # each zone: (engine key, visibility, owner, look)
        self.zones: list[tuple] = []
        for is_game, slot, seat in lay.zone_names:
            v = game[slot] if is_game else player[slot]
            vis, look = sight(v, slot, is_game)
            self.zones.append((slot if is_game else prog.G + slot * _SEATS + seat, vis, -1 if is_game else seat, look))
        # each noted value: (game?, slot, S index of seat 0's, stride, visibility, look, read)
        self.values: list[tuple] = []
        for is_game, slot, kind, at, stride, is_list in kp.noted:
            v = game[slot] if is_game else player[slot]
            vis, look = sight(v, slot, is_game)
            elem = v.type.element.kind if is_list and v.type.element is not None else "number"
            self.values.append((is_game, slot, at, stride, vis, look, self._reader(elem if is_list else kind, is_list)))

    def _reader(self, kind: str, is_list: bool) -> Callable[[tuple], Any]:
        """How the engine holds a value the kernel holds as these numbers."""
        symbols = self.symbols

        def one(x: Any) -> Any:
            if x is None:
                return None
            if kind == "bool":
                return bool(x)
            if kind in ("symbol", "text"):
                return symbols[x]
            return x
        if kind not in ("number", "bool", "player", "symbol", "text", "card", "die"):
            self.can = False  # a kind the kernel does not hold as the engine does
        if is_list:
            return lambda items: tuple(one(x) for x in items)
        return lambda items: one(items[0])

    # ---- the audiences, as the engine works them out ------------------------------------------------

    def _audience(self, zid: int, seen: tuple) -> Optional[tuple]:
        """`Program.audience` of a zone: None for everybody, else who sees it (the box: nobody)."""
        if zid < 0:
            return ()
        _, vis, owner, look = self.zones[zid]
        return self._who(vis, owner, look, seen)

    @staticmethod
    def _who(vis: str, owner: int, look: int, seen: tuple) -> Optional[tuple]:
        if vis == "public":
            return None
        if vis == "secret":
            return (owner,)
        if vis == "seen by":
            p = seen[look]
            return () if p is None else (p,)
        return ()

    def _sees(self, zid: int, p: int, seen: tuple) -> bool:
        _, vis, owner, look = self.zones[zid]
        if vis == "public":
            return True
        if vis == "secret":
            return p == owner
        if vis == "seen by":
            return p == seen[look]
        return False

    # ---- writing the record -------------------------------------------------------------------------

    def move(self, rec: KRecord, kmove: tuple, together: bool) -> None:
        """A player's move, into the history as the engine writes it: its text by the action's
        declared form; a choice made together is `?` to the others until everybody has chosen
        (`unveil`), a `secret` parameter `?` to the others."""
        bd = self.boundary
        move = bd.move(kmove, together)
        ap = bd.programs[move.action]
        text = ap.render(move.values) if ap.params else ap.name
        if together:
            rec.write(f"p{move.actor}: {text}", f"p{move.actor}: ?", (move.actor,))
            return
        hidden = ap.render_redacted(move.values) if ap.params else None
        rec.write(text, hidden, None if hidden is None else (move.actor,))

    def unveil(self, rec: KRecord, chosen: list) -> None:
        """Everybody has chosen: `chosen` the kernel moves, in the order they were written, the last
        len(chosen) entries of the history (runtime/record.py `_unveil`)."""
        bd = self.boundary
        first = len(rec.history) - len(chosen)
        at = {}
        for k, kmove in enumerate(chosen):
            move = bd.move(kmove, True)
            at[first + k] = (move.actor, bd.programs[move.action], move.values)
        # the choices are the history's last entries, so only the last entries of what is hidden
        # change: taken off and written again (the whole of it rebuilt at every simultaneous
        # decision made a long game quadratic)
        hidden = rec.hidden
        entries = hidden.list()
        m = 0
        while m < len(entries) and entries[-1 - m][0] >= first:
            m += 1
        tail = entries[len(entries) - m:]
        hidden.truncate(len(entries) - m)
        for i, text, audience in tail:
            if i in at:
                p, ap, values = at[i]
                shown = ap.render_redacted(values)
                if shown is None:
                    continue
                text = f"p{p}: {shown}"
            hidden.append((i, text, audience))

    def traced(self, be: Any, rec: KRecord, n: int, run: Callable, *args: Any) -> list:
        """`run(*args)` on backend `be` with the trace kept, its records into `rec` (`n`: the
        game's players); the trace, for a caller that reads it too.  A call that fails leaves no
        trace (the backend rewinds it)."""
        be.trace_on()
        try:
            run(*args)
        finally:
            trace = be.trace_off()
        self.absorb(rec, trace, n)
        return trace

    def absorb(self, rec: KRecord, trace: list, n: int) -> None:
        """The records of a trace, into the history and the events (`n`: the game's players)."""
        history, events = rec.history, rec.events
        drawn = None
        for r in trace:
            kind = r[0]
            if kind == R_MOVE:
                _, dest, facing, seen, cards, srcs, ups = r
                face = _FACING[facing]
                if drawn is not None:  # a card drawn at random: a chance outcome, seen where it lands
                    up = True if facing == 1 else False if facing == 2 else bool(ups[0])
                    if up:
                        audience = None
                    else:
                        who = tuple(p for p in range(n) if self._sees(dest, p, seen))
                        audience = None if len(who) == n else who
                    rec.write(draw_text(self.labels[drawn], bool(ups[0])), "draw ?", audience)
                    drawn = None
                auds: dict = {}
                keys = []
                for src in srcs:
                    key = self.zones[src][0] if src >= 0 else -1
                    if key not in auds:
                        auds[key] = self._audience(src, seen)
                    keys.append(key)
                events.append(("move", len(history), tuple(cards), tuple(keys), self.zones[dest][0], auds,
                               self._audience(dest, seen), tuple(bool(u) or facing == 1 for u in ups), face))
            elif kind == R_ROLL:
                history.append(self.forms.roll_text(r[1], r[2]))
            elif kind == R_DRAW:
                drawn = r[1]
            elif kind == R_SET:
                _, v, at, old, new, seen = r
                is_game, slot, base, stride, vis, look, read = self.values[v]
                p = -1 if is_game else (at - base) // stride
                aud = self._who(vis, p, look, seen)
                events.append(("set", len(history), p, slot, read(old), read(new), aud))
            elif kind == R_REVEAL:
                events.append(("reveal", len(history), tuple(r[1]),
                               tuple(self.zones[z][0] if z >= 0 else -1 for z in r[2])))
            elif kind == R_RESTART:
                events.append(("restart", len(history)))
            elif kind == R_OVER:
                events.append(("over", len(history)))

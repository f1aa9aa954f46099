"""Stage 5, running: the record of a game.

A state keeps two records, each a `Log` (append-only, shared by copies): the history, the text of
every action since the start, chance included (the full record, for replays), with the legal
`Action` each player's move took kept beside its text (its typed `Move`, which the game kernel
replays without reading the text: `decisions.recorded_moves`), and the events, what happened as raw records (moves, reveals, values set, restarts, the
end).  Who may read what is
kept beside them: `redact` says, for each history entry some players may not read, what they read
instead; each event says who saw it.  `history_for(player)` and `events_for(player)` are what one
player may know.  A playout keeps neither record.
"""

from __future__ import annotations

import bisect
import builtins
from typing import Any, Optional

from ..errors import OptionError
from .machine import Machine
from .text import _listify, check_seat, check_since


class Log:
    """An append-only record that copies share: appending and copying take constant time, so a
    state's `clone()` does not grow with the length of its history.  Entries are kept as a chain
    of triples (the chain before, the entry, what is kept beside it: for a move of the history,
    the `Action` taken; else None); the list views are made once per copy when first asked for,
    then kept up to date (the one of what is beside only when asked for: an events log never
    is)."""

    __slots__ = ("_chain", "_len", "_view", "_beside")

    def __init__(self, chain: Optional[tuple] = None, length: int = 0):
        self._chain = chain
        self._len = length
        self._view: Optional[list] = None if length else []
        self._beside: Optional[list] = None

    def append(self, x, beside: Any = None) -> None:
        """Add an entry (and what is kept beside it: for a move of the history, its Action)."""
        self._chain = (self._chain, x, beside)
        self._len += 1
        view = self._view
        if view is not None:
            view.append(x)
        kept = self._beside
        if kept is not None:
            kept.append(beside)

    def __len__(self) -> int:
        return self._len

    def copy(self) -> "Log":
        return Log(self._chain, self._len)

    def list(self) -> list:
        if self._view is None:
            self._view = self._column(1)
        return self._view

    def beside(self) -> builtins.list:
        """What each entry keeps beside it, in order: for the history, the `Action` each
        player's move took; None for chance, and for an entry kept as text only (a
        determinization's record holds what one player saw, and nothing beside)."""
        if self._beside is None:
            self._beside = self._column(2)
        return self._beside

    def _column(self, k: int) -> builtins.list:
        """Part `k` of every link of the chain (1: the entries, 2: what each keeps beside), in order."""
        out, chain = [], self._chain
        while chain is not None:
            out.append(chain[k])
            chain = chain[0]
        out.reverse()
        return out

    def truncate(self, n: int) -> None:
        """Forget the entries past the first n (a failed call undone)."""
        chain: Any = self._chain
        for _ in range(self._len - n):
            chain = chain[0]
        self._chain, self._len = chain, n
        if self._view is not None:
            del self._view[n:]
        if self._beside is not None:
            del self._beside[n:]


def events_since(events: list, since: Optional[int]) -> list:
    """The events that happened after the first `since` actions (all of them for None).  Events
    are kept in the order they happened, so their counts of actions never go down: a client that
    asks at every step for what its last action caused finds it without reading the whole game."""
    if since is None or since < 0:
        return events
    return events[bisect.bisect_right(events, since, key=_after):]


def _after(e: tuple) -> int:
    return e[1]


class Record(Machine):
    """The layer of `State` that keeps the record: history, events, and who may read each entry."""

    __slots__ = ()

    # ---- writing the record ----------------------------------------------------------------------

    def _record(self, text: str, redacted: Optional[str] = None, audience: Optional[tuple] = None,
                action: Any = None) -> None:
        """An entry of the history; with `audience`, the others read `redacted` instead.  For a
        player's move, `action` is the legal Action it took, kept beside its text."""
        history = self._history
        if history is None:  # a playout keeps no history
            return
        if audience is not None and redacted is not None:
            self.redact = self.redact + ((len(history), redacted, audience),)
        history.append(text, action)

    def _note_move(self, cards: tuple, dest: int, facing) -> None:
        """Record a move as one event, with who saw each card: those who see the zone it leaves or
        the zone it enters, and everybody if it is face up before or after (worked out now: who
        sees a zone may change later).  Cards gathered from several zones are one event that does
        not say which card came from where: a player who sees only where they went learns no more
        than the view of it shows."""
        prog, where, up = self.prog, self.where, self.up
        auds: dict = {}
        moved, srcs, face_up = [], [], []
        for c in cards:
            src = where[c]  # a card already where it goes is moved too: to the top of the zone
            if src not in auds:
                auds[src] = prog.audience(self, src)
            moved.append(c)
            srcs.append(src)
            face_up.append(up[c] or facing == "up")
        self.events.append(("move", len(self._history), tuple(moved), tuple(srcs), dest, auds,
                            prog.audience(self, dest), tuple(face_up), facing))

    def _unveil(self, choices: tuple) -> None:
        """Everybody has chosen: the choices stop being secret in everybody's history, but for
        parameters the action itself declares `secret`, which stay `?` to the others."""
        at = {i: (p, name, values) for p, name, values, i in choices}
        kept = []
        for i, text, audience in self.redact:
            if i in at:
                p, name, values = at[i]
                hidden = self.prog.actions[name].render_redacted(values)
                if hidden is None:
                    continue
                text = f"p{p}: {hidden}"
            kept.append((i, text, audience))
        self.redact = tuple(kept)

    # ---- reading it ------------------------------------------------------------------------------

    @property
    def history(self) -> list[str]:
        """The canonical text of every action since the start, chance included: the full record,
        for replays (never to be shown to a player: `history_for` is what a player may know).  A
        new list at each call: changing it changes nothing of the state's, and it does not grow
        as the game goes on."""
        if self._history is None:
            raise OptionError("this state was played out to its end by playout(): it keeps no history")
        return list(self._history.list())

    def history_for(self, player: Optional[int]) -> list[str]:
        """The history as `player` may know it (None: a spectator).  `state.history` itself is the
        full record, for replays: never show it to a player."""
        if player is not None:
            check_seat(player, self.n)
        hist = self.history
        for i, text, audience in self.redact:
            if player not in audience:
                hist[i] = text
        return hist

    def events_for(self, player: Optional[int], since: Optional[int] = None) -> list[dict]:
        """What `player` (None: a spectator) saw happen, in order.  Each event is a dict with
        `"event"`, its kind, and `"after"`, how many actions of the history had been taken when it
        happened (so 0 for the setting up, and k + 1 for what the k-th action, from 0, caused).
        `since=k` gives only what happened after the first k actions were taken and done: a
        client that remembers `len(state.history)` before an `apply` gets what that apply caused.
        The kinds:

        - `move`: cards went `"from"` one zone `"to"` another; `"cards"` holds each card's label,
          or None where this player saw it neither where it was nor where it went nor face up;
          `"face"` is "up" or "down" when the rule turned them;
        - `reveal`: `"cards"` were turned face up where they lie (`"in"`: their zones);
        - `set`: a value this player may see changed (`"value"`; `"player"` for a player's own;
          `"from"`, `"to"`); the rules' `internal` values never appear;
        - `restart`: the game started again (`play again`);
        - `over`: the game ended (`"winners"`, `"scores"`).

        With `history_for(player)` it tells the player everything they saw, in order: a card
        revealed and turned face down again within one action is here, though no view shows it."""
        if player is not None:
            check_seat(player, self.n)
        check_since(since)
        out = []
        for e in events_since(self.events.list() if self.events is not None else [], since):
            shown = self._render_event(e, player)
            if shown is not None:
                out.append(shown)
        return out

    def _render_event(self, e: tuple, v: Optional[int]) -> Optional[dict]:
        prog = self.prog
        kind, after = e[0], e[1]
        if kind == "move":
            _, _, cards, srcs, dest, auds, dest_aud, face_up, facing = e

            def sees(aud) -> bool:
                return aud is None or (v is not None and v in aud)

            labels = prog.card_labels
            everywhere = sees(dest_aud)
            shown = [labels[c] if everywhere or u or sees(auds[src]) else None for c, src, u in zip(cards, srcs, face_up)]
            names = sorted({prog.zone_name(z) for z in srcs})  # sorted: their order must tell nothing
            out = {"event": "move", "after": after, "cards": shown, "from": names[0] if len(names) == 1 else names,
                   "to": prog.zone_name(dest)}
            if facing is not None:
                out["face"] = facing
            return out
        if kind == "reveal":
            _, _, cards, zones = e
            return {"event": "reveal", "after": after, "cards": [prog.card_labels[c] for c in cards],
                    "in": [prog.zone_name(z) for z in zones]}
        if kind == "set":
            _, _, p, slot, old, new, aud = e
            if aud is not None and (v is None or v not in aud):
                return None
            out = {"event": "set", "after": after}
            if p < 0:
                out["value"] = prog.game_var_names.get(slot, "?")
            else:
                out["value"] = prog.player_var_names.get(slot, "?")
                out["player"] = p
            out["from"], out["to"] = _listify(old), _listify(new)
            return out
        if kind == "restart":
            return {"event": "restart", "after": after}
        if kind == "over":
            return {"event": "over", "after": after, "winners": self.winners(), "scores": self.scores()}
        return None  # pragma: no cover


class _Reading:
    """What `Record._render_event` reads of a state: its program, winners and scores."""

    __slots__ = ("prog", "winners", "scores")

    def __init__(self, prog: Any, winners: Any, scores: Any):
        self.prog, self.winners, self.scores = prog, winners, scores


def render_event(prog: Any, e: tuple, player: Optional[int], winners: Any, scores: Any) -> Optional[dict]:
    """One entry of a record's events as `player` (None: a spectator) may know it, None if not at
    all (`events_for`'s, for the game kernel's record: kernel/record.py); `winners()` and
    `scores()` are the game's."""
    return Record._render_event(_Reading(prog, winners, scores), e, player)  # type: ignore[arg-type]

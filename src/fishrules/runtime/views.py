"""Stage 5, running: what a player may see.

`view(player)` is the position as that player may know it: values and zones by their declared
visibility (a card the viewer may not see is None), the dice, the scores, the public defines, the
legal actions when they are to act, and the history as they may read it.
"""

from __future__ import annotations

from typing import Any, Optional

from ..compiler import SIMULTANEOUS
from ..errors import FishrulesError
from .decisions import Decisions
from .text import _listify, check_seat


class Views(Decisions):
    """The layer of `State` that shows a position to one player."""

    __slots__ = ()

    def view(self, player: Optional[int] = None) -> dict:
        """What `player` may know, as JSON-able data (`None`: a spectator).

        Values declared `secret` are shown to their owner only, `hidden` ones to nobody and `seen by
        P` ones to P.  A zone always shows how many cards it holds: each card is its label, or None
        where the viewer may not see it (a face-up card everybody sees).  The history is the one
        this viewer may know: hidden outcomes and secret choices of others read `?`.  Scores are
        public."""
        if player is not None:
            check_seat(player, self.n)
        try:
            return self._view(player)
        except FishrulesError:
            raise
        except Exception as exc:
            raise self._fault(exc, None, f"while working out what {'the spectator' if player is None else f'p{player}'} sees") from None

    def _view(self, player: Optional[int]) -> dict:
        prog = self.prog
        model = prog.model
        labels, up = prog.card_labels, self.up

        def shown(v, value, owner):
            if v.visibility == "internal":  # the rules' bookkeeping: in no view at all
                return False, None
            ok = (prog.game_vis[v.slot] if v.scope == "game" else prog.player_vis[v.slot])(self, player, owner)
            if v.type.kind == "zone":
                return True, [labels[c] if ok or up[c] else None for c in value]
            return ok, _listify(value)

        values = {}
        for v in model.game_vars:
            if v.family:
                if v.visibility == "internal":
                    continue
                lo, count = v.family
                values[v.name] = {str(lo + i): shown(v, self.g[v.slot + i], -1)[1] for i in range(count)}
                continue
            ok, val = shown(v, self.g[v.slot], -1)
            if ok:
                values[v.name] = val
        options = {o.name: self.g[o.slot] for o in model.options}
        players = []
        sc = self.scores()
        for i in range(self.n):
            row = {"player": i}
            for v in model.player_vars:
                ok, val = shown(v, self.p[i][v.slot], i)
                if ok:
                    row[v.name] = val
            row["score"] = sc[i]
            players.append(row)
        out: dict[str, Any] = {
            "title": model.title,
            "viewer": player,
            "players": self.n,
            "current": self.cur,
            "over": self.is_over,
            "phase": self.phase,
            "options": options,
            "values": values,
            "seats": players,
        }
        if self.dice_ids:
            out["dice"] = [prog.face_labels[f] if f != prog.unrolled else None for f in self.dice]
        derived = {}
        for name, d in model.defines.items():
            if not d.per_player and not d.params and d.type.kind in ("number", "bool") and name in prog.public_defines:
                try:
                    derived[name] = prog.defines[name](self)
                except Exception:  # a define that cannot be worked out yet (nothing rolled)
                    pass
        out["derived"] = derived
        if self.is_over:
            out["winners"] = self.winners()
        waiting = self.waiting
        if self.cur == SIMULTANEOUS:
            out["waiting"] = waiting
        if player is not None and player in waiting:
            out["legal_actions"] = [a.text for a in self.legal_actions(player)]
        out["history"] = self.history_for(player)
        return out

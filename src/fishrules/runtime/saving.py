"""Stage 5, running: saving a state and reading it back.

`to_dict`/`to_json` write the whole state as JSON-able data (it holds hidden information: for
saving, not for showing).  Reading one back (`_from_dict`) re-derives the state by replaying its
history (`_replayed`), and every other field must be what that replay gives, so a state that loads
is one the rules could reach.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional, Self

from ..compiler import CHANCE
from ..errors import IllegalAction, OptionError, RuleError, StateError
from ..limits import MAX_HISTORY, MAX_REPLAY_WORK
from .decisions import Decisions
from .text import _listify, short


#: The fields of a saved state; the position ones must be what replaying its history gives.
_STATE_FIELDS = ("format", "game", "players", "g", "p", "dice", "stack", "history", "redact", "up", "mixed",
                 "current", "seed", "draws", "manual")
_POSITION_FIELDS = ("g", "p", "dice", "stack", "redact", "up", "mixed", "current")


def _json(x) -> Optional[str]:
    """A value as canonical JSON text, for comparing what a saved state says; None if it is not
    JSON-able (too deep, say)."""
    try:
        return json.dumps(x, sort_keys=True, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return None


class Saving(Decisions):
    """The layer of `State` that saves it as JSON and reads it back."""

    __slots__ = ()

    def to_dict(self) -> dict:
        """The whole state as JSON-able data (`Game.state_from_json` reads its JSON back).  It holds
        hidden information: it is for saving a game, not for showing to a player."""
        return {
            "format": "fishrules-state/1",
            "game": self.prog.identity,
            "players": self.n,
            "g": _listify(tuple(self.g)),
            "p": [_listify(tuple(r)) for r in self.p],
            "dice": list(self.dice),
            "stack": [[f[0], f[1], _listify(tuple(f[2]))] for f in self.stack],
            "history": self.history,
            "redact": [[i, t, list(a)] for i, t, a in self.redact],
            "up": [i for i, u in enumerate(self.up) if u],
            "mixed": sorted(self.mixed),
            "current": self.cur,
            "seed": self.seed,
            "draws": self.draws,
            "manual": self.manual,
        }

    def to_json(self) -> str:
        """`to_dict` as compact JSON text."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def _replayed(cls, game: Any, history: Any, players: int, options: Optional[Mapping[str, Any]],
                  seed: Optional[int] = None) -> Self:
        """The state reached by `history` (action texts, chance included) from the start; with
        `seed`, it continues as a game seeded so would have.  Anything wrong with the history is a
        `StateError` naming the entry."""
        if not isinstance(history, (list, tuple)):
            raise StateError(f"a history is a list of action texts, not {type(history).__name__}")
        if len(history) > MAX_HISTORY:
            raise StateError(f"the history holds {len(history):,} actions; at most {MAX_HISTORY:,} are read")
        try:
            s = game.start(players, seed=seed if seed is not None else 0, options=options, chance="manual")
        except OptionError as exc:
            raise StateError(str(exc)) from None
        spent = 0
        for i, text in enumerate(history, 1):
            if not isinstance(text, str):
                raise StateError(f"history entry {i} is not an action text: {short(text)}")
            if s.cur is None:
                raise StateError(f"history entry {i} ({short(text)}) comes after the end of the game")
            try:
                if seed is not None and s.cur == CHANCE:
                    s._consume_chance_draws()
                s.apply(text)
            except IllegalAction as exc:
                raise StateError(f"history entry {i} ({short(text)}) is not allowed: {exc.reason}") from None
            except RuleError as exc:
                raise StateError(f"history entry {i} ({short(text)}) makes the rules fail:\n{exc}") from None
            spent += s._work
            if spent > MAX_REPLAY_WORK:
                raise StateError(f"replaying the history takes more than {MAX_REPLAY_WORK:,} steps of work "
                                 f"(at entry {i}): too much to read back")
        if seed is not None:
            s.manual = False
            if s.cur == CHANCE:
                s._run()
        return s

    @classmethod
    def _from_dict(cls, game, d) -> Self:
        """A saved state, re-derived by replaying its history under these rules: every other field
        must be what that replay gives, so a state that loads is one the rules could reach."""
        if not isinstance(d, dict):
            raise StateError("a saved state is a JSON object")
        if d.get("format") != "fishrules-state/1":
            raise StateError("this is not a fishrules state (format fishrules-state/1)")
        if d.get("game") != game.program.identity:
            raise StateError(f"this state belongs to another game ({short(d.get('game'))}, not {game.program.identity!r})")
        missing = [k for k in _STATE_FIELDS if k not in d]
        if missing:
            raise StateError("the saved state has no " + ", ".join(repr(k) for k in missing))
        extra = [k for k in d if k not in _STATE_FIELDS]
        if extra:
            raise StateError("the saved state has unknown fields: " + ", ".join(short(k) for k in extra[:5]))
        n = d["players"]
        if type(n) is not int or not (game.min_players <= n <= game.max_players):
            raise StateError(f"field 'players': {game.title} is for {game.min_players} to {game.max_players} players, not {short(n)}")
        for name, ok in (("seed", lambda v: type(v) is int and -(1 << 64) < v < (1 << 64)),
                         ("draws", lambda v: type(v) is int and 0 <= v < (1 << 63)),
                         ("manual", lambda v: type(v) is bool)):
            if not ok(d[name]):
                raise StateError(f"field {name!r} is not a possible value: {short(d[name])}")
        g = d["g"]
        prog = game.program
        if type(g) is not list or len(g) != prog.model.n_game_slots:
            raise StateError("field 'g' does not fit these rules")
        options = {o.name: g[o.slot] for o in prog.model.options}
        try:
            game._options(options)
        except OptionError as exc:
            raise StateError(f"field 'g': {exc}") from None
        if type(d["p"]) is not list or len(d["p"]) != n:
            raise StateError(f"field 'players' ({n}) does not match field 'p' (one row per player)")
        s = cls._replayed(game, d["history"], n, options)
        mine = s.to_dict()
        for name in _POSITION_FIELDS:
            # compared as JSON: 1 and True, or 1 and 1.0, are not the same value here
            if _json(mine[name]) != _json(d[name]):
                raise StateError(f"field {name!r} is not what the state's history leads to")
        s.seed, s.draws, s.manual = d["seed"], d["draws"], d["manual"]
        return s

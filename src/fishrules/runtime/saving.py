"""Stage 5, running: saving a state and reading it back.

`to_dict`/`to_json` write the whole state as JSON-able data, format `fishrules-state/2` (it holds
hidden information: for saving, not for showing): the game, the players and options, the record
(history and redactions), who is to act, the random generator (seed, draws, manual), and the
position as the game kernel holds it (`position`: fishrules.kernel.apistate `position_of`, the
same on either backend; null where it cannot be worked out).  Reading one back (`_from_dict`)
re-derives the state by replaying its history (`_replayed`, or on the kernel a seeded game that
plays the history's moves and reproduces its chance, `_follow`), and every other field must be
what that replay gives, so a state that loads is one the rules could reach.  `fishrules-state/1`
(the engine's own fields: values, dice, the frames' program counters) is still read, by replay and
comparison of its fields with the replay's: on the kernel, projected from its position (the
values by the engine's slots, the frames' blocks; a frame's program counter and locals, the
engine's own, only checked to be a frame's), else the engine's own.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional, Self

from ..compiler import CHANCE
from ..errors import FishrulesError, IllegalAction, OptionError, RuleError, StateError
from ..limits import MAX_HISTORY, MAX_REPLAY_WORK
from .decisions import Decisions
from .text import _listify, short

#: What `to_dict` writes.
FORMAT = "fishrules-state/2"
#: The fields of a saved state; the position ones must be what replaying its history gives.
_STATE_FIELDS = ("format", "game", "players", "options", "history", "redact", "current", "seed", "draws", "manual",
                 "position")
_POSITION_FIELDS = ("history", "redact", "current")
#: The fields of the first format (`fishrules-state/1`), still read.
_STATE_FIELDS_1 = ("format", "game", "players", "g", "p", "dice", "stack", "history", "redact", "up", "mixed",
                   "current", "seed", "draws", "manual")
_POSITION_FIELDS_1 = ("g", "p", "dice", "stack", "redact", "up", "mixed", "current")


def _json(x) -> Optional[str]:
    """A value as canonical JSON text, for comparing what a saved state says; None if it is not
    JSON-able (too deep, say)."""
    try:
        return json.dumps(x, sort_keys=True, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return None


def _fields_1(s: Any) -> dict:
    """The position fields of `fishrules-state/1`, of the engine's state `s` (a state on the
    kernel becomes the engine's to answer: these are the engine's own fields)."""
    return {
        "g": _listify(tuple(s.g)),
        "p": [_listify(tuple(r)) for r in s.p],
        "dice": list(s.dice),
        "stack": [[f[0], f[1], _listify(tuple(f[2]))] for f in s.stack],
        "redact": [[i, t, list(a)] for i, t, a in s.redact],
        "up": [i for i, u in enumerate(s.up) if u],
        "mixed": sorted(s.mixed),
        "current": s.cur,
    }


def _frames_of(saved: Any, blocks: list) -> bool:
    """Whether `saved` (the `stack` of a `fishrules-state/1` file) is a stack of the frames of
    `blocks` ([block, None, None] each, from the kernel's position): each [its block, a program
    counter (a number from 0), its locals (a list)]."""
    if type(saved) is not list or len(saved) != len(blocks):
        return False
    for frame, (block, _, _) in zip(saved, blocks):
        if type(frame) is not list or len(frame) != 3 or type(frame[0]) is not int or frame[0] != block:
            return False
        if type(frame[1]) is not int or frame[1] < 0 or type(frame[2]) is not list or _json(frame[2]) is None:
            return False
    return True


def _generator(d: dict) -> None:
    """Check the generator fields of a saved state (seed, draws, manual)."""
    for name, ok in (("seed", lambda v: type(v) is int and -(1 << 64) < v < (1 << 64)),
                     ("draws", lambda v: type(v) is int and 0 <= v < (1 << 63)),
                     ("manual", lambda v: type(v) is bool)):
        if not ok(d[name]):
            raise StateError(f"field {name!r} is not a possible value: {short(d[name])}")


def _fields(d: Any, game: Any, names: tuple) -> int:
    """Check what every saved state has (a JSON object of this game, its fields, the players);
    the number of players."""
    if not isinstance(d, dict):
        raise StateError("a saved state is a JSON object")
    if d.get("game") != game.program.identity:
        raise StateError(f"this state belongs to another game ({short(d.get('game'))}, not {game.program.identity!r})")
    missing = [k for k in names if k not in d]
    if missing:
        raise StateError("the saved state has no " + ", ".join(repr(k) for k in missing))
    extra = [k for k in d if k not in names]
    if extra:
        raise StateError("the saved state has unknown fields: " + ", ".join(short(k) for k in extra[:5]))
    n = d["players"]
    if type(n) is not int or not (game.min_players <= n <= game.max_players):
        raise StateError(f"field 'players': {game.title} is for {game.min_players} to {game.max_players} players, not {short(n)}")
    _generator(d)
    return n


class Saving(Decisions):
    """The layer of `State` that saves it as JSON and reads it back."""

    __slots__ = ()

    def to_dict(self) -> dict:
        """The whole state as JSON-able data, format `fishrules-state/2` (`Game.state_from_json`
        reads its JSON back).  It holds hidden information: it is for saving a game, not for
        showing to a player.  A determinization cannot be saved (OptionError): no history reaches it."""
        if getattr(self, "_kernel_origin", None) is not None:
            from .determinize import NOT_SAVED

            raise OptionError(NOT_SAVED)
        return {
            "format": FORMAT,
            "game": self.prog.identity,
            "players": self.n,
            "options": self._options(),  # type: ignore[attr-defined]  # (State's)
            "history": self.history,
            "redact": [[i, t, list(a)] for i, t, a in self.redact],
            "current": self.cur,
            "seed": self.seed,
            "draws": self.draws,
            "manual": self.manual,
            # the kernel's position of this state, by replaying its record there (the runtime
            # does not import the kernel: the game does it); None where it cannot be
            "position": self.game._position_of(self),
        }

    def to_json(self) -> str:
        """`to_dict` as compact JSON text."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def _spent(self) -> int:
        """The work of the last call (`_replayed` bounds a replay's work by it)."""
        return self._work

    def _reseed(self, seed: int, draws: int, manual: bool) -> None:
        """Chance from now on: from the generator seeded `seed` after `draws` draws, or the
        caller's (`manual`)."""
        self.seed, self.draws, self.manual = seed, draws, manual

    def _saved_fields_1(self) -> Optional[dict]:
        """The position fields of `fishrules-state/1` as a state of the kernel projects them from
        its position (kernel/apistate.py); None here: the engine's are its own (`_fields_1`)."""
        return None

    def _follow(self, history: list) -> Optional[Any]:
        """This new seeded game with the moves of `history` played, if its own chance comes out as
        the history's (a game saved as it was played): the state, else None.  On the kernel only
        (kernel/apistate.py): the engine's state is read back by replaying the history by hand."""
        return None

    @classmethod
    def _replayed(cls, game: Any, history: Any, players: int, options: Optional[Mapping[str, Any]],
                  seed: Optional[int] = None, origin: int = 0) -> Self:
        """The state reached by `history` (action texts, chance included) from the start; with
        `seed`, it continues as a game seeded so would have (else its seed is `origin`, chance
        the caller's).  Anything wrong with the history is a `StateError` naming the entry.  On
        the kernel, it is a state of the kernel's as long as the kernel can play it."""
        if not isinstance(history, (list, tuple)):
            raise StateError(f"a history is a list of action texts, not {type(history).__name__}")
        if len(history) > MAX_HISTORY:
            raise StateError(f"the history holds {len(history):,} actions; at most {MAX_HISTORY:,} are read")
        if seed is not None:
            # A game's own history with its own seed (the common case): the seeded game plays it
            # on the kernel and stays there; any other history is replayed by hand, below.
            try:
                followed = game.start(players, seed=seed, options=options)._follow(list(history))
            except FishrulesError:
                followed = None
            if followed is not None:
                return followed
        try:
            s = game.start(players, seed=seed if seed is not None else origin, options=options, chance="manual")
        except OptionError as exc:
            raise StateError(str(exc)) from None
        spent = 0
        for i, text in enumerate(history, 1):
            if not isinstance(text, str):
                raise StateError(f"history entry {i} is not an action text: {short(text)}")
            if s.is_over:
                raise StateError(f"history entry {i} ({short(text)}) comes after the end of the game")
            try:
                if seed is not None and s.current == CHANCE:
                    s._consume_chance_draws()
                s.apply(text)
            except IllegalAction as exc:
                raise StateError(f"history entry {i} ({short(text)}) is not allowed: {exc.reason}") from None
            except RuleError as exc:
                raise StateError(f"history entry {i} ({short(text)}) makes the rules fail:\n{exc}") from None
            spent += s._spent()
            if spent > MAX_REPLAY_WORK:
                raise StateError(f"replaying the history takes more than {MAX_REPLAY_WORK:,} steps of work "
                                 f"(at entry {i}): too much to read back")
        if seed is not None:
            s.manual = False
            if s.current == CHANCE:
                s._run()
        return s

    @classmethod
    def _from_dict(cls, game, d) -> Self:
        """A saved state, re-derived by replaying its history under these rules: every other field
        must be what that replay gives, so a state that loads is one the rules could reach."""
        fmt = d.get("format") if isinstance(d, dict) else None
        if fmt == "fishrules-state/1":
            return cls._from_dict_1(game, d)
        if fmt != FORMAT:
            raise StateError(f"this is not a fishrules state (format {FORMAT}, or fishrules-state/1)")
        n = _fields(d, game, _STATE_FIELDS)
        options = d["options"]
        if type(options) is not dict:
            raise StateError(f"field 'options' is the options by name, not {short(options)}")
        try:
            full = game._options(options)
        except OptionError as exc:
            raise StateError(f"field 'options': {exc}") from None
        if _json(full) != _json(options):
            raise StateError("field 'options' does not give every option of these rules")
        history, seed, draws, manual = d["history"], d["seed"], d["draws"], d["manual"]
        s = None
        if not manual and type(history) is list and len(history) <= MAX_HISTORY:
            # A game saved as it was played: its own seed plays the history's chance (on the kernel,
            # a state of the kernel's; a shuffled draw is no wait of the kernel, so this is the way
            # such a game is read back onto it)
            try:
                first = game.start(n, seed=seed, options=full)
            except FishrulesError:
                first = None
            s = first._follow(history) if first is not None else None
        if s is None:
            # chance given by hand, or a seed that does not play the history's chance (a replay, a
            # determinization, a generator set since): the history replayed by hand (on the kernel
            # where the game decides there)
            s = cls._replayed(game, history, n, full, origin=seed)
        mine = s.to_dict()
        for name in _POSITION_FIELDS:
            # compared as JSON: 1 and True, or 1 and 1.0, are not the same value here
            if _json(mine[name]) != _json(d[name]):
                raise StateError(f"field {name!r} is not what the state's history leads to")
        position = d["position"]
        if position is not None and _json(position) is None:
            raise StateError("field 'position' is not a position")
        # null where the writer could not work the position out (a choice made in part, say):
        # checked where both have one
        if position is not None and mine["position"] is not None and _json(mine["position"]) != _json(position):
            said = position[0][0] if type(position) is list and position and type(position[0]) is list \
                and position[0] else None
            if type(said) is int and said != n:  # (a position starts with how many play)
                raise StateError(f"field 'players' ({n}) does not match field 'position' (a position of "
                                 f"{short(said)} players)")
            raise StateError("field 'position' is not what the state's history leads to")
        # (`manual` false while the game waits for chance is a state the API makes: a manual game
        # handed to the generator, `state.manual = False` or `determinize(…, chance="seeded")`)
        if (s.seed, s.draws, s.manual) != (seed, draws, manual):
            s._reseed(seed, draws, manual)
        return s

    @classmethod
    def _from_dict_1(cls, game, d) -> Self:
        """A saved state of the first format, `fishrules-state/1` (the engine's own fields), read as
        it always was: the engine's state its history reaches, whose fields must be the saved ones."""
        n = _fields(d, game, _STATE_FIELDS_1)
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
        # on the kernel, the fields projected from its position (the frames' program counters and
        # locals are the engine's own: a saved frame's must only be one); else the engine's own
        mine = s._saved_fields_1()
        projected = mine is not None
        if mine is None:
            mine = _fields_1(s)
        for name in _POSITION_FIELDS_1:
            # compared as JSON: 1 and True, or 1 and 1.0, are not the same value here
            if projected and name == "stack":
                if not _frames_of(d[name], mine[name]):
                    raise StateError(f"field {name!r} is not what the state's history leads to")
            elif _json(mine[name]) != _json(d[name]):
                raise StateError(f"field {name!r} is not what the state's history leads to")
        s.seed, s.draws, s.manual = d["seed"], d["draws"], d["manual"]
        return s

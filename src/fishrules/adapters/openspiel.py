"""A ruleset as an OpenSpiel game (`pip install 'fishrules[openspiel]'`).

    from fishrules.adapters import openspiel
    game = openspiel.make_game("rules.fish", players=3)      # a pyspiel.Game; or a .fish path
    openspiel.register()                                     # every bundled ruleset, then:
    game = pyspiel.load_game("fishrules_NAME", {"players": 3})

What OpenSpiel sees, derived from the ruleset:

- dynamics: sequential, or simultaneous when the rules have `each of … secretly chooses` (its
  other decisions are then turn-based nodes, as OpenSpiel allows); at a simultaneous node the
  players not choosing have no legal actions (OpenSpiel passes them 0, which is ignored);
- chance: explicit, with the rules' exact probabilities (as floats) when the rules roll dice or
  shuffle; a chance outcome's id is a face's or a card label's place (`ActionSpace.chance_id`);
- information: imperfect when anything is not public (a value, a zone, a secret choice);
- actions: `Game.action_space` ids, `num_distinct_actions` its size;
- utility: zero-sum on winning: each winner gets 1/len(winners), minus 1/players for everybody,
  at the end (`reward_model` terminal); `max_game_length` is the engine's bound on a history;
- observation tensor: `State.observation(player)`; with `private_info` NONE, the spectator's;
  observation string: the view as JSON without its history; information-state string: the
  player's seat, `history_for(player)` and `events_for(player)` — everything the player saw, in
  order (perfect recall: a card moved from a hidden pile into the hand is an event, not an
  entry of the history); information-state tensor: the
  observation tensor followed by how many actions the player has seen (not perfect recall);
- serialization: `state.serialize()` is OpenSpiel's `history=` and `move_number=` lines, nothing
  else; `game.deserialize_state(text)` (and `pyspiel.deserialize_game_and_state` of a fishrules
  game, which this module routes there) treats the text as untrusted: it never unpickles
  anything (the `__dict__=` line OpenSpiel's own serializer adds is ignored, never decoded), and
  rebuilds the state by replaying the history under the rules, entry by entry, refusing with
  `StateError` anything malformed, too big, not allowed, or a `move_number` the history does not
  make (see docs/security.md).  OpenSpiel's C++ code, and `pickle` of a state, still unpickle
  `__dict__`: never give them a text from outside;
- `resample_from_infostate`: `State.determinize` (a state the player cannot tell from the real
  one, hidden cards redistributed by what the player saw), so OpenSpiel's ISMCTS runs on any
  ruleset (with `allow_inconsistent_action_sets=True`: a sample knows only the searching
  player's record, so other players' information states in two samples may read alike while
  their legal actions differ).  A sample has no OpenSpiel history of the moves that led to it,
  so it cannot be serialized (`StateError`).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Mapping, Optional

try:
    import numpy as np
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("fishrules.adapters.openspiel needs OpenSpiel and numpy: "
                      "pip install 'fishrules[openspiel]'") from exc

import fishrules
from fishrules.api import Game
from fishrules.errors import IllegalAction, RuleError, StateError
from fishrules.limits import MAX_HISTORY, MAX_REPLAY_WORK, MAX_STATE_BYTES
from fishrules.runtime import CHANCE, SIMULTANEOUS, State
from fishrules.spaces import ActionSpace, ObservationSpec, chance_probabilities

from . import facts

__all__ = ["make_game", "register", "FishrulesGame", "FishrulesState"]

#: The OpenSpiel short names of the bundled rulesets: PREFIX + name, `-` written `_`.
PREFIX = "fishrules_"

_shared: dict[str, "_Shared"] = {}


class _Shared:
    """What every state of one OpenSpiel game shares: the fishrules game, players, options and
    spaces.  A copy of it is itself (OpenSpiel deep-copies states to clone them), and it pickles
    as its key (OpenSpiel pickles states to serialize them)."""

    def __init__(self, game: Game, players: int, options: dict):
        self.game, self.players, self.options = game, players, options
        self.space: ActionSpace = game.action_space(players, options)
        self.spec: ObservationSpec = game.observation_spec(players, options)
        self.key = f"{game.program.identity}|{players}|{json.dumps(options, sort_keys=True)}"
        _shared[self.key] = self

    def __deepcopy__(self, memo: dict) -> "_Shared":
        return self

    def __reduce__(self) -> tuple:
        return (_shared_of, (self.key,))


class _Box:
    """A fishrules state inside an OpenSpiel state: copied with `clone()`, pickled as its history.

    It keeps what OpenSpiel asks for again and again of one position, each kept with the state
    and the history's length it was worked out at (a state moves on in place; a refused joint
    move puts another state in the box): the events each player saw (an information state string
    is everything the player saw, asked for at every step: rendered afresh, that made a game's
    strings cost the square of its length), and the texts of a chance node's outcomes by id."""

    def __init__(self, shared: _Shared, state: State):
        self.shared, self.state = shared, state
        self.seen: dict = {}  # player (None: the public) -> (state, history length, the events they saw)
        self.chance_texts: Optional[tuple] = None  # (state, history length, {id: text})

    def __deepcopy__(self, memo: dict) -> "_Box":
        box = _Box(self.shared, self.state.clone())
        n = len(self.state.history)
        # the events seen so far are the copy's too (lists are never changed in place, only replaced)
        box.seen = {who: (box.state, k, events) for who, (s, k, events) in self.seen.items() if s is self.state and k <= n}
        return box

    def events_for(self, who: Optional[int]) -> list:
        """`state.events_for(who)`, rendering only the events since it was last asked for.  Once
        the state waits at a history of length k, no event with `after` <= k is added any more
        (what the next action causes is numbered after it)."""
        s = self.state
        n = len(s.history)
        got = self.seen.get(who)
        if got is not None and got[0] is s and got[1] <= n:
            events = got[2] + s.events_for(who, got[1]) if got[1] < n else got[2]
        else:
            events = s.events_for(who)
        self.seen[who] = (s, n, events)
        return events

    def chance_text(self, action: int) -> Optional[str]:
        """The text of chance outcome `action` at this chance node (None: not one of them)."""
        s = self.state
        n = len(s.history)
        got = self.chance_texts
        if got is None or got[0] is not s or got[1] != n:
            texts: dict = {}
            for i, a in zip(s.legal_action_ids(), s.legal_actions()):
                texts.setdefault(i, a.text)
            got = self.chance_texts = (s, n, texts)
        return got[2].get(action)

    def __reduce__(self) -> tuple:
        return (_unbox, (self.shared, list(self.state.history)))


def _shared_of(key: str) -> _Shared:
    return _shared[key]


def _unbox(shared: _Shared, history: list) -> _Box:
    return _Box(shared, shared.game.replay(history, players=shared.players, options=shared.options))


def _game_type(game: Game, short_name: str, params: dict) -> Any:
    f = facts(game)
    GT = pyspiel.GameType
    return GT(
        short_name=short_name,
        long_name=f"fishrules: {game.title}",
        dynamics=GT.Dynamics.SIMULTANEOUS if f["simultaneous"] else GT.Dynamics.SEQUENTIAL,
        chance_mode=GT.ChanceMode.EXPLICIT_STOCHASTIC if f["chance"] else GT.ChanceMode.DETERMINISTIC,
        information=GT.Information.IMPERFECT_INFORMATION if f["hidden"] else GT.Information.PERFECT_INFORMATION,
        utility=GT.Utility.ZERO_SUM,
        reward_model=GT.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=params,
    )


def _defaults(game: Game) -> dict:
    out: dict[str, Any] = {"players": game.min_players}
    for name, info in game.options.items():
        if name != "players":
            out[name] = info.default
    return out


class FishrulesGame(pyspiel.Game):
    """A fishrules ruleset as a `pyspiel.Game`; its parameters are `players` and the options."""

    def __init__(self, rules: Game, params: Optional[Mapping[str, Any]] = None, short_name: Optional[str] = None):
        defaults = _defaults(rules)
        given = dict(params or {})
        players = int(given.pop("players", defaults["players"]))
        options = {k: given[k] for k in rules.options if k in given}
        self._shared = _Shared(rules, players, rules._options(options))
        n = players
        short = short_name or PREFIX + rules.name.replace("-", "_").replace(":", "_")
        info = pyspiel.GameInfo(
            num_distinct_actions=self._shared.space.size,
            max_chance_outcomes=self._shared.space.chance_size,
            num_players=n,
            min_utility=-1.0 / n,
            max_utility=1.0 - 1.0 / n,
            utility_sum=0.0,
            max_game_length=MAX_HISTORY,
        )
        super().__init__(_game_type(rules, short, defaults), info, {"players": n, **self._shared.options})

    def new_initial_state(self) -> "FishrulesState":
        """A new game, chance left to OpenSpiel."""
        return FishrulesState(self)

    def deserialize_state(self, text: str) -> "FishrulesState":
        """The state `FishrulesState.serialize` wrote (or OpenSpiel's own serializer), rebuilt by
        replaying its history under the rules: nothing in `text` is unpickled or trusted.
        `StateError` says what is wrong with a text that is malformed, too big, or not a
        history these rules can play."""
        return _deserialize(self, text)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "Observer":
        """An observer (OpenSpiel's PyObserver interface): views as tensors and strings."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return Observer(self._shared, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class FishrulesState(pyspiel.State):
    """A fishrules `State` (manual chance) behind OpenSpiel's state interface."""

    def __init__(self, game: FishrulesGame):
        super().__init__(game)
        sh = game._shared
        self._box = _Box(sh, sh.game.start(players=sh.players, seed=0, options=sh.options, chance="manual"))

    @property
    def fishrules_state(self) -> State:
        """The fishrules state underneath (for `view`, `scores`, `history`…)."""
        return self._box.state

    def current_player(self) -> int:
        cur = self._box.state.current
        if cur is None:
            return int(pyspiel.PlayerId.TERMINAL)
        if cur == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if cur == SIMULTANEOUS:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return int(cur)

    def _legal_actions(self, player: int) -> list[int]:
        s = self._box.state
        cur = s.current
        if cur == SIMULTANEOUS:
            return sorted(s.legal_action_ids(player)) if player in s.waiting else []
        if cur != player:
            return []
        return sorted(s.legal_action_ids())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, float(p)) for i, p in chance_probabilities(self._box.shared.space, self._box.state)]

    def _apply_action(self, action: int) -> None:
        s = self._box.state
        s.apply(s.action_of_id(int(action)))

    def _apply_actions(self, actions: list[int]) -> None:
        """One action per player (OpenSpiel passes 0 for those who do not choose): every chooser's
        checked before any is applied, so that a refused joint move changes nothing (OpenSpiel
        then records nothing either)."""
        s = self._box.state
        if len(actions) != s.n:
            raise IllegalAction(f"{len(actions)} actions", f"a simultaneous move is one action for each of the {s.n} players")
        chosen = [s.action_of_id(int(actions[p]), p) for p in list(s.waiting)]
        before = s.clone()
        try:
            for a in chosen:
                s.apply(a)
        except (IllegalAction, RuleError):
            self._box.state = before
            raise

    def _action_to_string(self, player: int, action: int) -> str:
        s, space = self._box.state, self._box.shared.space
        if player == pyspiel.PlayerId.CHANCE:
            if s.current == CHANCE:
                text = self._box.chance_text(int(action))
                if text is not None:
                    return text
            return space.chance_text(int(action))
        try:
            return space.text(int(action))
        except fishrules.IllegalAction:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self._box.state.is_over

    def returns(self) -> list[float]:
        s = self._box.state
        n = s.n
        if not s.is_over:
            return [0.0] * n
        won = s.winners()
        return [(1.0 / len(won) if p in won else 0.0) - 1.0 / n for p in range(n)]

    def rewards(self) -> list[float]:
        return self.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "FishrulesState":
        """A state `player_id` cannot tell from this one, drawn with `probability_sampler` (a
        callable giving floats in [0, 1), as OpenSpiel passes it)."""
        seed = int(probability_sampler() * (1 << 53))
        box = self._box
        sampled = box.state.determinize(int(player_id), random.Random(seed), chance="manual")
        new = FishrulesState(self.get_game())
        new._box = _Box(box.shared, sampled)
        new._resampled = True  # OpenSpiel holds no history of its moves (see `serialize`)
        return new

    def serialize(self) -> str:
        """OpenSpiel's text of the state: `history=` every move as `player:action` (chance is
        player -1; a simultaneous move is one entry per player, in seat order) and
        `move_number=`.  No pickle: `FishrulesGame.deserialize_state` replays the history.  A state
        drawn by `resample_from_infostate` (or played on from one) has no OpenSpiel history of
        the moves that led to it: `StateError`."""
        if getattr(self, "_resampled", False):
            raise StateError("a state drawn by resample_from_infostate has no OpenSpiel history of the moves "
                             "that led to it, so it cannot be serialized: serialize the state it was drawn from")
        moves = ",".join(f"{h.player}:{h.action}" for h in self.full_history())
        return f"history={moves}\nmove_number={self.move_number()}"

    def __str__(self) -> str:
        return "\n".join(self._box.state.history)


class Observer:
    """OpenSpiel's PyObserver for fishrules games: `tensor` and `dict` (the fields of
    `Game.observation_spec`, and `actions seen` for an information state), `set_from`,
    `string_from`."""

    def __init__(self, shared: _Shared, iig_obs_type: Any):
        self._spec = shared.spec
        self._recall = bool(iig_obs_type.perfect_recall)
        self._public_only = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        size = shared.spec.size + (1 if self._recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {f.name: self.tensor[f.offset:f.offset + f.size] for f in shared.spec.fields}
        if self._recall:
            self.dict["actions seen"] = self.tensor[-1:]

    def _who(self, player: int) -> Optional[int]:
        return None if self._public_only else player

    def set_from(self, state: FishrulesState, player: int) -> None:
        s = state._box.state
        who = self._who(player)
        if not self._recall:  # the observation alone (a state deciding on the kernel reads it from its position)
            self.tensor[:self._spec.size] = s.observation(who)
            return
        view = s.view(who)
        self.tensor[:self._spec.size] = self._spec.encode(view)
        self.tensor[-1] = len(view["history"])

    def string_from(self, state: FishrulesState, player: int) -> str:
        s = state._box.state
        who = self._who(player)
        if self._recall:  # all the player saw, in order: the history and the events
            return f"p{player} " + json.dumps([s.history_for(who), state._box.events_for(who)], separators=(",", ":"))
        view = s.view(who)
        view.pop("history", None)
        return json.dumps(view, sort_keys=True, separators=(",", ":"))


# ---- reading a serialized state ---------------------------------------------------------------------

# player:action as OpenSpiel writes them: ASCII digits, no sign but chance's -1, no leading zero
_MOVE = re.compile(r"(-1|0|[1-9][0-9]{0,8}):(-1|0|[1-9][0-9]{0,17})")
_NUMBER = re.compile(r"0|[1-9][0-9]{0,17}")
#: What a player who does not choose at a simultaneous move is given (OpenSpiel passes 0, or its
#: kInvalidAction).
_NO_ACTION = (0, -1)


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "…")


def _deserialize(game: FishrulesGame, text: Any) -> FishrulesState:
    """See `FishrulesGame.deserialize_state`."""
    if not isinstance(text, str):
        raise StateError(f"a serialized state is text, not {type(text).__name__}")
    if len(text) > MAX_STATE_BYTES:
        raise StateError(f"the serialized state is larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) == 3 and lines[2].startswith("__dict__="):
        lines.pop()  # OpenSpiel's pickled attributes: ignored, never decoded
    if len(lines) != 2 or not lines[0].startswith("history=") or not lines[1].startswith("move_number="):
        raise StateError("a serialized state is two lines, `history=` (player:action, …) and `move_number=`")
    moves = lines[0][len("history="):]
    if moves.count(",") >= MAX_HISTORY:
        raise StateError(f"the history holds more than {MAX_HISTORY:,} moves; at most {MAX_HISTORY:,} are read")
    entries = []
    for i, entry in enumerate(moves.split(",") if moves else [], 1):
        m = _MOVE.fullmatch(entry)
        if m is None:
            raise StateError(f"history entry {i} ({_short(entry)}) is not `player:action`")
        entries.append((int(m.group(1)), int(m.group(2))))
    number = lines[1][len("move_number="):]
    if not _NUMBER.fullmatch(number):
        raise StateError(f"move_number is not a whole number: {_short(number)}")

    state = game.new_initial_state()
    fs = state.fishrules_state
    i, spent = 0, 0
    while i < len(entries):
        if state.is_terminal():
            raise StateError(f"history entry {i + 1} comes after the end of the game")
        if fs.current == SIMULTANEOUS:
            joint = entries[i:i + fs.n]
            if len(joint) < fs.n:
                raise StateError(f"history entry {i + 1} starts a simultaneous move of {fs.n} players, "
                                 f"but the history ends after {len(joint)}")
            for k, (player, action) in enumerate(joint):
                where = f"history entry {i + k + 1} ({player}:{action})"
                if player != k:
                    raise StateError(f"{where}: at a simultaneous move the entries are players 0 to "
                                     f"{fs.n - 1} in order; this one should be player {k}'s")
                if k in fs.waiting:
                    _check(fs, action, k, where)
                elif action not in _NO_ACTION:
                    raise StateError(f"{where}: player {k} does not choose at this move")
            _play(state, [a for _, a in joint], f"history entry {i + 1}")
            i += fs.n
        else:
            player, action = entries[i]
            where = f"history entry {i + 1} ({player}:{action})"
            moving = state.current_player()
            if player != moving:
                who = "chance" if moving == pyspiel.PlayerId.CHANCE else f"player {moving}"
                raise StateError(f"{where}: it is {who}'s move, not {'chance' if player == -1 else f'player {player}'}'s")
            if action < 0:
                raise StateError(f"{where} is not allowed: an action id is a whole number from 0")
            _play(state, action, where)  # the adapter's `_apply_action` refuses what is not legal
            i += 1
        spent += fs._work
        if spent > MAX_REPLAY_WORK:
            raise StateError(f"replaying the history takes more than {MAX_REPLAY_WORK:,} steps of work "
                             f"(at entry {i}): too much to read back")
    if int(number) != state.move_number():
        raise StateError(f"move_number is {number}, but the history makes {state.move_number()} moves")
    return state


def _check(fs: State, action: int, player: Optional[int], where: str) -> None:
    """`action` is legal now (for `player`, at a simultaneous move), or StateError says why not."""
    try:
        fs.action_of_id(action, player)
    except IllegalAction as exc:
        raise StateError(f"{where} is not allowed: {exc.reason}") from None


def _play(state: FishrulesState, action: Any, where: str) -> None:
    """Apply a move through OpenSpiel (so that its history and move number follow)."""
    try:
        if isinstance(action, list):
            state.apply_actions(action)
        else:
            state.apply_action(action)
    except IllegalAction as exc:
        raise StateError(f"{where} is not allowed: {exc.reason}") from None
    except RuleError as exc:
        raise StateError(f"{where} makes the rules fail:\n{exc}") from None


_SECTION = ("[Meta]", "[Game]", "[State]")


def _sections(text: str) -> tuple[str, str]:
    """The game and state sections of `pyspiel.serialize_game_and_state`'s text, read as
    OpenSpiel's own `DeserializeGameAndState` reads them."""
    parts: dict[str, list[str]] = {"[Meta]": [], "[Game]": [], "[State]": []}
    current = None
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line in _SECTION:
            if _SECTION.index(line) != (-1 if current is None else _SECTION.index(current)) + 1:
                raise StateError(f"the sections of a serialized game and state are {', '.join(_SECTION)}, in order")
            current = line
        elif current is None:
            raise StateError("a serialized game and state starts with its [Meta] section")
        else:
            parts[current].append(line)
    return "\n".join(parts["[Game]"]), "\n".join(parts["[State]"])


def _deserialize_game_and_state(text: Any) -> tuple:
    """`pyspiel.deserialize_game_and_state`, but a fishrules game's state is read by
    `FishrulesGame.deserialize_state` (never unpickled); any other game's text goes to
    OpenSpiel's own."""
    if not isinstance(text, str) or PREFIX not in text:  # our games' names all start so
        return _openspiel_deserialize_game_and_state(text)
    if len(text) > MAX_STATE_BYTES:
        raise StateError(f"the serialized state is larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB")
    game_text, state_text = _sections(text)
    if "[GameRNGState]" in game_text:
        raise StateError("a fishrules game keeps no random generator in OpenSpiel ([GameRNGState])")
    try:
        game = pyspiel.load_game(game_text)
    except pyspiel.SpielError as exc:
        raise StateError(f"the [Game] section is not a game OpenSpiel knows: {exc}") from None
    if not isinstance(game, FishrulesGame):
        return _openspiel_deserialize_game_and_state(text)
    return game, game.deserialize_state(state_text)


# OpenSpiel's own reads the state of a Python game by unpickling it: the fishrules games' states go
# to `deserialize_state` instead (idempotent if this module is loaded again).
_openspiel_deserialize_game_and_state = getattr(pyspiel.deserialize_game_and_state, "__wrapped__",
                                                pyspiel.deserialize_game_and_state)
_deserialize_game_and_state.__wrapped__ = _openspiel_deserialize_game_and_state  # type: ignore[attr-defined]
pyspiel.deserialize_game_and_state = _deserialize_game_and_state


def make_game(ruleset: Any, players: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
              variant: Optional[str] = None) -> FishrulesGame:
    """A `pyspiel.Game` for a ruleset: a bundled name, a path, or a loaded `fishrules.Game`
    (registered with OpenSpiel as it goes, so its states serialize and load back).  Raises
    `RuleError` for rules that do not load, `OptionError` (`ActionSpaceError`) for players,
    options or actions that cannot be numbered."""
    rules = ruleset if isinstance(ruleset, Game) else fishrules.load(ruleset, variant=variant)
    params: dict[str, Any] = dict(options or {})
    params["players"] = rules.min_players if players is None else players
    short = _register(rules)
    return FishrulesGame(rules, params, short)


def _short_name(rules: Game) -> str:
    base = "".join(c if c.isalnum() else "_" for c in rules.name)
    if rules.name in fishrules.bundled():
        return PREFIX + base
    return f"{PREFIX}{base}_{rules.rule_hash}"


_registered: dict[str, str] = {}


def _register(rules: Game) -> str:
    short = _short_name(rules)
    known = _registered.get(short)
    if known is None:
        if short not in pyspiel.registered_names():

            # A class, not a function: OpenSpiel keeps what it registers until after Python has
            # shut down, and a class (unlike a function) is still alive then.
            pyspiel.register_game(_game_type(rules, short, _defaults(rules)), _game_class(rules, short))
        _registered[short] = rules.program.identity
    elif known != rules.program.identity:
        raise fishrules.OptionError(f"another ruleset is registered with OpenSpiel as {short!r}")
    return short


def _game_class(rules: Game, short: str) -> type:
    def __init__(self: FishrulesGame, params: Any = None) -> None:
        FishrulesGame.__init__(self, rules, dict(params or {}), short)

    return type(f"FishrulesGame_{short}", (FishrulesGame,), {"__init__": __init__})


def register(names: Optional[list[str]] = None) -> list[str]:
    """Register bundled rulesets with OpenSpiel (all by default), so that
    `pyspiel.load_game("fishrules_NAME", {"players": 3, OPTION: VALUE})` makes their game
    (`-` in a name is written `_`).  Returns the short names.  Registering again does nothing."""
    return [_register(fishrules.load(name)) for name in (names if names is not None else fishrules.bundled())]

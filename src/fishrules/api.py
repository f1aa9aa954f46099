"""The embedding API: `load` a ruleset into a `Game`, then `start` states of it.

This module strings the stages together — parse, resolve overlays, check, compile — and is the
only place that knows the whole pipeline.  A `Game` is compiled once and starts any number of
states, which share its program.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Optional

import attrs

from . import model as m
from .checker import check
from .compiler import compile_model
from .errors import Diagnostic, OptionError, RuleError, StateError, did_you_mean
from .limits import MAX_NUMBER, MAX_STATE_BYTES
from .runtime import Playout, State
from .runtime.text import short

if TYPE_CHECKING:
    from .spaces import ActionSpace, ObservationSpec
from .variants import Resolved, bundled_names, find_ruleset, resolve_file, resolve_text, rulesets_dir

__all__ = ["load", "loads", "Game", "OptionInfo", "bundled"]


@attrs.frozen(slots=True)
class OptionInfo:
    """An option of a game: what `start(options={...})` accepts."""

    name: str
    kind: str  # "number", "yes or no", "choice"
    default: Any
    low: Optional[int] = None
    high: Optional[int] = None
    choices: tuple[str, ...] = ()
    doc: Optional[str] = None


class Game:
    """A loaded, checked and compiled ruleset.  Many games are played by its kernel (`backend`):
    native code where a C compiler can build it, else Python (see fishrules.kernel)."""

    def __init__(self, resolved: Resolved, model: m.Model, name: str, text_hash: str, backend: str = "auto"):
        from .backends import check_backend

        self._resolved = resolved
        self._model = model
        self._program = compile_model(model)
        self._backend = check_backend(backend)
        self._kernel: Any = None
        self._cached: Optional[bool] = None  # whether the native kernel is in the cache (see _states_on_kernel)
        self._starts_on_kernel: Optional[Any] = None  # apistate.start, once states decide on the native kernel
        self._defaults: Optional[dict] = None  # the options' defaults, once checked (`start` without options)
        self.name = name
        self.variant = resolved.variant
        self._identity = f"{model.title}#{text_hash}"
        self._program.identity = self._identity  # actions carry their program: `apply` checks it
        self.options: dict[str, OptionInfo] = {
            o.name: OptionInfo(
                o.name,
                {"number": "number", "bool": "yes or no", "symbol": "choice"}[o.type.kind],
                o.default,
                o.low,
                o.high,
                o.choices,
                o.doc,
            )
            for o in model.options
        }

    # ---- description -------------------------------------------------------------------------

    @property
    def title(self) -> str:
        """The game's title, from its `game "…"` line (an overlay's own title, if it gives one)."""
        return self._model.title

    @property
    def min_players(self) -> int:
        """The fewest players `start` accepts (the `players A to B` line)."""
        return self._model.min_players

    @property
    def max_players(self) -> int:
        """The most players `start` accepts."""
        return self._model.max_players

    @property
    def variants(self) -> list[str]:
        """The variants `load(..., variant=V)` accepts: the file's own `variant` blocks, and for a
        bundled ruleset NAME the bundled files NAME-V.fish."""
        names = list(self._resolved.variants)
        path = self._resolved.path
        if path is not None and path.parent.resolve() == rulesets_dir().resolve():
            prefix = path.stem + "-"
            for other in bundled_names():
                if other.startswith(prefix):
                    names.append(other[len(prefix):])
        return names

    @property
    def warnings(self) -> list:
        """Problems in the rules that do not stop them from running."""
        return list(self._model.warnings)

    @property
    def files(self) -> tuple[str, ...]:
        """The files these rules were read from, the base ruleset first."""
        return self._resolved.files

    def describe(self) -> dict[str, Any]:
        """What a user interface needs to draw any position of this game, as JSON-able data.

        It holds the rules' declarations only, nothing of a position, so it is the same for every
        state and tells nobody anything hidden: `dice` (the faces, or None), `board` (`circles`,
        the first and last circle's numbers, and `lines`, each the circles of one straight line in
        order; or None), `values` (each game or player value a view may show: `name`, `scope`
        "game" or "player", `kind` (zone, number, bool, player, choice, list or text), `family`
        [low, count] for a zone family (`zones from A to B`, shown by a view as one zone per
        number) and `choices`), `cards` (each card label's attributes), and `actions` (each action's
        `name` and `params`: `name`, `kind` ("one", "some", "number" or "choice"), `of` (card,
        die, player, number or choice), `choices` and `secret`), in the order their values are
        written in the action's text.

        And how to word them, from the rules' `presentation:` blocks or, where they say nothing,
        the names as words (`round_points` -> "round points"): each value, action and parameter
        has a `label` and a `description` (or None), a value `hidden` (the table need not show it),
        an action `log` (its sentence in a log, `{player}` and `{PARAM}` to fill, or None) and
        `chance` (what its own lines, or the phases they play, roll or draw: "roll", "draw");
        `derived` words the public defines a view shows (`label`, `description`, `hidden`),
        `options` each option (`name`, `label`, `description`), `attributes` each card
        attribute's label, `phases` each phase's label, `scores` the names of the score's
        parts, in order, and `about` what the game is (paragraphs, maybe none); a value the rules
        count up to a bound has `out_of` (a number, or the name of the value or define the view
        shows it as; else None)."""
        from .checker.presentation import words

        model = self._model
        shown = model.presentation

        def said(kind: str, name: str, param: Optional[str] = None) -> dict[str, Any]:
            label, description = shown.words.get((kind, name, param), (words(param or name), None))
            return {"label": label, "description": description}

        def kind_of(t: m.Type) -> str:
            return {"symbol": "choice", "collection": "list"}.get(t.kind, t.kind)

        values = []
        for v in list(model.game_vars) + list(model.player_vars):
            if v.visibility == "internal":
                continue
            values.append({"name": v.name, "scope": v.scope, "kind": kind_of(v.type),
                           "family": list(v.family) if v.family else None, "choices": list(v.choices),
                           **said("value", v.name), "hidden": v.name in shown.hidden,
                           "out_of": shown.bounds.get(v.name)})
        actions = []
        for a in model.actions.values():
            params = []
            for p in a.params:
                t = p.type.element if p.kind == "some" and p.type.element is not None else p.type
                kind = {"some": "some", "one of": "one", "number": "number", "choice": "choice"}.get(p.kind, p.kind)
                params.append({"name": p.name, "kind": kind, "of": kind_of(t), "choices": list(p.choices),
                               "secret": bool(p.secret), **said("action", a.name, p.name)})
            actions.append({"name": a.name, "params": params, **said("action", a.name), "log": shown.logs.get(a.name),
                            "chance": _own_chance(model, a)})
        cards: dict[str, dict[str, Any]] = {}
        for c in model.cards:
            cards.setdefault(c.label, {k: v for k, v in c.values})
        board = model.board
        return {
            "title": model.title,
            "min_players": model.min_players,
            "max_players": model.max_players,
            "dice": {"faces": [f.label for f in model.dice.faces]} if model.dice is not None else None,
            "board": {"circles": [board.low, board.high], "lines": [list(x) for x in board.lines]} if board else None,
            "values": values,
            "cards": cards,
            "actions": actions,
            "derived": {name: {**said("value", name), "hidden": name in shown.hidden} for name in model.defines},
            "options": [{"name": o.name, **said("option", o.name),
                         **({} if said("option", o.name)["description"] else {"description": o.doc})}
                        for o in model.options],
            "attributes": {a: said("attribute", a)["label"] for cs in model.card_sets for a, _ in cs.attrs},
            "phases": {name: said("phase", name)["label"] for name in model.phases},
            "scores": [t.name for t in model.scores],
            "about": list(shown.about),
        }

    def explain(self) -> str:
        """The effective rules, after every overlay, as .fish text."""
        from .explain import explain

        return explain(self._resolved, self)

    @property
    def model(self) -> m.Model:
        """The checked model of the rules (read-only)."""
        return self._model

    @property
    def program(self) -> Any:
        """The rules compiled for the engine's own machine (read-only)."""
        return self._program

    @property
    def rule_hash(self) -> str:
        """A hash of the rules' text and of everything they resolve to: equal rules, equal hash."""
        return self._identity.rsplit("#", 1)[-1]

    @property
    def kernel(self) -> Any:
        """The game kernel (`fishrules.kernel.Kernel`), built on first use: the rules lowered to a
        flat program and compiled to native code (or run as Python, see `backend`)."""
        if self._kernel is None:
            from .kernel import Kernel

            self._kernel = Kernel(self, self._backend)
        return self._kernel

    def _states_on_kernel(self) -> bool:
        """Whether `start` gives a state that decides on the kernel: with backend "native" or
        "python" (the kernel's Python spelling: its API loop and playouts no slower than the
        engine's, docs/performance.md), or once the kernel is built (by `kernel`, a simulation, a
        search bot) or its library is in the cache.  Never a compile of seconds at the first
        `start` of a game at a table, and no lowering either: the cache is asked by the rules'
        hash (`kernel.native_is_cached`), so a stranger's rule file costs nothing here, however
        deep it nests.  Rules too large for the kernel play on the engine's own machine."""
        if self._kernel is None and self._backend == "auto":
            if self._cached is None:
                from .kernel import native_is_cached

                self._cached = native_is_cached(self)
            if not self._cached:
                return False
        if self._kernel is None and self._cached is False and self._backend == "native":
            return False  # found too large for the kernel before: not lowered again at every start
        from .kernel import TooLargeForKernel

        try:
            return self.kernel.name != "engine"  # (rules too large for the kernel)
        except TooLargeForKernel:  # a state of the engine's own machine; `simulate` still insists
            self._cached = False
            return False

    @property
    def backend(self) -> str:
        """What plays this game's many games: "native" or "python" (builds the kernel if needed)."""
        return self.kernel.name

    def __deepcopy__(self, memo: dict) -> "Game":
        return self  # a loaded game does not change (and its built kernel holds native handles):
        # a deep copy of a state shares it.  `copy.copy` of a Game is a new Game sharing its parts.

    def __reduce__(self) -> tuple:
        # Pickled by its rules as they were read (the resolved text and every file it extends) and
        # their checked model: the copy never reads a file again, and its program and kernel are
        # built (or found in the cache) as a loaded game's are.  (The compiled program itself
        # holds functions pickle cannot name.)
        return (_unpickled_game, (self._resolved, self._model, self.name, self._identity.rpartition("#")[2],
                                  self._backend))

    def __repr__(self) -> str:
        v = f" variant={self.variant!r}" if self.variant else ""
        k = self._kernel.name if self._kernel is not None else self._backend
        return f"<Game {self.title!r}{v} {self.min_players}-{self.max_players} players, backend {k}>"

    # ---- states ------------------------------------------------------------------------------

    def _options(self, options: Optional[Mapping[str, Any]]) -> dict:
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise OptionError(f"options are given as a dict of names and values, not {type(options).__name__}")
        # Names and values come from anybody (a log, a web form): messages quote them cut (`_said`)
        bad_keys = [k for k in options if not isinstance(k, str)]
        if bad_keys:
            raise OptionError(f"an option is named by a text, not {_said(bad_keys[0])}")
        given = dict(options)
        out = {}
        for name, info in self.options.items():
            v = given.pop(name, info.default)
            if info.kind == "number":
                if isinstance(v, bool) or not isinstance(v, int):
                    raise OptionError(f"option {_said(name)} takes a whole number, not {_said(v)}")
                if (info.low is not None and v < info.low) or (info.high is not None and v > info.high):
                    raise OptionError(f"option {_said(name)} must be from {info.low} to {info.high}, not {_said(v)}")
                if not (-MAX_NUMBER <= v <= MAX_NUMBER):
                    raise OptionError(f"option {_said(name)} must lie within ±{MAX_NUMBER:,}")
            elif info.kind == "yes or no":
                if not isinstance(v, bool):
                    raise OptionError(f"option {_said(name)} takes True or False, not {_said(v)}")
            else:
                if v not in info.choices:
                    raise OptionError(f"option {_said(name)} must be one of {_cut(', '.join(info.choices), 200)}, "
                                      f"not {_said(v)}")
            out[name] = v
        if given:
            bad = next(iter(given))
            # a name far longer than any declared one is like none of them
            hint = did_you_mean(bad, self.options) if len(bad) <= 100 else None
            known = _cut(", ".join(self.options) or "none", 200)
            raise OptionError(f"{_cut(self.title)} has no option {_said(bad)}"
                              + (f"; {hint}" if hint else f" (its options: {known})"))
        return out

    def start(
        self,
        players: int = 2,
        seed: Optional[int] = None,
        options: Optional[Mapping[str, Any]] = None,
        chance: str = "seeded",
        count_rules: bool = False,
    ) -> State:
        """A new game.  `chance="seeded"` (the default) resolves dice and shuffles with a generator
        seeded by `seed` (a random seed if None); `chance="manual"` leaves every chance node to the
        caller (`state.chance_outcomes()`, then `state.apply(outcome)`).  `count_rules=True` counts
        how often each named rule fires (`state.rules_fired`)."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(f"players must be a whole number, not {_said(players)}")
        if not (self.min_players <= players <= self.max_players):
            raise OptionError(f"{_cut(self.title)} is for {self.min_players} to {self.max_players} players, "
                              f"not {_said(players)}")
        if chance not in ("seeded", "manual"):
            raise OptionError(f"chance must be 'seeded' or 'manual', not {_said(chance)}")
        if options is None:  # (the API loop starts a game every few moves: what is known is not worked out again)
            if self._defaults is None:
                self._defaults = self._options(None)
            opts = dict(self._defaults)
        else:
            opts = self._options(options)
        if seed is None:
            seed = secrets.randbits(63)
        elif isinstance(seed, bool) or not isinstance(seed, int):
            raise OptionError(f"seed must be a whole number, not {_said(seed)}")
        on_kernel = self._starts_on_kernel
        if on_kernel is None and self._states_on_kernel():
            from .kernel.apistate import start as on_kernel

            self._starts_on_kernel = on_kernel  # (the native kernel, once built, stays this game's)
        if on_kernel is not None and (chance == "seeded" or self.kernel.manual_chance):
            # decisions on the kernel (see apistate)
            return on_kernel(self, players, opts, seed, count_rules, chance == "manual")
        return State._new(self, players, opts, seed, chance == "manual", count_rules=count_rules)

    def replay(
        self,
        history: Iterable[str],
        players: int = 2,
        options: Optional[Mapping[str, Any]] = None,
        seed: Optional[int] = None,
    ) -> State:
        """The state reached by playing `history` (action texts, chance included) from the start.
        Chance is manual while replaying; with `seed`, the result also continues like the original.
        A history these rules cannot play (an entry that is not allowed, too long a history, bad
        players or options) raises `StateError` naming what is wrong."""
        return State._replayed(self, history, players, options, seed)

    def simulate(self, games: int, players: int = 2, seed: int = 0,
                 options: Optional[Mapping[str, Any]] = None) -> list[Playout]:
        """Play `games` whole games with random players on the game kernel (`backend`), and return
        each one's `Playout` (scores, winners, decisions, chance outcomes: these count the whole
        game, from its set-up).  Game i is the game `start(seed=game_seed_of(seed, i))` sets up,
        every choice made uniformly at random by a generator seeded from that seed
        (`fishrules.kernel.reference`), so a game's result depends on nothing but `seed` and `i`:
        not how many are played, nor where, nor on which backend."""
        return list(self.playouts(games, players, seed, options))

    def playouts(self, games: int, players: int = 2, seed: int = 0,
                 options: Optional[Mapping[str, Any]] = None) -> Iterator[Playout]:
        """`simulate`, one `Playout` at a time (for a progress bar, or to stop early)."""
        if isinstance(games, bool) or not isinstance(games, int) or games < 0:
            raise OptionError(f"games must be a whole number, 0 or more, not {_said(games)}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise OptionError(f"seed must be a whole number, not {_said(seed)}")
        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(f"players must be a whole number, not {_said(players)}")
        if not (self.min_players <= players <= self.max_players):
            raise OptionError(f"{_cut(self.title)} is for {self.min_players} to {self.max_players} players, "
                              f"not {_said(players)}")
        opts = self._options(options)
        return self._playouts(games, players, seed, opts)

    def action_space(self, players: int = 2, options: Optional[Mapping[str, Any]] = None) -> "ActionSpace":
        """Every action that can ever be legal, numbered 0..N-1 from the parameters' declared
        domains (stable for the same rules): see `fishrules.spaces.ActionSpace`.  Raises
        `ActionSpaceError` (an `OptionError`) naming each parameter that cannot be numbered."""
        return self._spaces("action", players, options)

    def observation_spec(self, players: int = 2, options: Optional[Mapping[str, Any]] = None) -> "ObservationSpec":
        """The layout of `State.observation`: each field's name, offset and size (see
        `fishrules.spaces.ObservationSpec`)."""
        return self._spaces("observation", players, options)

    def _spaces(self, kind: str, players: int, options: Optional[Mapping[str, Any]]) -> Any:
        from .spaces import ActionSpace, ObservationSpec

        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(f"players must be a whole number, not {_said(players)}")
        if not (self.min_players <= players <= self.max_players):
            raise OptionError(f"{_cut(self.title)} is for {self.min_players} to {self.max_players} players, "
                              f"not {_said(players)}")
        opts = self._options(options)
        cache = self.__dict__.setdefault("_space_cache", {})
        key = (kind, players, tuple(sorted(opts.items())))
        found = cache.get(key)
        if found is None:
            found = cache[key] = (ActionSpace if kind == "action" else ObservationSpec)(self, players, opts)
        return found

    def _playouts(self, games: int, players: int, seed: int, opts: dict):
        step = 1024  # the seeds of a thousand games at a time: `playouts(10**12)` starts at once
        for at in range(0, games, step):
            seeds = [game_seed_of(seed, i) for i in range(at, min(at + step, games))]
            for played in self.kernel.simulate(players, opts, seeds):
                yield Playout(*played.outcome)

    def _position_of(self, state: State) -> Optional[list]:
        """The kernel's position of one of this game's states, as JSON writes it (`position`); None
        where the kernel cannot work it out.  (The runtime, which writes JSON, does not import the
        kernel.)"""
        from .kernel.apistate import saved_position

        return saved_position(self, state)

    def state_from_json(self, text: str | bytes) -> State:
        """The state `State.to_json` wrote, for these very rules.  It continues exactly as the
        original would, its random generator included.  The state is re-derived by replaying its
        history, and every other field must agree: anything malformed, tampered with or not a
        position these rules can reach raises `StateError` saying which field is wrong."""
        import json

        if isinstance(text, (bytes, bytearray)):
            if len(text) > MAX_STATE_BYTES:  # (before decoding it)
                raise StateError(f"the saved state is larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB")
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError:
                raise StateError("a saved state is UTF-8 JSON text") from None
        if not isinstance(text, str):
            raise StateError(f"a saved state is JSON text, not {type(text).__name__}")
        if len(text) > MAX_STATE_BYTES or (  # its bytes, as UTF-8: a character may be four
                len(text) > MAX_STATE_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_STATE_BYTES):
            raise StateError(f"the saved state is larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB")
        try:
            data = json.loads(text)
        except RecursionError:
            raise StateError("the saved state is nested too deeply to be a fishrules state") from None
        except ValueError as exc:
            raise StateError(f"the saved state is not valid JSON ({exc})") from None
        return State._from_dict(self, data)


def _unpickled_game(resolved: Resolved, model: m.Model, name: str, text_hash: str, backend: str) -> Game:
    """A game read back by pickle (`Game.__reduce__`): the game of these very rules already loaded
    in this process if there is one (as `load` gives it again, with its kernel), else a new one."""
    identity = f"{model.title}#{text_hash}"
    for game in _cache.values():
        if game._identity == identity and game._backend == backend and game.name == name:
            return game
    return Game(resolved, model, name, text_hash, backend)


_cache: dict[tuple, Game] = {}
#: What a variant's name may be (a `variant NAME:` block, or the NAME of a bundled NAME-VARIANT.fish).
_VARIANT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,99}")


def _own_chance(model: m.Model, action: Any) -> list[str]:
    """What chance an action's effects take themselves, in its own lines or the phases they play:
    "roll" (dice), "draw" (cards).  A table tells that chance in the turn of the player who chose
    the action, not as the opening of the next player's turn."""
    from .walk import find_all

    found: set[str] = set()
    seen: set[str] = set()  # each phase is read once: phases may play one another
    roots = list(action.body) + [x for b in action.broken for x in b.body]
    while roots:
        phases = []
        for node in find_all(roots, (m.RollDice, m.DrawCards, m.CallPhase)):
            if not isinstance(node, m.CallPhase):
                found.add("roll" if isinstance(node, m.RollDice) else "draw")
            elif node.phase in model.phases and node.phase not in seen:
                seen.add(node.phase)
                phases.append(node.phase)
        roots = [x for name in phases for x in model.phases[name].body]
    return sorted(found)


def _said(x: Any) -> str:
    """A value from outside (an option's name or value, a number of players), as a message quotes
    it: cut to a line however long or deep it is, a whole number of 5,000 digits included."""
    try:
        return short(x)
    except ValueError:  # repr() of an int past sys.get_int_max_str_digits()
        return "a number too large to write" if isinstance(x, int) else f"a {type(x).__name__} too large to write"


def _cut(text: str, most: int = 60) -> str:
    """A name (a game's title, a list of names) cut to `most` characters for a message."""
    return text if len(text) <= most else text[:most - 1] + "…"


def load(ruleset: str | os.PathLike, variant: Optional[str] = None, backend: str = "auto") -> Game:
    """Load a bundled ruleset by name (one of `bundled()`), or a .fish file by path.

    A name of a bundled ruleset always means the bundled one, whatever the current folder holds;
    anything else is a path chosen by the caller, and the folder of that file is where its
    `extends` may look (besides the bundled rulesets).  `variant` picks a `variant` block of the
    file, or for a bundled ruleset NAME the bundled file NAME-VARIANT.fish.  `backend` says what
    plays many games (`Game.simulate`, the bots' rollouts): "auto" (native code where a C compiler
    can build it, else Python, with one warning), "native" or "python".  Raises `RuleError`
    listing every problem if the rules are wrong or cannot be read."""
    ref = os.fspath(ruleset)
    if not isinstance(ref, str):
        raise RuleError(Diagnostic(None, "a ruleset is named by a text (a bundled name or a path)"))
    path = find_ruleset(ref)
    if path is None:
        names = bundled_names()
        shown = ref if len(ref) <= 80 else ref[:77] + "…"
        hint = did_you_mean(ref, names) or ("the bundled rulesets are " + ", ".join(names))
        raise RuleError(Diagnostic(None, f"cannot find the ruleset {shown!r}", hint))
    if variant is not None:
        if not isinstance(variant, str) or not _VARIANT.fullmatch(variant):
            raise RuleError(Diagnostic(None, f"there is no variant {str(variant)[:60]!r}",
                                       "a variant is a name of letters, digits, `_` and `-`"))
        sibling = path.with_name(f"{path.stem}-{variant}.fish")
        if path.parent.resolve() == rulesets_dir().resolve() and sibling.is_file():
            return load(sibling, backend=backend)
    from .backends import check_backend

    key = (str(path.resolve()), variant, _stamp(path), check_backend(backend))
    if key in _cache:
        return _cache[key]
    resolved = resolve_file(path, variant)
    model = check_resolved(resolved)
    name = path.stem if variant is None else f"{path.stem}:{variant}"
    game = Game(resolved, model, name, _hash_files(resolved), backend)
    _cache[key] = game
    return game


def loads(text: str, name: str = "<rules>", variant: Optional[str] = None, base_dir: Optional[str] = None,
          backend: str = "auto") -> Game:
    """Load rules from a string.  An `extends` in it finds a file in `base_dir` (or below it) or a
    bundled ruleset; with no `base_dir`, bundled rulesets only.  `backend`: as for `load`."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise RuleError(Diagnostic(None, f"{name}: the rules are not UTF-8 text")) from None
    if not isinstance(text, str):
        raise RuleError(Diagnostic(None, f"{name}: rules are a text, not {type(text).__name__}"))
    from .backends import check_backend

    check_backend(backend)
    resolved = resolve_text(text, name, variant, Path(base_dir) if base_dir else None)
    model = check_resolved(resolved)
    return Game(resolved, model, name, _hash_files(resolved), backend)


def check_resolved(resolved: Resolved) -> m.Model:
    """The checked model of resolved rules.  A file with syntax errors is still checked, as far as
    it could be read, so that one `RuleError` holds every problem: its syntax errors and the
    checker's errors (but those that only follow from the lines left out, and its warnings)."""
    from .blame import attribute, check_all

    syntax = list(resolved.syntax_errors)
    if "extends" in resolved.lost or any(d.code == "habit" for d in syntax):
        # Without the line naming the rules it extends, or with a line written in another language's
        # habits, the checker's findings would only follow from it: the line comes first, on its own.
        raise RuleError(syntax)
    try:
        model = check(list(resolved.items), resolved.variants, resolved.files, resolved.source, resolved.lost,
                      resolved.warnings)
    except RuleError as exc:
        if not syntax:
            # what an overlay's change broke in the rules it extends is reported at the overlay's line
            raise RuleError(attribute(resolved, exc.diagnostics, check_all(resolved))) from None
        # Warnings are left out: with lines missing, "never played" and the like say little.
        raise RuleError(syntax + exc.errors) from None
    if syntax:
        raise RuleError(syntax)
    if model.warnings:
        warnings = attribute(resolved, list(model.warnings), check_all(resolved))
        if warnings != list(model.warnings):
            model = attrs.evolve(model, warnings=tuple(sorted(warnings, key=Diagnostic.sort_key)))  # type: ignore[misc]
    return model


def game_seed_of(seed: int, index: int) -> int:
    """The seed of game `index` of a simulation seeded `seed` (a 63-bit mix of the two)."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{index}".encode()).digest()[:8], "big") >> 1


def _stamp(path: Path) -> tuple:
    try:
        st = path.stat()
    except (OSError, ValueError):
        return (None, None)
    return (st.st_mtime_ns, st.st_size)


def _hash_files(resolved: Resolved) -> str:
    """The rule hash: the text asked for and every declaration it resolves to (bases included)."""
    text = resolved.source.text if resolved.source is not None else ""
    h = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
    for item in resolved.items:
        h.update(repr(item).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:12]


def bundled() -> list[str]:
    """The names of the bundled rulesets."""
    return bundled_names()

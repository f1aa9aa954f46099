"""Numbers for actions, numbers for views: a ruleset's action space and observation layout.

Learning code and game frameworks (OpenSpiel, PettingZoo: `fishrules.adapters`) want every action
that can ever be legal numbered 0..N-1, and every position a player sees as a flat vector of
numbers.  Both are derived here from the ruleset itself, nothing written per game:

- `ActionSpace` numbers each action by its parameters' *declared* domains (a choice's words, the
  players, the dice, a card set's labels, a number's bounds as the rules write them), so an id
  means the same action in every position, every process and every version of the same rules.
  An action's id is its offset plus its parameter values in mixed radix, the first parameter most
  significant; `some X` is a set of X (a multiset of card labels for cards).  Where a domain
  cannot be bounded from the rules (`fishrules.bounds` works the bounds out), or the product is
  too large to number (`MAX_ACTION_IDS`), `ActionSpaceError` says which parameter and how large
  each factor is; no giant table is ever built.
- `ObservationSpec` lays out a vector of floats, field by field (`name`, `offset`, `size`), from the
  ruleset's declarations; `observation(state, player)` fills it from `state.view(player)` alone,
  so it shows exactly what the view shows: nothing a player may not know.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from math import prod
from typing import TYPE_CHECKING, Any, Mapping, Optional, Protocol

import attrs

from . import model as m
from .analysis import face_up_in_shuffled
from .bounds import Bounds
from .errors import IllegalAction, OptionError
from .forms import FACE_UP, forms_of
from .limits import MAX_SUBSET

if TYPE_CHECKING:
    from .runtime import Action, State

__all__ = ["ActionSpace", "ActionInfo", "ParamInfo", "ActionSpaceError", "ObservationSpec", "Field", "MAX_ACTION_IDS",
           "MAX_OBSERVATION"]

#: The most action ids an action space numbers.
MAX_ACTION_IDS = 1 << 17
#: The most floats an observation holds (`ObservationSpec` refuses a larger layout before building
#: it: thousands of zones, each counting thousands of kinds of card, for each of 64 seats).
MAX_OBSERVATION = 1 << 20
#: A `some X` parameter with more sets of X than this is numbered by position (below).
MAX_POSITIONS = (1 << MAX_SUBSET) - 1


class GameLike(Protocol):
    """What the spaces read of a game; a `fishrules.Game` is one.  (Named by what it does, not as
    `Game`: the API builds the spaces, so the spaces do not import it.)"""

    @property
    def model(self) -> m.Model: ...

    @property
    def program(self) -> Any: ...

    @property
    def _identity(self) -> str: ...

    def start(self, players: int = ..., seed: Optional[int] = ..., options: Optional[Mapping[str, Any]] = ...,
              chance: str = ..., count_rules: bool = ...) -> "State": ...


class ActionSpaceError(OptionError):
    """The actions of a ruleset cannot be numbered: a parameter has no bound the rules declare, or
    all the combinations together are more than `MAX_ACTION_IDS`.  The message names each
    parameter at fault and the size of every factor (an `OptionError`, so a `ValueError`)."""


@attrs.frozen(slots=True)
class ParamInfo:
    """One parameter of an action, as the action space numbers it.

    `kind` is `"one"` (one value of `values`), `"some"` (a nonempty set of `values`; with
    `copies`, a multiset holding value i at most `copies[i]` times) or `"positions"`: a set too
    large to number by its values (30 kinds of card, 4 copies each), numbered instead by the
    places (1 first) of the chosen things among the at most `MAX_SUBSET` things the rules offer to
    choose from at that moment, in the rules' order; `of` what the values are:
    "choice", "number", "player" (seats, 0 first), "die" (1 first), "card" (labels), "symbol".  `values` are the typed
    values, as `Action.args` gives them; `size` is how many different values the parameter has."""

    name: str
    kind: str
    of: str
    values: tuple
    size: int
    copies: Optional[tuple[int, ...]] = None


@attrs.frozen(slots=True)
class ActionInfo:
    """One action of the rules in the action space: ids `offset` to `offset + size - 1`."""

    name: str
    params: tuple[ParamInfo, ...]
    offset: int
    size: int


# ---- the action space -----------------------------------------------------------------------------


def _labels(model: m.Model, card_set: Optional[str]) -> tuple[list[str], Counter]:
    """The different labels of a card set (every card when None), in card order, and their copies."""
    names = [c.label for c in model.cards if card_set is None or c.card_set == card_set]
    return list(dict.fromkeys(names)), Counter(names)


class ActionSpace:
    """Every action that can ever be legal in a ruleset, numbered 0 to `size - 1`, for a number of
    players and options (`Game.action_space`).  Ids come from the parameters' declared domains, in
    the order the rules declare actions, parameters and values, so they are the same in every
    process and for every version of the same rules (same `rule_hash`).

    `actions` describes the numbering (`ActionInfo`, `ParamInfo`); `text(id)` is an id's action
    written as in the history (without the `pN: ` a simultaneous choice adds), `args(id)` its
    name and typed parameter values, `id_of(action)` an `Action`'s id.  Chance outcomes are
    numbered separately, 0 to `chance_size - 1`: a die's face by the order the rules list faces, a
    drawn card by its label's place among the labels, a card that lay face up in the shuffled zone
    after every label (`chance_id`, `chance_text`)."""

    def __init__(self, game: GameLike, players: int, options: Mapping[str, Any]):
        state = game.start(players=players, seed=0, options=options, chance="manual")
        model, forms = game.model, forms_of(game.model)
        self.rule_hash: str = game._identity
        self.players: int = players
        self.options: dict[str, Any] = dict(options)
        # the engine's program, for what only it can tell yet: the things a `some` parameter offers
        self._prog = game.program
        bounds = Bounds(model, players, len(state.dice_ids), options)
        infos: list[ActionInfo] = []
        problems: list[str] = []
        offset = 0
        for a in model.actions.values():
            params = []
            for p in a.params:
                info = self._param(model, p, players, len(state.dice_ids), bounds, a.name, problems)
                if info is not None:
                    params.append(info)
            size = prod(p.size for p in params) if len(params) == len(a.params) else 0
            infos.append(ActionInfo(a.name, tuple(params), offset, size))
            offset += size
        self.actions: tuple[ActionInfo, ...] = tuple(infos)
        self.size: int = offset
        if not problems and offset > MAX_ACTION_IDS:
            sizes = "; ".join(f"{i.name}: " + " x ".join(f"{p.size:,}" for p in i.params) + f" = {i.size:,}"
                              for i in infos if i.params)
            problems.append(f"all actions together are {offset:,} (at most {MAX_ACTION_IDS:,} are numbered): {sizes}")
        if problems:
            raise ActionSpaceError(f"{model.title}: the actions cannot be numbered for {players} players:\n  - "
                                   + "\n  - ".join(problems))
        self._by_name = {i.name: i for i in infos}
        self._index: dict[tuple[str, int], dict] = {}
        for i in infos:
            for k, p in enumerate(i.params):
                self._index[(i.name, k)] = {v: j for j, v in enumerate(p.values)}
        self._faces = list(forms.face_labels[:forms.nfaces])  # not the last: a die in the air ('-')
        self._labels_of_cards = forms.card_labels
        self._card_labels = list(dict.fromkeys(forms.card_labels))
        self._card_label_index = {lab: j for j, lab in enumerate(self._card_labels)}
        # A card lying face up in a shuffled zone is drawn as another outcome than the face-down
        # cards of its label (`forms.draw_text`): its id follows every label's, where the rules can
        # leave a card face up in a zone they shuffle.
        if face_up_in_shuffled(model):
            self._card_labels += [lab + FACE_UP for lab in self._card_labels]
        self.chance_size: int = max(len(self._faces), len(self._card_labels), 1)

    @staticmethod
    def _param(model: m.Model, p: m.ParamDecl, players: int, dice: int, bounds: Bounds,
               action: str, problems: list[str]) -> Optional[ParamInfo]:
        where = f"`{p.name}` of `{action}`"
        if p.kind == "choice":
            return ParamInfo(p.name, "one", "choice", tuple(p.choices), len(p.choices))
        if p.kind == "number":
            lo, hi = bounds.num(p.low)[0], bounds.num(p.high)[1]
            if lo is None or hi is None:
                problems.append(f"{where} is a number the rules do not bound (write bounds the rules fix, "
                                f"as in `a number from 0 to min(4, …)`)")
                return None
            if hi - lo + 1 > MAX_ACTION_IDS:
                problems.append(f"{where} is any of {hi - lo + 1:,} numbers (at most {MAX_ACTION_IDS:,} are numbered)")
                return None
            return ParamInfo(p.name, "one", "number", tuple(range(lo, hi + 1)), max(hi - lo + 1, 0))
        elem = p.type.element if p.kind == "some" else p.type
        copies: Optional[tuple[int, ...]] = None
        values: tuple
        if elem is None:
            problems.append(f"{where} chooses from something the action space cannot number")
            return None
        of = "number" if elem.kind == "list" else elem.kind
        if elem.kind == "player":
            values = tuple(range(players))
        elif elem.kind == "die":
            values = tuple(range(1, dice + 1))
        elif elem.kind == "card":
            labels, counts = _labels(model, elem.domain)
            values = tuple(labels)
            copies = tuple(counts[lab] for lab in labels)
        elif elem.kind == "symbol":
            values = tuple(model.symbols.get(elem.domain, ()))
        elif elem.kind in ("number", "list"):
            lo, hi = bounds.num(p.source)
            if lo is None or hi is None:
                problems.append(f"{where} chooses among numbers the rules do not bound")
                return None
            if hi - lo + 1 > MAX_ACTION_IDS:
                problems.append(f"{where} chooses among {hi - lo + 1:,} numbers (at most {MAX_ACTION_IDS:,} are numbered)")
                return None
            values = tuple(range(lo, hi + 1))
        else:
            problems.append(f"{where} chooses {elem}, which the action space cannot number")
            return None
        if p.kind != "some":
            return ParamInfo(p.name, "one", of, values, len(values))
        if copies is not None and any(c > 1 for c in copies):
            size = prod(c + 1 for c in copies) - 1
            what = f"a set of {len(values)} kinds of card with up to {max(copies)} copies each"
        else:
            copies = None
            size = (1 << len(values)) - 1
            what = f"a set of {len(values)} things"
        if size > MAX_POSITIONS:
            # Too many sets to number by what is in them: numbered by where the chosen things are
            # among the (at most MAX_SUBSET) things the rules offer to choose from at the time.
            del what
            return ParamInfo(p.name, "positions", of, tuple(range(1, MAX_SUBSET + 1)), MAX_POSITIONS)
        return ParamInfo(p.name, "some", of, values, size, copies)

    # ---- ids of actions --------------------------------------------------------------------------

    def id_of(self, action: "Action", state: Optional["State"] = None) -> int:
        """The id of a player's action (from `legal_actions`; of `state`, when a parameter is
        numbered by positions)."""
        info = self._by_name.get(action.name)
        if info is None or action.player is None:
            raise OptionError(f"{action.text!r} is not a player's action of these rules")
        args = action.args
        code = 0
        for k, p in enumerate(info.params):
            index = self._index[(info.name, k)]
            v = args[p.name]
            try:
                if p.kind == "positions":
                    if state is None:
                        raise OptionError(f"the id of {action.text!r} depends on the position: give the state")
                    digit = self._positions(state, action, k) - 1
                elif p.kind == "one":
                    digit = index[v]
                elif p.copies is None:
                    digit = sum(1 << index[x] for x in v) - 1
                else:
                    counts = Counter(index[x] for x in v)
                    digit, radix = 0, 1
                    for j, c in enumerate(p.copies):
                        digit += counts.get(j, 0) * radix
                        radix *= c + 1
                    digit -= 1
            except KeyError:
                raise ActionSpaceError(f"{action.text!r}: `{p.name}` is outside what the rules declare it can be") from None
            code = code * p.size + digit
        return info.offset + code

    def _positions(self, state: "State", action: "Action", k: int) -> int:
        """The bits of the places of parameter k's things among what the rules offer."""
        on_kernel = getattr(state, "offered_on_kernel", None)  # a state deciding on the game kernel asks it
        offered = None if on_kernel is None else on_kernel(action.name, action.player, action._values[:k], k)
        if offered is None:
            ap = self._prog.actions[action.name]
            L: list = [None] * ap.nlocals
            L[0] = action.player
            for q, v in zip(ap.params[:k], action._values):
                L[q.slot] = v
            state._work = 0
            offered = list(ap.params[k].elements(state, L))
        where = {c: i for i, c in enumerate(offered)}
        bits = sum(1 << where[c] for c in action._values[k])
        if bits > MAX_POSITIONS:
            raise ActionSpaceError(f"{action.text!r}: chosen among more than {MAX_SUBSET} things")
        return bits

    def _locate(self, action_id: int) -> tuple[ActionInfo, list[Any]]:
        if isinstance(action_id, bool) or not isinstance(action_id, int) or not (0 <= action_id < self.size):
            raise IllegalAction(str(action_id)[:40], f"an action id is a whole number from 0 to {self.size - 1}")
        info = next(i for i in reversed(self.actions) if i.offset <= action_id and i.size)
        code = action_id - info.offset
        digits = []
        for p in reversed(info.params):
            code, d = divmod(code, p.size)
            digits.append(d)
        digits.reverse()
        values: list[Any] = []
        for p, d in zip(info.params, digits):
            if p.kind == "one":
                values.append(p.values[d])
            elif p.kind == "positions":
                values.append(tuple(f"#{j + 1}" for j in range(MAX_SUBSET) if (d + 1) >> j & 1))
            elif p.copies is None:
                values.append(tuple(v for j, v in enumerate(p.values) if (d + 1) >> j & 1))
            else:
                d, chosen = d + 1, []
                for v, c in zip(p.values, p.copies):
                    d, k = divmod(d, c + 1)
                    chosen += [v] * k
                values.append(tuple(chosen))
        return info, values

    def args(self, action_id: int) -> tuple[str, dict[str, Any]]:
        """The action name and typed parameter values of an id (for a parameter numbered by
        positions, the places: `("#1", "#3")`)."""
        info, values = self._locate(action_id)
        return info.name, {p.name: v for p, v in zip(info.params, values)}

    def text(self, action_id: int) -> str:
        """An id's action as the history writes it (a set of things in the rules' order)."""
        info, values = self._locate(action_id)
        words = [info.name]
        for p, v in zip(info.params, values):
            for x in (v if isinstance(v, tuple) else (v,)):
                words.append(f"p{x}" if p.of == "player" else str(x))
        return " ".join(words)

    def chance_id(self, outcome: "Action") -> int:
        """The id of a chance outcome (from `chance_outcomes`)."""
        if outcome.name == "roll":
            return outcome._values[1]
        j = self._card_label_index[self._labels_of_cards[outcome._values[0]]]
        return j + len(self._card_label_index) if outcome.text.endswith(FACE_UP) else j

    def chance_text(self, outcome_id: int) -> str:
        """What a chance outcome id stands for: a face's label or a card's."""
        labels = self._faces if self._faces else self._card_labels
        return labels[outcome_id] if 0 <= outcome_id < len(labels) else f"outcome {outcome_id}"

    def legal_ids(self, state: "State", player: Optional[int] = None) -> list[int]:
        """The ids of `state.legal_actions(player)`, in the same order (chance: `chance_id`s)."""
        if state.current == "chance":
            kept = getattr(state, "chance_on_kernel", None)  # a state on the game kernel keeps them
            got = kept(self) if kept is not None else None
            if got is not None:
                return list(got[0])
            return [self.chance_id(a) for a in state.legal_actions()]
        kept = getattr(state, "ids_on_kernel", None)  # a state deciding on the game kernel keeps them
        if kept is not None:
            ids = kept(self, player)
            if ids is not None:
                return ids
        return [self.id_of(a, state) for a in state.legal_actions(player)]

    def action(self, state: "State", action_id: int, player: Optional[int] = None) -> "Action":
        """The legal action of `state` with this id (at chance: the outcome with this chance id);
        `IllegalAction` if it is not legal now."""
        if isinstance(action_id, bool) or not isinstance(action_id, int):
            raise IllegalAction(str(action_id)[:40], "an action id is a whole number")
        actions = state.legal_actions(player)
        ids = self.legal_ids(state, player)
        for a, i in zip(actions, ids):
            if i == action_id:
                return a
        if state.current == "chance":
            raise IllegalAction(f"chance outcome {action_id}", "it is not a possible outcome now")
        what = self.text(action_id)  # raises for an id out of range
        raise IllegalAction(f"action {action_id} ({what})", "it is not one of the legal actions now")

    def __repr__(self) -> str:
        return f"<ActionSpace {self.size} actions, {self.players} players>"


# ---- observations ---------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Field:
    """One field of an observation vector: floats `offset` to `offset + size - 1`.  `labels` names
    each float where the field is one-hot or counts (`kind`: "number" — a value and a 1 when the
    player may see it —, "one-hot", "counts", "list" — length and sum)."""

    name: str
    offset: int
    size: int
    kind: str
    labels: tuple[str, ...] = ()


class ObservationSpec:
    """The layout of `State.observation(player)` for a ruleset, players and options
    (`Game.observation_spec`): `fields` in order, `size` floats in all, `field(name)` one of them.
    It is generated from the ruleset's declarations: who is to act, whose view it is, the phases
    being played, the options, then every value of the game and of each seat (numbers, yes-or-no,
    players, choices, lists, and each zone as how many cards of each label it shows plus how many
    it hides), each score, the dice, and the rules' public `define`s."""

    def __init__(self, game: GameLike, players: int, options: Mapping[str, Any]):
        model, forms = game.model, forms_of(game.model)
        self.players = players
        self.fields: list[Field] = []
        self._fill: list[tuple] = []  # (where in the view, how to encode, field)
        self._zone_labels: dict = {}  # card set -> the labels of a zone's counts, shared by its zones
        self._indexes: dict = {}  # labels -> {label: place}, shared by the fields counting them
        n = players
        seats = tuple(f"p{i}" for i in range(n))
        self._add("current", "one-hot", seats + ("chance", "simultaneous", "over"), ("current",), "current")
        self._add("viewer", "one-hot", seats, ("viewer",), "player")
        self._add("waiting", "one-hot", seats, ("waiting",), "players")
        self._add("phase", "one-hot", tuple(model.phases), ("phase",), "names")
        for o in model.options:
            self._value(f"option {o.name}", ("options", o.name), o.type, o.choices, model, n)
        for v in model.game_vars:
            if v.visibility == "internal":
                continue
            if v.family:
                lo, count = v.family
                for i in range(count):
                    self._value(f"{v.name}({lo + i})", ("values", v.name, str(lo + i)), v.type, v.choices, model, n)
            else:
                self._value(v.name, ("values", v.name), v.type, v.choices, model, n)
        for i in range(n):
            for v in model.player_vars:
                if v.visibility != "internal":
                    self._value(f"p{i} {v.name}", ("seats", i, v.name), v.type, v.choices, model, n)
            self._add(f"p{i} score", "number", ("value", "seen"), ("seats", i, "score"), "number")
        ndice = len(game.start(players=players, seed=0, options=options, chance="manual").dice_ids)
        faces = tuple(dict.fromkeys(forms.face_labels))
        for d in range(ndice):
            self._add(f"die {d + 1}", "one-hot", faces, ("dice", d), "symbol")
        for name, d in model.defines.items():
            if not d.per_player and not d.params and d.type.kind in ("number", "bool") and name in forms.public_defines:
                self._add(f"define {name}", "number", ("value", "seen"), ("derived", name), "number")
        self.size: int = sum(f.size for f in self.fields)
        self._names = {f.name: f for f in self.fields}

    def _add(self, name: str, kind: str, labels: tuple, path: tuple, how: str) -> None:
        offset = self.fields[-1].offset + self.fields[-1].size if self.fields else 0
        if offset + len(labels) > MAX_OBSERVATION:
            raise OptionError(f"an observation of these rules at {self.players} players would hold more than "
                              f"{MAX_OBSERVATION:,} numbers (at {name!r}): too large to lay out")
        labels = tuple(labels)
        index = self._indexes.get(labels)
        if index is None:
            index = self._indexes[labels] = {lab: i for i, lab in enumerate(labels)}
        f = Field(name, offset, len(labels), kind, labels)
        self.fields.append(f)
        self._fill.append((path, how, f, index))

    def _value(self, name: str, path: tuple, t: m.Type, choices: tuple, model: m.Model, n: int) -> None:
        k = t.kind
        if k in ("number", "bool"):
            self._add(name, "number", ("value", "seen"), path, "number")
        elif k == "player":
            self._add(name, "one-hot", tuple(f"p{i}" for i in range(n)) + ("nobody",), path, "player")
        elif k == "symbol":
            self._add(name, "one-hot", tuple(choices or model.symbols.get(t.domain, ())), path, "symbol")
        elif k == "zone":
            dom = t.element.domain if t.element is not None else None
            counted = self._zone_labels.get(dom)
            if counted is None:
                labels, _ = _labels(model, dom)
                counted = self._zone_labels[dom] = tuple(labels) + ("unseen",)
            self._add(name, "counts", counted, path, "zone")
        elif k == "list":
            self._add(name, "list", ("length", "sum", "seen"), path, "list")
        else:  # a text: whether the player may see it
            self._add(name, "number", ("seen",), path, "seen")

    def field(self, name: str) -> Field:
        """The field called `name` (`"current"`, `"p1 score"`, `"hand"` …)."""
        try:
            return self._names[name]
        except KeyError:
            raise OptionError(f"the observation has no field {name!r}") from None

    def encode(self, view: Mapping[str, Any]) -> list[float]:
        """The vector of a view (`State.view(player)`): only what the view shows goes in."""
        out = [0.0] * self.size
        for path, how, f, index in self._fill:
            v: Any = view
            seen = True
            for step in path:
                if isinstance(v, dict) and step in v:
                    v = v[step]
                elif isinstance(v, list) and isinstance(step, int) and step < len(v):
                    v = v[step]
                else:
                    seen = False
                    break
            if how == "current":
                put(out, how, f.offset, f.size, index, v if seen else None)
            elif seen and v is not None:
                put(out, how, f.offset, f.size, index, v)
        return out

    def fields_to_fill(self) -> list[tuple[tuple, str, int, int, dict]]:
        """How `encode` fills the vector, field by field: (where in a view, how, offset, size,
        {label: place}); for code that fills it from elsewhere than a view (the game kernel reads
        it from a position: fishrules.kernel.views), with `put`."""
        return [(path, how, f.offset, f.size, index) for path, how, f, index in self._fill]

    def __repr__(self) -> str:
        return f"<ObservationSpec {self.size} floats, {len(self.fields)} fields>"


def put(out: list, how: str, o: int, size: int, index: Mapping, v: Any) -> None:
    """Fill one field of an observation (`size` floats at `o`; `index`: its labels' places) with
    the view's value `v`, which is there and not None (but for "current", where None is nobody)."""
    if how == "current":
        if v is None:
            out[o + size - 1] = 1.0
        elif isinstance(v, int):
            out[o + v] = 1.0
        else:
            out[o + index[v]] = 1.0
    elif how == "player":
        out[o + v] = 1.0
    elif how == "players":
        for x in v:
            out[o + x] = 1.0
    elif how == "names":
        for x in v:
            if x in index:
                out[o + index[x]] = 1.0
    elif how == "number":
        out[o] = float(v)
        out[o + 1] = 1.0
    elif how == "symbol":
        if v in index:
            out[o + index[v]] = 1.0
    elif how == "zone":
        last = size - 1
        for c in v:
            out[o + (last if c is None else index.get(c, last))] += 1.0
    elif how == "list":
        nums = [x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool)]
        out[o], out[o + 1], out[o + 2] = float(len(v)), float(sum(nums)), 1.0
    elif how == "seen":
        out[o] = 1.0


def chance_probabilities(space: ActionSpace, state: "State") -> list[tuple[int, Fraction]]:
    """(chance id, exact probability) of each outcome of a chance node, ids merged where two
    outcomes read the same."""
    kept = getattr(state, "chance_on_kernel", None)  # a state on the game kernel keeps them
    got = kept(space) if kept is not None else None
    if got is not None:
        return list(got[1])
    merged: dict[int, Fraction] = {}
    for a, p in state.chance_outcomes():
        k = space.chance_id(a)
        merged[k] = merged.get(k, Fraction(0)) + p
    return sorted(merged.items())

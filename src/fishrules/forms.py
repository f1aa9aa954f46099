"""The forms of a ruleset's actions and its tables: how a move is written and read, from the model.

Beside `fishrules.analysis`, and like it worked out from the checked model alone (nothing here runs
rules): what the API, the history, the action spaces and observations need to write and read a
move, whichever machine plays it.

- per action (`Forms.actions` by name, `Forms.by_number` in the rules' order, the number a typed
  move names it by): its parameters' kind, element type, how a value is written and read back
  (the codec), what they take in words (`describe`), which are `secret`; an action's text from its
  values (`ActionForm.render`), the text the other players read when some parameter is secret
  (`render_redacted`), a value read back from a token (`parse_token`), its values typed as
  `Action.args` gives them (`args`);
- the tables: the dice's faces (labels, values, kinds, probabilities of one roll), the cards'
  labels and values, the zones' names, the game-wide defines a view shows.

A value is as the rules hold it: a player their seat, a die its number from 0, a card its number,
a number an int, a choice its word, `some` a tuple of them.  `forms_of(model)` makes the forms of
a model once; they are read-only and shared.
"""

from __future__ import annotations

import weakref
from fractions import Fraction
from typing import Any, Callable, Optional

from . import model as m
from .analysis import card_values, faces, public_defines
from .limits import MAX_NUMBER

__all__ = ["Forms", "ActionForm", "ParamForm", "forms_of", "parse_int", "parse_seat", "codec", "draw_text", "FACE_UP"]

#: Most texts of one `some` parameter kept written (a set of things is written again and again
#: as the same choice comes back).
SOME_MEMO = 4096


#: How a chance draw's text marks a card that lay face up in the shuffled zone it is drawn from.
FACE_UP = " (face up)"


def draw_text(label: str, up: bool) -> str:
    """A card drawn from a shuffled zone as the history writes it: `draw hearts-5`, or
    `draw hearts-5 (face up)` for a card that lay face up there.  A face-up card in a shuffled zone
    (a card moved there face up, or left face up by `shuffle`) is one everybody can tell from the
    face-down cards of its label, so it is another outcome, with its own text: without it, an
    outcome given by hand, a replay of the history or a saved game would take the face-down card
    for it.  (A label never has a space, so the text cannot be read as another label's.)"""
    return f"draw {label}{FACE_UP}" if up else f"draw {label}"


def parse_int(tok: str) -> Optional[int]:
    """A whole number written in ASCII digits (an optional minus first), within ±MAX_NUMBER; or None.
    (int() alone would read other scripts' digits, and raise on thousands of them.)"""
    digits = tok[1:] if tok.startswith("-") else tok
    if not digits or len(digits) > 16 or not digits.isascii() or not digits.isdigit():
        return None
    v = int(tok)
    return v if -MAX_NUMBER <= v <= MAX_NUMBER else None


def parse_seat(tok: str) -> Optional[int]:
    """The player a word such as `p1` (or `P1`) names, by ASCII digits only; or None."""
    tok = tok.lower()
    if 2 <= len(tok) <= 3 and tok.startswith("p") and tok[1:].isascii() and tok[1:].isdigit():
        return int(tok[1:])
    return None


def _parse_die(tok: str) -> Optional[int]:
    v = parse_int(tok)
    return v - 1 if v is not None and v > 0 else None


def _same(tok: str) -> str:
    return tok


def _seat_text(p: int) -> str:
    return f"p{p}"


def _die_text(d: int) -> str:
    return str(d + 1)


def codec(t: Optional[m.Type], card_labels: tuple) -> tuple[Callable, Callable, str]:
    """How a value of type `t` is written in an action's text, read back (None: not such a value),
    and what such values are called (`dice (by number, 1 first)`)."""
    if t is None:  # (the checker gives every collection its things' type)
        return str, _same, "things"
    if t.kind == "die":
        return _die_text, _parse_die, "dice (by number, 1 first)"
    if t.kind == "player":
        return _seat_text, parse_seat, "players (written p0, p1, …)"
    if t.kind == "number":
        return str, parse_int, "numbers"
    if t.kind == "symbol":
        return str, _same, "choices"
    if t.kind == "card":
        return card_labels.__getitem__, _same, "cards"
    return str, _same, str(t)


def _typed(kind: str, v: Any, labels: Any) -> Any:
    """A parameter's value as `Action.args` gives it."""
    if kind == "die":
        return v + 1
    if kind == "card":
        return labels[v]
    return v


class ParamForm:
    """One parameter of an action: `kind` ("choice", "number", "one of", "some"), `element` the
    type of its value (of each thing, for `some`), `render` how its value is written (`some`: the
    things, space-separated, in order), `render_one` how one thing is, `parse` a token read back
    as one thing (None if no such thing can be written so), `describe` what it takes in words,
    `things` what the things are called, `secret` whether others read it as `?`."""

    __slots__ = ("name", "kind", "slot", "element", "describe", "things", "secret", "render", "render_one", "parse")

    element: Optional[m.Type]
    describe: str
    things: str
    render: Callable[[Any], str]
    render_one: Callable[[Any], str]
    parse: Callable[[str], Any]

    def __init__(self, p: m.ParamDecl, card_labels: tuple):
        self.name, self.kind, self.slot, self.secret = p.name, p.kind, p.slot, p.secret
        if p.kind == "choice":
            self.element, self.render, self.parse = p.type, str, _same
            self.things = "choices"
            self.describe = "one of " + " or ".join(p.choices)
        elif p.kind == "number":
            self.element, self.render, self.parse = m.NUMBER, str, parse_int
            self.things = "numbers"
            self.describe = "a number"
        else:
            elem = p.type.element if p.kind == "some" else p.type
            render1, self.parse, self.things = codec(elem, card_labels)
            self.element = elem
            if p.kind == "one of":
                self.render = render1
                self.describe = self.things
            else:
                self.render = _joined(render1)
                self.describe = f"one or more of {self.things}"
            self.render_one = render1
            return
        self.render_one = self.render


def _joined(render1: Callable) -> Callable:
    """How a set of things is written: each, in order, space-separated (kept written)."""
    memo: dict = {}

    def render(vals: tuple) -> str:
        t = memo.get(vals)
        if t is None:
            t = " ".join(render1(v) for v in vals)
            if len(memo) < SOME_MEMO:
                memo[vals] = t
        return t

    return render


class ActionForm:
    """One action of the rules: `name`, `number` (its place among the rules' actions: how a typed
    move names it), `params` (`ParamForm`s, in order), `secret` (whether any parameter is);
    `writers` how each parameter's value is written, `redacted` the same with None for a secret one.

    (Its texts read only `name`, `writers`, `secret` and `redacted`: the engine's compiled action
    is an ActionForm with those of its form, and writes its texts with this very code.)"""

    __slots__ = ("name", "number", "params", "secret", "writers", "redacted", "card_labels")

    def __init__(self, a: m.ActionDecl, number: int, card_labels: tuple):
        self.name = a.name
        self.number = number
        self.params: tuple[ParamForm, ...] = tuple(ParamForm(p, card_labels) for p in a.params)
        self.writers: tuple[Callable[[Any], str], ...] = tuple(p.render for p in self.params)
        self.redacted: tuple[Optional[Callable[[Any], str]], ...] = tuple(
            None if p.secret else p.render for p in self.params)
        self.secret = any(p.secret for p in self.params)
        self.card_labels = card_labels

    def render(self, values: tuple) -> str:
        """The action's text with these values (`reroll 1 3`)."""
        if not values:
            return self.name
        return " ".join([self.name] + [w(v) for w, v in zip(self.writers, values)])

    def render_redacted(self, values: tuple) -> Optional[str]:
        """The text others read, when some parameter is secret (`bid ?`); None when nothing is."""
        if not self.secret:
            return None
        return " ".join([self.name] + ["?" if w is None else w(v) for w, v in zip(self.redacted, values)])

    def parse_token(self, i: int, tok: str) -> Any:
        """What one token of parameter `i` names (one thing, for `some`): a player's seat from `p1`,
        a die's number from 0 from `1`, a number; a card or a choice its word as written.  None
        when no such value is written so.  (Whether the value is possible now is the rules' to say.)"""
        return self.params[i].parse(tok)

    def args(self, values: tuple) -> dict[str, Any]:
        """The values by parameter name, typed as `Action.args` gives them: a player their seat, a
        die its number (1 first), a card its label, a number an int, a choice its word, `some` a
        tuple of them."""
        labels = self.card_labels
        out: dict[str, Any] = {}
        for p, v in zip(self.params, values):
            kind = p.element.kind if p.element is not None else "number"
            if p.kind == "some":
                out[p.name] = tuple(_typed(kind, x, labels) for x in v)
            else:
                out[p.name] = v if p.kind == "choice" else _typed(kind, v, labels)
        return out

    def __repr__(self) -> str:
        return f"<ActionForm {self.number} {self.name}>"


class Forms:
    """The forms of every action of one model, and its tables (see the module's docstring).

    Faces are by index, as `analysis.faces` numbers them, with one index more (`unrolled`, label
    "-", value 0) for a die not rolled yet; a model without dice has empty tables.  Zones are named
    as the rules name them: `deck`, `rows(2)`, `hand of p1`."""

    def __init__(self, model: m.Model):
        self.title = model.title
        self.card_labels: tuple[str, ...] = tuple(ci.label for ci in model.cards)
        self.card_values: dict[str, list] = card_values(model)
        self.actions: dict[str, ActionForm] = {
            name: ActionForm(a, i, self.card_labels) for i, (name, a) in enumerate(model.actions.items())}
        self.by_number: tuple[ActionForm, ...] = tuple(self.actions.values())
        self.number: dict[str, int] = {name: i for i, name in enumerate(self.actions)}
        if model.dice is not None:
            f = faces(model)
            self.nfaces = len(model.dice.faces)
            self.face_labels: tuple = f.labels
            self.face_values: tuple = f.values
            self.face_kinds: tuple = f.kinds
            self.face_canonical: tuple = f.canonical
            self.chance_outcomes: tuple[tuple[str, int, Fraction], ...] = f.outcomes
        else:
            self.nfaces = 0
            self.face_labels = self.face_values = self.face_kinds = self.face_canonical = ()
            self.chance_outcomes = ()
        self.unrolled = self.nfaces
        # game slot -> the zone's (or value's) name; player slot -> the name of everybody's one
        self.game_zone_names: dict[int, str] = {}
        self.game_var_names: dict[int, str] = {}
        for v in model.game_vars:
            for i in range(v.family[1] if v.family else 1):
                self.game_var_names[v.slot + i] = v.name
                self.game_zone_names[v.slot + i] = f"{v.name}({v.family[0] + i})" if v.family else v.name
        self.player_var_names: dict[int, str] = {v.slot: v.name for v in model.player_vars}
        self.public_defines: frozenset[str] = frozenset(public_defines(model))

    def roll_text(self, die: int, face: int) -> str:
        """A roll's outcome as the history writes it: `die 2 rolls HEAD` (dice by number, 1 first)."""
        return f"die {die + 1} rolls {self.face_labels[face]}"

    def zone_name(self, is_game: bool, slot: int, owner: int) -> str:
        """A zone as the rules name it: game slot `slot`, or a player's zone of slot `slot` of
        player `owner`."""
        return self.game_zone_names[slot] if is_game else f"{self.player_var_names[slot]} of p{owner}"

    def chance_args(self, name: str, values: tuple) -> dict[str, Any]:
        """A chance outcome's values typed as `Action.args` gives them: a roll's `die` (1 first)
        and `face`, a draw's `card`."""
        if name == "roll":
            return {"die": values[0] + 1, "face": self.face_labels[values[1]]}
        return {"card": self.card_labels[values[0]]}

    def __repr__(self) -> str:
        return f"<Forms of {self.title!r}: {len(self.actions)} actions>"


#: id(model) -> its Forms, while the model lives (a model is frozen, and its nodes unhashable).
_MADE: dict[int, Forms] = {}


def forms_of(model: m.Model) -> Forms:
    """The forms of a model, made once (they keep nothing of the model itself)."""
    got = _MADE.get(id(model))
    if got is None:
        got = _MADE[id(model)] = Forms(model)
        weakref.finalize(model, _MADE.pop, id(model), None)
    return got

"""Stage 1 output: the syntax tree of a .fish file.

Plain, frozen, slotted attrs classes, one per construct of the grammar.  Every node carries a `span`
(excluded from equality, so two trees compare by meaning) and nothing is resolved yet: names are
just names.  The checker turns these into the typed model of `fishrules.model`.  Every node is a
`fishrules.walk.Node`: `iter_child_nodes()`, `walk()` and `find_all(kinds)` look through a tree.
"""

from __future__ import annotations

from typing import Optional

import attrs

from .errors import Span
from .walk import Node

node = attrs.frozen(slots=True)


def _span() -> Span | None:
    return attrs.field(default=None, eq=False, repr=False, kw_only=True)


# ---- expressions ---------------------------------------------------------------------------------


class Expr(Node):
    __slots__ = ()


@node
class Number(Expr):
    value: int
    span: Span | None = _span()


@node
class Text(Expr):
    value: str
    span: Span | None = _span()


@node
class Boolean(Expr):
    value: bool
    span: Span | None = _span()


@node
class Nobody(Expr):
    span: Span | None = _span()


@node
class You(Expr):
    span: Span | None = _span()


@node
class It(Expr):
    span: Span | None = _span()


@node
class Name(Expr):
    name: str
    span: Span | None = _span()


@node
class Your(Expr):
    """`your NAME`: a per-player value of the player the rule speaks to."""

    name: str
    span: Span | None = _span()


@node
class Possessive(Expr):
    """`owner's NAME`."""

    owner: Expr
    name: str
    span: Span | None = _span()


@node
class AttrOf(Expr):
    """`NAME of thing`: an attribute of one thing, or of every thing in a collection."""

    name: str
    target: Expr
    span: Span | None = _span()


@node
class Beside(Expr):
    """`left of P` (offset +1, the next player clockwise) or `right of P` (offset -1)."""

    offset: int
    player: Expr
    span: Span | None = _span()


@node
class Call(Expr):
    func: str
    args: tuple[Expr, ...]
    span: Span | None = _span()


@node
class BinOp(Expr):
    """Arithmetic (+ - *), logic (and or) and comparison (= != < <= > >= is isnot in notin)."""

    op: str
    left: Expr
    right: Expr
    span: Span | None = _span()


@node
class Not(Expr):
    operand: Expr
    span: Span | None = _span()


@node
class Negate(Expr):
    operand: Expr
    span: Span | None = _span()


@node
class IfExpr(Expr):
    test: Expr
    then: Expr
    otherwise: Expr
    span: Span | None = _span()


@node
class Shows(Expr):
    """`die shows FACE`."""

    thing: Expr
    face: str
    span: Span | None = _span()


@node
class Quantified(Expr):
    """`every|any|no NAME [in COLL] (shows FACE | where COND)`."""

    quantifier: str  # "every", "any", "no"
    var: str
    source: Optional[Expr]
    face: Optional[str]
    condition: Optional[Expr]
    span: Span | None = _span()


@node
class Showing(Expr):
    collection: Expr
    face: str
    span: Span | None = _span()


@node
class OtherThan(Expr):
    collection: Expr
    excluded: Expr
    span: Span | None = _span()


@node
class StartingWith(Expr):
    collection: Expr
    first: Expr
    span: Span | None = _span()


@node
class Going(Expr):
    collection: Expr
    direction: Expr
    span: Span | None = _span()


@node
class Where(Expr):
    collection: Expr
    condition: Expr
    span: Span | None = _span()


@node
class WithBest(Expr):
    """`COLL with the highest|lowest KEY`: every element that ties for the best key."""

    collection: Expr
    highest: bool
    key: Expr
    span: Span | None = _span()


# ---- types ---------------------------------------------------------------------------------------


class TypeSpec(Node):
    __slots__ = ()


@node
class NumberType(TypeSpec):
    low: Optional[Expr] = None
    high: Optional[Expr] = None
    span: Span | None = _span()


@node
class BoolType(TypeSpec):
    span: Span | None = _span()


@node
class PlayerType(TypeSpec):
    span: Span | None = _span()


@node
class ListType(TypeSpec):
    span: Span | None = _span()


@node
class ZoneType(TypeSpec):
    of: Optional[str] = None  # the kind of cards it holds, if said
    span: Span | None = _span()


@node
class ZonesType(TypeSpec):
    """`zones from 1 to 3 [of KIND]`: a numbered family of zones, such as rows or board circles."""

    low: Expr
    high: Expr
    of: Optional[str] = None
    span: Span | None = _span()


@node
class EnumType(TypeSpec):
    choices: tuple[str, ...]
    span: Span | None = _span()


# ---- statements ----------------------------------------------------------------------------------


class Stmt(Node):
    __slots__ = ()


@node
class Set(Stmt):
    target: Expr
    value: Expr
    span: Span | None = _span()


@node
class AddTo(Stmt):
    value: Expr
    target: Expr
    span: Span | None = _span()


@node
class SubtractFrom(Stmt):
    value: Expr
    target: Expr
    span: Span | None = _span()


@node
class RemoveFrom(Stmt):
    value: Expr
    target: Expr
    span: Span | None = _span()


@node
class Clear(Stmt):
    target: Expr
    span: Span | None = _span()


@node
class Roll(Stmt):
    dice: Expr
    span: Span | None = _span()


@node
class Play(Stmt):
    phase: str
    argument: Optional[Expr]
    span: Span | None = _span()


@node
class PlayAgain(Stmt):
    span: Span | None = _span()


@node
class End(Stmt):
    name: str
    span: Span | None = _span()


@node
class Chooses(Stmt):
    chooser: Expr
    actions: tuple[str, ...]
    span: Span | None = _span()
    action_spans: tuple[Span, ...] = attrs.field(default=(), eq=False, repr=False, kw_only=True)


@node
class Move(Stmt):
    """`move CARDS to ZONE [face up|face down]`."""

    cards: Expr
    zone: Expr
    facing: Optional[str] = None  # "up", "down", or None (unchanged)
    span: Span | None = _span()


@node
class Draw(Stmt):
    """`draw [N] from ZONE to ZONE`: from the top, or at random from a shuffled zone."""

    count: Optional[Expr]
    source: Expr
    target: Expr
    facing: Optional[str] = None
    span: Span | None = _span()


@node
class Shuffle(Stmt):
    zone: Expr
    span: Span | None = _span()


@node
class Reveal(Stmt):
    cards: Expr
    span: Span | None = _span()


@node
class Unavailable(Stmt):
    """`unavailable "why"`: these rules cannot be played as asked (an OptionError for the caller)."""

    message: str
    span: Span | None = _span()


@node
class WhenBroken(Stmt):
    """`when "RULE" is broken [and COND]:` — in an action, the rule's violation is not refused:
    the block runs instead of the action's effects."""

    rule: str
    condition: Optional[Expr]
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class ChoosesTogether(Stmt):
    """`each of PLAYERS secretly chooses A or B`: a simultaneous secret choice."""

    choosers: Expr
    actions: tuple[str, ...]
    span: Span | None = _span()
    action_spans: tuple[Span, ...] = attrs.field(default=(), eq=False, repr=False, kw_only=True)


@node
class Nothing(Stmt):
    span: Span | None = _span()


@node
class Require(Stmt):
    name: str
    condition: Expr
    span: Span | None = _span()


@node
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    otherwise: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class Repeat(Stmt):
    kind: str  # "times", "while", "until", "forever"
    expr: Optional[Expr]
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class ForEach(Stmt):
    var: str
    source: Optional[Expr]  # None: the collection named by `var` (player -> players, die -> dice)
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class RuleBlock(Stmt):
    """`rule "name": ...` — a named block an overlay can replace, remove or insert next to."""

    name: str
    body: tuple[Stmt, ...]
    span: Span | None = _span()


# ---- top-level items -----------------------------------------------------------------------------


class Item(Node):
    __slots__ = ()


@node
class GameDecl(Item):
    title: str
    span: Span | None = _span()


@node
class PlayersDecl(Item):
    low: int
    high: int
    span: Span | None = _span()


@node
class Extends(Item):
    target: str
    span: Span | None = _span()


@node
class OptionDecl(Item):
    name: str
    type: TypeSpec
    default: Expr
    doc: Optional[str] = None
    span: Span | None = _span()


@node
class Face(Node):
    name: str
    value: int
    span: Span | None = _span()


@node
class DiceDecl(Item):
    count: Expr
    faces: tuple[Face, ...]
    span: Span | None = _span()


@node
class VarDecl(Item):
    scope: str  # "player" or "game"
    name: str
    type: TypeSpec
    initial: Optional[Expr]
    visibility: str = "public"  # "public", "secret" (owner only), "hidden" (nobody), "internal" (no view)
    seen_by: Optional[Expr] = None  # `seen by PLAYER`: that player only
    span: Span | None = _span()


@node
class CardAttr(Node):
    """One attribute of a set of cards: its values with how many of each, or a range."""

    name: str
    values: tuple  # ((value, count), ...); value is an int or a name
    span: Span | None = _span()

    data_fields = ("values",)


@node
class CardsDecl(Item):
    name: str
    attrs: tuple[CardAttr, ...]
    span: Span | None = _span()


@node
class Define(Item):
    name: str
    expr: Expr
    span: Span | None = _span()
    params: tuple = ()  # ((name, type word), ...) for `define NAME(x: number): ...`


@node
class BoardDecl(Item):
    """Circles numbered low..high joined by straight lines (each a sequence of circles)."""

    low: int
    high: int
    lines: tuple[tuple[int, ...], ...]
    span: Span | None = _span()
    line_spans: tuple = attrs.field(default=(), eq=False, repr=False, kw_only=True)  # where each line is written

    data_fields = ("lines", "line_spans")


@node
class Phase(Item):
    name: str
    param: Optional[str]
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class ParamType(Node):
    kind: str  # "some", "one of", "number", "choice"
    source: Optional[Expr] = None
    low: Optional[Expr] = None
    high: Optional[Expr] = None
    span: Span | None = _span()
    choices: tuple[str, ...] = ()  # for `one of A or B`


@node
class Param(Node):
    name: str
    type: ParamType
    secret: bool = False  # shown as `?` to everybody but the actor
    span: Span | None = _span()


@node
class Action(Item):
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class Score(Item):
    name: str
    expr: Expr
    span: Span | None = _span()


@node
class Winners(Item):
    expr: Expr
    span: Span | None = _span()


@node
class Variant(Item):
    name: str
    doc: Optional[str]
    items: tuple[Item, ...]
    span: Span | None = _span()


@node
class Replace(Item):
    item: Item  # any declaration, or a RuleBlock
    span: Span | None = _span()


@node
class Remove(Item):
    kind: str  # "phase", "action", "define", "option", "score", "rule"
    name: str
    span: Span | None = _span()


@node
class AddRule(Item):
    """`add rule "X" before|after rule "Y"` or `... at the start|end of phase|action NAME`."""

    rule: RuleBlock
    where: str  # "before", "after", "start", "end"
    anchor_kind: str  # "rule", "phase", "action"
    anchor: str
    span: Span | None = _span()


@node
class PresentWords(Node):
    """`value NAME: "label", "description"` (or `action NAME PARAM: …`) in a presentation block;
    `hidden` (a value the table need not show) is `hidden=True` with no label; `log NAME: "…"` is
    kind "log" with the sentence as its label; `value NAME: out of BOUND` has `bound`; `about: "…"`
    is kind "about" (no name) with its text as label."""

    kind: str  # "value", "action", "option", "attribute", "phase", "log", "about"
    name: str
    param: Optional[str] = None
    label: Optional[str] = None
    description: Optional[str] = None
    hidden: bool = False
    bound: Optional[str] = None
    span: Span | None = _span()


@node
class Presentation(Item):
    """A `presentation:` block: how a table says things (never what the game is)."""

    entries: tuple[PresentWords, ...]
    span: Span | None = _span()


@node
class Module(Node):
    """One parsed file."""

    items: tuple[Item, ...]
    source: object = attrs.field(default=None, eq=False, repr=False)

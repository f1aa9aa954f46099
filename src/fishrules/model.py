"""Stage 3 output: the checked, typed model of a game.

The checker (`fishrules.checker`) resolves every name of the syntax tree and produces these nodes:
expressions know their type, variables are numbered slots, and every piece of syntax that can fail
at run time keeps its `span`.  The compiler turns the model into a runnable program; nothing here
runs.  Every node (but `Type`, a value) is a `fishrules.walk.Node`: `iter_child_nodes()`, `walk()`
and `find_all(kinds)` look through a tree.
"""

from __future__ import annotations

from typing import Optional

import attrs

from .errors import Span
from .walk import Node

node = attrs.frozen(slots=True)


def _span():
    return attrs.field(default=None, eq=False, repr=False, kw_only=True)


# ---- types ---------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Type:
    """`kind` is one of: number, bool, player, text, list, die, symbol, collection.

    `domain` names the set of symbols of a symbol type (`face`, or an option/variable's own
    choices); `element` is the element type of a collection.
    """

    kind: str
    domain: Optional[str] = None
    element: Optional["Type"] = None

    @property
    def is_collection(self) -> bool:
        """A collection of things: a zone holds cards and is one too."""
        return self.kind in ("collection", "zone")

    def __str__(self) -> str:
        if self.kind == "collection":
            return {"die": "dice", "player": "players", "card": "cards"}.get(self.element.kind, f"collection of {self.element}")
        if self.kind == "zone":
            return "a zone of cards"
        if self.kind == "card":
            return f"a {self.domain} card" if self.domain else "a card"
        if self.kind == "symbol":
            return f"one of the {self.domain} choices" if self.domain != "face" else "a face"
        if self.kind == "list":
            return "a list of numbers" if self.element is None else "a list of choices"
        if self.kind == "bool":
            return "yes or no"
        return {"number": "a number", "player": "a player", "die": "a die", "text": "a text"}.get(self.kind, self.kind)


NUMBER = Type("number")
BOOL = Type("bool")
PLAYER = Type("player")
TEXT = Type("text")
LIST = Type("list")
DIE = Type("die")
DICE = Type("collection", element=DIE)
PLAYERS = Type("collection", element=PLAYER)
FACE = Type("symbol", domain="face")


def symbol_type(domain: str) -> Type:
    return Type("symbol", domain=domain)


def card_type(card_set: Optional[str] = None) -> Type:
    return Type("card", domain=card_set)


def zone_type(card_set: Optional[str] = None) -> Type:
    return Type("zone", element=card_type(card_set))


def cards_type(card_set: Optional[str] = None) -> Type:
    return Type("collection", element=card_type(card_set))


# ---- expressions ---------------------------------------------------------------------------------


class Expr(Node):
    __slots__ = ()
    type: Type


@node
class Const(Expr):
    value: object  # data (a board's thousand circles, say), never an expression
    type: Type
    span: Span | None = _span()

    data_fields = ("value",)


@node
class Local(Expr):
    """A slot of the running block: a phase's player, an action's actor and parameters, a loop
    variable or the element a filter is looking at."""

    slot: int
    type: Type
    name: str = ""
    span: Span | None = _span()


@node
class GameVar(Expr):
    """A game-wide variable or option (options are read-only variables)."""

    slot: int
    type: Type
    name: str = ""
    span: Span | None = _span()


@node
class PlayerVar(Expr):
    player: Expr
    slot: int
    type: Type
    name: str = ""
    span: Span | None = _span()


@node
class DefineRef(Expr):
    name: str
    player: Optional[Expr]  # the player a per-player define is about
    type: Type
    span: Span | None = _span()
    args: tuple = ()  # for a define with parameters


@node
class ScoreOf(Expr):
    player: Expr
    type: Type = NUMBER
    span: Span | None = _span()


@node
class WinnersRef(Expr):
    type: Type = PLAYERS
    span: Span | None = _span()


@node
class AllPlayers(Expr):
    type: Type = PLAYERS
    span: Span | None = _span()


@node
class AllDice(Expr):
    type: Type = DICE
    span: Span | None = _span()


@node
class DieAttr(Expr):
    """`face`, `value` or `number` (1-based position) of a die."""

    die: Expr
    attr: str
    type: Type
    span: Span | None = _span()


@node
class AllCards(Expr):
    """Every card of a set, wherever it is."""

    card_set: str
    type: Type
    span: Span | None = _span()


@node
class CardAttr(Expr):
    card: Expr
    attr: str
    type: Type
    span: Span | None = _span()


@node
class ZoneAt(Expr):
    """One zone of a family: `rows(2)`."""

    base: int  # the game slot of the family's first zone
    low: int
    count: int
    index: Expr
    name: str
    type: Type
    span: Span | None = _span()


@node
class DieShows(Expr):
    die: Expr
    kind: str
    type: Type = BOOL
    span: Span | None = _span()


@node
class Beside(Expr):
    player: Expr
    offset: int
    type: Type = PLAYER
    span: Span | None = _span()


@node
class Seat(Expr):
    player: Expr
    type: Type = NUMBER
    span: Span | None = _span()


@node
class Builtin(Expr):
    func: str
    args: tuple[Expr, ...]
    type: Type
    span: Span | None = _span()


@node
class BinOp(Expr):
    op: str  # + - * and or = != < <= > >= in notin
    left: Expr
    right: Expr
    type: Type
    span: Span | None = _span()


@node
class Not(Expr):
    operand: Expr
    type: Type = BOOL
    span: Span | None = _span()


@node
class Negate(Expr):
    operand: Expr
    type: Type = NUMBER
    span: Span | None = _span()


@node
class IfExpr(Expr):
    test: Expr
    then: Expr
    otherwise: Expr
    type: Type
    span: Span | None = _span()


@node
class Filter(Expr):
    """Elements of `collection` (bound to local `slot` in turn) for which `condition` holds."""

    collection: Expr
    slot: int
    condition: Expr
    type: Type
    span: Span | None = _span()


@node
class Project(Expr):
    """A number per element: `value of dice showing BODY`."""

    collection: Expr
    slot: int
    expr: Expr
    type: Type = LIST
    span: Span | None = _span()


@node
class Best(Expr):
    collection: Expr
    slot: int
    key: Expr
    highest: bool
    type: Type
    span: Span | None = _span()


@node
class Quantified(Expr):
    quantifier: str  # every, any, no
    collection: Expr
    slot: int
    condition: Expr
    type: Type = BOOL
    span: Span | None = _span()


@node
class Exclude(Expr):
    collection: Expr
    excluded: Expr
    type: Type
    span: Span | None = _span()


@node
class Rotate(Expr):
    """Players in turn order, starting with `first`."""

    collection: Expr
    first: Expr
    type: Type
    span: Span | None = _span()


@node
class Direction(Expr):
    """Players in the order given by a direction: `clockwise` keeps it, `counterclockwise` reverses
    it (keeping the first player first)."""

    collection: Expr
    direction: Expr
    type: Type
    span: Span | None = _span()


@node
class Singleton(Expr):
    """A single player used where players are expected (`winners: fryer`)."""

    player: Expr
    type: Type = PLAYERS
    span: Span | None = _span()


# ---- statements ----------------------------------------------------------------------------------


class Stmt(Node):
    __slots__ = ()


@node
class Assign(Stmt):
    target: Expr  # GameVar or PlayerVar
    value: Expr
    span: Span | None = _span()


@node
class Change(Stmt):
    """`add`/`subtract` on a number, `add` (append or extend), `remove` or `clear` on a list."""

    op: str  # "increase", "decrease", "append", "extend", "remove", "clear"
    target: Expr
    value: Optional[Expr]
    span: Span | None = _span()


@node
class RollDice(Stmt):
    dice: Expr
    list_slot: int
    span: Span | None = _span()


@node
class CallPhase(Stmt):
    phase: str
    argument: Optional[Expr]
    span: Span | None = _span()


@node
class Restart(Stmt):
    span: Span | None = _span()


@node
class EndPhase(Stmt):
    phase: str  # "game" ends the whole game
    span: Span | None = _span()


@node
class Choose(Stmt):
    chooser: Expr
    actions: tuple[str, ...]
    slot: int
    span: Span | None = _span()


@node
class MoveCards(Stmt):
    cards: Expr
    target: Expr  # a zone variable
    facing: Optional[str]
    span: Span | None = _span()


@node
class DrawCards(Stmt):
    count: Expr
    source: Expr
    target: Expr
    facing: Optional[str]
    slot: int  # three locals: cards still to draw, source key, target key
    span: Span | None = _span()


@node
class ShuffleZone(Stmt):
    zone: Expr
    span: Span | None = _span()


@node
class RevealCards(Stmt):
    cards: Expr
    span: Span | None = _span()


@node
class Refuse(Stmt):
    message: str
    span: Span | None = _span()


@node
class ChooseTogether(Stmt):
    choosers: Expr
    actions: tuple[str, ...]
    slot: int  # two locals: who chooses, and what they have chosen so far
    span: Span | None = _span()


@node
class NoOp(Stmt):
    span: Span | None = _span()


@node
class IfStmt(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    otherwise: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class RepeatStmt(Stmt):
    kind: str  # times, while, until, forever
    expr: Optional[Expr]
    slot: int  # counter for `times`
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class ForEachStmt(Stmt):
    var_slot: int
    collection: Expr
    list_slot: int  # the snapshot of the collection, then the index at list_slot + 1
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class RuleStmt(Stmt):
    name: str
    body: tuple[Stmt, ...]
    span: Span | None = _span()


# ---- declarations --------------------------------------------------------------------------------


@node
class Option(Node):
    name: str
    type: Type
    default: object
    low: Optional[int] = None
    high: Optional[int] = None
    choices: tuple[str, ...] = ()
    doc: Optional[str] = None
    slot: int = 0
    span: Span | None = _span()


@node
class FaceInfo(Node):
    kind: str
    value: int
    label: str


@node
class Dice(Node):
    count: Expr
    faces: tuple[FaceInfo, ...]
    span: Span | None = _span()


@node
class Variable(Node):
    name: str
    scope: str  # game or player
    type: Type
    initial: Expr
    visibility: str
    slot: int
    choices: tuple[str, ...] = ()
    seen_by: Optional[Expr] = None
    family: Optional[tuple[int, int]] = None  # (low, count) of a zone family
    span: Span | None = _span()


@node
class CardInfo(Node):
    card_set: str
    values: tuple  # ((attribute, value), ...)
    label: str

    data_fields = ("values",)


@node
class CardSet(Node):
    name: str
    attrs: tuple  # ((attribute, Type), ...)
    first: int
    count: int
    span: Span | None = _span()


@node
class DefineDecl(Node):
    name: str
    per_player: bool
    expr: Expr
    nlocals: int
    type: Type
    span: Span | None = _span()
    params: tuple = ()  # ((name, Type), ...), in slots 0, 1, ...


@node
class Board(Node):
    low: int
    high: int
    lines: tuple[tuple[int, ...], ...]
    span: Span | None = _span()

    data_fields = ("lines",)


@node
class PhaseDecl(Node):
    name: str
    param: Optional[str]
    body: tuple[Stmt, ...]
    nlocals: int
    span: Span | None = _span()


@node
class ParamDecl(Node):
    name: str
    kind: str  # some, one of, number
    slot: int
    type: Type  # the parameter's own type (a collection for `some`)
    source: Optional[Expr] = None
    low: Optional[Expr] = None
    high: Optional[Expr] = None
    secret: bool = False
    choices: tuple = ()  # for kind "choice"
    span: Span | None = _span()


@node
class RequireDecl(Node):
    name: str
    condition: Expr
    span: Span | None = _span()


@node
class BrokenDecl(Node):
    rule: str
    condition: Optional[Expr]
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@node
class ActionDecl(Node):
    name: str
    params: tuple[ParamDecl, ...]
    requires: tuple[RequireDecl, ...]
    body: tuple[Stmt, ...]
    nlocals: int
    span: Span | None = _span()
    broken: tuple = ()  # BrokenDecl: violations accepted instead of refused


@node
class ScoreTerm(Node):
    name: str
    expr: Expr
    nlocals: int
    span: Span | None = _span()


@attrs.frozen
class Presentation:
    """How a table says things, from the rules' `presentation:` blocks, checked (every name is
    one the rules declare): never anything of what the game is.  A name with no entry reads as its
    own words (`fishrules.checker.presentation.words`)."""

    #: (kind, name, parameter or None) -> (label, description or None); kinds: "value" (a variable,
    #: a zone or a define), "action", "option", "attribute", "phase"
    words: dict = attrs.field(factory=dict)
    #: the values (variables and defines) a table need not show
    hidden: frozenset = frozenset()
    #: action -> the sentence it reads as in a log (`{player}` and `{PARAM}` stand for who and what)
    logs: dict = attrs.field(factory=dict)
    #: value -> what bounds it, as a table says "roll 2 of 3": a number (a named number's), or the
    #: name of a public game value or define the table reads it from
    bounds: dict = attrs.field(factory=dict)
    #: what the game is, in paragraphs (`about: "…"`), for a table's rules panel
    about: tuple = ()


@node
class Model(Node):
    title: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    dice: Optional[Dice]
    game_vars: tuple[Variable, ...]
    player_vars: tuple[Variable, ...]
    defines: dict  # name -> DefineDecl, in declaration order
    phases: dict  # name -> PhaseDecl
    actions: dict  # name -> ActionDecl
    scores: tuple[ScoreTerm, ...]
    winners: Expr
    winners_nlocals: int
    symbols: dict  # domain -> tuple of symbol names
    n_game_slots: int
    variants: tuple[str, ...] = ()
    card_sets: tuple = ()  # CardSet, in order
    board: Optional[Board] = None
    cards: tuple = ()  # CardInfo per card id
    source_names: tuple[str, ...] = ()
    warnings: tuple = ()  # Diagnostics that do not stop the rules from running
    span: Optional[Span] = attrs.field(default=None, eq=False, repr=False)  # line 1 of the rules' file
    presentation: Presentation = attrs.field(factory=Presentation, eq=False, repr=False)

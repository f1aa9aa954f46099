"""The kernel program: a flat integer program, the one both emitters (Python and C) print.

`fishrules.kernel.lower` turns a checked model into these nodes; `fishrules.kernel.arms` cuts the
functions that can wait for a player into resumable arms; `emit_python` and `emit_c` print the
same nodes as two languages.  Every value is an integer (a number, a seat, a card, a die, a
symbol's number, 0 or 1) or NIL (nothing: `nobody`, no card, no choice).  The state is one array
of integers, `S`, laid out by `fishrules.kernel.layout`; the program reads and writes it by index.

Three kinds of node:

- expressions (`Expr`): integer values;
- streams (`Stream`): the elements of a collection, one at a time, consumed where they are made
  (`count`, `any`, a filter of a filter): no collection is built unless one is needed;
- buffers (`BufExpr`): a collection built once (a list in Python, a slice of the kernel's arena in
  C), for what must look at it more than once or in another order;

and statements (`Stmt`), among which the few that can make the game wait: `CallBlock` (a phase
or an action whose rules may wait), `Decide` and `Together` (players choose), `Roll` and `Draw` (dice, cards
from a shuffled zone, when chance is the caller's).  Nothing of a rule
file's text appears here: names are numbers, and a node's `site` only numbers where it came from.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

import attrs

node = attrs.frozen(slots=True)


class Position(NamedTuple):
    """Where in the rules the kernel stands (`KernelProgram.positions`, `S[H_AT]`): the span of a
    statement or of an `if` condition, or of a block itself (`kind` "statement", "condition",
    "block"), with the block it is in (the engine's block number); or a piece that has words of its
    own (a divide, a parameter's choices, a family of zones, a phase: `kind` says which, `detail`
    what its words name)."""

    span: Any
    block: int
    kind: str
    detail: Any = None


# ---- expressions ---------------------------------------------------------------------------------


class Expr:
    __slots__ = ()


@node
class Int(Expr):
    value: int


@node
class Nil(Expr):
    """Nothing: `nobody`, no card, no choice (None in Python, NIL in C)."""


@node
class Var(Expr):
    """A local of the function (its name is the lowering's own, never a rule's)."""

    name: str


@node
class Get(Expr):
    """S[index]."""

    index: Expr


@node
class Tab(Expr):
    """A constant table of the program, `table[index]` (the index is in range by construction)."""

    table: str
    index: Expr


@node
class Attr(Expr):
    """`table[card]`, or NIL when the card is NIL (an attribute of no card is nothing)."""

    table: str
    card: Expr


@node
class Arith(Expr):
    """`+`, `-` or `*` of two numbers; nothing (NIL) on either side is a fault, and so is a result
    past the 64-bit range (C).  `*` is checked against the rules' ±MAX_NUMBER as the engine does."""

    op: str
    left: Expr
    right: Expr


@node
class Div(Expr):
    """`divide(a, b)`: rounded down; by zero is a fault (`why`: S[H_WHY] then, its own position)."""

    left: Expr
    right: Expr
    why: int = 0


@node
class Mod(Expr):
    """`a mod n` rounded down (n > 0): the seat beside a seat."""

    left: Expr
    right: Expr


@node
class Cmp(Expr):
    """`==` `!=` (nothing equals nothing) or `<` `<=` `>` `>=` (nothing is a fault)."""

    op: str
    left: Expr
    right: Expr


@node
class And(Expr):
    left: Expr
    right: Expr


@node
class Or(Expr):
    left: Expr
    right: Expr


@node
class Not(Expr):
    operand: Expr


@node
class Neg(Expr):
    operand: Expr


@node
class Cond(Expr):
    test: Expr
    then: Expr
    otherwise: Expr


@node
class Call(Expr):
    """A function of the program that gives a number."""

    fn: str
    args: tuple


@node
class Help(Expr):
    """A helper of the kernel's runtime that gives a number (kernel/pyruntime.py and kernel/kernel.h spell each)."""

    name: str
    args: tuple


@node
class Bounded(Expr):
    """A number checked to lie within ±MAX_NUMBER (a fault otherwise)."""

    value: Expr


@node
class Len(Expr):
    buf: "BufExpr"


@node
class At(Expr):
    """Element `index` of a buffer (in range by construction)."""

    buf: "BufExpr"
    index: Expr


@node
class Cached(Expr):
    """`value`, worked out the first time it is needed after the last `Forget(name)` and kept in
    the local `name` (a part of a rule that a loop does not change, as the engine's CachePlan)."""

    name: str
    value: Expr


# reductions of a stream


@node
class Count(Expr):
    stream: "Stream"


@node
class Sum(Expr):
    stream: "Stream"


@node
class Extreme(Expr):
    """`min`/`max` of the numbers of a stream; 0 when there are none."""

    stream: "Stream"
    highest: bool


@node
class Pick(Expr):
    """The first or the last element of a stream, `empty` when there is none."""

    stream: "Stream"
    last: bool
    empty: Expr


@node
class Quant(Expr):
    """`any`, `every` or `no` element of a stream (bound to `var`) meets `cond`."""

    kind: str
    stream: "Stream"
    var: str
    cond: Expr


@node
class Contains(Expr):
    """Whether `value` is one of the stream's elements."""

    stream: "Stream"
    value: Expr


# ---- streams -------------------------------------------------------------------------------------


class Stream:
    __slots__ = ()


@node
class SeatsS(Stream):
    """0 .. players - 1."""


@node
class RangeS(Stream):
    """low .. high - 1 (at most `cap` of them)."""

    low: Expr
    high: Expr
    cap: int


@node
class TabS(Stream):
    """The entries of a constant table."""

    table: str


@node
class SliceS(Stream):
    """S[start + 1 .. start + S[start]]: a zone or a list (its length first, at most `cap`)."""

    start: Expr
    cap: int


@node
class BufS(Stream):
    buf: "BufExpr"


@node
class OneS(Stream):
    """One value, or none when it is nothing."""

    value: Expr


@node
class FilterS(Stream):
    source: Stream
    var: str
    cond: Expr


@node
class MapS(Stream):
    source: Stream
    var: str
    value: Expr


# ---- buffers -------------------------------------------------------------------------------------


class BufExpr:
    __slots__ = ()


@node
class BufVar(BufExpr):
    """A buffer held by a local (of at most `cap` elements)."""

    name: str
    cap: int


@node
class Collect(BufExpr):
    """The elements of a stream, in order."""

    stream: Stream


@node
class CallBuf(BufExpr):
    """A function of the program that gives a collection (of at most `cap` elements)."""

    fn: str
    args: tuple
    cap: int


@node
class HelpBuf(BufExpr):
    """A helper of the runtime that gives a collection (from buffers and numbers; at most `cap`)."""

    name: str
    args: tuple
    cap: int


@node
class BestBuf(BufExpr):
    """The elements of `source` whose `key` (with the element bound to `var`) is the highest (or
    the lowest), in order: one pass over the source, which is not repeated for the keys (a `best`
    of a `best` would otherwise double at every level)."""

    source: Stream
    var: str
    key: Expr
    highest: bool
    cap: int


@node
class CondBuf(BufExpr):
    test: Expr
    then: BufExpr
    otherwise: BufExpr


# ---- statements ----------------------------------------------------------------------------------


class Stmt:
    __slots__ = ()


@node
class Set(Stmt):
    var: str
    value: Expr


@node
class SetBuf(Stmt):
    var: str
    value: BufExpr


@node
class Put(Stmt):
    """S[index] = value."""

    index: Expr
    value: Expr


@node
class If(Stmt):
    test: Expr
    then: tuple
    otherwise: tuple = ()


@node
class While(Stmt):
    """`while test: body` (test worked out before each round)."""

    test: Expr
    body: tuple


@node
class For(Stmt):
    """Each element of a stream, bound to `var` (the stream must not change while it runs)."""

    var: str
    stream: Stream
    body: tuple


@node
class Break(Stmt):
    pass


@node
class Continue(Stmt):
    pass


@node
class Return(Stmt):
    value: Optional[Expr] = None


@node
class ReturnBuf(Stmt):
    value: BufExpr


@node
class Do(Stmt):
    """A helper of the runtime run for what it does (move cards, roll dice, count work)."""

    name: str
    args: tuple


@node
class Fault(Stmt):
    """The rules went wrong here: the kernel stops with `code` (and, for FAULT_RULE, S[H_WHY] =
    `why`: what kernel/faults.py words)."""

    code: int
    why: int = 0


@node
class Here(Stmt):
    """S[H_AT] = pos: the statement (or condition) about to run, where a fault is reported."""

    pos: int


@node
class Forget(Stmt):
    """What `Cached(name, …)` kept is worked out again when next needed."""

    name: str


@node
class Emit(Stmt):
    """A legal move, appended to the list being made: `values` (the action's number, then its
    parameters; a `some` parameter is a buffer).  `broken` says it breaks a rule on purpose (it
    goes after every move that keeps the rules)."""

    values: tuple
    broken: bool = False


# statements that can make the game wait (see fishrules.kernel.arms)


@node
class CallBlock(Stmt):
    """Play a phase (`block`) with its argument, or (block None) the move in the state's move slots."""

    block: Optional[int]
    args: tuple


@node
class Decide(Stmt):
    """`chooser` chooses at decision site `site`; the move chosen is played at once."""

    site: int
    chooser: Expr


@node
class Together(Stmt):
    """The players of `who` (a buffer of distinct seats) choose at once at site `site`; then each
    move is played, in the order of `who`."""

    site: int
    who: BufExpr


@node
class Leave(Stmt):
    """The block stops: `code` is DONE, UNWIND (with `target` the phase ended), RESTART or OVER."""

    code: int
    target: int = -1
    why: int = 0  # UNWIND: S[H_WHY] if the phase ended is not being played


@node
class Roll(Stmt):
    """Dice are rolled: the dice of `dice`, or the one die `one` (a fault if it is nothing).  The
    generator rolls them at once (the `roll`/`roll_one` helpers); when chance is the caller's
    (S[H_MANUAL]) the game waits for each die's face in turn."""

    dice: Optional[BufExpr]
    one: Optional[Expr]


@node
class Draw(Stmt):
    """`count` cards are drawn from zone `src` to zone `dest` (landing as `facing` says, 0/1/2:
    as they were, face up, face down).  The generator draws them at once (the `draw` helper); when
    chance is the caller's (S[H_MANUAL]) the game waits for each card drawn from a shuffled zone."""

    count: Expr
    src: Expr
    dest: Expr
    facing: int


WAITS = (CallBlock, Decide, Together, Roll, Draw)


# ---- functions -----------------------------------------------------------------------------------


@node
class Function:
    """One function of the program.

    `kind`: "block" (a phase or an action, resumable: arguments and locals are kept in its frame
    while the game waits), "enum" (the legal moves of a decision site for `actor`), "value" (gives
    a number), "buffer" (gives a collection) or "proc" (does something, gives nothing).  `scalars`
    and `buffers` name its locals (buffers with their capacity: what a frame keeps of them)."""

    name: str
    kind: str
    params: tuple
    body: tuple
    scalars: tuple = ()
    buffers: tuple = ()  # ((name, capacity), ...)
    comment: str = ""
    block: int = -1  # for a block: its number
    is_phase: bool = False
    loads: tuple = ()  # an action's block, domains and `why`: (local, offset in the move, is a `some` buffer), read when it starts
    cached: tuple = ()  # the locals of `Cached` values (forgotten when the function starts)
    memo: bool = False  # a define worth keeping: its values are kept until the state changes
    at: int = -1  # a block: its own position (S[H_AT] when it starts, as the engine's `at = 0`)


def walk_stmts(body):
    """Every statement of `body`, nested ones included, outer first."""
    todo = list(reversed(body))
    while todo:
        s = todo.pop()
        yield s
        if isinstance(s, If):
            todo.extend(reversed(s.otherwise))
            todo.extend(reversed(s.then))
        elif isinstance(s, (While, For)):
            todo.extend(reversed(s.body))


def waits(body) -> bool:
    return any(isinstance(s, WAITS) for s in walk_stmts(body))


def stream_cap(x: Stream, seats: int, tables: dict) -> int:
    """The most elements a stream can give."""
    if isinstance(x, SeatsS):
        return seats
    if isinstance(x, (RangeS, SliceS)):
        return x.cap
    if isinstance(x, TabS):
        return len(tables[x.table])
    if isinstance(x, OneS):
        return 1
    if isinstance(x, BufS):
        return buf_cap(x.buf, seats, tables)
    if isinstance(x, (FilterS, MapS)):
        return stream_cap(x.source, seats, tables)
    raise AssertionError(x)  # pragma: no cover


def buf_cap(b: BufExpr, seats: int, tables: dict) -> int:
    """The most elements a buffer can hold."""
    if isinstance(b, (BufVar, CallBuf, HelpBuf, BestBuf)):
        return b.cap
    if isinstance(b, Collect):
        return stream_cap(b.stream, seats, tables)
    if isinstance(b, CondBuf):
        return max(buf_cap(b.then, seats, tables), buf_cap(b.otherwise, seats, tables))
    raise AssertionError(b)  # pragma: no cover

"""Lowering, expressions: model expressions -> kernel expressions, streams and buffers.

Every model value becomes an integer: numbers are themselves, yes/no 1/0, a player their seat, a
card its number, a die its index, a choice (a symbol) its number in the program's symbol table,
and nothing (`nobody`, no card, no choice) NIL.  A model collection becomes a stream (its elements
made one at a time where they are used) or a buffer (built once), whichever its user needs.

The engine's own machine builds every filtered or projected collection whole before using it; so
do the streams here: a stage (`where`, `of`) looks at every element even when what uses it stops
early (`any`, `first`), so that a rule that goes wrong on the fifth element goes wrong here too.
Only the condition of `any`/`every`/`no` itself stops at the first answer, as the engine's does.
"""

from __future__ import annotations

from typing import Optional

from .. import model as m
from ..analysis import board_adjacency, board_runs, card_values, faces
from . import ir
from .abi import WHY_DIVIDE, WHY_NOBODY, WHY_ZONE, why
from .layout import H_N, H_NDICE, Layout

__all__ = ["ExprLowering", "Symbols", "Tables"]


class Symbols:
    """Every symbol (choice word, face kind, card attribute word) gets one number, whatever its
    domain: the engine compares symbols by their words, so equal words are equal numbers."""

    def __init__(self):
        self.words: list[str] = []
        self.ids: dict[str, int] = {}

    def id(self, word: str) -> int:
        k = self.ids.get(word)
        if k is None:
            k = self.ids[word] = len(self.words)
            self.words.append(word)
        return k


class Tables:
    """The program's constant tables of integers, by name (equal contents share one table)."""

    def __init__(self):
        self.tables: dict[str, tuple] = {}
        self._by_content: dict[tuple, str] = {}

    def add(self, prefix: str, values) -> str:
        values = tuple(values)
        name = self._by_content.get((prefix, values))
        if name is None:
            name = f"{prefix}{len(self.tables)}"
            self.tables[name] = values
            self._by_content[(prefix, values)] = name
        return name


class ExprLowering:
    """Lowers expressions of one program; `define_fn` maps define names to their kernel functions."""

    def __init__(self, model: m.Model, layout: Layout, symbols: Symbols, tables: Tables):
        self.model = model
        self.layout = layout
        self.card_values = card_values(model)
        self.faces = faces(model)
        self.sym = symbols
        self.tab = tables
        self.define_fn: dict[str, str] = {}
        self.define_cap: dict[str, int] = {}  # a define that gives a collection: how many at most
        self.buffer_locals: set[int] = set()  # model local slots that hold a collection (`some` parameters)
        self._card_attr: dict[str, str] = {}
        self._adjacency = None
        #: where a fault is reported (KernelProgram.positions): statements, conditions, blocks and
        #: the pieces with words of their own; `block` the block being lowered (-1: none)
        self.positions: list[ir.Position] = []
        self.block = -1

    def position(self, span, kind: str, detail=None) -> int:
        """A new entry of the positions, in the block being lowered: its index."""
        self.positions.append(ir.Position(span, self.block, kind, detail))
        return len(self.positions) - 1

    # ---- scalars -----------------------------------------------------------------------------

    def expr(self, e: m.Expr) -> ir.Expr:
        return getattr(self, "x_" + type(e).__name__)(e)

    def const_value(self, v) -> ir.Expr:
        if v is None:
            return ir.Nil()
        if isinstance(v, bool):
            return ir.Int(1 if v else 0)
        if isinstance(v, int):
            return ir.Int(v)
        if isinstance(v, str):
            return ir.Int(self.sym.id(v))
        raise TypeError(f"not a scalar constant: {v!r}")

    def x_Const(self, e):
        return self.const_value(e.value)

    def x_Local(self, e):
        return ir.Var(f"l{e.slot}")

    def x_GameVar(self, e):
        return ir.Get(ir.Int(self.layout.g_index[e.slot]))

    def x_PlayerVar(self, e):
        return ir.Get(self.seat_index(self.layout.p_index[e.slot], self.expr(e.player), 1))

    def seat_index(self, base: int, player: ir.Expr, stride: int, why: int = WHY_NOBODY) -> ir.Expr:
        """S index `base + seat * stride` (the seat checked: nobody is a fault, worded as `why`
        says: a zone of nobody, a value of nobody changed, or plain nobody)."""
        if why == WHY_NOBODY:
            return ir.Help("at_seat", (ir.Int(base), player, ir.Int(stride)))
        return ir.Help("at_seat", (ir.Int(base), player, ir.Int(stride), ir.Int(why)))

    def x_DefineRef(self, e):
        args = self.define_args(e)
        return ir.Call(self.define_fn[e.name], args)

    def define_args(self, e: m.DefineRef) -> tuple:
        if e.args:
            return tuple(self.expr(a) for a in e.args)
        if e.player is not None:
            return (self.expr(e.player),)
        return ()

    def x_ScoreOf(self, e):
        return ir.Call("score", (self.expr(e.player),))

    def x_CardAttr(self, e):
        return ir.Attr(self.card_table(e.attr), self.expr(e.card))

    def card_table(self, attr: str) -> str:
        name = self._card_attr.get(attr)
        if name is None:
            values = []
            for v in self.card_values[attr]:
                if v is None:
                    values.append(None)
                else:
                    values.append(v if isinstance(v, int) else self.sym.id(v))
            name = self._card_attr[attr] = self.tab.add("cv", values)
        return name

    def x_DieAttr(self, e):
        face = ir.Get(ir.Help("at_die", (ir.Int(self.layout.dice), self.expr(e.die))))
        if e.attr == "face":
            kinds = [self.sym.id(k) if k is not None else None for k in self.faces.kinds]
            return ir.Tab(self.tab.add("fk", kinds), face)
        if e.attr == "value":
            return ir.Tab(self.tab.add("fv", self.faces.values), face)
        return ir.Arith("+", ir.Help("die_number", (self.expr(e.die),)), ir.Int(1))

    def shows_table(self, kind: str) -> str:
        return self.tab.add("fs", [1 if k == kind else 0 for k in self.faces.kinds])

    def x_DieShows(self, e):
        face = ir.Get(ir.Help("at_die", (ir.Int(self.layout.dice), self.expr(e.die))))
        return ir.Tab(self.shows_table(e.kind), face)

    def x_Beside(self, e):
        return ir.Mod(ir.Arith("+", self.expr(e.player), ir.Int(e.offset)), ir.Get(ir.Int(H_N)))

    def x_Seat(self, e):
        return ir.Help("seat", (self.expr(e.player),))

    def x_Not(self, e):
        return ir.Not(self.expr(e.operand))

    def x_Negate(self, e):
        return ir.Neg(self.expr(e.operand))

    def x_IfExpr(self, e):
        return ir.Cond(self.expr(e.test), self.expr(e.then), self.expr(e.otherwise))

    _CMP = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

    def x_BinOp(self, e):
        op = e.op
        if op in ("and", "or"):
            a, b = self.expr(e.left), self.expr(e.right)
            return ir.And(a, b) if op == "and" else ir.Or(a, b)
        if op in ("+", "-"):
            return ir.Arith(op, self.expr(e.left), self.expr(e.right))
        if op == "*":
            return ir.Bounded(ir.Arith("*", self.expr(e.left), self.expr(e.right)))
        if op in ("in", "notin"):
            found = ir.Contains(self.stream(e.right), self.expr(e.left))
            return found if op == "in" else ir.Not(found)
        if op in ("=", "!=") and (is_many(e.left.type) or is_many(e.right.type)):
            same = ir.Help("same_items", (self.buf(e.left), self.buf(e.right)))
            return same if op == "=" else ir.Not(same)
        return ir.Cmp(self._CMP[op], self.expr(e.left), self.expr(e.right))

    def x_Quantified(self, e):
        return ir.Quant(e.quantifier, self.stream(e.collection), f"l{e.slot}", self.expr(e.condition))

    def x_Builtin(self, e):
        f, args = e.func, e.args
        if f == "count":
            x = args[0]
            start = self.slice_start(x)
            if start is not None:
                return ir.Get(start)
            return ir.Count(self.stream(x))
        if f == "sum":
            return ir.Sum(self.stream(args[0]))
        if f == "abs":
            return ir.Help("abs", (self.expr(args[0]),))
        if f in ("first", "last"):
            empty = ir.Int(0) if args[0].type == m.LIST else ir.Nil()
            return ir.Pick(self.stream(args[0]), f == "last", empty)
        if f == "divide":
            return ir.Div(self.expr(args[0]), self.expr(args[1]), why(WHY_DIVIDE, self.position(e.span, "divide")))
        if f in ("min", "max"):
            if len(args) == 1:
                return ir.Extreme(self.stream(args[0]), f == "max")
            return ir.Help(f, tuple(self.expr(a) for a in args))
        raise AssertionError(f"not a number: {f}")  # pragma: no cover - the checker types builtins

    # ---- collections -------------------------------------------------------------------------

    def slice_start(self, e: m.Expr) -> Optional[ir.Expr]:
        """The S index of the length of a zone or list `e` names, or None if `e` is not one."""
        t = e.type
        if t.kind == "zone":
            # (a zone a define names is read as the cards it gives: `stream`, `buf`)
            return self.zone_start(e) if self.addressed(e) else None
        if t.kind == "list" and isinstance(e, m.GameVar) and e.slot in self.layout.g_list:
            return ir.Int(self.layout.g_index[e.slot])
        if t.kind == "list" and isinstance(e, m.PlayerVar) and e.slot in self.layout.p_list:
            return self.seat_index(self.layout.p_index[e.slot], self.expr(e.player), self.layout.list_stride(e.slot))
        return None

    def addressed(self, e: m.Expr) -> bool:
        """Whether the zone `e` names is found where it lies in the position (`zone_start`)."""
        if isinstance(e, m.IfExpr):
            return self.addressed(e.then) and self.addressed(e.otherwise)
        return isinstance(e, (m.GameVar, m.PlayerVar, m.ZoneAt))

    def zone_id(self, e: m.Expr) -> ir.Expr:
        """The kernel zone id of the zone `e` names."""
        lay = self.layout
        if isinstance(e, m.GameVar):
            return ir.Int(lay.g_zone[e.slot])
        if isinstance(e, m.PlayerVar):
            return ir.Help("zone_of_seat", (ir.Int(lay.p_zone[e.slot]), self.expr(e.player)))
        if isinstance(e, m.ZoneAt):
            first = lay.g_zone[e.base]
            return ir.Help("zone_in_family", (ir.Int(first), self.expr(e.index), ir.Int(e.low), ir.Int(e.count),
                                              ir.Int(self.family_why(e))))
        if isinstance(e, m.IfExpr):  # `if C then pile(1) otherwise pile(2)`
            return ir.Cond(self.expr(e.test), self.zone_id(e.then), self.zone_id(e.otherwise))
        raise AssertionError(f"not a zone: {e!r}")  # pragma: no cover

    def zone_start(self, e: m.Expr) -> ir.Expr:
        """The S index where the zone `e` names starts (its length, then its cards)."""
        lay = self.layout
        if isinstance(e, m.GameVar):
            return ir.Int(lay.zones[lay.g_zone[e.slot]][0])
        if isinstance(e, m.PlayerVar):
            zid = lay.p_zone[e.slot]
            start, cap = lay.zones[zid]
            return self.seat_index(start, self.expr(e.player), 1 + cap)  # (read: plain nobody, as the engine's)
        if isinstance(e, m.ZoneAt):
            first = lay.g_zone[e.base]
            start, cap = lay.zones[first]
            return ir.Help("family_start", (ir.Int(start), self.expr(e.index), ir.Int(e.low), ir.Int(e.count), ir.Int(1 + cap),
                                            ir.Int(self.family_why(e))))
        if isinstance(e, m.IfExpr):
            return ir.Cond(self.expr(e.test), self.zone_start(e.then), self.zone_start(e.otherwise))
        raise AssertionError(f"not a zone: {e!r}")  # pragma: no cover

    def family_why(self, e: m.ZoneAt) -> int:
        """S[H_WHY] for a zone of the family `e` that does not exist (its words name the family)."""
        return why(WHY_ZONE, self.position(e.span, "zone", (e.name, e.low, e.count)))

    def stream(self, e: m.Expr) -> ir.Stream:
        """The elements of a collection or list, one at a time."""
        if isinstance(e, m.Local) and e.slot in self.buffer_locals:
            return ir.BufS(ir.BufVar(f"l{e.slot}", self.layout.max_subset))
        start = self.slice_start(e)
        if start is not None:
            return ir.SliceS(start, self.slice_cap(e))
        k = getattr(self, "s_" + type(e).__name__, None)
        if k is not None:
            return k(e)
        return ir.BufS(self.buf(e))

    def s_Const(self, e):
        if isinstance(e.value, tuple):
            return ir.TabS(self.tab.add("k", [self._const_item(v) for v in e.value]))
        raise AssertionError(f"not a collection: {e!r}")  # pragma: no cover

    def _const_item(self, v):
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int):
            return v
        return self.sym.id(v)

    def s_AllPlayers(self, e):
        return ir.SeatsS()

    def s_AllDice(self, e):
        return ir.RangeS(ir.Int(0), ir.Get(ir.Int(H_NDICE)), self.layout.dice_cap)

    def s_AllCards(self, e):
        cs = next(c for c in self.model.card_sets if c.name == e.card_set)
        return ir.RangeS(ir.Int(cs.first), ir.Int(cs.first + cs.count), cs.count)

    def s_Singleton(self, e):
        return ir.OneS(self.expr(e.player))

    def s_Filter(self, e):
        return ir.FilterS(self.stream(e.collection), f"l{e.slot}", self.expr(e.condition))

    def s_Project(self, e):
        return ir.MapS(self.stream(e.collection), f"l{e.slot}", self.expr(e.expr))

    def buf(self, e: m.Expr) -> ir.BufExpr:
        """A collection or list built whole."""
        if isinstance(e, m.Local) and e.slot in self.buffer_locals:
            return ir.BufVar(f"l{e.slot}", self.layout.max_subset)
        k = getattr(self, "b_" + type(e).__name__, None)
        if k is not None:
            return k(e)
        return ir.Collect(self.stream(e))

    def b_DefineRef(self, e):
        return ir.CallBuf(self.define_fn[e.name], self.define_args(e), self.define_cap[e.name])

    def b_WinnersRef(self, e):
        return ir.CallBuf("winners", (), self.layout.seats)

    def b_IfExpr(self, e):
        return ir.CondBuf(self.expr(e.test), self.buf(e.then), self.buf(e.otherwise))

    def b_Best(self, e):
        items = self.stream(e.collection)  # lowered once: a best of a best of ... stays linear
        return ir.BestBuf(items, f"l{e.slot}", self.expr(e.key), bool(e.highest), self.cap(items))

    def b_Exclude(self, e):
        items = self.stream(e.collection)
        if is_many(e.excluded.type):
            return ir.HelpBuf("without_all", (ir.Collect(items), self.buf(e.excluded)), self.cap(items))
        return ir.HelpBuf("without_one", (ir.Collect(items), self.expr(e.excluded)), self.cap(items))

    def b_Rotate(self, e):
        items = self.stream(e.collection)
        return ir.HelpBuf("rotate", (ir.Collect(items), self.expr(e.first)), self.cap(items))

    def b_Direction(self, e):
        items = self.stream(e.collection)
        return ir.HelpBuf("direction", (ir.Collect(items), self.expr(e.direction), ir.Int(self.sym.id("counterclockwise"))),
                          self.cap(items))

    def b_Builtin(self, e):
        f, args = e.func, e.args
        if f == "top":
            items = self.stream(args[1])
            return ir.HelpBuf("top", (self.expr(args[0]), ir.Collect(items)), self.cap(items))
        if f == "distinct":
            items = self.stream(args[0])
            return ir.HelpBuf("distinct", (ir.Collect(items),), self.cap(items))
        if f in ("largest", "smallest"):
            items = self.stream(args[1])
            return ir.HelpBuf("largest", (self.expr(args[0]), ir.Collect(items), ir.Int(1 if f == "largest" else 0)),
                              self.cap(items))
        adjacency, runs = self.board()
        if f == "adjacent":
            return ir.HelpBuf("adjacent", (self.expr(args[0]),), max((len(v) for v in adjacency.values()), default=0))
        if f == "slide":
            b = self.model.board
            return ir.HelpBuf("slide", (self.expr(args[0]), ir.Collect(self.stream(args[1]))), b.high - b.low + 1)
        if f in ("first", "last"):
            raise AssertionError("first/last give one thing")  # pragma: no cover
        return ir.Collect(self.stream(e))

    def cap(self, x) -> int:
        """The most elements a stream or buffer can give."""
        if isinstance(x, ir.Stream):
            return ir.stream_cap(x, self.layout.seats, self.tab.tables)
        return ir.buf_cap(x, self.layout.seats, self.tab.tables)

    def slice_cap(self, e: m.Expr) -> int:
        if e.type.kind == "zone":
            lay = self.layout
            if isinstance(e, m.IfExpr):
                return max(self.slice_cap(e.then), self.slice_cap(e.otherwise))
            if isinstance(e, m.GameVar):
                zid = lay.g_zone[e.slot]
            elif isinstance(e, m.PlayerVar):
                zid = lay.p_zone[e.slot]
            else:
                zid = lay.g_zone[e.base]
            return lay.zones[zid][1]
        if isinstance(e, (m.GameVar, m.PlayerVar)):  # (the lists `slice_start` finds in the position)
            return self.layout.list_cap[("g" if isinstance(e, m.GameVar) else "p", e.slot)]
        raise AssertionError(f"not a list of the position: {e!r}")  # pragma: no cover - slice_start gave None

    # ---- what a board looks like ------------------------------------------------------------

    def board(self) -> tuple[dict, dict]:
        """(circle -> circles next to it, in order; circle -> runs along its lines, nearest first)."""
        if self._adjacency is None:
            self._adjacency = (board_adjacency(self.model.board), board_runs(self.model.board))
        return self._adjacency


def is_many(t: m.Type) -> bool:
    """A collection, a zone or a list: something with elements."""
    return t.kind in ("collection", "zone", "list")


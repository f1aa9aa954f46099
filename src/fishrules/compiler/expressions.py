"""Stage 4, expressions: model expressions -> Python expressions, as source text.

`ExprWriter.expr(e, env)` returns the text of one Python expression that computes `e`; `env` says
where each local slot the expression reads lives in the generated code (`L[3]` in a block, `p` in a
score, a comprehension's own variable inside a filter).  Collections are tuples; a filter is a list
comprehension, a quantifier `any`/`all` over a generator; every loop goes through `ch(s, …)`, which
counts what it looks at against the work budget.  Each define becomes one function, its value kept
in the state's memo (until the state next changes) only when working it out loops over something:
a define of a few operations is cheaper to work out again than to look up.

Dispatch is by node type (`visit_<Node>`), as in jinja2's code generator.

Rules may nest an expression as deep as the language allows (`fishrules.limits`), but CPython reads
at most 200 nested brackets in one expression, and its parser and compiler have limits of their own.
So no function's text nests as deep as the rules do: a part of an expression more than
`HOIST_DEPTH` levels inside the expression being written becomes a function of its own
(`def h12(s, L, x3): return …`, called where the part was), which starts again at the left.
"""

from __future__ import annotations

from typing import Optional

from .. import model as m
from ..analysis import board_adjacency, board_runs, free_locals, kept_defines, kept_reads
from .program import Program
from .source import Source, where

__all__ = ["ExprWriter", "Env"]

#: local slot -> the Python text that reads it
Env = dict

#: How many levels of a model expression are written inside one another in one function.  Each
#: level adds at most three brackets (`tuple([x for x in ch(s, …)…])`), a kept value two more once,
#: and the statement around it a few: about a hundred in all, half of what CPython reads.
HOIST_DEPTH = 32
#: More score terms than this are added up with `sum` (see `scores_and_winners`).
_MANY_TERMS = 100

class ExprWriter:
    """Writes expressions, and the functions of defines, scores and winners, into `src`."""

    def __init__(self, src: Source, prog: Program, model: m.Model):
        self.src = src
        self.prog = prog
        self.model = model
        self.define_fn: dict[str, str] = {}  # define name -> its function's name in the code
        self.memo: dict[str, bool] = {}  # define name -> its value is kept in the state's memo
        self.memo_reads: dict[int, Optional[set]] = {}  # memo index -> what the define reads (None: unknown)
        self.memo_by_arg: dict[int, frozenset] = {}  # memo index -> families read at its argument only
        self._by_arg: dict = {}  # define name -> what it reads by argument (see analysis.kept_reads)
        self.cache_plan: Optional[CachePlan] = None  # while an action's rules are written into its loops
        self.score_fn = "score"
        self.score_term_fns: list[str] = []  # each score term's function, in the rules' order
        self.winners_fn = "winners"
        self._level = 0  # how deep inside the expression being written into the current function
        self._heights: dict = {}  # id(node) -> how many levels its expression nests
        self._free: dict = {}  # id(node) -> the local slots it reads (see free_locals)
        src.give("MISSING", _MISSING)

    # ---- functions -------------------------------------------------------------------------------

    def function(self, name: str, params: str, body: str, comment: str = "") -> str:
        """`def name(params): return body`; returns name."""
        head = f"# {comment}\n" if comment else ""
        self.src.add(f"{head}def {name}({params}):\n    return {body}\n")
        return name

    def lambda_(self, e: m.Expr, env: Optional[Env] = None, comment: str = "") -> str:
        """A function `f(s, L)` computing `e` in a block or action (locals in L); returns its name."""
        return self.function(self.src.mint("e"), "s, L", self.expr(e, env or {}), comment)

    def defines(self) -> None:
        """One function per define, in an order where each comes after those it uses."""
        model = self.model
        for name in model.defines:
            self.define_fn[name] = self.src.mint("d")
        self.memo = kept_defines(model)
        for index, (name, d) in enumerate(model.defines.items()):
            fn, key = self.define_fn[name], str(index)
            if d.params:
                params = [f"a{i}" for i in range(len(d.params))]
                env = {i: params[i] for i in range(len(params))}
                head = "s, " + ", ".join(params)
                memo_key = params[0] if len(params) == 1 else "(" + ", ".join(params) + ")"
            elif d.per_player:
                env = {0: "p"}
                head = "s, p"
                memo_key = "p"
            else:
                env = {}
                head = "s"
                memo_key = None
            # Inside the define's comprehensions, what reads only its arguments is worked out once
            # per call (who is on top of circle c, asked for each player in turn).
            plan = self.cache_plan = CachePlan({slot: -1 for slot in env}, 0, self.src, loops=0)
            try:
                body = self.expr(d.expr, env)
            finally:
                self.cache_plan = None
            cached = plan.inits.get(-1, ())
            inits = "".join(f"    {v} = MISSING\n" for v in cached)
            inits_on_miss = "".join(f"        {v} = MISSING\n" for v in cached)  # a kept value needs none
            comment = f"define at {where(d.span)}"
            if self.memo[name]:
                self.memo_reads[index], self.memo_by_arg[index] = kept_reads(model, name, self._by_arg)
                if memo_key is None:  # memo[index] is the value
                    lookup = (f"    memo = s._dmemo\n"
                              f"    v = memo.get({key}, MISSING)\n"
                              f"    if v is MISSING:\n{inits_on_miss}"
                              f"        v = memo[{key}] = {body}\n")
                else:  # memo[index] holds the values by argument
                    lookup = (f"    memo = s._dmemo.get({key})\n"
                              f"    if memo is None:\n"
                              f"        memo = s._dmemo[{key}] = {{}}\n"
                              f"    v = memo.get({memo_key}, MISSING)\n"
                              f"    if v is MISSING:\n{inits_on_miss}"
                              f"        v = memo[{memo_key}] = {body}\n")
                self.src.add(f"# {comment} (its value kept until what it reads changes)\n"
                             f"def {fn}({head}):\n{lookup}    return v\n")
            elif inits:
                self.src.add(f"# {comment}\ndef {fn}({head}):\n{inits}    return {body}\n")
            else:
                self.function(fn, head, body, comment)

    def stale_after(self, part) -> Optional[tuple]:
        """What a change of `part` (("g", slot) or ("p", slot)) makes stale among the memoised
        defines: their indices in the state's memo (all their values forgotten), or (index,
        argument) for a define that reads a zone of a family only at its argument (`top of
        stack(c)`: a change of stack(3) forgets its value for 3 alone); None if that cannot be told
        (forget them all).  Forgetting only these keeps, say, who owns each circle of a board while
        a turn's counters change around it, and the owners of the circles a move did not touch."""
        out: list = []
        for index, r in self.memo_reads.items():
            if r is None:
                return None
            if part in r:
                out.append(index)
                continue
            if part[0] == "g":
                for base, low, count in self.memo_by_arg.get(index, ()):
                    if base <= part[1] < base + count:
                        out.append((index, part[1] - base + low))
        return tuple(out)

    def scores_and_winners(self) -> None:
        model = self.model
        terms = []
        for t in model.scores:
            fn = self.function(self.src.mint("t"), "s, p", self.expr(t.expr, {0: "p"}), f"score at {where(t.span)}")
            terms.append(fn)
        self.score_term_fns = terms
        calls = [f"{t}(s, p)" for t in terms]
        # CPython compiles `a + b + …` as sums nested in one another, and gives up at about 3,000
        # terms (its recursion limit): many terms are added up by `sum` instead.
        total = " + ".join(calls) if len(calls) <= _MANY_TERMS else f"sum(({', '.join(calls)},))"
        self.function(self.score_fn, "s, p", total if terms else "0", "the score")
        self.function(self.winners_fn, "s", f"tuple(sorted(set({self.expr(model.winners, {})})))", "the winners")

    # ---- expressions -----------------------------------------------------------------------------

    def expr(self, e: m.Expr, env: Env) -> str:
        level = self._level
        if level >= HOIST_DEPTH and self.height(e) > 1:
            return self.hoist(e, env)
        self._level = level + 1
        try:
            plan = self.cache_plan
            if plan is not None and plan.loops and not isinstance(e, _CHEAP):
                cached = plan.cached(self, e, env)
                if cached is not None:
                    return cached
            return getattr(self, "visit_" + type(e).__name__)(e, env)
        finally:
            self._level = level

    def height(self, e: m.Expr) -> int:
        """How many levels the expression `e` nests (1: nothing inside it)."""
        known = self._heights
        got = known.get(id(e))
        if got is not None:
            return got
        stack = [(e, False)]
        while stack:  # iterative: children first
            x, ready = stack.pop()
            if id(x) in known:
                continue
            kids = list(x.iter_child_nodes())
            if ready or not kids:
                known[id(x)] = 1 + max((known[id(k)] for k in kids), default=0)
            else:
                stack.append((x, True))
                stack.extend((k, False) for k in kids if id(k) not in known)
        return known[id(e)]

    def hoist(self, e: m.Expr, env: Env) -> str:
        """`e` written as a function of its own (see HOIST_DEPTH); returns the call.  The function
        is given the state and every local the part reads, under the names it has here; a value
        kept by the cache plan lives in the calling function, so none is kept inside."""
        names = dict.fromkeys(["s"])
        for slot in sorted(free_locals(e, self._free)):
            text = self.local(slot, env)
            name = "L" if text.startswith("L[") else text
            assert name.isidentifier(), text  # env holds variables, never expressions
            names[name] = None
        params = ", ".join(names)
        level, plan = self._level, self.cache_plan
        self._level, self.cache_plan = 0, None
        try:
            body = self.expr(e, env)
        finally:
            self._level, self.cache_plan = level, plan
        name = self.function(self.src.mint("h"), params, body,
                             f"part of an expression at {where(e.span)}, nested too deep to write in one piece")
        return f"{name}({params})"

    def in_loop(self, e: m.Expr, env: Env) -> str:
        """`e` written as the body of a comprehension: what it reads of the function's own
        variables only may be cached (see CachePlan)."""
        plan = self.cache_plan
        if plan is None:
            return self.expr(e, env)
        plan.loops += 1
        try:
            return self.expr(e, env)
        finally:
            plan.loops -= 1

    def plain(self, e: m.Expr, env: Env) -> str:
        """`e` written with no part of it cached (see CachePlan)."""
        plan, self.cache_plan = self.cache_plan, None
        try:
            return self.expr(e, env)
        finally:
            self.cache_plan = plan

    def local(self, slot: int, env: Env) -> str:
        return env.get(slot, f"L[{slot}]")

    def bind(self, slot: int, env: Env) -> tuple[str, Env]:
        """A new variable for a collection's element, seen as local `slot` inside."""
        name = self.src.mint("x")
        return name, {**env, slot: name}

    def visit_Const(self, e, env):
        return self.src.const(e.value)

    def visit_Local(self, e, env):
        return self.local(e.slot, env)

    def visit_GameVar(self, e, env):
        return f"s.g[{e.slot}]"

    def visit_PlayerVar(self, e, env):
        return f"s.p[{self.expr(e.player, env)}][{e.slot}]"

    def visit_DefineRef(self, e, env):
        fn = self.define_fn[e.name]
        if e.args:
            return f"{fn}(s, " + ", ".join(self.expr(a, env) for a in e.args) + ")"
        if e.player is not None:
            return f"{fn}(s, {self.expr(e.player, env)})"
        return f"{fn}(s)"

    def visit_ScoreOf(self, e, env):
        return f"{self.score_fn}(s, {self.expr(e.player, env)})"

    def visit_WinnersRef(self, e, env):
        return f"{self.winners_fn}(s)"

    def visit_AllPlayers(self, e, env):
        return "s.seats"

    def visit_AllDice(self, e, env):
        return "s.dice_ids"

    def visit_AllCards(self, e, env):
        cs = next(c for c in self.model.card_sets if c.name == e.card_set)
        return self.src.const(tuple(range(cs.first, cs.first + cs.count)))

    def visit_CardAttr(self, e, env):
        values = self.src.const(tuple(self.prog.card_values[e.attr]), "cv")
        return f"card_value({self.expr(e.card, env)}, {values})"

    def visit_DieAttr(self, e, env):
        d = self.expr(e.die, env)
        if e.attr == "face":
            return f"{self.src.const(tuple(self.prog.face_kinds), 'fk')}[s.dice[{d}]]"
        if e.attr == "value":
            return f"{self.src.const(tuple(self.prog.face_values), 'fv')}[s.dice[{d}]]"
        return f"({d} + 1)"

    def faces_of(self, kind: str) -> str:
        """The faces (as the dice hold them) of one kind."""
        return self.src.const(frozenset(i for i, k in enumerate(self.prog.face_kinds) if k == kind), "fs")

    def visit_DieShows(self, e, env):
        return f"(s.dice[{self.expr(e.die, env)}] in {self.faces_of(e.kind)})"

    def visit_Beside(self, e, env):
        return f"(({self.expr(e.player, env)} + {e.offset}) % s.n)"

    def visit_Seat(self, e, env):
        return f"seat({self.expr(e.player, env)})"

    def visit_Singleton(self, e, env):
        return f"one_card({self.expr(e.player, env)})"

    def visit_ZoneAt(self, e, env):
        return f"s.g[{self.zone_slot(e, env)}]"

    def zone_slot(self, e: m.ZoneAt, env: Env) -> str:
        return f"zone_slot({self.expr(e.index, env)}, {e.base}, {e.low}, {e.count}, {self.src.const(e.name)})"

    def visit_Builtin(self, e, env):
        f = e.func
        a = [self.expr(x, env) for x in e.args]
        if f == "count":
            return f"len({a[0]})"
        if f == "sum":
            return f"total(s, {a[0]})"
        if f == "abs":
            return f"abs({a[0]})"
        if f in ("first", "last"):
            empty = "0" if e.args[0].type == m.LIST else "None"
            return f"{f}_of({a[0]}, {empty})"
        if f == "top":
            return f"top({a[0]}, {a[1]})"
        if f == "distinct":
            return f"distinct(s, {a[0]})"
        if f == "adjacent":
            return f"{self.src.const(board_adjacency(self.model.board), 'adj')}.get({a[0]}, ())"
        if f == "slide":
            return f"slide(s, {a[0]}, {a[1]}, {self.src.const(board_runs(self.model.board), 'runs')})"
        if f == "divide":
            return f"divide({a[0]}, {a[1]}, {self.src.const(e.span, 'sp')})"
        if f in ("min", "max"):
            if len(a) == 1:
                return f"{'least' if f == 'min' else 'most'}(s, {a[0]})"
            return f"{f}({', '.join(a)})"
        if f in ("largest", "smallest"):
            return f"largest(s, {a[0]}, {a[1]}, {f == 'largest'})"
        raise AssertionError(f)  # pragma: no cover

    _BINARY = {"+": "+", "-": "-", "=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
               "and": "and", "or": "or"}

    def visit_BinOp(self, e, env):
        a, b = self.expr(e.left, env), self.expr(e.right, env)
        op = e.op
        if op == "*":
            return f"bounded({a} * {b})"
        if op == "in":
            return f"member(s, {a}, {b})"
        if op == "notin":
            return f"(not member(s, {a}, {b}))"
        return f"({a} {self._BINARY[op]} {b})"

    def visit_Not(self, e, env):
        return f"(not {self.expr(e.operand, env)})"

    def visit_Negate(self, e, env):
        return f"(-{self.expr(e.operand, env)})"

    def visit_IfExpr(self, e, env):
        return f"({self.expr(e.then, env)} if {self.expr(e.test, env)} else {self.expr(e.otherwise, env)})"

    def _die_kind(self, cond, slot) -> Optional[str]:
        """The kind a condition tests when it is just `element shows KIND`."""
        if isinstance(cond, m.DieShows) and isinstance(cond.die, m.Local) and cond.die.slot == slot:
            return cond.kind
        return None

    def visit_Filter(self, e, env):
        coll = self.plain(e.collection, env)  # a comprehension's iterable: no walrus there
        x, inner = self.bind(e.slot, env)
        kind = self._die_kind(e.condition, e.slot)
        if kind is not None:
            return f"tuple([{x} for {x} in ch(s, {coll}) if s.dice[{x}] in {self.faces_of(kind)}])"
        return f"tuple([{x} for {x} in ch(s, {coll}) if {self.in_loop(e.condition, inner)}])"

    def visit_Project(self, e, env):
        coll = self.plain(e.collection, env)
        x, inner = self.bind(e.slot, env)
        return f"tuple([{self.in_loop(e.expr, inner)} for {x} in ch(s, {coll})])"

    def visit_Best(self, e, env):
        coll = self.plain(e.collection, env)
        x, inner = self.bind(e.slot, env)
        return f"best(s, {coll}, lambda {x}: {self.plain(e.key, inner)}, {e.highest})"  # a lambda's own scope

    def visit_Quantified(self, e, env):
        coll = self.plain(e.collection, env)
        x, inner = self.bind(e.slot, env)
        kind = self._die_kind(e.condition, e.slot)
        cond = f"s.dice[{x}] in {self.faces_of(kind)}" if kind is not None else self.in_loop(e.condition, inner)
        test = f"({cond} for {x} in ch(s, {coll}))"
        if e.quantifier == "every":
            return f"all{test}"
        if e.quantifier == "any":
            return f"any{test}"
        return f"(not any{test})"

    def visit_Exclude(self, e, env):
        coll, ex = self.expr(e.collection, env), self.expr(e.excluded, env)
        if e.excluded.type.kind == "collection":
            return f"without_all(s, {coll}, {ex})"
        return f"without_one(s, {coll}, {ex})"

    def visit_Rotate(self, e, env):
        return f"rotate(s, {self.expr(e.collection, env)}, {self.expr(e.first, env)})"

    def visit_Direction(self, e, env):
        return f"direction(s, {self.expr(e.collection, env)}, {self.expr(e.direction, env)})"

    # ---- zones -----------------------------------------------------------------------------------

    def zone_key(self, e: m.Expr, env: Env) -> str:
        """The key of the zone `e` names (where cards can be put)."""
        if isinstance(e, m.ZoneAt):
            return self.zone_slot(e, env)
        if isinstance(e, m.GameVar):
            return str(e.slot)
        return f"player_zone({self.prog.G + e.slot * 64}, {self.expr(e.player, env)})"

    def cards(self, e: m.Expr, env: Env) -> str:
        """A card or cards, as a tuple."""
        if e.type.kind == "card":
            return f"one_card({self.expr(e, env)})"
        return self.expr(e, env)


_CHEAP = (m.Const, m.Local, m.GameVar, m.AllPlayers, m.AllDice, m.AllCards)


class CachePlan:
    """Loop-invariant parts of an action's rules, each worked out once per choice of the parameters
    it reads instead of once per combination of all of them.

    The rules of an action with parameters are checked inside nested loops, one per parameter.  A
    part of a rule that reads only the outer parameters (`colour of last(rows(row))` when the loops
    run over rows, then cards) gets a variable set to MISSING where those parameters are chosen and
    filled the first time the part is needed: it is worked out exactly when the plain code first
    would (a fault is raised at the same point), and later uses read the variable (the state does
    not change while choices are listed)."""

    def __init__(self, levels: dict, innermost: int, src: Source, loops: int = 1):
        self.levels = levels  # local slot -> the loop that binds it (-1: before every loop)
        self.innermost = innermost
        self.loops = loops  # loops around the code being written: caching pays only inside one
        self.src = src
        self.known: dict = {}
        self.names: dict = {}  # (level, code) -> variable
        self.inits: dict[int, list[str]] = {}  # level -> variables to reset there

    def cached(self, writer: "ExprWriter", e: m.Expr, env: Env) -> Optional[str]:
        free = free_locals(e, self.known)
        if not free <= self.levels.keys():
            return None  # reads an element of a collection being gone through
        level = max((self.levels[slot] for slot in free), default=-1)
        if level >= self.innermost:
            return None
        code = writer.plain(e, env)
        name = self.names.get((level, code))
        if name is None:
            name = self.names[(level, code)] = self.src.mint("c")
            self.inits.setdefault(level, []).append(name)
        return f"({name} if {name} is not MISSING else ({name} := {code}))"


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


_MISSING = _Missing()

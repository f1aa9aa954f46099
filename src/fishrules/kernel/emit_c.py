"""Emitting the kernel program as C (the native backend; `fishrules explain --c GAME` shows it).

The same program as `emit_python`, printed as C: the state is an `int64_t *S`, nothing is NIL,
a buffer is a `B` (a pointer into the context's arena and a length).  Streams are loops inside GNU
statement expressions (gcc, clang and zig cc all read them); as in Python, a stage looks at every
element even when what uses it stops early.  Blocks that wait are a `switch` on the frame's place
inside a loop, their arms the cases.

The code is built from untrusted rules, so: no text of the rules is in it (names are the
lowering's, comments give line numbers only); every index into the state, a table, the arena or
the move lists is checked; every sum, difference and product is checked for overflow; a fault
`longjmp`s back to the entry point, whose caller throws the state away.
"""

from __future__ import annotations

from importlib import resources
from typing import Callable

import attrs

from . import ir
from .abi import (
    CHANCE_DIE, CHANCE_DRAW, CUR_CHANCE, CUR_OVER, CUR_RUN, CUR_SIMUL, FAULT_CAPACITY, FAULT_ENDLESS, FAULT_RULE, FAULT_STUCK, GAMMA, H_AT, H_CHANCES, H_CUR,
    H_DECISIONS,
    H_DEPTH, H_CHANCE, H_CHANCE_A, H_CHANCE_B, H_CHANCE_C, H_DSEED, H_LIMIT, H_MANUAL, H_MODE, H_MOVE, H_N, H_NDICE, H_SEED, H_SITE, H_UNWIND, H_WORK, RESTART_WORK, c_prelude,
)
from .lower import KernelProgram
from .lower_blocks import DONE, PAUSE, RESTART, UNWIND

__all__ = ["emit_c", "frame_layout_c", "EMITTER_VERSION"]

#: Changes whenever the C a program emits changes: part of a compiled library's cache key.
EMITTER_VERSION = "27"

_CMP = {"<": "k_lt", "<=": "k_le", ">": "k_gt", ">=": "k_ge"}


def frame_layout_c(kp: KernelProgram, fn: ir.Function) -> dict:
    """Where a C frame keeps each local: name -> (offset from the frame's start, capacity or None
    for a scalar).  The frame starts with the block's number and its place."""
    scalars, buffers = kp.locals_of(fn)
    out: dict = {}
    at = 2
    for s in scalars:
        out[s] = (at, None)
        at += 1
    for b, cap in buffers:
        out[b] = (at, cap)
        at += 1 + cap
    return out


class _Fn:
    def __init__(self, f: ir.Function, kp: KernelProgram):
        self.fn = f
        self.kp = kp
        scalars, buffers = kp.locals_of(f) if f.kind == "block" else (list(f.params) + list(f.scalars), list(f.buffers))
        self.scalars = scalars
        self.buffers = dict(buffers)
        self.frame = kp.frame_cap.get(f.name, 0)
        self.layout = frame_layout_c(kp, f) if f.kind == "block" else {}


#: Entries a kept define has (by a hash of its arguments), and the most a program keeps in all.
KEPT_BITS = 7
#: The multipliers of the hash that picks a kept entry by its arguments (odd, well mixed): the
#: generator's golden step and xxHash64's second prime, alternately.
_KEPT_HASH = (GAMMA, 0xC2B2AE3D27D4EB4F)
KEPT_SLOTS = 1 << KEPT_BITS
MAX_KEPT = 1 << 20


class _Writer:
    def __init__(self, kp: KernelProgram):
        self.kp = kp
        self.lay = kp.layout
        self.lines: list[str] = []
        self.n = 0
        self.fn: _Fn = None  # type: ignore[assignment]
        # the defines whose values are kept: name -> (offset in k->dcache, entry width, capacity)
        self.memo: dict = {}
        self.kept_size = 0
        for f in kp.functions:
            if not f.memo:
                continue
            cap = kp.define_cap_of(f) if f.kind == "buffer" else 0
            width = 5 + len(f.params) + (1 + cap if f.kind == "buffer" else 0)
            slots = KEPT_SLOTS if f.params else 1
            if self.kept_size + slots * width > MAX_KEPT:
                continue  # too large to keep: worked out each time
            self.memo[f.name] = (self.kept_size, width, cap)
            self.kept_size += slots * width

    def put(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def tmp(self, prefix: str = "_t") -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    # ---- expressions -----------------------------------------------------------------------------

    def x(self, e) -> str:
        return getattr(self, "x_" + type(e).__name__)(e)

    def x_Int(self, e):
        v = e.value
        if v is None:
            return "NIL"
        v = int(v)
        if v == -(1 << 63):
            return "NIL"
        return f"{v}LL" if not (-(1 << 31) < v < (1 << 31)) else str(v)

    def x_Nil(self, e):
        return "NIL"

    def x_Var(self, e):
        return e.name

    def x_Get(self, e):
        if isinstance(e.index, ir.Int):
            return f"S[{e.index.value}]"
        return f"S[k_idx(k, {self.x(e.index)})]"

    def x_Tab(self, e):
        return f"k_tab(k, {e.table}, {len(self.kp.tables[e.table])}, {self.x(e.index)})"

    def x_Attr(self, e):
        return f"k_attr(k, {e.table}, {len(self.kp.tables[e.table])}, {self.x(e.card)})"

    def x_Arith(self, e):
        f = {"+": "k_add", "-": "k_sub", "*": "k_mul"}[e.op]
        return f"{f}(k, {self.x(e.left)}, {self.x(e.right)})"

    def x_Div(self, e):
        return f"k_div(k, {self.x(e.left)}, {self.x(e.right)}, {e.why})"

    def x_Mod(self, e):
        return f"k_mod(k, {self.x(e.left)}, {self.x(e.right)})"

    def x_Cmp(self, e):
        if e.op in ("==", "!="):
            return f"((I)({self.x(e.left)} {e.op} {self.x(e.right)}))"
        return f"{_CMP[e.op]}(k, {self.x(e.left)}, {self.x(e.right)})"

    def x_And(self, e):
        return f"((I)({self.x(e.left)} && {self.x(e.right)}))"

    def x_Or(self, e):
        return f"((I)({self.x(e.left)} || {self.x(e.right)}))"

    def x_Not(self, e):
        return f"((I)!{self.x(e.operand)})"

    def x_Neg(self, e):
        return f"k_neg(k, {self.x(e.operand)})"

    def x_Cond(self, e):
        return f"({self.x(e.test)} ? {self.x(e.then)} : {self.x(e.otherwise)})"

    def x_Call(self, e):
        return f"{e.fn}(k" + "".join(", " + self.x(a) for a in e.args) + ")"

    def x_Cached(self, e):
        return f"({{ if (!{e.name}_ok) {{ {e.name} = {self.x(e.value)}; {e.name}_ok = 1; }} {e.name}; }})"

    def x_Bounded(self, e):
        return f"k_checked(k, {self.x(e.value)})"

    def x_Len(self, e):
        return f"({self.b(e.buf)}).n"

    def x_At(self, e):
        b = self.tmp("_b")
        i = self.tmp("_i")
        return (f"({{ B {b} = {self.b(e.buf)}; I {i} = {self.x(e.index)}; "
                f"if ((U){i} >= (U){b}.n) k_fault(k, FAULT_RULE); {b}.p[{i}]; }})")

    def x_Help(self, e):
        a = [self.x(x) for x in e.args]
        n = e.name
        if n == "at_seat":
            return f"({a[0]} + k_seat(k, {a[1]}, {a[3] if len(a) > 3 else 'WHY_NOBODY'}) * {a[2]})"
        if n == "at_die":
            return f"({a[0]} + k_die(k, {a[1]}))"
        if n == "die_number":
            return f"k_die(k, {a[0]})"
        if n == "zone_of_seat":
            return f"({a[0]} + k_seat(k, {a[1]}, WHY_ZONE_NOBODY))"
        if n == "seat":
            return f"k_seat(k, {a[0]}, WHY_SEAT)"
        if n == "zone_in_family":
            return f"k_fam(k, {', '.join(a)})"
        if n == "family_start":
            return f"k_famstart(k, {', '.join(a)})"
        if n == "abs":
            return f"k_abs(k, {a[0]})"
        if n in ("min", "max"):
            out = a[0]
            for x in a[1:]:
                out = f"k_{n}2(k, {out}, {x})"
            return f"k_num(k, {out})" if len(a) == 1 else out
        if n == "minus_one":
            return f"k_sub(k, {a[0]}, 1)"
        if n == "plus_one":
            return f"({a[0]} + 1)"
        if n == "draw_step":
            return f"k_draw_step(k, {', '.join(a)})"
        if n == "same_items":
            return f"k_same({self.b(e.args[0])}, {self.b(e.args[1])})"
        raise AssertionError(n)  # pragma: no cover

    # reductions: a loop in a statement expression

    def x_Count(self, e):
        if isinstance(e.stream, ir.SeatsS):
            return f"S[{H_N}]"
        c = self.tmp()
        body = self.loop(e.stream, lambda v: [f"{c}++;"])
        return f"({{ I {c} = 0; {' '.join(body)} {c}; }})"

    def x_Sum(self, e):
        c = self.tmp()
        body = self.loop(e.stream, lambda v: [f"{c} = k_add(k, {c}, {v});"], True)
        return f"({{ I {c} = 0; {' '.join(body)} {c}; }})"

    def x_Extreme(self, e):
        c, have = self.tmp(), self.tmp()
        op = ">" if e.highest else "<"
        body = self.loop(e.stream, lambda v: [f"{{ I _x = k_num(k, {v}); if (!{have} || _x {op} {c}) {{ {c} = _x; {have} = 1; }} }}"], True)
        return f"({{ I {c} = 0, {have} = 0; {' '.join(body)} {c}; }})"

    def x_Pick(self, e):
        s = e.stream
        empty = self.x(e.empty)
        if isinstance(s, ir.SliceS):
            b = self.tmp("_s")
            start = self.x(s.start)
            if e.last:
                return f"({{ I {b} = {start}; S[{b}] ? S[{b} + S[{b}]] : {empty}; }})"
            return f"({{ I {b} = {start}; S[{b}] ? S[{b} + 1] : {empty}; }})"
        c, have = self.tmp(), self.tmp()
        if e.last:
            body = self.loop(s, lambda v: [f"{c} = {v}; {have} = 1;"])
        else:
            stop = "break;" if _plain(s) else ""
            body = self.loop(s, lambda v: [f"if (!{have}) {{ {c} = {v}; {have} = 1; {stop} }}"])
        return f"({{ I {c} = 0, {have} = 0; {' '.join(body)} {have} ? {c} : {empty}; }})"

    def x_Quant(self, e):
        done, found = self.tmp(), self.tmp()
        stop = "break;" if _plain(e.stream) else ""
        if e.kind == "every":
            test = f"if (!({self.x(e.cond)})) {{ {done} = 1; {stop} }}"
        else:
            test = f"if ({self.x(e.cond)}) {{ {done} = 1; {stop} }}"

        def body(v):
            return [f"if (!{done}) {{ I {e.var} = {v}; {test} }}"]

        lines = self.loop(e.stream, body, True)
        result = f"(I)!{done}" if e.kind in ("every", "no") else f"(I){done}"
        return f"({{ I {done} = 0; {' '.join(lines)} {result}; }})"

    def x_Contains(self, e):
        done, val = self.tmp(), self.tmp()
        stop = "break;" if _plain(e.stream) else ""
        lines = self.loop(e.stream, lambda v: [f"if (!{done} && {v} == {val}) {{ {done} = 1; {stop} }}"], True)
        return f"({{ I {val} = {self.x(e.value)}, {done} = 0; {' '.join(lines)} (I){done}; }})"

    # ---- streams: C statements that run `body(v)` for each element v ---------------------------

    def loop(self, s, body: Callable[[str], list], charged: bool = False) -> list:
        """`body(v)` for each element v of stream `s`.  `charged`: the elements are counted as
        work, as the Python spelling's `ch(S, items)` counts a collection where its consumer
        passes it through `ch` (a stage's source, a quantifier, `in`, a sum, a least or most, a
        best-of); a count, a pick, a collect or a `for` counts none of its own (the work of a
        stage's source is counted by the stage).  A stage counts the elements it gives as they
        come (Python counts the list it builds), a plain stream its length before its loop."""
        return getattr(self, "l_" + type(s).__name__)(s, body, charged)

    @staticmethod
    def _charge(charged: bool, n: str) -> str:
        return f"k_charge(k, {n});" if charged else ""

    def l_SeatsS(self, s, body, charged):
        v = self.tmp("_v")
        return [self._charge(charged, f"S[{H_N}]"), f"for (I {v} = 0; {v} < S[{H_N}]; {v}++) {{", *body(v), "}"]

    def l_RangeS(self, s, body, charged):
        v, lo, hi = self.tmp("_v"), self.tmp(), self.tmp()
        return [f"{{ I {lo} = k_num(k, {self.x(s.low)}), {hi} = k_num(k, {self.x(s.high)});",
                f"if ({hi} > {lo}) k_charge(k, {hi} - {lo});" if charged else "",
                f"for (I {v} = {lo}; {v} < {hi}; {v}++) {{", *body(v), "} }"]

    def l_TabS(self, s, body, charged):
        i, v = self.tmp("_i"), self.tmp("_v")
        n = len(self.kp.tables[s.table])
        return [self._charge(charged, str(n)), f"for (I {i} = 0; {i} < {n}; {i}++) {{ I {v} = {s.table}[{i}];", *body(v), "}"]

    def l_SliceS(self, s, body, charged):
        b, n, i, v = self.tmp("_s"), self.tmp(), self.tmp("_i"), self.tmp("_v")
        return [f"{{ I {b} = {self.x(s.start)}; I {n} = S[{b}]; {self._charge(charged, n)}",
                f"for (I {i} = 0; {i} < {n}; {i}++) {{ I {v} = S[{b} + 1 + {i}];", *body(v), "} }"]

    def l_BufS(self, s, body, charged):
        b, i, v = self.tmp("_b"), self.tmp("_i"), self.tmp("_v")
        return [f"{{ B {b} = {self.b(s.buf)}; {self._charge(charged, f'{b}.n')}",
                f"for (I {i} = 0; {i} < {b}.n; {i}++) {{ I {v} = {b}.p[{i}];", *body(v), "} }"]

    def l_OneS(self, s, body, charged):
        v = self.tmp("_v")
        return [f"{{ I {v} = {self.x(s.value)}; if ({v} != NIL) {{ {self._charge(charged, '1')}", *body(v), "} }"]

    def l_FilterS(self, s, body, charged):
        def inner(v):
            return [f"{{ I {s.var} = {v}; if ({self.x(s.cond)}) {{ {self._charge(charged, '1')}", *body(s.var), "} }"]

        return self.loop(s.source, inner, True)

    def l_MapS(self, s, body, charged):
        def inner(v):
            m = self.tmp("_m")
            return [f"{{ I {s.var} = {v}; I {m} = {self.x(s.value)}; {self._charge(charged, '1')}", *body(m), "}"]

        return self.loop(s.source, inner, True)

    # ---- buffers ---------------------------------------------------------------------------------

    def cap(self, b) -> int:
        return ir.buf_cap(b, self.lay.seats, self.kp.tables) if isinstance(b, ir.BufExpr) else \
            ir.stream_cap(b, self.lay.seats, self.kp.tables)

    def b(self, b) -> str:
        return getattr(self, "b_" + type(b).__name__)(b)

    def b_BufVar(self, b):
        return b.name

    def b_Collect(self, b):
        s = b.stream
        if isinstance(s, ir.BufS):
            return self.b(s.buf)
        cap = max(self.cap(s), 1)
        out = self.tmp("_c")
        lines = self.loop(s, lambda v: [f"k_push(k, &{out}, {cap}, {v});"])
        return f"({{ B {out} = k_alloc(k, {cap}); {' '.join(lines)} {out}; }})"

    def b_CallBuf(self, b):
        out = self.tmp("_c")
        cap = max(b.cap, 1)
        args = "".join(", " + self.x(a) for a in b.args)
        return f"({{ B {out} = k_alloc(k, {cap}); {out}.n = {b.fn}(k, {out}.p, {cap}{args}); {out}; }})"

    def b_CondBuf(self, b):
        return f"({self.x(b.test)} ? {self.b(b.then)} : {self.b(b.otherwise)})"

    def b_BestBuf(self, b):
        cap = max(b.cap, 1)
        items, keys = self.tmp("_c"), self.tmp("_c")

        def each(v):
            return [f"{{ I {b.var} = {v}; k_push(k, &{items}, {cap}, {v});",
                    f"k_push(k, &{keys}, {cap}, {self.x(b.key)}); }}"]

        lines = self.loop(b.source, each, True)
        return (f"({{ B {items} = k_alloc(k, {cap}); B {keys} = k_alloc(k, {cap}); {' '.join(lines)} "
                f"k_best(k, {cap}, {items}, {keys}, {1 if b.highest else 0}); }})")

    def b_HelpBuf(self, b):
        cap = max(b.cap, 1)
        a = [self.b(x) if isinstance(x, ir.BufExpr) else self.x(x) for x in b.args]
        n = b.name
        if n == "unmask":
            return f"k_unmask(k, {cap}, {a[0]}, {a[1]})"
        return f"k_{n}(k, {cap}, {', '.join(a)})"

    # ---- statements ------------------------------------------------------------------------------

    def stmts(self, body, depth: int) -> None:
        for s in body:
            getattr(self, "s_" + type(s).__name__)(s, depth)

    def s_Set(self, s, depth):
        self.put(depth, f"{s.var} = {self.x(s.value)};")

    def s_SetBuf(self, s, depth):
        cap = self.fn.buffers[s.var]
        self.put(depth, f"{s.var} = k_copy(k, (B){{{s.var}_s, 0}}, {cap}, {self.b(s.value)});")

    def s_Put(self, s, depth):
        if isinstance(s.index, ir.Int):
            self.put(depth, f"S[{s.index.value}] = {self.x(s.value)};")
        else:
            self.put(depth, f"{{ I _p = k_idx(k, {self.x(s.index)}); S[_p] = {self.x(s.value)}; }}")

    def s_If(self, s, depth):
        self.put(depth, f"if ({self.x(s.test)}) {{")
        self.stmts(s.then, depth + 1)
        if s.otherwise:
            self.put(depth, "} else {")
            self.stmts(s.otherwise, depth + 1)
        self.put(depth, "}")

    def s_While(self, s, depth):
        test = "1" if isinstance(s.test, ir.Int) and s.test.value else self.x(s.test)
        mark = self.tmp("_mw")
        self.put(depth, f"{{ I {mark} = k->top; while ({test}) {{")
        self.put(depth + 1, f"k->top = {mark};")
        self.stmts(s.body, depth + 1)
        self.put(depth, "} }")

    def s_For(self, s, depth):
        lines = self.loop(s.stream, lambda v: [f"{s.var} = {v};", "__BODY__"])
        for ln in lines:
            if ln == "__BODY__":
                self.stmts(s.body, depth + 1)
            else:
                self.put(depth, ln)

    def s_Break(self, s, depth):
        self.put(depth, "break;")

    def s_Continue(self, s, depth):
        self.put(depth, "continue;")

    def s_Return(self, s, depth):
        if s.value is None:
            self.put(depth, "k->top = _m0; return;")
        else:
            self.put(depth, f"{{ I _r = {self.x(s.value)}; k->top = _m0; return _r; }}")

    def s_ReturnBuf(self, s, depth):
        self.put(depth, f"{{ B _r = {self.b(s.value)}; if (_r.n > out_cap) k_fault(k, FAULT_CAPACITY);")
        self.put(depth, "  memmove(out, _r.p, (size_t)_r.n * sizeof(I)); k->top = _m0; return _r.n; }")

    def s_Do(self, s, depth):
        a = [self.b(x) if isinstance(x, ir.BufExpr) else self.x(x) for x in s.args]
        n = s.name
        if n == "charge":
            self.put(depth, f"k_charge(k, {a[0]});")
        elif n == "fire":
            self.put(depth, f"S[{self.lay.fires} + {a[0]}] += 1;")
        elif n == "moves_room":
            self.put(depth, f"if ((k->nok - k->act_ok) + (k->nbad - k->act_bad) >= MAX_CHOICES) k_fail(k, {a[0]}, 0);")
        elif n == "stale":
            self.put(depth, " ".join(f"k->dv[{a_}]++;" for a_ in a))
        elif n == "moves_action":
            self.put(depth, "k->act_ok = k->nok; k->act_bad = k->nbad;")
        elif n in ("note_old", "note_new"):
            # a change of a noted value is work outside a playout (the engine's `note_set`, which
            # runs while it keeps events), and an event while a record is kept (kernel/record.py)
            self.put(depth, f"if (!S[{H_MODE}]) k_{n}(k, {', '.join(a)});")
        else:
            self.put(depth, f"k_{n}(k, {', '.join(a)});")
            if n in ("shuffle", "reveal") and self.kp.keep.index:
                # the engine forgets every kept value (keep.py), though no define reads which cards
                # are face up: outside a playout (see emit_python's s_Do)
                self.put(depth, "k_stale_all(k);" if n == "shuffle" else f"if (!S[{H_MODE}]) k_stale_all(k);")

    def s_Forget(self, s, depth):
        self.put(depth, f"{s.name}_ok = 0;")

    def s_Fault(self, s, depth):
        self.put(depth, f"k_fail(k, {s.why}, 0);" if s.code == FAULT_RULE else f"k_fault(k, {s.code});")

    def s_Here(self, s, depth):
        self.put(depth, f"S[{H_AT}] = {s.pos};")

    def s_Emit(self, s, depth):
        which = "bad" if s.broken else "ok"
        w = self.lay.move_width
        self.put(depth, f"{{ if (k->n{which} >= k->moves_cap) k_more_moves(k);")
        self.put(depth, f"  I *_r = k->{which} + k->n{which}++ * {w};")
        self.put(depth, f"  for (I _j = 0; _j < {w}; _j++) _r[_j] = 0;")
        at = 0
        for v in s.values:
            if isinstance(v, ir.BufExpr):
                b = self.b(v)
                self.put(depth, f"  {{ B _q = {b}; if (_q.n > {self.lay.max_subset}) k_fault(k, FAULT_CAPACITY); "
                                f"_r[{at}] = _q.n; for (I _j = 0; _j < _q.n; _j++) _r[{at} + 1 + _j] = _q.p[_j]; }}")
                at += 1 + self.lay.max_subset
            else:
                self.put(depth, f"  _r[{at}] = {self.x(v)};")
                at += 1
        self.put(depth, "}")

    def s_Leave(self, s, depth):
        f = self.fn.fn
        if s.code == DONE or (s.code == UNWIND and s.target == f.block):
            self.epilogue(depth)
            self.put(depth, "k->top = _m0; return 0;")
        elif s.code == UNWIND:
            self.put(depth, f"if (!S[{self.lay.active + s.target}]) k_fail(k, {s.why}, 0);")
            self.put(depth, f"S[{H_UNWIND}] = {s.target};")
            self.epilogue(depth)
            self.put(depth, f"k->top = _m0; return {UNWIND};")
        else:
            self.put(depth, f"k->top = _m0; return {s.code};")

    def epilogue(self, depth: int) -> None:
        f = self.fn.fn
        self.put(depth, f"S[{H_DEPTH}] -= 1;")
        if f.is_phase:
            self.put(depth, f"S[{self.lay.active + f.block}] -= 1;")

    # arms

    def s_Goto(self, s, depth):
        self.put(depth, f"pc = {s.label}; continue;")

    def spill(self, depth: int, back: int) -> None:
        fn = self.fn
        self.put(depth, f"if (fp + {fn.frame} > FRAMES_END) k_fault(k, FAULT_CAPACITY);")
        self.put(depth, f"S[fp] = {fn.fn.block}; S[fp + 1] = {back};")
        for name, (off, cap) in fn.layout.items():
            if cap is None:
                self.put(depth, f"S[fp + {off}] = {name};")
            else:
                self.put(depth, f"if ({name}.n > {cap}) k_fault(k, FAULT_CAPACITY);")
                self.put(depth, f"S[fp + {off}] = {name}.n; memmove(S + fp + {off + 1}, {name}.p, (size_t){name}.n * sizeof(I));")

    def pause(self, depth: int, back: int) -> None:
        """Wait (for a player or chance): the frame kept, and the step of the block's run that
        ends here not counted — the engine's machine counts a block's run as a step when it calls
        another block or ends, not when it waits (`runtime/machine.py` `_run`), and the runs of
        the blocks below it are counted when they go on (`s_Invoke`)."""
        self.put(depth, f"S[{H_WORK}] -= 1;")
        self.spill(depth, back)
        self.put(depth, f"k->top = _m0; return {PAUSE};")

    def s_Invoke(self, s, depth):
        fn = self.fn
        child = f"fp + {fn.frame}"
        if s.block is not None:
            callee = self.kp.block_fn[s.block]
            if s.fresh:
                arg = self.x(s.args[0]) if s.args else "0"
                self.put(depth, f"r = {callee}(k, {child}, 0, {arg});")
            else:
                self.put(depth, f"r = {callee}(k, {child}, 1, 0);")
        elif s.fresh:
            self.put(depth, f"r = k_block(k, S[{H_MOVE}], {child}, 0);")
        else:
            self.put(depth, f"r = k_block(k, S[k_idx(k, {child})], {child}, 1);")
        # This block's run goes on (a step, as the engine's machine counts a block's run: see
        # `pause`) once the child is done; not when it waits (this block waits too), nor when
        # the rules end a phase or play again (the engine drops the frames between, unrun).
        self.put(depth, "if (r) {")
        self.put(depth + 1, f"if (r == {PAUSE}) {{")
        self.spill(depth + 2, s.back)
        self.put(depth + 2, f"k->top = _m0; return {PAUSE};")
        self.put(depth + 1, "}")
        self.put(depth + 1, f"if (r == {UNWIND}) {{")
        if fn.fn.is_phase:
            self.put(depth + 2, f"if (S[{H_UNWIND}] == {fn.fn.block}) {{")
            self.epilogue(depth + 3)
            self.put(depth + 3, "k->top = _m0; return 0;")
            self.put(depth + 2, "}")
        self.epilogue(depth + 2)
        self.put(depth + 2, f"k->top = _m0; return {UNWIND};")
        self.put(depth + 1, "}")
        self.put(depth + 1, "k->top = _m0; return r;")
        self.put(depth, "}")
        self.put(depth, "k_charge(k, 1);")
        self.put(depth, f"pc = {s.next}; continue;")

    def s_Ask(self, s, depth):
        w = self.lay.move_width
        self.put(depth, f"if ({s.who} == NIL) k_fail(k, WHY_NOBODY_CHOOSES, 0);")
        self.put(depth, f"if (S[{H_MODE}]) {{")
        self.put(depth + 1, f"S[{H_WORK}] = 0;")
        # who is listed where, while the moves are listed (a fault then is worded so)
        self.put(depth + 1, f"S[{H_CUR}] = {s.who}; S[{H_SITE}] = {s.site};")
        self.put(depth + 1, f"I _n = site{s.site}(k, {s.who});")
        self.put(depth + 1, f"if (!_n) k_fault(k, {FAULT_STUCK});")
        self.put(depth + 1, f"S[{H_CUR}] = CUR_RUN;")
        self.put(depth + 1, f"S[{H_DECISIONS}] += 1;")
        self.put(depth + 1, f"if (S[{H_DECISIONS}] > S[{H_LIMIT}]) k_fault(k, {FAULT_ENDLESS});")
        self.put(depth + 1, "I _i = k_choose(k, _n);")
        self.put(depth + 1, f"memmove(S + {H_MOVE}, k->ok + _i * {w}, {w} * sizeof(I));")
        self.put(depth + 1, f"pc = {s.call}; continue;")
        self.put(depth, "}")
        self.put(depth, f"S[{H_CUR}] = {s.who}; S[{H_SITE}] = {s.site};")
        self.pause(depth, s.after)

    def s_AskAll(self, s, depth):
        w = self.lay.move_width
        cap = self.fn.buffers[s.chosen]
        self.put(depth, f"if (S[{H_MODE}]) {{")
        self.put(depth + 1, f"S[{H_WORK}] = 0;")
        self.put(depth + 1, f"{s.chosen}.p = {s.chosen}_s; {s.chosen}.n = 0;")
        self.put(depth + 1, f"S[{H_SITE}] = {s.site};")
        self.put(depth + 1, f"for (I _j = 0; _j < {s.who}.n; _j++) {{")
        self.put(depth + 2, f"S[{H_CUR}] = {s.who}.p[_j];")
        self.put(depth + 2, f"I _n = site{s.site}(k, {s.who}.p[_j]);")
        self.put(depth + 2, f"if (!_n) k_fault(k, {FAULT_STUCK});")
        self.put(depth + 2, "I _i = k_choose(k, _n);")
        self.put(depth + 2, f"if ({s.chosen}.n + {w} > {cap}) k_fault(k, FAULT_CAPACITY);")
        self.put(depth + 2, f"memmove({s.chosen}.p + {s.chosen}.n, k->ok + _i * {w}, {w} * sizeof(I));")
        self.put(depth + 2, f"{s.chosen}.n += {w};")
        self.put(depth + 1, "}")
        self.put(depth + 1, f"S[{H_CUR}] = CUR_RUN;")
        self.put(depth + 1, f"S[{H_DECISIONS}] += {s.who}.n;")
        self.put(depth + 1, f"if (S[{H_DECISIONS}] > S[{H_LIMIT}]) k_fault(k, {FAULT_ENDLESS});")
        self.put(depth + 1, f"pc = {s.start}; continue;")
        self.put(depth, "}")
        self.put(depth, f"S[{H_CUR}] = {CUR_SIMUL}; S[{H_SITE}] = {s.site};")
        self.put(depth, f"{s.chosen}.n = 0;")
        self.pause(depth, s.after)

    def s_RollWait(self, s, depth):
        self.put(depth, f"S[{H_CUR}] = {CUR_CHANCE}; S[{H_CHANCE}] = {CHANCE_DIE}; S[{H_CHANCE_A}] = {s.die};")
        self.pause(depth, s.after)

    def s_DrawWait(self, s, depth):
        self.put(depth, f"S[{H_CUR}] = {CUR_CHANCE}; S[{H_CHANCE}] = {CHANCE_DRAW}; S[{H_CHANCE_A}] = {s.src}; "
                        f"S[{H_CHANCE_B}] = {s.dest}; S[{H_CHANCE_C}] = {s.facing};")
        self.pause(depth, s.after)

    def s_PlayChosen(self, s, depth):
        w = self.lay.move_width
        self.put(depth, f"if (({s.index} + 1) * {w} > {s.chosen}.n) k_fault(k, FAULT_CAPACITY);")
        self.put(depth, f"memmove(S + {H_MOVE}, {s.chosen}.p + {s.index} * {w}, {w} * sizeof(I));")

    # ---- functions ---------------------------------------------------------------------------------

    def declare(self, depth: int, fn: _Fn, skip=()) -> None:
        for c in fn.fn.cached:
            self.put(depth, f"I {c} = 0, {c}_ok = 0;")
        for s in fn.scalars:
            if s not in skip:
                self.put(depth, f"I {s} = 0;")
        for b, cap in fn.buffers.items():
            c = max(cap, 1)
            self.put(depth, f"I *{b}_s = k_alloc(k, {c}).p; B {b} = {{{b}_s, 0}};")

    def signature(self, f: ir.Function) -> str:
        params = "".join(f", I {p}" for p in f.params)
        if f.kind == "block":
            arg = f", I {f.params[0]}" if f.params else ", I _arg"
            return f"static int {f.name}(K *k, I fp, int resume{arg})"
        if f.kind == "value":
            return f"static I {f.name}(K *k{params})"
        if f.kind == "buffer":
            return f"static I {f.name}(K *k, I *out, I out_cap{params})"
        return f"static void {f.name}(K *k{params})"

    def function(self, f: ir.Function) -> None:
        entry = self.memo.get(f.name)
        if entry is not None:
            self.kept(f, *entry)
            f = attrs.evolve(f, name=f.name + "_raw")
        fn = self.fn = _Fn(f, self.kp)
        self.put(0, f"/* {f.comment} */" if f.comment else "/* */")
        self.put(0, self.signature(f) + " {")
        self.put(1, "I *S = k->S; I _m0 = k->top; (void)S;")
        if f.kind == "block":
            self.block(f, fn)
        else:
            self.declare(1, fn, skip=set(f.params))
            self.load_move(1, f, fn)
            self.put(1, "I _m1 = k->top; (void)_m1;")
            self.stmts(f.body, 1)
            if f.kind in ("proc", "enum"):
                self.put(1, "k->top = _m0;")
            elif f.kind == "value":
                self.put(1, "k->top = _m0; return 0;")
            else:
                self.put(1, "k->top = _m0; return 0;")
        self.put(0, "}")
        self.put(0, "")

    def kept(self, f: ir.Function, offset: int, width: int, cap: int) -> None:
        """The define `f` whose values are kept (`f.memo`): its entries in `k->dcache`, one per
        argument (KEPT_SLOTS of them, by a hash of the arguments), each [epoch, version, argument
        version, work it took, the arguments, the value (a collection: its length, then its
        elements)].  A kept value is good while nothing it reads was written (`k->dv`, and for a
        define that reads a family of zones at its argument `k->dva`: see fishrules.kernel.keep)
        and in the same call.  Found kept, no work is counted, as the engine's memo counts none
        (keep.py makes a value stale wherever the engine's memo forgets it, or more)."""
        args = list(f.params)
        n = len(args)
        keep = self.kp.keep
        d = keep.index[f.name]
        if n:
            mix = " ^ ".join(f"(U){a} * {_KEPT_HASH[i % 2]}ULL" for i, a in enumerate(args))
            slot = f"(I)(({mix}) >> {64 - KEPT_BITS})"
        else:
            slot = "0"
        call = ", ".join(["k"] + (["out", "out_cap"] if f.kind == "buffer" else []) + args)
        by_arg = keep.by_arg.get(f.name)
        self.put(0, f"static I {f.name}_raw({self.signature(f).split('(', 1)[1]};")
        self.put(0, f"/* {f.comment}, its values kept */")
        self.put(0, self.signature(f) + " {")
        if by_arg is not None:
            low, count, off = by_arg
            self.put(1, f"I _a = {args[0]} - {low};")
            self.put(1, f"if ((U)_a >= (U){count}) return {f.name}_raw({call});  /* no zone of the family: not kept */")
            self.put(1, f"I av = k->dva[{off} + _a];")
        else:
            self.put(1, "I av = 0;")
        same = f"e[0] == k->epoch && e[1] == k->dv[{d}] && e[2] == av" + "".join(f" && e[{4 + i}] == {a}" for i, a in enumerate(args))
        store = (f"e[0] = k->epoch; e[1] = k->dv[{d}]; e[2] = av; e[3] = 0;"
                 + "".join(f" e[{4 + i}] = {a};" for i, a in enumerate(args)))
        self.put(1, f"I *e = k->dcache + {offset} + {slot} * {width};")
        if f.kind == "buffer":
            self.put(1, f"if ({same}) {{")
            self.put(2, f"I n = e[{4 + n}]; if (n > out_cap) k_fault(k, FAULT_CAPACITY);")
            self.put(2, f"memmove(out, e + {5 + n}, (size_t)n * sizeof(I)); return n;")
            self.put(1, "}")
            self.put(1, f"I n = {f.name}_raw({call});")
            self.put(1, f"if (n <= {cap}) {{ {store} e[{4 + n}] = n; memmove(e + {5 + n}, out, (size_t)n * sizeof(I)); }}")
            self.put(1, "return n;")
        else:
            self.put(1, f"if ({same}) return e[{4 + n}];")
            self.put(1, f"I v = {f.name}_raw({call});")
            self.put(1, f"{store} e[{4 + n}] = v;")
            self.put(1, "return v;")
        self.put(0, "}")
        self.put(0, "")

    def block(self, f: ir.Function, fn: _Fn) -> None:
        arms = self.kp.arms.get(f.name)
        self.declare(1, fn, skip=set(f.params))
        self.put(1, "I _m1 = k->top; (void)_m1; int r = 0; I pc = 0; (void)r;")
        if arms is not None:
            self.put(1, "if (resume) {")
            self.put(2, "pc = S[fp + 1];")
            for name, (off, cap) in fn.layout.items():
                if cap is None:
                    self.put(2, f"{name} = S[fp + {off}];")
                else:
                    self.put(2, f"{name}.n = S[fp + {off}]; if ((U){name}.n > (U){cap}) k_fault(k, FAULT_CAPACITY);")
                    self.put(2, f"memmove({name}.p, S + fp + {off + 1}, (size_t){name}.n * sizeof(I));")
            self.put(1, "} else {")
            self.prologue(2, f, fn)
            self.put(1, "}")
            self.put(1, "for (;;) {")
            self.put(2, "k->top = _m1;")
            self.put(2, "switch (pc) {")
            for label in sorted(arms.code):
                self.put(2, f"case {label}: {{")
                self.stmts(arms.code[label], 3)
                self.put(2, "}")
            self.put(2, "default: k_fault(k, FAULT_RULE);")
            self.put(2, "}")
            self.put(1, "}")
        else:
            self.put(1, "(void)resume; (void)pc;")
            self.prologue(1, f, fn)
            self.stmts(f.body + (ir.Leave(DONE),), 1)

    def prologue(self, depth: int, f: ir.Function, fn: _Fn) -> None:
        self.load_move(depth, f, fn)
        self.put(depth, f"S[{H_DEPTH}] += 1; if (S[{H_DEPTH}] > MAX_STACK) k_fail(k, WHY_DEEP, 0);")
        if f.at >= 0:  # (after the test of depth: too deep is the caller's statement)
            self.put(depth, f"S[{H_AT}] = {f.at};")
        if f.is_phase:
            self.put(depth, f"S[{self.lay.active + f.block}] += 1;")
        self.put(depth, "k_charge(k, 1);")

    def load_move(self, depth: int, f: ir.Function, fn: _Fn) -> None:
        """The actor and values of the move in the state's move slots, into their locals."""
        for name, offset, is_buf in f.loads:
            at = H_MOVE + 1 + offset
            if is_buf:
                cap = fn.buffers[name]
                self.put(depth, f"{name}.n = S[{at}]; if ((U){name}.n > (U){cap}) k_fault(k, FAULT_RULE);")
                self.put(depth, f"memmove({name}.p, S + {at + 1}, (size_t){name}.n * sizeof(I));")
            else:
                self.put(depth, f"{name} = S[{at}];")

    def site(self, site) -> None:
        kp = self.kp
        w = self.lay.move_width
        self.put(0, f"static I site{site.number}(K *k, I w) {{")
        self.put(1, "k->nok = 0; k->nbad = 0;")
        for a in site.actions:
            self.put(1, f"{kp.action_enum[a]}(k, w);")
        if not site.together:
            self.put(1, "if (k->nbad) {")
            self.put(2, "while (k->nok + k->nbad > k->moves_cap) k_more_moves(k);")
            self.put(2, f"memmove(k->ok + k->nok * {w}, k->bad, (size_t)(k->nbad * {w}) * sizeof(I));")
            self.put(2, "k->nok += k->nbad;")
            self.put(1, "}")
        self.put(1, "return k->nok;")
        self.put(0, "}")
        self.put(0, "")


def _plain(s) -> bool:
    """A stream with no stage: stopping early skips no rule."""
    return isinstance(s, (ir.SeatsS, ir.RangeS, ir.TabS, ir.SliceS, ir.BufS, ir.OneS))


def _table(name: str, values) -> str:
    vals = ", ".join("NIL" if v is None else (f"{int(v)}LL" if abs(int(v)) >= (1 << 31) else str(int(v))) for v in values)
    return f"static const I {name}[{max(len(values), 1)}] = {{{vals or '0'}}};"


def emit_c(kp: KernelProgram) -> str:
    """The whole program as one C translation unit: the ABI's #defines (`abi.c_prelude`), the
    runtime (kernel.h), this program's layout and tables, the runtime that knows the layout
    (kernel_state.h), the program's functions, and the exported entry points (`_api`)."""
    lay = kp.layout
    w = _Writer(kp)
    head = resources.files("fishrules.kernel")
    out = ["/* The fishrules kernel of one ruleset, as C (fishrules.kernel.emit_c). */",
           c_prelude(),
           head.joinpath("kernel.h").read_text()]
    # the layout
    zb = [start for start, _ in lay.zones] or [0]
    zc = [cap for _, cap in lay.zones] or [0]
    out.append(f"#define NZONES {len(lay.zones)}")
    out.append(_table("ZB", zb))
    out.append(_table("ZC", zc))
    out.append(f"#define WHERE {lay.where}\n#define UP {lay.up}\n#define MIXED {lay.mixed}\n#define DICE {lay.dice}")
    out.append(f"#define EMPTY {lay.empty}")
    out.append(f"#define NCARDS {lay.ncards}")
    labels: dict = {}
    out.append(_table("LABEL", [labels.setdefault(c.label, len(labels)) for c in kp.model.cards]))
    out.append(f"#define SAME_LABELS {1 if len(labels) < len(kp.model.cards) else 0}")
    faces = kp.model.dice.faces if kp.model.dice is not None else ()
    first: dict = {}
    for i, f in enumerate(faces):
        first.setdefault(f.label, i)
    out.append(f"#define NFACES {max(len(faces), 1)}\n#define UNROLLED {len(faces)}")
    out.append(_table("CANON", [first[f.label] for f in faces]))
    out.append(f"#define MAX_SUBSET {lay.max_subset}")
    out.append(_board(kp))
    out.append(f"#define FRAMES_END {lay.frames + lay.frames_size}")
    out.append(_stale_tables(kp))
    # the record (kernel/record.py): the `seen by` looks, and which noted values are lists
    out.append(f"#define NSEEN {sum(1 for key, _ in kp.looks if key[0] == 'seen by')}")
    out.append(f"#define NNOTED {len(kp.noted)}")
    out.append(_table("NOTED_LIST", [1 if entry[5] else 0 for entry in kp.noted]))
    out.append(head.joinpath("kernel_state.h").read_text())
    for name, values in kp.tables.items():
        out.append(_table(name, values))
    # prototypes
    for f in kp.functions:
        out.append(w.signature(f) + ";")
    for site in kp.sites:
        out.append(f"static I site{site.number}(K *k, I w);")
    out.append("static int k_block(K *k, I block, I fp, int resume);")
    out.append("static I k_site(K *k, I site, I w);")
    for f in kp.functions:
        w.function(f)
    for site in kp.sites:
        w.site(site)
    w.put(0, "static int k_block(K *k, I block, I fp, int resume) {")
    w.put(1, "switch (block) {")
    for b in sorted(kp.block_fn):
        w.put(1, f"case {b}: return {kp.block_fn[b]}(k, fp, resume, 0);")
    w.put(1, "}")
    w.put(1, "k_fault(k, FAULT_RULE);")
    w.put(1, "return 0;")
    w.put(0, "}")
    w.put(0, "static I k_site(K *k, I site, I w) {")
    w.put(1, "switch (site) {")
    for site in kp.sites:
        w.put(1, f"case {site.number}: return site{site.number}(k, w);")
    w.put(1, "}")
    w.put(1, "k_fault(k, FAULT_RULE);")
    w.put(1, "return 0;")
    w.put(0, "}")
    out.append("\n".join(w.lines))
    out.append(_api(kp, w))
    return "\n".join(out) + "\n"


def _frames_of(kp: KernelProgram) -> tuple[str, str]:
    """The cases of fk_choose's two tables: each block's frame size, and where each simultaneous
    choice's frame keeps its `who` and `chosen` (from the arms, as the frames are spilled)."""
    from .arms import AskAll

    sizes, together, seen = [], [], set()
    for b, name in sorted(kp.block_fn.items()):
        sizes.append(f"    case {b}: return {kp.frame_cap[name]};")
        arms = kp.arms.get(name)
        if arms is None:
            continue
        layout = frame_layout_c(kp, kp.function(name))
        for code in arms.code.values():
            for st in code:
                if isinstance(st, AskAll) and st.site not in seen:
                    seen.add(st.site)
                    (wo, wc), (co, cc) = layout[st.who], layout[st.chosen]
                    together.append(f"    case {st.site}: if (b != {b}) return 0; "
                                    f"*who = {wo}; *wcap = {wc}; *chosen = {co}; *ccap = {cc}; return 1;")
    return "\n".join(sizes) or "    default: break;", "\n".join(together) or "    default: break;"


def _stale_tables(kp: KernelProgram) -> str:
    """What a change of each zone, and of the dice, makes stale (fishrules.kernel.keep)."""
    keep = kp.keep
    at, flat, arg_at, arg_flat = [0], [], [0], []
    for zid in range(len(kp.layout.zones)):
        flat.extend(keep.of_zone(zid))
        at.append(len(flat))
        arg_flat.extend(keep.args_of_zone(zid))
        arg_at.append(len(arg_flat))
    dice = keep.of("dice")
    return "\n".join([
        _table("ZSTALE_AT", at), _table("ZSTALE", flat), _table("ZARG_AT", arg_at), _table("ZARG", arg_flat),
        "static void k_zstale(K *k, I z) {",
        "    for (I i = ZSTALE_AT[z]; i < ZSTALE_AT[z + 1]; i++) k->dv[ZSTALE[i]]++;",
        "    for (I i = ZARG_AT[z]; i < ZARG_AT[z + 1]; i++) k->dva[ZARG[i]]++;",
        "}",
        "static void k_dstale(K *k) {",
        "    " + " ".join(f"k->dv[{d}]++;" for d in dice) + (" (void)k;" if not dice else ""),
        "}",
        "static inline void k_stale_all(K *k) {",
        f"    for (I i = 0; i < {len(keep.index)}; i++) k->dv[i]++;",
        "}",
    ])


def _board(kp: KernelProgram) -> str:
    b = kp.model.board
    if b is None:
        return ("#define BOARD_LOW 1\n#define BOARD_HIGH 0\n" + _table("ADJ_AT", [0]) + "\n" + _table("ADJ", [0]) + "\n"
                + _table("RUN_AT", [0]) + "\n" + _table("RUN_OFF", [0]) + "\n" + _table("RUNS", [0]))
    from ..analysis import board_adjacency, board_runs

    adjacency, runs = board_adjacency(b), board_runs(b)
    adj_at, adj = [0], []
    run_at, run_off, flat = [0], [0], []
    for c in range(b.low, b.high + 1):
        adj.extend(adjacency.get(c, ()))
        adj_at.append(len(adj))
        for run in runs.get(c, ()):
            flat.extend(run)
            run_off.append(len(flat))
        run_at.append(len(run_off) - 1)
    return "\n".join([f"#define BOARD_LOW {b.low}", f"#define BOARD_HIGH {b.high}", _table("ADJ_AT", adj_at),
                      _table("ADJ", adj), _table("RUN_AT", run_at), _table("RUN_OFF", run_off), _table("RUNS", flat)])


def _api(kp: KernelProgram, w: "_Writer") -> str:
    """The exported entry points (see native.py for how they are called).  (Long, and kept whole:
    it is one template of C, the entry points one after the other, with this program's numbers
    (the offsets and sizes of its layout) written into it; its Python is the lines at the top.)"""
    lay = kp.layout
    game = kp.block_fn[kp.game_block]
    nplayer_vars = len(kp.model.player_vars)
    restart = RESTART_WORK + kp.model.n_game_slots + len(kp.model.cards)
    zones_from = lay.zones[0][0] if lay.zones else 0
    zones_to = (lay.zones[-1][0] + 1 + lay.zones[-1][1]) if lay.zones else 0
    prefix = max([H_MOVE + lay.move_width] + [lay.g_index[o.slot] + 1 for o in kp.model.options])
    tail = max(lay.nrules + 2 * len(lay.zones), 1)
    # one setjmp each: a look that goes wrong (a define with nothing rolled yet) stops only itself
    looks = "\n".join(f"    k->top = 0; S[{H_WORK}] = 0;\n"
                      f"    if (setjmp(k->jb)) faults[{i}] = k->fault; else {{ out[{i}] = {fn}(k); faults[{i}] = 0; }}"
                      for i, (_, fn) in enumerate(kp.looks)) or "    (void)out; (void)faults;"
    seen = "\n".join(f"    out[{i}] = {fn}(k);" for i, fn in enumerate(fn for key, fn in kp.looks if key[0] == "seen by"))
    seen = seen or "    (void)k; (void)out;"
    # what an action's text is read against: a parameter's domain, and which rule a move breaks
    doms = "\n".join(f"    case {a}: switch (param) {{"
                     + "".join(f" case {i}: return {fn}(k, out, cap);" for i, (fn, _) in enumerate(fns)) + " } break;"
                     for a, fns in enumerate(kp.action_domains) if fns) or "    default: break;"
    whys = "\n".join(f"    case {a}: *out = {fn}(k); return 0;" for a, fn in enumerate(kp.action_why)) or "    default: break;"
    sizes, together = _frames_of(kp)
    nterms = len(kp.model.scores)
    parts = "\n".join(f"        out[n * {nterms}] = p * {nterms} + {i}; out[p * {nterms} + {i}] = t{i}(k, p);"
                      for i in range(nterms)) or "        (void)out;"
    return f"""
/* ---- entry points ---------------------------------------------------------------------------- */

#define FK_EXPORT __attribute__((visibility("default")))

FK_EXPORT I fk_size(void) {{ return {lay.size}; }}
FK_EXPORT I fk_move_width(void) {{ return {lay.move_width}; }}

static void k_reset(K *k) {{
    I *S = k->S;
    k->epoch++;
    init_values(k);
    for (I d = 0; d < S[{H_NDICE}]; d++) S[DICE + d] = UNROLLED;
    for (I c = 0; c < NCARDS; c++) {{ S[WHERE + c] = -1; S[UP + c] = 0; }}
    for (I z = 0; z < NZONES; z++) S[MIXED + z] = 0;
    for (I i = {zones_from}; i < {zones_to}; i++) S[i] = 0;
    for (I b = 0; b < {lay.nblocks}; b++) S[{lay.active} + b] = 0;
    S[{H_DEPTH}] = 0;
}}

static void k_run(K *k, int resume) {{
    I *S = k->S;
    for (;;) {{
        int r;
        k->top = 0;
        if (resume) r = k_block(k, S[{lay.frames}], {lay.frames}, 1);
        else r = {game}(k, {lay.frames}, 0, 0);
        if (r == {RESTART}) {{
            if (k->recording) k_rec(k, 1)[0] = 7;
            k_charge(k, {restart} + S[{H_N}] * {nplayer_vars});
            k_reset(k);
            resume = 0;
            continue;
        }}
        if (r == {PAUSE}) return;
        S[{H_CUR}] = {CUR_OVER};
        S[{H_DEPTH}] = 0;
        if (k->recording) k_rec(k, 1)[0] = 8;
        return;
    }}
}}

static void k_seen(K *k, I *out) {{
{seen}
}}

/* keep a record (on 1) or not (0): the trace starts empty */
FK_EXPORT void fk_record(void *ctx, int on) {{
    K *k = (K *)ctx;
    k->recording = on ? 1 : 0;
    k->nrec = 0;
}}

/* the trace kept since fk_record: its length; copied into out when it fits in cap */
FK_EXPORT I fk_trace(void *ctx, I *out, I cap) {{
    K *k = (K *)ctx;
    if (out && k->nrec <= cap && k->nrec > 0) memcpy(out, k->rec, (size_t)k->nrec * sizeof(I));
    return k->nrec;
}}

/* a context: scratch of arena_cap numbers, lists of moves_cap moves (grown, at most moves_max) */
FK_EXPORT void *fk_context(I arena_cap, I moves_cap, I moves_max) {{
    K *k = (K *)calloc(1, sizeof(K));
    if (!k) return 0;
    if (moves_cap < 1 || moves_max < moves_cap) {{ free(k); return 0; }}
    k->arena = (I *)malloc((size_t)arena_cap * sizeof(I));
    k->ok = (I *)malloc((size_t)moves_cap * {lay.move_width} * sizeof(I));
    k->bad = (I *)malloc((size_t)moves_cap * {lay.move_width} * sizeof(I));
    if (!k->arena || !k->ok || !k->bad) {{ free(k->arena); free(k->ok); free(k->bad); free(k); return 0; }}
    k->arena_cap = arena_cap;
    k->moves_cap = moves_cap;
    k->moves_max = moves_max;
    k->width = {lay.move_width};
    k->dcache = (I *)calloc({max(w.kept_size, 1)}, sizeof(I));
    k->dv = (I *)calloc({max(len(kp.keep.index), 1)}, sizeof(I));
    k->dva = (I *)calloc({max(kp.keep.arg_versions, 1)}, sizeof(I));
    if (!k->dcache || !k->dv || !k->dva) {{
        free(k->arena); free(k->ok); free(k->bad); free(k->dcache); free(k->dv); free(k->dva); free(k); return 0;
    }}
    k->epoch = 1;
    return k;
}}

FK_EXPORT void fk_free(void *ctx) {{
    K *k = (K *)ctx;
    if (!k) return;
    free(k->arena); free(k->ok); free(k->bad); free(k->dcache); free(k->dv); free(k->dva); free(k->rec);
    free(k);
}}


/* set a game up: S holds the header and options already (players, seeds, options); 0 or a fault */
FK_EXPORT int fk_new(void *ctx, I *S) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    if (setjmp(k->jb)) return k->fault;
    I n = dice_count(k);
    if (n == NIL || n < 0 || n > MAX_DICE) k_fault(k, FAULT_RULE);
    if (n > {lay.dice_cap}) k_fault(k, FAULT_CAPACITY);
    S[{H_NDICE}] = n;
    k_reset(k);
    return 0;
}}

/* run: resume 0 starts the game, 1 carries on after a move; playout 1 chooses at random */
FK_EXPORT int fk_run(void *ctx, I *S, int resume, int playout) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    k->rec_mark = k->nrec;
    if (setjmp(k->jb)) {{ k->nrec = k->rec_mark; return k->fault; }}  /* a call that fails leaves no trace */
    S[{H_MODE}] = playout;
    if (playout) S[{H_MANUAL}] = 0;  /* a playout's chance is the generator's, whoever had it before */
    S[{H_WORK}] = 0;
    if (S[{H_CUR}] == {CUR_OVER}) return 0;
    k_run(k, resume);
    return 0;
}}

/* the legal moves of `player` at the decision the game waits at, into out (cap records) */
FK_EXPORT I fk_moves(void *ctx, I *S, I player, I *out, I cap) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    if (setjmp(k->jb)) return -(I)k->fault;
    S[{H_WORK}] = 0;
    I n = k_site(k, S[{H_SITE}], player);
    if (n > cap) return -{FAULT_CAPACITY};
    memmove(out, k->ok, (size_t)(n * {lay.move_width}) * sizeof(I));
    return n;
}}

/* what parameter `param` of action `action` may be at this position, given the actor and the
   earlier parameters of `move` (a record as fk_moves writes them; the later parameters are not
   read): its values into out (cap of them), how many, or minus a fault.  S's move slots and work
   count are written: the caller passes a copy of the position */
FK_EXPORT I fk_domain(void *ctx, I *S, I action, I param, const I *move, I *out, I cap) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    if (setjmp(k->jb)) return -(I)k->fault;
    memmove(S + {H_MOVE}, move, {lay.move_width} * sizeof(I));
    S[{H_WORK}] = 0;
    switch (action) {{
{doms}
    }}
    k_fault(k, FAULT_RULE);
    return 0;
}}

/* which rule of its action the move `move` breaks at this position, into *out: 0 none, k + 1 the
   first broken is rule k and refused, -(k + 1) it is accepted by its handler; 0 or a fault (S as
   for fk_domain) */
FK_EXPORT int fk_why(void *ctx, I *S, I action, const I *move, I *out) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    if (setjmp(k->jb)) return k->fault;
    memmove(S + {H_MOVE}, move, {lay.move_width} * sizeof(I));
    S[{H_WORK}] = 0;
    switch (action) {{
{whys}
    }}
    k_fault(k, FAULT_RULE);
    return 0;
}}

/* a frame's size, by its block (-1: no block) */
static I k_frame_size(I b) {{
    switch (b) {{
{sizes}
    }}
    return -1;
}}

/* where the simultaneous choice of `site` in a frame of block `b` keeps who chooses and what they
   chose (offsets in the frame, capacities); 0 if that block has no such choice */
static int k_together(I b, I site, I *who, I *wcap, I *chosen, I *ccap) {{
    switch (site) {{
{together}
    }}
    (void)b; (void)who; (void)wcap; (void)chosen; (void)ccap;
    return 0;
}}

/* one player's move (a record of fk_moves) at the simultaneous choice the game waits at, kept in
   the waiting frame's `chosen`; once everybody has chosen, their moves put in the order the rules
   name the players and the game run on (as fk_run; `playout` as there).  0 or a fault:
   FAULT_RULE, the position untouched, for a player not choosing here or who has chosen already
   (or a position that is not waiting for a choice made together) */
FK_EXPORT int fk_choose(void *ctx, I *S, const I *move, int playout) {{
    if (S[{H_CUR}] != {CUR_SIMUL} || S[{H_DEPTH}] < 1) return {FAULT_RULE};
    I fp = {lay.frames};
    for (I d = 1; d < S[{H_DEPTH}]; d++) {{
        I size = fp + 2 <= FRAMES_END ? k_frame_size(S[fp]) : -1;
        if (size < 0) return {FAULT_RULE};
        fp += size;
    }}
    I wo, wc, co, cc;
    if (fp + 2 > FRAMES_END || !k_together(S[fp], S[{H_SITE}], &wo, &wc, &co, &cc)) return {FAULT_RULE};
    if (fp + co + 1 + cc > FRAMES_END || fp + wo + 1 + wc > FRAMES_END) return {FAULT_RULE};
    I *W = S + fp + wo, *C = S + fp + co;
    if ((U)W[0] > (U)wc || (U)C[0] > (U)cc || C[0] % {lay.move_width}) return {FAULT_RULE};
    I actor = move[1], j = 0, n = C[0] / {lay.move_width};
    while (j < W[0] && W[1 + j] != actor) j++;
    if (j == W[0]) return {FAULT_RULE};
    for (I i = 0; i < n; i++) if (C[1 + i * {lay.move_width} + 1] == actor) return {FAULT_RULE};
    if (C[0] + {lay.move_width} > cc) return {FAULT_CAPACITY};
    memmove(C + 1 + C[0], move, {lay.move_width} * sizeof(I));
    C[0] += {lay.move_width};
    n += 1;
    if (n < W[0]) return 0;
    for (I p = 0; p < n; p++) {{  /* in the order the rules name the players */
        I i = p;
        while (i < n && C[1 + i * {lay.move_width} + 1] != W[1 + p]) i++;
        if (i == n) return {FAULT_RULE};
        for (I x = 0; i != p && x < {lay.move_width}; x++) {{
            I t = C[1 + p * {lay.move_width} + x];
            C[1 + p * {lay.move_width} + x] = C[1 + i * {lay.move_width} + x];
            C[1 + i * {lay.move_width} + x] = t;
        }}
    }}
    S[{H_CUR}] = {CUR_RUN};
    return fk_run(ctx, S, 1, playout);
}}

/* one decision of the API's loop in one call: play `move` (a record of fk_moves), run to the next
   stop and, if one player is to choose there, list their moves into out as fk_moves does; 0 when
   nobody single is to choose (the game is over, or a choice made together), else fk_moves' answer */
FK_EXPORT I fk_step(void *ctx, I *S, const I *move, I *out, I cap) {{
    memmove(S + {H_MOVE}, move, {lay.move_width} * sizeof(I));
    S[{H_CUR}] = {CUR_RUN};
    int f = fk_run(ctx, S, 1, 0);
    if (f) return -(I)f;
    if (S[{H_CUR}] < 0) return 0;
    return fk_moves(ctx, S, S[{H_CUR}], out, cap);
}}

FK_EXPORT int fk_scores(void *ctx, I *S, I *out) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    if (setjmp(k->jb)) return k->fault;
    S[{H_WORK}] = 0;
    for (I p = 0; p < S[{H_N}]; p++) out[p] = score(k, p);
    return 0;
}}

/* each player's score in its parts (the rules' `score` lines, t0, t1, ...): out[p * terms + i]
   (terms = {nterms}); out[players * terms] is the line being worked out (p * terms + i), which
   says where a fault stopped it; 0 or the fault */
FK_EXPORT int fk_score_parts(void *ctx, I *S, I *out) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    I n = S[{H_N}];
    if (setjmp(k->jb)) return k->fault;
    S[{H_WORK}] = 0;
    for (I p = 0; p < n; p++) {{
{parts}
    }}
    return 0;
}}

/* what a view reads besides the position's values (KernelProgram.looks): each worked out on
   its own, into out[i], with 0 or the fault that stopped it in faults[i] */
FK_EXPORT void fk_looks(void *ctx, I *S, I *out, I *faults) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->epoch++;
{looks}
}}

FK_EXPORT I fk_winners(void *ctx, I *S, I *out) {{
    K *k = (K *)ctx;
    k->S = S; k->size = {lay.size}; k->top = 0; k->epoch++;
    if (setjmp(k->jb)) return -(I)k->fault;
    S[{H_WORK}] = 0;
    return winners(k, out, {lay.seats});
}}

/* many whole games: S0 is a set-up template (header, options); per game its seed (the seed of
   its choices is worked out from it); out per game: scores (players of them), a mask of the
   winners, decisions, chances, and 0 or the fault that stopped it */
FK_EXPORT void fk_simulate(void *ctx, const I *S0, I *S, I games, const I *seeds,
                           I *scores, I *winmask, I *decisions, I *chances, I *faults, I *fires) {{
    K *k = (K *)ctx;
    I n = S0[{H_N}];
    I win[{lay.seats}];
    for (I g = 0; g < games; g++) {{
        memcpy(S, S0, sizeof(I) * {prefix});
        for (I i = 0; i < {lay.nrules}; i++) S[{lay.fires} + i] = 0;
        for (I i = 0; i < {2 * len(lay.zones)}; i++) S[{lay.empty} + i] = 0;
        S[{H_SEED}] = seeds[g];
        /* decision_seed (fishrules.kernel.pyruntime): the seed of the playout's random choices */
        S[{H_DSEED}] = (I)(k_mix((U)seeds[g], DECISION_DRAW) >> 1);
        int f = fk_new(ctx, S);
        if (!f) f = fk_run(ctx, S, 0, 1);
        if (!f) f = fk_scores(ctx, S, scores + g * n);
        if (!f) {{
            I w = fk_winners(ctx, S, win);
            if (w < 0) f = (int)-w;
            else {{
                I m = 0;
                for (I i = 0; i < w; i++) m |= (I)1 << win[i];
                winmask[g] = m;
            }}
        }}
        decisions[g] = S[{H_DECISIONS}];
        chances[g] = S[{H_CHANCES}];
        faults[g] = f;
        for (I i = 0; i < {lay.nrules}; i++) fires[g * {tail} + i] = S[{lay.fires} + i];
        for (I i = 0; i < {2 * len(lay.zones)}; i++) fires[g * {tail} + {lay.nrules} + i] = S[{lay.empty} + i];
    }}
}}
"""

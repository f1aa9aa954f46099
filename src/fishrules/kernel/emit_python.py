"""Emitting the kernel program as plain Python (the backend for machines with no C compiler).

The same program as `emit_c`, printed as Python: the state is a list `S`; a value of nothing is
None; a buffer is a list or tuple; a stream is an iterable (a stage is a list comprehension, as in
the engine's own compiled code, so that every element is looked at, and work counted, where the
engine does).  Helpers the code calls come from `fishrules.kernel.pyruntime`, each named in
`pyruntime.HELPERS`.

No text of the rules reaches the source: names are the lowering's own (`l3`, `d4`, `b7`), tables
hold numbers, and comments give only line numbers.

Rules may nest as deep as the language allows, deeper than CPython compiles one function (20 nested
loops, 100 levels of indentation, an `elif` chain of a few thousand links): as the engine's compiler
does (`compiler/blocks.py`, `compiler/actions.py`), a loop nested `_LOOPS` deep, or a statement
`_INDENT` levels in, is written as a function of its own (`_Writer.outline`), so is a part of an
expression `_HOIST` levels deep (`_Writer.hoist`), and a chain of `otherwise if` is cut every
`_CHAIN` links.  Code nested less deep is written as before.
"""

from __future__ import annotations

import re

import attrs

from . import ir
from .abi import (
    CHANCE_DIE, CHANCE_DRAW, CUR_CHANCE, CUR_RUN, CUR_SIMUL, FAULT_CAPACITY, FAULT_ENDLESS, FAULT_RULE, FAULT_STUCK, H_AT, H_CUR, H_DECISIONS, H_DEPTH,
    H_LIMIT, H_MODE, H_MOVE, H_NDICE, H_CHANCE, H_CHANCE_A, H_CHANCE_B, H_CHANCE_C, H_N, H_SITE, H_UNWIND, H_WORK, WHY_DEEP, WHY_NOBODY_CHOOSES,
)
from .lower import KernelProgram
from .lower_blocks import DONE, PAUSE, UNWIND

__all__ = ["emit_python", "frame_slots_python"]

#: A loop this many loops deep in one function (CPython compiles at most 20: the dispatch of a
#: block's arms is one) is written as a function of its own (`_Writer.outline`).
_LOOPS = 12
#: So is a statement this many levels of indentation in (CPython reads at most 100; the statements
#: of `s_Invoke` and `s_Ask` open three more).
_INDENT = 60
#: An `if … elif …` chain is one `if` nested in another to CPython's compiler, which gives up at a few
#: thousand links: a longer chain (`otherwise if`, the dispatch of a block's many arms) is written
#: as chains of this many links, each in the `else` of the one before (or after it, for arms).
_CHAIN = 100
#: How many levels of an expression are written inside one another (each opens at most three
#: brackets; CPython reads 200): a part deeper is a function of its own (`_Writer.hoist`).
_HOIST = 32
#: The names an outlined function's lines assign: plain and chained assignments, `for` loops, `:=`.
_ASSIGNED = re.compile(r"^\s*((?:[A-Za-z_]\w*(?:, *[A-Za-z_]\w*)*,? *(?:=|[-+]=)(?!=) *)+)")
_LOOP_VAR = re.compile(r"^\s*for ([A-Za-z_]\w*) in ")
_WALRUS = re.compile(r"([A-Za-z_]\w*) :=")


def frame_slots_python(kp: KernelProgram, fn: ir.Function) -> list[str]:
    """The locals a Python frame keeps, in order, after its block number and place."""
    scalars, buffers = kp.locals_of(fn)
    return scalars + [b for b, _ in buffers]


class _Writer:
    def __init__(self, kp: KernelProgram):
        self.kp = kp
        self.lines: list[str] = []
        self.lay = kp.layout
        self.ctx = _Ctx(False)  # the Python function being written (a function's own, or outlined)
        self.outlined = 0  # how many outlined functions are written
        self.fn: "_Fn | None" = None  # the function whose statements are being written
        self.level = 0  # how deep inside the expression being written
        self.bound: list[str] = []  # the variables of the comprehensions around it

    def put(self, depth: int, text: str) -> None:
        c = self.ctx
        if c.outlined:
            # in an outlined function, a return hands its value back in a tuple, and a break or a
            # continue of a loop outside it is handed back as 1 or 2 (see `outline`)
            if text == "return" or text.startswith("return "):
                c.ret = True
                text = f"return ({text[7:] or 'None'},)"
            elif c.loops == 0 and text in ("break", "continue"):
                if text == "break":
                    c.brk = True
                    text = "return 1"
                else:
                    c.cont = True
                    text = "return 2"
        self.lines.append("    " * depth + text)

    # ---- expressions ---------------------------------------------------------------------------

    def x(self, e) -> str:
        level = self.level  # (here, not in a function for all three: the emitter recurses as deep as the IR nests)
        if level >= _HOIST and self.fn is not None:
            return self.hoist(e, "x_")
        self.level = level + 1
        try:
            return getattr(self, "x_" + type(e).__name__)(e)
        finally:
            self.level = level

    def hoist(self, e, kind: str) -> str:
        """A part of an expression `_HOIST` levels deep, written as a function of its own (see
        `closure`); returns the call."""
        level, bound = self.level, self.bound
        self.level, self.bound = 0, list(self.bound)
        try:
            text = getattr(self, kind + type(e).__name__)(e)
        finally:
            self.level, self.bound = level, bound
        return self.closure(text)

    def source(self, s) -> str:
        """The stream `s` as the iterable of a comprehension, where CPython reads no `:=` (a value
        kept by the lowering, `x_Cached`, in a condition of a comprehension inside it, where a
        deep expression is cut): such a one as a function of its own."""
        text = self.items(s)
        if ":=" not in text or self.fn is None:
            return text
        return self.closure(text)

    def closure(self, text: str) -> str:
        """The expression `text` as a function defined at the start of the function being written
        (a closure, as `outline`'s: what it keeps with `:=` is that function's), given the
        variables of the comprehensions around it; returns the call."""
        fn = self.fn
        assert fn is not None
        self.outlined += 1
        name = f"xh{self.outlined}"
        params = ", ".join(dict.fromkeys(self.bound))
        names = dict.fromkeys(n for n in _WALRUS.findall(text) if n not in self.bound)
        fn.nonlocals.update(names)
        fn.outlines.append(f"    def {name}({params}):")
        if names:
            fn.outlines.append(f"        nonlocal {', '.join(names)}")
        fn.outlines.append(f"        return {text}")
        return f"{name}({params})"

    def under(self, var: str, e) -> str:
        """`e` written inside a comprehension over `var`."""
        self.bound.append(var)
        try:
            return self.x(e)
        finally:
            self.bound.pop()

    def x_Int(self, e):
        return repr(e.value)

    def x_Nil(self, e):
        return "None"

    def x_Var(self, e):
        return e.name

    def x_Get(self, e):
        return f"S[{self.x(e.index)}]"

    def x_Tab(self, e):
        return f"{e.table}[{self.x(e.index)}]"

    def x_Attr(self, e):
        c = self.x(e.card)
        if isinstance(e.card, ir.Var):
            return f"(None if {c} is None else {e.table}[{c}])"
        return f"attr({e.table}, {c})"

    def x_Arith(self, e):
        return f"({self.x(e.left)} {e.op} {self.x(e.right)})"

    def x_Div(self, e):
        if e.why:  # divide by zero has words of its own, at the divide's own position
            return f"divide(S, {self.x(e.left)}, {self.x(e.right)}, {e.why})"
        return f"({self.x(e.left)} // {self.x(e.right)})"

    def x_Mod(self, e):
        return f"({self.x(e.left)} % {self.x(e.right)})"

    def x_Cmp(self, e):
        return f"({self.x(e.left)} {e.op} {self.x(e.right)})"

    def x_And(self, e):
        return f"({self.x(e.left)} and {self.x(e.right)})"

    def x_Or(self, e):
        return f"({self.x(e.left)} or {self.x(e.right)})"

    def x_Not(self, e):
        return f"(not {self.x(e.operand)})"

    def x_Neg(self, e):
        return f"(-{self.x(e.operand)})"

    def x_Cond(self, e):
        return f"({self.x(e.then)} if {self.x(e.test)} else {self.x(e.otherwise)})"

    def x_Call(self, e):
        return f"{e.fn}(S" + "".join(", " + self.x(a) for a in e.args) + ")"

    def x_Cached(self, e):
        return f"({e.name} if {e.name} is not MISSING else ({e.name} := {self.x(e.value)}))"

    def x_Bounded(self, e):
        return f"checked(S, {self.x(e.value)})"

    def x_Len(self, e):
        return f"len({self.b(e.buf)})"

    def x_At(self, e):
        return f"{self.b(e.buf)}[{self.x(e.index)}]"

    _INLINE = {
        "at_die": "({0} + {1})",
        "die_number": "{0}",
        "abs": "abs({0})",
        "minus_one": "({0} - 1)",
        "plus_one": "({0} + 1)",
    }

    def x_Help(self, e):
        args = [self.x(a) for a in e.args]
        if e.name == "at_seat":
            if len(args) == 4:  # nobody's value, worded as the fourth says (a zone, a change)
                if isinstance(e.args[1], ir.Var):  # (read twice: inline, on the hot path)
                    base, seat, stride, why = args
                    at = f"{base} + {seat}" if stride == "1" else f"{base} + {seat} * {stride}"
                    return f"({at} if {seat} is not None else fail(S, {why}))"
                return f"seat_at(S, {', '.join(args)})"
            base, seat, stride = args
            return f"({base} + {seat})" if stride == "1" else f"({base} + {seat} * {stride})"
        if e.name in ("min", "max"):
            return f"{e.name}({', '.join(args)})"
        t = self._INLINE.get(e.name)
        if t is not None:
            return t.format(*args)
        return f"{e.name}(S, {', '.join(args)})"

    def x_Count(self, e):
        if isinstance(e.stream, ir.SeatsS):
            return f"S[{H_N}]"
        return f"len({self.items(e.stream)})"

    def x_Sum(self, e):
        return f"total(S, {self.items(e.stream)})"

    def x_Extreme(self, e):
        return f"{'most' if e.highest else 'least'}(S, {self.items(e.stream)})"

    def x_Pick(self, e):
        src = e.stream
        empty = self.x(e.empty)
        if isinstance(src, ir.SliceS) and isinstance(src.start, ir.Int):
            k = src.start.value
            return f"(S[{k} + S[{k}]] if S[{k}] else {empty})" if e.last else f"(S[{k + 1}] if S[{k}] else {empty})"
        return f"{'last_of' if e.last else 'first_of'}({self.items(src)}, {empty})"

    def x_Quant(self, e):
        test = f"({self.under(e.var, e.cond)} for {e.var} in ch(S, {self.source(e.stream)}))"
        if e.kind == "every":
            return f"all{test}"
        if e.kind == "any":
            return f"any{test}"
        return f"(not any{test})"

    def x_Contains(self, e):
        return f"({self.x(e.value)} in ch(S, {self.items(e.stream)}))"

    # ---- streams and buffers -------------------------------------------------------------------

    def items(self, s) -> str:
        """A stream as a Python iterable that has a length."""
        level = self.level
        if level >= _HOIST and self.fn is not None:
            return self.hoist(s, "i_")
        self.level = level + 1
        try:
            return getattr(self, "i_" + type(s).__name__)(s)
        finally:
            self.level = level

    def i_SeatsS(self, s):
        return f"range(S[{H_N}])"

    def i_RangeS(self, s):
        return f"range({self.x(s.low)}, {self.x(s.high)})"

    def i_TabS(self, s):
        return s.table

    def i_SliceS(self, s):
        if isinstance(s.start, ir.Int):
            k = s.start.value
            return f"S[{k + 1}:{k + 1} + S[{k}]]"
        return f"zone(S, {self.x(s.start)})"

    def i_BufS(self, s):
        return self.b(s.buf)

    def i_OneS(self, s):
        return f"one(({self.x(s.value)}))"

    def i_FilterS(self, s):
        return f"[{s.var} for {s.var} in ch(S, {self.source(s.source)}) if {self.under(s.var, s.cond)}]"

    def i_MapS(self, s):
        return f"[{self.under(s.var, s.value)} for {s.var} in ch(S, {self.source(s.source)})]"

    def b(self, b) -> str:
        level = self.level
        if level >= _HOIST and self.fn is not None:
            return self.hoist(b, "b_")
        self.level = level + 1
        try:
            return getattr(self, "b_" + type(b).__name__)(b)
        finally:
            self.level = level

    def b_BufVar(self, b):
        return b.name

    def b_Collect(self, b):
        s = b.stream
        if isinstance(s, (ir.FilterS, ir.MapS, ir.TabS, ir.SliceS, ir.BufS)):
            return self.items(s)
        return f"tuple({self.items(s)})"

    def b_CallBuf(self, b):
        return f"{b.fn}(S" + "".join(", " + self.x(a) for a in b.args) + ")"

    def b_HelpBuf(self, b):
        args = [self.b(a) if isinstance(a, ir.BufExpr) else self.x(a) for a in b.args]
        if b.name == "unmask":
            return args[1]
        return f"{b.name}(S, {', '.join(args)})"

    def b_BestBuf(self, b):
        pairs = f"[({b.var}, {self.under(b.var, b.key)}) for {b.var} in ch(S, {self.source(b.source)})]"
        return f"best_of(S, {pairs}, {1 if b.highest else 0})"

    def b_CondBuf(self, b):
        return f"({self.b(b.then)} if {self.x(b.test)} else {self.b(b.otherwise)})"

    # ---- statements ------------------------------------------------------------------------------

    def stmts(self, body, depth: int, fn: "_Fn") -> None:
        for s in body:
            if isinstance(s, (ir.If, ir.For, ir.While)) and (
                    depth >= _INDENT or (self.ctx.loops >= _LOOPS and not isinstance(s, ir.If))):
                self.outline((s,), depth, fn)
            else:
                getattr(self, "s_" + type(s).__name__)(s, depth, fn)

    def outline(self, stmts, depth: int, fn: "_Fn") -> None:
        """The statements `stmts`, nested too deep for CPython to compile where it stands, written as a
        function of its own, defined at the start of the function being written (so that it
        starts again at the left, with no loop around it) and called here.  It is a closure: the
        locals it assigns are the function's own (`nonlocal`, each bound at the function's start,
        `_Fn.nonlocals`).  What it hands back says how it ended: None (it ran to its end), a
        tuple (it returned that value), 1 or 2 (a break or a continue of a loop around the call,
        the dispatch of a block's arms among them)."""
        self.outlined += 1
        name = f"xo{self.outlined}"
        lines, ctx = self.lines, self.ctx
        self.lines, self.ctx = [], _Ctx(True)
        try:
            self.stmts(stmts, 2, fn)
            body, inner = self.lines, self.ctx
        finally:
            self.lines, self.ctx = lines, ctx
        names: dict = {}
        for line in body:
            got = _ASSIGNED.match(line)
            if got is not None:
                names.update(dict.fromkeys(n.strip() for n in re.split(r"[-+]?=|,", got.group(1)) if n.strip()))
            got = _LOOP_VAR.match(line)
            if got is not None:
                names[got.group(1)] = None
            names.update(dict.fromkeys(_WALRUS.findall(line)))
        fn.nonlocals.update(names)
        fn.outlines.append(f"    def {name}():")
        if names:
            fn.outlines.append(f"        nonlocal {', '.join(names)}")
        fn.outlines.extend(body)
        if not (inner.ret or inner.brk or inner.cont):
            self.put(depth, f"{name}()")
            return
        self.put(depth, f"xt = {name}()")
        self.put(depth, "if xt is not None:")
        if inner.brk:
            self.put(depth + 1, "if xt == 1:")
            self.put(depth + 2, "break")
        if inner.cont:
            self.put(depth + 1, "if xt == 2:")
            self.put(depth + 2, "continue")
        if inner.ret:
            self.put(depth + 1, "return xt[0]")

    def close(self, start: int, fn: "_Fn", bound) -> None:
        """The outlined functions of the function whose body starts at line `start`, put there,
        after the locals they assign are bound (but its parameters, `bound`)."""
        if not fn.outlines:
            return
        fresh = [n for n in fn.nonlocals if n not in bound]
        head = [f"    {' = '.join(fresh)} = None"] if fresh else []
        self.lines[start:start] = head + fn.outlines

    def s_Set(self, s, depth, fn):
        self.put(depth, f"{s.var} = {self.x(s.value)}")

    def s_SetBuf(self, s, depth, fn):
        self.put(depth, f"{s.var} = {self.b(s.value)}")

    def s_Put(self, s, depth, fn):
        self.put(depth, f"S[{self.x(s.index)}] = {self.x(s.value)}")

    def s_If(self, s, depth, fn):
        # (not recursive along a chain of `otherwise if`, which may be thousands of links long: a
        # long one is written as `elif`s, its links' positions set in their tests)
        long = _chain(s) > _CHAIN
        links = 0
        test = self.x(s.test)
        word = "if"
        while True:
            self.put(depth, f"{word} {test}:")
            self.body(s.then, depth + 1, fn)
            rest = s.otherwise
            if not rest:
                return
            link = _link(rest)
            if link is None:
                self.put(depth, "else:")
                self.body(rest, depth + 1, fn)
                return
            prefix, s = link
            links += 1
            test = self.x(s.test)
            if long and links % _CHAIN:
                word = "elif"
                if prefix:
                    test = f"(at_line(S, {prefix[-1].pos}) or {test})"
                continue
            self.put(depth, "else:")  # (a long chain: a new one, in the else of the one before)
            depth += 1
            word = "if"
            if depth >= _INDENT:
                self.outline((*prefix, s), depth, fn)
                return
            self.stmts(prefix, depth, fn)

    def body(self, stmts, depth, fn):
        if not stmts:
            self.put(depth, "pass")
        else:
            self.stmts(stmts, depth, fn)

    def s_While(self, s, depth, fn):
        test = "True" if isinstance(s.test, ir.Int) and s.test.value else self.x(s.test)
        self.put(depth, f"while {test}:")
        self.loop(s.body, depth + 1, fn)

    def s_For(self, s, depth, fn):
        self.put(depth, f"for {s.var} in {self.items(s.stream)}:")
        self.loop(s.body, depth + 1, fn)

    def loop(self, stmts, depth, fn):
        self.ctx.loops += 1
        try:
            self.body(stmts, depth, fn)
        finally:
            self.ctx.loops -= 1

    def s_Break(self, s, depth, fn):
        self.put(depth, "break")

    def s_Continue(self, s, depth, fn):
        self.put(depth, "continue")

    def s_Return(self, s, depth, fn):
        self.put(depth, "return" if s.value is None else f"return {self.x(s.value)}")

    def s_ReturnBuf(self, s, depth, fn):
        self.put(depth, f"return {self.b(s.value)}")

    def s_Do(self, s, depth, fn):
        args = [self.b(a) if isinstance(a, ir.BufExpr) else self.x(a) for a in s.args]
        if s.name == "charge":
            self.put(depth, f"S[{H_WORK}] += {args[0]}")
            self.put(depth, f"if S[{H_WORK}] > BUDGET:")
            self.put(depth + 1, "over_budget()")
        elif s.name == "fire":
            self.put(depth, f"S[{self.lay.fires} + {args[0]}] += 1")
        elif s.name == "moves_room":
            self.put(depth, "if len(ok) + len(bad) >= MAX_CHOICES:")
            self.put(depth + 1, f"fail(S, {args[0]})")
        elif s.name == "moves_action":
            pass
        elif s.name == "stale":
            for a in args:  # (a test of an empty dict is cheaper than a call that empties it)
                self.put(depth, f"if KEPT{a}:")
                self.put(depth + 1, f"KEPT{a}.clear()")
        elif s.name in ("note_old", "note_new"):
            # a change of a noted value is work outside a playout (the engine's `note_set`, which
            # runs while it keeps events), and an event while a record is kept (kernel/record.py)
            self.put(depth, f"if not S[{H_MODE}]:")
            self.put(depth + 1, f"{s.name}(S, {', '.join(args)})")
        else:
            self.put(depth, f"{s.name}(S, {', '.join(args)})")
            if s.name in ("shuffle", "reveal") and self.kp.keep is not None and self.kp.keep.index:
                # the engine forgets every kept value (keep.py), though no define reads which cards
                # are face up: outside a playout, where the work counted is a call's (a playout
                # keeps them: a bundled game's would work 2.7 times as many values out, 4 % slower)
                self.put(depth, "stale_all()" if s.name == "shuffle" else f"if not S[{H_MODE}]: stale_all()")

    def s_Forget(self, s, depth, fn):
        self.put(depth, f"{s.name} = MISSING")

    def s_Fault(self, s, depth, fn):
        self.put(depth, f"fail(S, {s.why})" if s.code == FAULT_RULE else f"raise KFault({s.code})")

    def s_Here(self, s, depth, fn):
        self.put(depth, f"S[{H_AT}] = {s.pos}")

    def s_Emit(self, s, depth, fn):
        vals = [self.b(v) if isinstance(v, ir.BufExpr) else self.x(v) for v in s.values]
        self.put(depth, f"{'bad' if s.broken else 'ok'}.append(({', '.join(vals)},))")

    def s_Leave(self, s, depth, fn):
        if s.code == DONE:
            self.epilogue(depth, fn)
            self.put(depth, "return 0")
        elif s.code == UNWIND:
            if s.target == fn.fn.block:
                self.epilogue(depth, fn)
                self.put(depth, "return 0")
            else:
                self.put(depth, f"if not S[{self.lay.active + s.target}]:")
                self.put(depth + 1, f"fail(S, {s.why})")
                self.put(depth, f"S[{H_UNWIND}] = {s.target}")
                self.epilogue(depth, fn)
                self.put(depth, f"return {UNWIND}")
        else:
            self.put(depth, f"return {s.code}")

    def epilogue(self, depth: int, fn: "_Fn") -> None:
        self.put(depth, f"S[{H_DEPTH}] -= 1")
        if fn.fn.is_phase:
            self.put(depth, f"S[{self.lay.active + fn.fn.block}] -= 1")

    # arms

    def s_Goto(self, s, depth, fn):
        self.put(depth, f"pc = {s.label}")
        self.put(depth, "continue")

    def spill(self, depth: int, fn: "_Fn", back: int) -> None:
        self.put(depth, f"if fp + {fn.frame} > FRAMES_END:")
        self.put(depth + 1, f"raise KFault({FAULT_CAPACITY})")
        slots = [str(fn.fn.block), str(back)] + fn.slots
        self.put(depth, f"S[fp:fp + {len(slots)}] = ({', '.join(slots)},)")

    def pause(self, depth: int, fn: "_Fn", back: int) -> None:
        """Wait (for a player or chance): the frame kept, and the step of the block's run that
        ends here not counted — the engine's machine counts a block's run as a step when it calls
        another block or ends, not when it waits (`runtime/machine.py` `_run`), and the runs of
        the blocks below it are counted when they go on (`s_Invoke`)."""
        self.put(depth, f"S[{H_WORK}] -= 1")
        self.spill(depth, fn, back)
        self.put(depth, f"return {PAUSE}")

    def s_Invoke(self, s, depth, fn):
        child = f"fp + {fn.frame}"
        if s.block is not None:
            callee = self.kp.block_fn[s.block]
            if s.fresh:
                args = "".join(", " + self.x(a) for a in s.args)
                self.put(depth, f"r = {callee}(S, {child}, 0{args})")
            else:
                self.put(depth, f"r = {callee}(S, {child}, 1)")
        elif s.fresh:
            self.put(depth, f"r = MOVE_FN[S[{H_MOVE}]](S, {child}, 0)")
        else:
            self.put(depth, f"r = MOVE_FN[S[{child}]](S, {child}, 1)")
        # This block's run goes on (a step, as the engine's machine counts a block's run: see
        # `pause`) once the child is done; not when it waits (this block waits too), nor when
        # the rules end a phase or play again (the engine drops the frames between, unrun).
        self.put(depth, "if r:")
        self.put(depth + 1, f"if r == {PAUSE}:")
        self.spill(depth + 2, fn, s.back)
        self.put(depth + 2, f"return {PAUSE}")
        self.put(depth + 1, f"if r == {UNWIND}:")
        if fn.fn.is_phase:
            self.put(depth + 2, f"if S[{H_UNWIND}] == {fn.fn.block}:")
            self.epilogue(depth + 3, fn)
            self.put(depth + 3, "return 0")
        self.epilogue(depth + 2, fn)
        self.put(depth + 2, f"return {UNWIND}")
        self.put(depth + 1, "return r")
        self.put(depth, f"S[{H_WORK}] += 1")
        self.put(depth, f"pc = {s.next}")
        self.put(depth, "continue")

    def s_Ask(self, s, depth, fn):
        self.put(depth, f"if {s.who} is None:")
        self.put(depth + 1, f"fail(S, {WHY_NOBODY_CHOOSES})")
        self.put(depth, f"if S[{H_MODE}]:")
        self.put(depth + 1, f"S[{H_WORK}] = 0")
        # who is listed where, while the moves are listed (a fault then is worded so)
        self.put(depth + 1, f"S[{H_CUR}] = {s.who}")
        self.put(depth + 1, f"S[{H_SITE}] = {s.site}")
        self.put(depth + 1, f"mv = site{s.site}(S, {s.who})")
        self.put(depth + 1, "if not mv:")
        self.put(depth + 2, f"raise KFault({FAULT_STUCK})")
        self.put(depth + 1, f"S[{H_CUR}] = {CUR_RUN}")
        self.put(depth + 1, f"S[{H_DECISIONS}] += 1")
        self.put(depth + 1, f"if S[{H_DECISIONS}] > S[{H_LIMIT}]:")
        self.put(depth + 2, f"raise KFault({FAULT_ENDLESS})")
        self.put(depth + 1, "m = mv[choose(S, len(mv))]")
        self.put(depth + 1, f"S[{H_MOVE}:{H_MOVE} + len(m)] = m")
        self.put(depth + 1, f"pc = {s.call}")
        self.put(depth + 1, "continue")
        self.put(depth, f"S[{H_CUR}] = {s.who}")
        self.put(depth, f"S[{H_SITE}] = {s.site}")
        self.pause(depth, fn, s.after)

    def s_AskAll(self, s, depth, fn):
        self.put(depth, f"if S[{H_MODE}]:")
        self.put(depth + 1, f"S[{H_WORK}] = 0")
        self.put(depth + 1, "picked = []")
        self.put(depth + 1, f"S[{H_SITE}] = {s.site}")
        self.put(depth + 1, f"for w in {s.who}:")
        self.put(depth + 2, f"S[{H_CUR}] = w")
        self.put(depth + 2, f"mv = site{s.site}(S, w)")
        self.put(depth + 2, "if not mv:")
        self.put(depth + 3, f"raise KFault({FAULT_STUCK})")
        self.put(depth + 2, "picked.append(mv[choose(S, len(mv))])")
        self.put(depth + 1, f"S[{H_CUR}] = {CUR_RUN}")
        self.put(depth + 1, f"S[{H_DECISIONS}] += len({s.who})")
        self.put(depth + 1, f"if S[{H_DECISIONS}] > S[{H_LIMIT}]:")
        self.put(depth + 2, f"raise KFault({FAULT_ENDLESS})")
        self.put(depth + 1, f"{s.chosen} = picked")
        self.put(depth + 1, f"pc = {s.start}")
        self.put(depth + 1, "continue")
        self.put(depth, f"S[{H_CUR}] = {CUR_SIMUL}")
        self.put(depth, f"S[{H_SITE}] = {s.site}")
        self.put(depth, f"{s.chosen} = ()")
        self.pause(depth, fn, s.after)

    def s_RollWait(self, s, depth, fn):
        self.put(depth, f"S[{H_CUR}] = {CUR_CHANCE}")
        self.put(depth, f"S[{H_CHANCE}] = {CHANCE_DIE}")
        self.put(depth, f"S[{H_CHANCE_A}] = {s.die}")
        self.pause(depth, fn, s.after)

    def s_DrawWait(self, s, depth, fn):
        self.put(depth, f"S[{H_CUR}] = {CUR_CHANCE}")
        self.put(depth, f"S[{H_CHANCE}] = {CHANCE_DRAW}")
        self.put(depth, f"S[{H_CHANCE_A}] = {s.src}")
        self.put(depth, f"S[{H_CHANCE_B}] = {s.dest}")
        self.put(depth, f"S[{H_CHANCE_C}] = {s.facing}")
        self.pause(depth, fn, s.after)

    def s_PlayChosen(self, s, depth, fn):
        self.put(depth, f"m = {s.chosen}[{s.index}]")
        self.put(depth, f"S[{H_MOVE}:{H_MOVE} + len(m)] = m")

    # ---- functions -------------------------------------------------------------------------------

    def function(self, f: ir.Function) -> None:
        if f.memo and self.kp.keep is not None and f.name in self.kp.keep.index:
            self.kept(f)
            f = attrs.evolve(f, name=f.name + "_raw")
        self.put(0, f"# {f.comment}" if f.comment else "#")
        if f.kind == "block":
            self.block(f)
            return
        params = "".join(", " + p for p in f.params)
        if f.kind == "enum":
            params += ", ok, bad"
        self.put(0, f"def {f.name}(S{params}):")
        start = len(self.lines)
        for i, (name, _, _) in enumerate(f.loads):  # the move in the state's move slots (`why`, domains)
            self.put(1, f"{name} = S[{H_MOVE + 1 + i}]")
        fn = _Fn(f, self.kp, 0, [])
        self.ctx, self.fn = _Ctx(False), fn
        self.body(f.body, 1, fn)
        self.fn = None
        self.close(start, fn, {"S", "ok", "bad", *f.params})
        self.put(0, "")

    def kept(self, f: ir.Function) -> None:
        """A define whose values are kept (see emit_c's `kept`): a dict of its values by arguments,
        `KEPT{d}`, emptied where what it reads is written (`stale`, and pyruntime's helpers that
        move cards and roll dice), and wholly when the kernel is called on another position than
        the one its last call ended on (`PyBackend._enter`): values kept as the engine keeps its
        memo, on the position, across calls.  Found kept, no work is counted (as the engine's
        memo)."""
        keep = self.kp.keep
        d = keep.index[f.name]
        key = f.params[0] if len(f.params) == 1 else (f"({', '.join(f.params)},)" if f.params else "None")
        value = f"{f.name}_raw(S{''.join(', ' + p for p in f.params)})"
        self.put(0, f"KEPT{d} = KEPT[{d}]")
        self.put(0, f"# {f.comment}, its values kept")
        self.put(0, f"def {f.name}(S{''.join(', ' + p for p in f.params)}):")
        depth = 1
        by_arg = keep.by_arg.get(f.name)
        if by_arg is not None:
            # kept only for an argument of the family (a write of one zone forgets its value)
            low, count, _ = by_arg
            self.put(1, f"if {f.params[0]}.__class__ is not int or not {low} <= {f.params[0]} < {low + count}:")
            self.put(2, f"return {value}")
        self.put(depth, f"v = KEPT{d}.get({key}, MISSING)")
        self.put(depth, "if v is not MISSING:")
        self.put(depth + 1, "return v")
        self.put(depth, f"v = {'tuple(' + value + ')' if f.kind == 'buffer' else value}")
        self.put(depth, f"if len(KEPT{d}) > 4096:")
        self.put(depth + 1, f"KEPT{d}.clear()")
        self.put(depth, f"KEPT{d}[{key}] = v")
        self.put(depth, "return v")
        self.put(0, "")

    def block(self, f: ir.Function) -> None:
        kp = self.kp
        arms = kp.arms.get(f.name)
        slots = frame_slots_python(kp, f)
        fn = _Fn(f, kp, 2 + len(slots), slots)
        params = "".join(f", {p}=None" for p in f.params)
        self.put(0, f"def {f.name}(S, fp, resume{params}):")
        start = len(self.lines)
        self.ctx, self.fn = _Ctx(False), fn
        bound = {"S", "fp", "resume", *f.params}
        if arms is not None:
            self.put(1, "if resume:")
            self.put(2, f"pc = S[fp + 1]")
            if slots:
                self.put(2, f"{', '.join(slots)}{',' if len(slots) == 1 else ''} = S[fp + 2:fp + {2 + len(slots)}]")
            self.put(1, "else:")
            self.put(2, "pc = 0")
            fresh = [s for s in slots if s not in f.params and s not in {ld[0] for ld in f.loads}]
            if fresh:
                self.put(2, f"{' = '.join(fresh)} = None")
            self.prologue(2, f)
        else:
            self.prologue(1, f)
        if arms is None:
            self.body(f.body + (ir.Leave(DONE),), 1, fn)
            self.fn = None
            self.close(start, fn, bound)
            self.put(0, "")
            return
        self.put(1, "while True:")
        self.ctx.loops = 1
        for i, label in enumerate(sorted(arms.code)):
            # (every arm ends in a jump: a chain cut in several is the same dispatch)
            self.put(2, f"{'if' if i % _CHAIN == 0 else 'elif'} pc == {label}:")
            self.body(arms.code[label], 3, fn)
        self.fn = None
        self.close(start, fn, bound)
        self.put(0, "")

    def prologue(self, depth: int, f: ir.Function) -> None:
        for i, (name, _, _) in enumerate(f.loads):  # Python moves: one slot a parameter
            self.put(depth, f"{name} = S[{H_MOVE + 1 + i}]")
        self.put(depth, f"d = S[{H_DEPTH}] + 1")
        self.put(depth, f"S[{H_DEPTH}] = d")
        self.put(depth, "if d > MAX_STACK:")
        self.put(depth + 1, f"fail(S, {WHY_DEEP})")
        if f.at >= 0:  # (after the test of depth: too deep is the caller's statement)
            self.put(depth, f"S[{H_AT}] = {f.at}")
        if f.is_phase:
            self.put(depth, f"S[{self.lay.active + f.block}] += 1")
        self.put(depth, f"S[{H_WORK}] += 1")

    def site(self, site) -> None:
        kp = self.kp
        key = site_key(kp, site)
        name = f"site{site.number}"
        if key is not None:
            self.site_kept(site.number, key)
            name += "_raw"
        self.put(0, f"def {name}(S, w):")
        if len(site.actions) == 1 and site.together:
            self.put(1, "ok = []")
            self.put(1, f"{kp.action_enum[site.actions[0]]}(S, w, ok, [])")
            self.put(1, "return ok")
        else:
            self.put(1, "moves = []")
            self.put(1, "broken = []")
            for a in site.actions:
                self.put(1, "ok = []")
                self.put(1, "bad = []")
                self.put(1, f"{kp.action_enum[a]}(S, w, ok, bad)")
                self.put(1, "moves += ok")
                if not site.together:
                    self.put(1, "broken += bad")
            if not site.together:
                self.put(1, "if broken:")
                self.put(2, "moves += broken")
            self.put(1, "return moves")
        self.put(0, "")


    def site_kept(self, n: int, key: str) -> None:
        """A site whose lists are kept by what its enumerators read (`site_key`), as the engine
        keeps its legal lists by the position's legality key (`ChoosePause.memo`, and its
        MEMO_TRIAL, MEMO_MIN_HITS and MEMO_LIMIT): a list found counts the work it counted when it
        was listed (the same: the enumerators read only what the key holds), and the lists are
        kept no more where positions seldom repeat (fewer than a quarter of the first 400 found)."""
        self.put(0, f"LISTS{n} = {{}}")
        self.put(0, f"TRIAL{n} = [0, 0]  # listings, lists found (listings -1: kept no more)")
        self.put(0, f"def site{n}(S, w):")
        self.put(1, f"t = TRIAL{n}")
        self.put(1, "if t[0] < 0:")
        self.put(2, f"return site{n}_raw(S, w)")
        self.put(1, f"key = {key}")
        self.put(1, "t[0] += 1")
        self.put(1, f"got = LISTS{n}.get(key)")
        self.put(1, "if got is not None:")
        self.put(2, "t[1] += 1")
        self.put(2, f"S[{H_WORK}] += got[1]")
        self.put(2, f"if S[{H_WORK}] > BUDGET:")
        self.put(3, "over_budget()")
        self.put(2, "return list(got[0])")
        self.put(1, "if t[0] == 400 and t[1] < 100:")
        self.put(2, "t[0] = -1")
        self.put(2, f"LISTS{n}.clear()")
        self.put(2, f"return site{n}_raw(S, w)")
        self.put(1, f"w0 = S[{H_WORK}]")
        self.put(1, f"moves = site{n}_raw(S, w)")
        self.put(1, f"if len(LISTS{n}) >= 2000:")
        self.put(2, f"LISTS{n}.clear()")
        self.put(1, f"LISTS{n}[key] = (tuple(moves), S[{H_WORK}] - w0)")
        self.put(1, "return moves")
        self.put(0, "")


def site_key(kp: KernelProgram, site) -> "str | None":
    """The key a site's lists are kept by: an expression of S and the chooser `w` that holds all
    that its actions' enumerators read (`analysis.reads` of their rules and their parameters'
    domains, laid out as `Layout` places it; which cards are face up where there are cards), or
    None where that cannot be told, or where they ask a define (a kept define's value found
    changes the work a listing counts, which a list found could not repeat)."""
    from ..analysis import reads, reference

    model, lay = kp.model, kp.layout
    parts: set = set()
    for a in site.actions:
        decl = model.actions[kp.action_names[a]]
        exprs = [r.condition for r in decl.requires] + [b.condition for b in decl.broken if b.condition is not None]
        for prm in decl.params:
            exprs += [prm.source, prm.low, prm.high]
        for e in exprs:
            stack = [e]
            while stack:
                x = stack.pop()
                if x is None:
                    continue
                if reference(x) is not None:
                    return None
                stack.extend(x.iter_child_nodes())
            r = reads(model, e)
            if r is None:
                return None
            parts |= r
    # the chooser, the players and the dice in the game (options may change how many)
    pieces = ["w", f"S[{H_N}]"] + ([f"S[{H_NDICE}]"] if lay.dice_cap else [])
    for part in sorted(parts, key=repr):
        if part == "dice" or (isinstance(part, tuple) and part[0] == "shows"):
            continue  # (below, once)
        if not (isinstance(part, tuple) and len(part) == 2 and part[0] in ("g", "p")):
            return None
        scope, slot = part
        if scope == "g" and slot in lay.g_index:
            at = lay.g_index[slot]
            if slot in lay.g_list:
                pieces.append(f"*S[{at}:{at + lay.list_stride(slot, 'g')}]")
            else:
                pieces.append(f"S[{at}]")
        elif scope == "g" and slot in lay.g_zone:
            at = lay.zones[lay.g_zone[slot]][0]
            pieces.append(f"*S[{at}:{at + 1} + S[{at}]]")
        elif scope == "p" and slot in lay.p_index:
            at = lay.p_index[slot]
            stride = lay.list_stride(slot) if slot in lay.p_list else 1
            pieces.append(f"*S[{at}:{at + stride * lay.seats}]")
        elif scope == "p" and slot in lay.p_zone:
            for seat in range(lay.seats):
                at = lay.zones[lay.p_zone[slot] + seat][0]
                pieces.append(f"*S[{at}:{at + 1} + S[{at}]]")
        else:
            return None
    if "dice" in parts and lay.dice_cap:
        pieces.append(f"*S[{lay.dice}:{lay.dice + lay.dice_cap}]")
    elif lay.dice_cap and any(isinstance(p, tuple) and p[0] == "shows" for p in parts):
        # only `die shows KIND` asked: a face matters only as one of those kinds or not (as the
        # engine's key has it), so positions whose dice differ in nothing asked share their list
        shown = sorted({p[1] for p in parts if isinstance(p, tuple) and p[0] == "shows"})
        faces = kp.model.dice.faces if kp.model.dice is not None else ()
        classes = tuple(shown.index(f.kind) if f.kind in shown else -1 for f in faces) + (-2,)  # (-2: not rolled)
        pieces.append(f"*map({classes!r}.__getitem__, S[{lay.dice}:{lay.dice + lay.dice_cap}])")
    if lay.ncards:
        pieces.append(f"*S[{lay.up}:{lay.up + lay.ncards}]")
    if len(pieces) > 2 + 64:  # (a key of so many parts costs more to build than most listings)
        return None
    return f"({', '.join(pieces)},)"


def _link(rest) -> "tuple | None":
    """The `otherwise` of an `if` as the next link of a chain of `otherwise if`: the positions set
    before its test, and the `if`; None where it is not one."""
    if isinstance(rest[-1], ir.If) and all(isinstance(s, ir.Here) for s in rest[:-1]):
        return tuple(rest[:-1]), rest[-1]
    return None


def _chain(s) -> int:
    """How many links the chain of `otherwise if` starting at the `if` `s` has."""
    n = 0
    while s.otherwise and (link := _link(s.otherwise)) is not None:
        s = link[1]
        n += 1
    return n


class _Fn:
    """The function being written: its IR, its frame's size and the locals its frame keeps, and the
    functions outlined from it (`_Writer.outline`) with the locals they assign."""

    def __init__(self, f: ir.Function, kp: KernelProgram, frame: int, slots: list):
        self.fn = f
        self.kp = kp
        self.frame = frame
        self.slots = slots
        self.outlines: list[str] = []
        self.nonlocals: dict = {}


class _Ctx:
    """The Python function the lines are written into: outlined or not, how many loops are open
    in it, and how an outlined one ends (it returns, breaks or continues a loop around it)."""

    def __init__(self, outlined: bool):
        self.outlined = outlined
        self.loops = 0
        self.ret = self.brk = self.cont = False


def emit_python(kp: KernelProgram) -> str:
    """The whole program as the source of a Python module (see `pyruntime.load`)."""
    w = _Writer(kp)
    w.put(0, "# The fishrules kernel of one ruleset, as plain Python (fishrules.kernel.emit_python).")
    w.put(0, f"# Layout: {kp.layout.size} slots; frames from {kp.layout.frames}.")
    w.put(0, f"FRAMES_END = {kp.layout.frames + kp.layout.frames_size}")
    for name, values in kp.tables.items():
        w.put(0, f"{name} = {values!r}")
    w.put(0, "")
    for f in kp.functions:
        w.function(f)
    for site in kp.sites:
        w.site(site)
    moves = ", ".join(f"{b}: {kp.block_fn[b]}" for b in sorted(kp.move_blocks))
    w.put(0, f"MOVE_FN = {{{moves}}}")
    w.put(0, f"SITES = ({''.join(f'site{s.number}, ' for s in kp.sites)})")
    return "\n".join(w.lines) + "\n"


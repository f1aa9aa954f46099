"""Lowering: a checked model -> one flat kernel program.

`lower(model)` gives a `KernelProgram`: the state's layout, the symbol and constant tables, and
every function (`fishrules.kernel.ir`): a block per phase, action and `when … is broken` handler
(numbered by `fishrules.analysis.number_blocks`, as the engine's program numbers them, so a frame
means the same to both), an enumerator per action, a function per define and score term, the
winners, the set-up; and per action what each parameter may be and which rule a move breaks
(what an action's text is read against).  What the rules mean beyond each statement (what a define reads, which are
kept, their order, the board) comes from `fishrules.analysis`, as it does for the engine's
compiler.  Both emitters print this one program; nothing of a rule file's text is in it but numbers.
"""

from __future__ import annotations

from typing import Optional

import attrs

from .. import model as m
from ..analysis import define_order, kept_defines, number_blocks, reads, rule_numbers
from ..limits import MAX_SUBSET
from . import ir
from .abi import LIST_CAPACITY, MAX_STACK
from .arms import Arms, cut
from .keep import Keep
from .layout import MAX_FRAME_SLOTS, Layout
from .lower_blocks import BlockLowering, Site
from .lower_expr import ExprLowering, Symbols, Tables

__all__ = ["KernelProgram", "lower"]


class KernelProgram:
    """One ruleset, lowered."""

    def __init__(self, model: m.Model, layout: Layout):
        self.model = model
        self.layout = layout
        self.symbols: list[str] = []
        self.tables: dict[str, tuple] = {}
        self.functions: list[ir.Function] = []
        self.arms: dict[str, Arms] = {}  # block function name -> its arms (blocks that wait)
        self.sites: list[Site] = []
        self.block_fn: dict[int, str] = {}  # block number -> function name
        self.game_block = -1
        self.move_blocks: dict[int, tuple[str, Optional[str]]] = {}  # block -> (action, rule broken or None)
        self.action_enum: list[str] = []  # action number -> enumerator function
        #: action number -> per parameter, (its domain function, the most values it gives): what
        #: an action's text is read against (`BlockLowering.domains`)
        self.action_domains: list[list[tuple[str, int]]] = []
        self.action_why: list[str] = []  # action number -> which rule a move breaks (`BlockLowering.why`)
        #: the messages of the `unavailable` statements: S[H_WHY] says which stopped a step (FAULT_UNPLAYABLE)
        self.refusals: list[str] = []
        #: where a fault is reported: S[H_AT] is an index into these, and so is the position packed
        #: into S[H_WHY] (abi.why) of a piece with words of its own (ir.Position; kernel/faults.py)
        self.positions: tuple[ir.Position, ...] = ()
        self.block_names: tuple[str, ...] = ()  # by block number: the engine's names of the blocks
        self.action_names: list[str] = []
        self.nrules = 0
        self.frame_cap: dict[str, int] = {}  # block function -> its frame's size, in C (ints)
        self.keep: Optional[Keep] = None  # the kept defines, and what makes them stale
        #: what a view reads of the rules besides the position's values, one function each (worked
        #: out together, `looks` of a backend): ("define", name) a public game-wide define a view
        #: shows, ("seen by", game slot) who sees a `seen by` value
        self.looks: list[tuple[tuple[str, object], str]] = []
        #: the values whose changes are events, by their number in the record (BlockLowering.noted)
        self.noted: list[tuple] = []

    def define_cap_of(self, fn: ir.Function) -> int:
        """The most elements the collection a define gives can hold."""
        ret = fn.body[-1]
        return ir.buf_cap(ret.value, self.layout.seats, self.tables)

    def function(self, name: str) -> ir.Function:
        return next(f for f in self.functions if f.name == name)

    def locals_of(self, fn: ir.Function) -> tuple[list[str], list[tuple[str, int]]]:
        """(scalars, buffers) a block keeps in its frame while it waits: params, locals, temps."""
        arms = self.arms.get(fn.name)
        scalars = list(fn.params) + list(fn.scalars) + (arms.scalars if arms else [])
        buffers = list(fn.buffers) + (arms.buffers if arms else [])
        return scalars, buffers


def lower(model: m.Model, list_room: int = LIST_CAPACITY) -> KernelProgram:
    """`list_room`: the room of each list the rules add to (`Layout`)."""
    layout = Layout(model, MAX_SUBSET, list_room)
    out = KernelProgram(model, layout)
    sym, tab = Symbols(), Tables()
    blocks = number_blocks(model)
    rules = rule_numbers(model)
    ex = ExprLowering(model, layout, sym, tab)
    bl = BlockLowering(model, layout, blocks, rules, ex)
    fns: list[ir.Function] = []
    # defines first, each after those it uses (a define that gives a collection needs its size)
    index = {name: i for i, name in enumerate(model.defines)}
    for name in model.defines:
        ex.define_fn[name] = f"d{index[name]}"
    # a define that loops over something is kept until the state changes (the engine's memo):
    # one that does a few operations is cheaper to work out again
    memo = kept_defines(model)
    bl.keep = out.keep = Keep(model, layout, memo, ex.define_fn)
    for name in define_order(model.defines):
        f = bl.define(name, model.defines[name], index[name])
        fns.append(attrs.evolve(f, memo=memo[name]))
    fns.extend(bl.scores())
    fns.extend(_looks(model, bl, out, len(model.defines)))
    fns.append(bl.init_values())
    fns.append(bl.dice_count())
    for name, ph in model.phases.items():
        f = bl.phase(name, ph)
        fns.append(f)
        out.block_fn[f.block] = f.name
    for i, (name, a) in enumerate(model.actions.items()):
        f = bl.action(name, a, blocks.action[name], a.body, f"action, line {a.span.line if a.span else '?'}")
        fns.append(f)
        out.block_fn[f.block] = f.name
        out.move_blocks[f.block] = (name, None)
        for b in a.broken:
            hb = blocks.handler[(name, b.rule)]
            f = bl.action(name, a, hb, b.body, f"rule broken, line {b.span.line if b.span else '?'}", b.span)
            fns.append(f)
            out.block_fn[hb] = f.name
            out.move_blocks[hb] = (name, b.rule)
        e = bl.enumerator(name, a, i)
        fns.append(e)
        out.action_enum.append(e.name)
        doms = bl.domains(name, a, i)
        fns.extend(doms)
        out.action_domains.append([(f.name, cap) for f, cap in zip(doms, bl.domain_caps.get(i, []))])
        why = bl.why(name, a, i)
        fns.append(why)
        out.action_why.append(why.name)
        out.action_names.append(name)
    out.functions = fns
    out.game_block = blocks.phase["game"]
    out.nrules = len(rules)
    out.symbols = sym.words
    out.tables = tab.tables
    out.sites = bl.sites
    out.refusals = bl.refusals
    out.positions = tuple(ex.positions)
    out.block_names = tuple(blocks.names)
    out.noted = bl.noted
    fns = out.functions = [_rounds_as_the_engine(f) for f in fns]
    for f in fns:
        arms = cut(f, layout.seats, layout.move_width, layout.dice_cap)
        if arms is not None:
            out.arms[f.name] = arms
    for f in fns:
        if f.kind == "block":
            scalars, buffers = out.locals_of(f)
            out.frame_cap[f.name] = 2 + len(scalars) + sum(1 + cap for _, cap in buffers)
    layout.reserve_blocks(len(blocks.names), out.nrules, _frames_needed(out))
    return out


#: How deep the engine's compiler nests plain Python before it cuts statements into arms
#: (`compiler/blocks.py` `_INLINE_LOOPS`, `_INLINE_DEPTH`), less a margin: a loop nested about as
#: deep as that keeps the count of an arm (see `_rounds_as_the_engine`), at most one step a loop
#: more than the engine's and never less.
_PLAIN_LOOPS = 12
_PLAIN_DEPTH = 60 - 8


def _nesting(body) -> tuple[int, int]:
    """(statements, loops) that `body` nests, itself included.  Walked with a list, not by
    recursion: a chain of `otherwise if` nests one statement a link, a thousand links deep."""
    depth = loops = 0
    todo = [(body, 0, 0)]  # (statements, statements and loops around them)
    while todo:
        stmts, d, lp = todo.pop()
        for s in stmts:
            if isinstance(s, ir.If):
                depth = max(depth, d + 1)
                todo += ((s.then, d + 1, lp), (s.otherwise, d + 1, lp))
            elif isinstance(s, (ir.While, ir.For)):
                depth, loops = max(depth, d + 1), max(loops, lp + 1)
                todo.append((s.body, d + 1, lp + 1))
    return depth, loops


def _rounds_as_the_engine(fn: ir.Function) -> ir.Function:
    """`fn` with each `repeat … times`/`while`/`until` that cannot wait counting its rounds as the
    engine's machine does.  The lowering counts a step before each test of the loop (the
    engine's count of a loop cut into arms, which it does for a loop that waits); a loop the
    engine writes as plain Python (`while test: charge(s, 1)`) counts a step after each test
    that goes on: one fewer a loop.  So such a loop's first statements, (count 1, if the test
    stops: break), are swapped, unless it nests about as deep as the engine cuts plain code."""

    def rounds(body, depth: int, loops: int) -> tuple:
        out = []
        for s in body:
            if isinstance(s, ir.If):
                s = chain(s, depth, loops)
            elif isinstance(s, ir.For):
                s = ir.For(s.var, s.stream, rounds(s.body, depth + 1, loops + 1))
            elif isinstance(s, ir.While):
                inner = rounds(s.body, depth + 1, loops + 1)
                d, lp = _nesting((s,))
                if (len(inner) >= 2 and inner[0] == _ROUND and isinstance(inner[1], ir.If)
                        and inner[1].then == (ir.Break(),) and not inner[1].otherwise and not ir.waits(inner)
                        and loops + lp < _PLAIN_LOOPS and depth + d < _PLAIN_DEPTH):
                    inner = (inner[1], inner[0], *inner[2:])
                s = ir.While(s.test, inner)
            out.append(s)
        return tuple(out)

    def chain(s: ir.If, depth: int, loops: int) -> ir.If:
        """`rounds` of an `if` and the `otherwise if`s chained to it, link by link (a link nests
        one deeper than the one before, as the recursion it replaces counted: a chain of a
        thousand links is no deeper a call)."""
        links = []
        while True:
            then = rounds(s.then, depth + 1, loops)
            o = s.otherwise
            if o and isinstance(o[-1], ir.If):  # (after the line it is on: `ir.Here`)
                links.append((s.test, then, rounds(o[:-1], depth + 1, loops)))
                s, depth = o[-1], depth + 1
                continue
            done = ir.If(s.test, then, rounds(o, depth + 1, loops))
            for test, then, before in reversed(links):
                done = ir.If(test, then, (*before, done))
            return done

    if not any(isinstance(s, ir.While) for s in ir.walk_stmts(fn.body)):
        return fn
    return attrs.evolve(fn, body=rounds(fn.body, 0, 0))


_ROUND = ir.Do("charge", (ir.Int(1),))


def _looks(model: m.Model, bl: BlockLowering, out: KernelProgram, first: int) -> list[ir.Function]:
    """The functions of `out.looks`: each public game-wide define a view shows (a number or yes or
    no that reads only public values, as the engine's compiler finds them) is called as it is; who
    sees each `seen by` value is a function of its own, lowered as a define without arguments."""
    public = {("g", v.slot + i) for v in model.game_vars if v.visibility == "public"
              for i in range(v.family[1] if v.family else 1)}
    public |= {("g", o.slot) for o in model.options}
    public |= {("p", v.slot) for v in model.player_vars if v.visibility == "public"}
    index = {name: i for i, name in enumerate(model.defines)}
    for name, d in model.defines.items():
        if d.per_player or d.params or d.type.kind not in ("number", "bool"):
            continue
        r = reads(model, d.expr)
        if r is not None and all(x in public for x in r if isinstance(x, tuple) and x[0] in ("g", "p")):
            out.looks.append((("define", name), f"d{index[name]}"))
    fns = []
    for v in model.game_vars:
        if v.seen_by is not None and v.visibility == "seen by":
            decl = m.DefineDecl(f"seen by of {v.name}", False, v.seen_by, 0, m.PLAYER, span=v.span)
            f = attrs.evolve(bl.define(decl.name, decl, first + len(fns)), memo=False)
            fns.append(f)
            out.looks.append((("seen by", v.slot), f.name))
    return fns


def _frames_needed(kp: KernelProgram) -> int:
    """Room for the frames of the deepest chain of blocks that can be waiting at once (if blocks
    can call themselves: of a chain as deep as phases may nest)."""
    calls: dict[str, set[str]] = {}
    for f in kp.functions:
        if f.kind != "block":
            continue
        out: set[str] = set()
        for s in ir.walk_stmts(f.body):
            if isinstance(s, ir.CallBlock):
                out.add(kp.block_fn[s.block])
            elif isinstance(s, (ir.Decide, ir.Together)):
                offered = {kp.action_names[a] for a in kp.sites[s.site].actions}
                out |= {kp.block_fn[b] for b, (name, _) in kp.move_blocks.items() if name in offered}
        calls[f.name] = out

    def deepest(root: str) -> Optional[int]:
        """The frames of the deepest chain from `root`, None if a chain comes back on itself;
        without recursion (a chain of phases may be thousands long)."""
        memo: dict[str, int] = {}
        busy: set[str] = {root}
        stack = [(root, iter(calls.get(root, ())))]
        while stack:
            name, it = stack[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt in busy:
                    return None
                if nxt not in memo:
                    busy.add(nxt)
                    stack.append((nxt, iter(calls.get(nxt, ()))))
                continue
            stack.pop()
            busy.discard(name)
            memo[name] = kp.frame_cap[name] + max((memo[c] for c in calls.get(name, ())), default=0)
        return memo[root]

    root = kp.block_fn[kp.game_block]
    total = deepest(root)
    if total is not None and total <= MAX_FRAME_SLOTS:
        return total
    # Blocks that call themselves, or a long chain: no more blocks run at once than the engine
    # lets phases nest (MAX_STACK; deeper is the engine's own error, which the kernel says too), so
    # room for the heaviest chain of that many frames is room for every game (the engine's machine
    # no longer takes over when a deep game waits).  best[b]: the most frames of a chain of at most
    # `depth` blocks from b.
    best = {name: kp.frame_cap[name] for name in calls}
    for _ in range(MAX_STACK):  # (one more than the deepest: the block that finds it too deep)
        nxt = {name: kp.frame_cap[name] + max((best[c] for c in calls[name] if c in best), default=0) for name in calls}
        if nxt == best:
            break
        best = nxt
    return best[root]

"""Lowering, statements: phases and actions -> kernel blocks, and what a decision may be.

A phase or an action becomes one block function.  Its statements become kernel statements that
read and write the state array; the few that can make the game wait (playing a phase, a player's
decision, a simultaneous choice) stay whole, for `fishrules.kernel.arms` to cut into resumable
arms.  Each action also becomes an enumerator: nested loops over its parameters' choices, in the
engine's order, that lists every legal move (and every move that breaks a rule on purpose, which
the rules accept with a consequence).
"""

from __future__ import annotations

from typing import Optional

import attrs

from .. import model as m
from ..analysis import Blocks, pushdown
from ..walk import find_all
from ..limits import MAX_CHOICES
from . import ir
from .abi import (
    FAULT_RULE, FAULT_UNPLAYABLE, H_WHY, WHY_CHANGED_NOBODY, WHY_CHOICES, WHY_END, WHY_NUMBERS, WHY_PHASE_NOBODY,
    WHY_SUBSETS, why,
)
from .hoist import Hoister
from .layout import Layout
from .lower_expr import ExprLowering, is_many

__all__ = ["BlockLowering", "Site", "DONE", "PAUSE", "UNWIND", "RESTART", "OVER", "FACING"]

# What a block gives back to its caller.
DONE, PAUSE, UNWIND, RESTART, OVER = 0, 1, 2, 3, 4

FACING = {None: 0, "up": 1, "down": 2}

#: The statements the engine notes the position of before they run (compiler/blocks.py's `at`);
#: the others (a rule, an `if`, nothing) note none of their own, an `if` notes each condition.
_NOTED = (m.Assign, m.Change, m.MoveCards, m.ShuffleZone, m.RevealCards, m.Refuse, m.Restart, m.EndPhase,
          m.RepeatStmt, m.ForEachStmt, m.CallPhase, m.Choose, m.ChooseTogether, m.RollDice, m.DrawCards)
#: The statements the engine's blocks cut into arms (compiler/blocks.py `_WAITS`): a loop around
#: one notes its own position at the top of each round, a loop around none only before it starts.
_WAITING = (m.Choose, m.ChooseTogether, m.RollDice, m.DrawCards, m.CallPhase)


@attrs.frozen(slots=True)
class Site:
    """A place where players decide: the block it is in, the actions offered (by their number in
    the program), and whether the players choose at once (then no rule may be broken on purpose)."""

    number: int
    block: int
    actions: tuple
    together: bool
    span: object = attrs.field(eq=False, default=None)


class _Fn:
    """The locals of the function being lowered."""

    def __init__(self):
        self.scalars: list[str] = []
        self.buffers: list[tuple[str, int]] = []
        self.n = 0

    def temp(self) -> str:
        self.n += 1
        name = f"t{self.n}"
        self.scalars.append(name)
        return name

    def tempbuf(self, cap: int) -> str:
        self.n += 1
        name = f"u{self.n}"
        self.buffers.append((name, cap))
        return name


class BlockLowering:
    """Lowers the blocks, enumerators, defines, scores and set-up of one program."""

    def __init__(self, model: m.Model, layout: Layout, blocks: Blocks, rules: dict, ex: ExprLowering):
        self.model = model
        self.layout = layout
        self.blocks = blocks
        self.rules = rules  # rule name -> its number (fishrules.analysis.rule_numbers)
        self.ex = ex
        self.sites: list[Site] = []
        self.action_index = {name: i for i, name in enumerate(model.actions)}
        self.fn: _Fn = _Fn()
        self.block = -1
        self.keep = None  # fishrules.kernel.keep.Keep, set before the blocks are lowered
        self.shuffles: Optional[bool] = None  # whether the rules ever shuffle a zone (worked out once)
        #: the messages of the rules' `unavailable` statements, in the order they are lowered
        self.refusals: list[str] = []
        #: action number -> the most values each parameter's domain function gives (`domains`)
        self.domain_caps: dict[int, list[int]] = {}
        # The values whose changes are events the players may see (all but `internal` ones and
        # zones), numbered for the record (kernel/record.py): (game value?, slot, kind, S index of
        # seat 0's, stride between seats, is a list).
        self.noted: list[tuple] = []
        self.noted_id: dict[tuple, int] = {}
        for scope, vs in (("g", model.game_vars), ("p", model.player_vars)):
            for v in vs:
                if v.visibility == "internal" or v.type.kind == "zone":
                    continue
                is_list = v.type.kind == "list"
                for i in range(v.family[1] if v.family else 1):
                    slot = v.slot + i
                    if scope == "g":
                        at, stride = layout.g_index[slot], 0
                    else:
                        at, stride = layout.p_index[slot], (layout.list_stride(slot) if is_list else 1)
                    self.noted_id[(scope, slot)] = len(self.noted)
                    self.noted.append((scope == "g", slot, v.type.kind, at, stride, is_list))

    def stale(self, target: m.Expr) -> list:
        """After a write of the variable `target`: the kept defines that read it are stale."""
        if self.keep is None:
            return []
        part = ("g", target.slot) if isinstance(target, m.GameVar) else ("p", target.slot)
        ks = self.keep.of(part)
        return [ir.Do("stale", tuple(ir.Int(k) for k in ks))] if ks else []

    # ---- functions -----------------------------------------------------------------------------

    def phase(self, name: str, ph: m.PhaseDecl) -> ir.Function:
        bid = self.blocks.phase[name]
        self.fn, self.block = _Fn(), bid
        self.ex.buffer_locals = set()
        self.ex.block = bid
        at = self.ex.position(ph.span, "block")
        body = tuple(self.stmts(ph.body))
        self.ex.block = -1
        params = ("l0",) if ph.param is not None else ()
        scalars = tuple(f"l{i}" for i in range(ph.nlocals) if f"l{i}" not in params) + tuple(self.fn.scalars)
        return ir.Function(f"b{bid}", "block", params, body, scalars, tuple(self.fn.buffers),
                           f"phase, line {_line(ph.span)}", bid, True, at=at)

    def action(self, name: str, a: m.ActionDecl, bid: int, body_stmts: tuple, comment: str, span=None) -> ir.Function:
        """The block of an action's effects (or of a `when … is broken` handler: `body_stmts`, its
        `span`)."""
        self.fn, self.block = _Fn(), bid
        self.ex.buffer_locals = {p.slot for p in a.params if p.kind == "some"}
        self.ex.block = bid
        at = self.ex.position(a.span if span is None else span, "block")
        body = tuple(self.stmts(body_stmts))
        self.ex.block = -1
        bufs = tuple((f"l{p.slot}", self.layout.max_subset) for p in a.params if p.kind == "some")
        names = {b for b, _ in bufs}
        scalars = tuple(f"l{i}" for i in range(a.nlocals) if f"l{i}" not in names) + tuple(self.fn.scalars)
        return ir.Function(f"b{bid}", "block", (), body, scalars, bufs + tuple(self.fn.buffers),
                           comment, bid, False, self._loads(a), at=at)

    def define(self, name: str, d: m.DefineDecl, index: int) -> ir.Function:
        self.fn = _Fn()
        self.ex.buffer_locals = set()
        nparams = len(d.params) if d.params else (1 if d.per_player else 0)
        params = tuple(f"l{i}" for i in range(nparams))
        # inside the define's loops, what reads only its arguments is worked out once per call
        h = Hoister("h", {p: -1 for p in params}, 0, True)
        if is_many(d.type):
            b = self.ex.buf(d.expr)
            self.ex.define_cap[name] = self.ex.cap(b)
            body: tuple = (ir.ReturnBuf(h.expr(b)),)
            kind = "buffer"
        else:
            body = (ir.Return(h.expr(self.ex.expr(d.expr))),)
            kind = "value"
        cached = tuple(h.all_names())
        body = tuple(ir.Forget(n) for n in cached) + body
        return ir.Function(f"d{index}", kind, params, body, tuple(self.fn.scalars), tuple(self.fn.buffers),
                           f"define, line {_line(d.span)}", cached=cached)

    def scores(self) -> list[ir.Function]:
        out = []
        self.ex.buffer_locals = set()
        terms = []
        for i, t in enumerate(self.model.scores):
            out.append(ir.Function(f"t{i}", "value", ("l0",), (ir.Return(self.ex.expr(t.expr)),),
                                   comment=f"score, line {_line(t.span)}"))
            terms.append(ir.Call(f"t{i}", (ir.Var("l0"),)))
        total: ir.Expr = ir.Int(0)
        if terms:
            total = terms[0]
            for t in terms[1:]:
                total = ir.Arith("+", total, t)
        out.append(ir.Function("score", "value", ("l0",), (ir.Return(total),), comment="the score"))
        w = self.ex.buf(self.model.winners)
        out.append(ir.Function("winners", "buffer", (), (ir.ReturnBuf(ir.HelpBuf("sorted_set", (w,), self.layout.seats)),),
                               comment="the winners"))
        return out

    def init_values(self) -> ir.Function:
        """Every value's starting value (options aside), for the players of the game: the engine's
        `_init_values`, without the zones (the runtime empties them)."""
        self.fn = _Fn()
        self.ex.buffer_locals = set()
        lay = self.layout
        body: list = []
        for v in self.model.game_vars:
            if v.type.kind == "zone":
                continue
            for i in range(v.family[1] if v.family else 1):
                slot = v.slot + i
                if slot in lay.g_list:
                    body.append(ir.Do("set_list", (ir.Int(lay.g_index[slot]), self.ex.buf(v.initial),
                                                   ir.Int(lay.list_cap[("g", slot)]))))
                else:
                    body.append(ir.Put(ir.Int(lay.g_index[slot]), self.ex.expr(v.initial)))
        seat = self.fn.temp()
        per: list = []
        for v in self.model.player_vars:
            if v.type.kind == "zone":
                continue
            if v.slot in lay.p_list:
                at = ir.Help("at_seat", (ir.Int(lay.p_index[v.slot]), ir.Var(seat), ir.Int(lay.list_stride(v.slot))))
                per.append(ir.Do("set_list", (at, self.ex.buf(v.initial), ir.Int(lay.list_cap[("p", v.slot)]))))
            else:
                at = ir.Help("at_seat", (ir.Int(lay.p_index[v.slot]), ir.Var(seat), ir.Int(1)))
                per.append(ir.Put(at, self.ex.expr(v.initial)))
        if per:
            body.append(ir.For(seat, ir.SeatsS(), tuple(per)))
        return ir.Function("init_values", "proc", (), tuple(body), tuple(self.fn.scalars), tuple(self.fn.buffers),
                           "starting values")

    def dice_count(self) -> ir.Function:
        self.ex.buffer_locals = set()
        d = self.model.dice
        value = self.ex.expr(d.count) if d is not None else ir.Int(0)
        return ir.Function("dice_count", "value", (), (ir.Return(value),), comment="the number of dice")

    # ---- statements ----------------------------------------------------------------------------

    def stmts(self, body) -> list:
        out: list = []
        for s in body:
            if isinstance(s, _NOTED):
                out.append(self.here(s.span))
            out.extend(getattr(self, "s_" + type(s).__name__)(s))
        return out

    def here(self, span, kind: str = "statement") -> ir.Here:
        return ir.Here(self.ex.position(span, kind))

    def s_NoOp(self, s):
        return []

    def s_RuleStmt(self, s):
        k = self.rules[s.name]
        body = s.body
        if len(body) == 1 and isinstance(body[0], m.IfStmt) and not body[0].otherwise:
            guard = body[0]  # a rule that is one `if` fires when one of its conditions holds
            out = self.s_IfStmt(guard, fire=k)
            return out
        return [ir.Do("fire", (ir.Int(k),))] + self.stmts(body)

    def value_index(self, t: m.Expr) -> ir.Expr:
        """The S index of a variable (a scalar, or a list's length) about to be written: a value
        of nobody is a fault of its own words."""
        lay = self.layout
        if isinstance(t, m.GameVar):
            return ir.Int(lay.g_index[t.slot])
        stride = lay.list_stride(t.slot) if t.slot in lay.p_list else 1
        return self.ex.seat_index(lay.p_index[t.slot], self.ex.expr(t.player), stride, WHY_CHANGED_NOBODY)

    def list_cap(self, t: m.Expr) -> ir.Int:
        """The room of the list variable `t` names (`Layout.list_cap`)."""
        return ir.Int(self.layout.list_cap[("g" if isinstance(t, m.GameVar) else "p", t.slot)])

    def noted_var(self, t: m.Expr):
        """The record's number of the value `t` names, if a change of it is an event; else None."""
        return self.noted_id.get(("g" if isinstance(t, m.GameVar) else "p", t.slot))

    def s_Assign(self, s):
        t = s.target
        out: list = []  # (work: 2 if a noted value changes, as the engine's note_set: `note_new`)
        v_id = self.noted_var(t)
        if v_id is not None and not isinstance(t, m.GameVar):
            # the seat is worked out once: the value written may change who the expression names
            at = self.fn.temp()
            out.append(ir.Set(at, self.value_index(t)))
            where: ir.Expr = ir.Var(at)
        else:
            where = self.value_index(t)
        if v_id is not None:
            out.append(ir.Do("note_old", (ir.Int(v_id), where)))
        if t.type.kind == "list":
            out.append(ir.Do("set_list", (where, self.ex.buf(s.value), self.list_cap(t))))
        else:
            v = self.ex.expr(s.value)
            if t.type.kind == "number":
                v = ir.Bounded(v)
            out.append(ir.Put(where, v))
        if v_id is not None:
            out.append(ir.Do("note_new", (ir.Int(v_id), where)))
        return out + self.stale(t)

    def s_Change(self, s):
        t = s.target
        out: list = []
        at = self.fn.temp()
        out.append(ir.Set(at, self.value_index(t)))
        here = ir.Var(at)
        v_id = self.noted_var(t)
        if v_id is not None:
            out.append(ir.Do("note_old", (ir.Int(v_id), here)))
        if s.op in ("increase", "decrease"):
            op = "+" if s.op == "increase" else "-"
            out.append(ir.Put(here, ir.Bounded(ir.Arith(op, ir.Get(here), self.ex.expr(s.value)))))
        elif s.op == "append":
            out.append(ir.Do("list_append", (here, self.ex.expr(s.value), self.list_cap(t))))
        elif s.op == "extend":
            out.append(ir.Do("list_extend", (here, self.ex.buf(s.value), self.list_cap(t))))
        elif s.op == "remove":
            out.append(ir.Do("list_remove", (here, self.ex.expr(s.value))))
        elif s.op == "clear":
            out.append(ir.Put(here, ir.Int(0) if t.type.kind == "list" else ir.Nil()))
        else:  # pragma: no cover
            raise AssertionError(s.op)
        if v_id is not None:
            out.append(ir.Do("note_new", (ir.Int(v_id), here)))
        return out + self.stale(t)

    def s_RollDice(self, s):
        if s.dice.type == m.DIE:
            return [ir.Roll(None, self.ex.expr(s.dice))]
        return [ir.Roll(self.ex.buf(s.dice), None)]

    def s_CallPhase(self, s):
        block = self.blocks.phase[s.phase]
        if s.argument is None:
            return [ir.CallBlock(block, ())]
        t = self.fn.temp()
        nobody = why(WHY_PHASE_NOBODY, self.ex.position(s.span, "phase", s.phase))
        return [ir.Set(t, self.ex.expr(s.argument)),
                ir.If(ir.Cmp("==", ir.Var(t), ir.Nil()), (ir.Fault(FAULT_RULE, nobody),)),
                ir.CallBlock(block, (ir.Var(t),))]

    def s_Restart(self, s):
        return [ir.Leave(RESTART)]

    def s_EndPhase(self, s):
        if s.phase == "game":
            return [ir.Leave(OVER)]
        return [ir.Leave(UNWIND, self.blocks.phase[s.phase], why(WHY_END, self.ex.position(s.span, "end", s.phase)))]

    def s_Choose(self, s):
        site = self.new_site(s.actions, False, s.span)
        return [ir.Decide(site, self.ex.expr(s.chooser))]

    def s_ChooseTogether(self, s):
        site = self.new_site(s.actions, True, s.span)
        who = ir.HelpBuf("distinct_seats", (ir.Collect(self.ex.stream(s.choosers)),), self.layout.seats)
        return [ir.Together(site, who)]

    def new_site(self, actions, together: bool, span) -> int:
        n = len(self.sites)
        self.sites.append(Site(n, self.block, tuple(self.action_index[a] for a in actions), together, span))
        return n

    def cards(self, e: m.Expr) -> ir.BufExpr:
        if e.type.kind == "card":
            return ir.Collect(ir.OneS(self.ex.expr(e)))
        return self.ex.buf(e)

    def s_MoveCards(self, s):
        face = ir.Int(FACING[s.facing])
        if s.cards.type.kind == "card":
            return [ir.Do("move_one", (self.ex.expr(s.cards), self.ex.zone_id(s.target), face))]
        return [ir.Do("move", (self.ex.buf(s.cards), self.ex.zone_id(s.target), face))]

    def s_DrawCards(self, s):
        args = (self.ex.expr(s.count), self.ex.zone_id(s.source), self.ex.zone_id(s.target))
        if self.shuffles is None:
            self.shuffles = next(self.model.find_all(m.ShuffleZone), None) is not None
        if not self.shuffles:  # no zone is ever shuffled: no card is drawn by chance, no wait
            return [ir.Do("draw", (*args, ir.Int(FACING[s.facing])))]
        return [ir.Draw(*args, FACING[s.facing])]

    def s_ShuffleZone(self, s):
        return [ir.Do("shuffle", (self.ex.zone_id(s.zone),))]

    def s_RevealCards(self, s):
        return [ir.Do("reveal", (self.cards(s.cards),))]

    def s_Refuse(self, s):
        # which `unavailable` it is, for the API to say its words (KernelProgram.refusals)
        self.refusals.append(s.message)
        return [ir.Put(ir.Int(H_WHY), ir.Int(len(self.refusals) - 1)), ir.Fault(FAULT_UNPLAYABLE)]

    def s_IfStmt(self, s, fire=None):
        rest: tuple = tuple(self.stmts(s.otherwise))
        # (positions numbered in the order the rules are written, as the engine's)
        heres = [self.here(cond.span or s.span, "condition") for cond, _ in s.branches]
        branches = [(cond, self.stmts(body)) for cond, body in s.branches]
        for here, (cond, then) in reversed(list(zip(heres, branches))):
            if fire is not None:
                then = [ir.Do("fire", (ir.Int(fire),))] + then
            rest = (here, ir.If(self.ex.expr(cond), tuple(then), rest))
        return list(rest)

    def s_RepeatStmt(self, s):
        charge: tuple = (ir.Do("charge", (ir.Int(1),)),)
        if any(find_all(s.body, _WAITING, stop_at=m.Expr)):
            # cut into arms by the engine: each round notes the loop's position again (before
            # its test); a loop that never waits keeps the last statement's, as the engine's does
            charge = (self.here(s.span), *charge)
        body = tuple(self.stmts(s.body))
        if s.kind == "times":
            c = self.fn.temp()
            return [ir.Set(c, self.ex.expr(s.expr)),
                    ir.While(ir.Int(1), (*charge, ir.If(ir.Cmp("<=", ir.Var(c), ir.Int(0)), (ir.Break(),)),
                                         ir.Set(c, ir.Help("minus_one", (ir.Var(c),))), *body))]
        if s.kind == "while":
            return [ir.While(ir.Int(1), (*charge, ir.If(ir.Not(self.ex.expr(s.expr)), (ir.Break(),)), *body))]
        if s.kind == "until":
            return [ir.While(ir.Int(1), (*charge, ir.If(self.ex.expr(s.expr), (ir.Break(),)), *body))]
        return [ir.While(ir.Int(1), (*charge, *body))]

    def s_ForEachStmt(self, s):
        items = self.ex.stream(s.collection)
        snap = self.fn.tempbuf(self.ex.cap(items))
        return [ir.SetBuf(snap, ir.Collect(items)),
                ir.Do("charge", (ir.Len(ir.BufVar(snap, self.ex.cap(items))),)),
                ir.For(f"l{s.var_slot}", ir.BufS(ir.BufVar(snap, self.ex.cap(items))), tuple(self.stmts(s.body)))]

    # ---- what a decision may be ----------------------------------------------------------------

    def enumerator(self, name: str, a: m.ActionDecl, index: int) -> ir.Function:
        """The legal moves of one action for `l0`, in the engine's order (`write_enumerator`)."""
        self.fn = _Fn()
        self.ex.buffer_locals = {p.slot for p in a.params if p.kind == "some"}
        pushed = pushdown(a)
        block = self.blocks.action[name]
        broken_blocks = {b.rule: self.handler_block(name, b.rule) for b in a.broken}
        values: list = [ir.Var("l0")]
        for p in a.params:
            cap = self.layout.max_subset
            values.append(ir.BufVar(f"l{p.slot}", cap) if p.kind == "some" else ir.Var(f"l{p.slot}"))
        inner: list = []
        if len(a.params) > 1 or a.broken:
            inner.append(ir.Do("moves_room", (ir.Int(why(WHY_CHOICES, self.ex.position(a.span, "choices", name))),)))
        skip = ir.Continue() if a.params else ir.Return()
        # what a rule reads of the parameters chosen in outer loops only is worked out once per choice
        levels = {"l0": -1, **{f"l{p.slot}": i for i, p in enumerate(a.params)}}
        h = Hoister("h", levels, len(a.params) - 1, False)
        # (the pushed-down requires are filters on the elements already)
        for r, cond, handler in self.rule_tests(a, pushed.get("done", ())):
            miss: list = []
            if handler is not None:
                emit = ir.Emit((ir.Int(broken_blocks[r.name]), *values), True)
                miss.append(ir.If(h.expr(handler), (emit,)) if handler != ir.Int(1) else emit)
            miss.append(skip)
            inner.append(ir.If(ir.Not(h.expr(cond)), tuple(miss)))
        inner.append(ir.Emit((ir.Int(block), *values)))
        body: tuple = tuple(inner)
        for i in reversed(range(len(a.params))):
            p = a.params[i]
            body = self.param_loop(p, pushed.get(p.slot, ()), body, tuple(h.names.get(i, ())))
        body = tuple(ir.Forget(n) for n in h.names.get(-1, ())) + body
        scalars = tuple(f"l{i}" for i in range(1, a.nlocals) if i not in self.ex.buffer_locals) + tuple(self.fn.scalars)
        bufs = tuple((f"l{p.slot}", self.layout.max_subset) for p in a.params if p.kind == "some") + tuple(self.fn.buffers)
        return ir.Function(f"e{index}", "enum", ("l0",), (ir.Do("moves_action", ()), *body), scalars, bufs,
                           f"the choices of an action, line {_line(a.span)}", cached=tuple(h.all_names()))

    def rule_tests(self, a: m.ActionDecl, skip=()) -> list:
        """Each `require` of `a` in order, pushed-down ones included: (rule, its condition, None
        if a violation is refused, else what makes it accepted: its handler's condition, or
        Int(1) for a handler with none); those whose ids are in `skip` left out.  The enumerator
        and `why` test these very expressions."""
        handlers = {b.rule: b for b in a.broken}
        out = []
        for r in a.requires:
            if id(r) in skip:
                continue
            b = handlers.get(r.name)
            accept: Optional[ir.Expr] = None
            if b is not None:
                accept = self.ex.expr(b.condition) if b.condition is not None else ir.Int(1)
            out.append((r, self.ex.expr(r.condition), accept))
        return out

    def _loads(self, a: m.ActionDecl) -> tuple:
        """Where a move's actor and values are in the state's move slots (as an action's block reads
        them when it starts): (local, offset in the move, is a `some` buffer)."""
        loads = [("l0", 0, False)]
        for p, at in zip(a.params, self.layout.params_at[a.name]):
            loads.append((f"l{p.slot}", at - 1, p.kind == "some"))
        return tuple(loads)

    def domains(self, name: str, a: m.ActionDecl, index: int) -> list[ir.Function]:
        """Per parameter, what it may be now given the actor and the earlier parameters (read from
        the state's move slots, as the action's block reads its move): the very domain the
        enumerator loops over (`param_domain`), or for `some` the things chosen from, in their
        order (its source, before any filter: what an action's text names its things among)."""
        out = []
        for i, p in enumerate(a.params):
            self.fn = _Fn()
            self.ex.buffer_locals = {q.slot for q in a.params if q.kind == "some"}
            if p.kind == "some":
                dom: ir.BufExpr = ir.Collect(self.ex.stream(p.source))
            else:
                dom = self.param_domain(p)
            cap = self.ex.cap(dom)
            out.append(ir.Function(f"dom{index}_{i}", "buffer", (), (ir.ReturnBuf(dom),), *self._locals(a),
                                   f"what a parameter may be, line {_line(p.span)}",
                                   loads=self._loads(a)[:i + 1]))  # (the actor and the earlier parameters)
            self.domain_caps.setdefault(index, []).append(cap)
        return out

    def why(self, name: str, a: m.ActionDecl, index: int) -> ir.Function:
        """Whether the move in the state's move slots keeps the rules of its action: 0 if every
        `require` holds, k + 1 if the first that does not is rule k of the action and is refused,
        -(k + 1) if its `when … is broken` accepts it (the enumerator's very tests: `rule_tests`)."""
        self.fn = _Fn()
        self.ex.buffer_locals = {p.slot for p in a.params if p.kind == "some"}
        body: list = []
        for k, (r, cond, accept) in enumerate(self.rule_tests(a)):
            refuse: tuple = (ir.Return(ir.Int(k + 1)),)
            if accept is None:
                miss = refuse
            elif accept == ir.Int(1):
                miss = (ir.Return(ir.Int(-(k + 1))),)
            else:
                miss = (ir.If(accept, (ir.Return(ir.Int(-(k + 1))),), refuse),)
            body.append(ir.If(ir.Not(cond), miss))
        body.append(ir.Return(ir.Int(0)))
        return ir.Function(f"why{index}", "value", (), tuple(body), *self._locals(a),
                           f"which rule a move breaks, line {_line(a.span)}", loads=self._loads(a))

    def _locals(self, a: m.ActionDecl) -> tuple:
        """(scalars, buffers) of a function that reads an action's move: its parameters and temps."""
        some = {p.slot for p in a.params if p.kind == "some"}
        scalars = ("l0",) + tuple(f"l{i}" for i in range(1, a.nlocals) if i not in some) + tuple(self.fn.scalars)
        bufs = tuple((f"l{p.slot}", self.layout.max_subset) for p in a.params if p.kind == "some") + tuple(self.fn.buffers)
        return scalars, bufs

    def handler_block(self, action: str, rule: str) -> int:
        return self.blocks.handler[(action, rule)]

    def param_loop(self, p: m.ParamDecl, filters, body: tuple, forget: tuple = ()) -> tuple:
        """`for each value of parameter p: body`, with its domain as the engine lists it (the kept
        parts named in `forget` forgotten as each value is taken)."""
        body = tuple(ir.Forget(n) for n in forget) + body
        ex = self.ex
        if p.kind != "some":
            dom = self.param_domain(p)
        else:
            src = ex.stream(p.source)
            for k, cond, want in filters:
                c = ex.expr(cond)
                src = ir.FilterS(src, f"l{k}", c if want else ir.Not(c))
            pool = self.fn.tempbuf(ex.cap(src))
            cards = p.type.element is not None and p.type.element.kind == "card"
            mask = self.fn.temp()
            pool_buf = ir.BufVar(pool, ex.cap(src))
            many = why(WHY_SUBSETS, self.ex.position(p.span, "subsets"))
            dom = ir.HelpBuf("subsets", (pool_buf, ir.Int(1 if cards else 0), ir.Int(many)), (1 << self.layout.max_subset) - 1)
            d = self.fn.tempbuf((1 << self.layout.max_subset) - 1)
            dvar = ir.BufVar(d, (1 << self.layout.max_subset) - 1)
            return (ir.SetBuf(pool, ir.Collect(src)),
                    ir.SetBuf(d, dom),
                    ir.Do("charge", (ir.Len(dvar),)),
                    ir.For(mask, ir.BufS(dvar),
                           (ir.SetBuf(f"l{p.slot}", ir.HelpBuf("unmask", (pool_buf, ir.Var(mask)), self.layout.max_subset)),
                            *body)))
        cap = ex.cap(dom)
        d = self.fn.tempbuf(cap)
        dvar = ir.BufVar(d, cap)
        return (ir.SetBuf(d, dom), ir.Do("charge", (ir.Len(dvar),)), ir.For(f"l{p.slot}", ir.BufS(dvar), body))

    def param_domain(self, p: m.ParamDecl) -> ir.BufExpr:
        """What a parameter that is not `some` may be, in the engine's order (the enumerator's loop
        and `domains` both take it from here)."""
        ex = self.ex
        if p.kind == "choice":
            return ir.Collect(ir.TabS(ex.tab.add("k", [ex.sym.id(c) for c in p.choices])))
        if p.kind == "number":
            many = why(WHY_NUMBERS, ex.position(p.span, "numbers", p.name))
            return ir.HelpBuf("numbers", (ex.expr(p.low), ex.expr(p.high), ir.Int(many)), MAX_CHOICES)
        src = ex.stream(p.source)
        helper = "card_choices" if p.type.kind == "card" else "distinct"
        return ir.HelpBuf(helper, (ir.Collect(src),), ex.cap(src))


def _line(span) -> str:
    return str(span.line) if span is not None and getattr(span, "line", None) is not None else "?"

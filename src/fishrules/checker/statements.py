"""The checker, phases and actions: parameters, rules (`require`), violation handlers, every
statement, and which phases and actions can be reached.

Each kind of statement is checked by its own method, `visit_<Node>` (as the compiler writes each
kind of model node), which returns its model or None after reporting what is wrong with it."""

from __future__ import annotations

from typing import Optional

from .. import model as m
from .. import nodes as n
from .core import (
    _PLURAL,
    ERR,
    _domain_key,
    _Unit,
)


class Statements:
    # ---- phases and actions ---------------------------------------------------------------------

    def check_phase(self, p: n.Phase) -> m.PhaseDecl:
        u = _Unit("phase", p.name, you=False)
        if p.param is not None:
            slot = u.alloc()
            u.scopes[0][p.param] = m.Local(slot, m.PLAYER, p.param)
        key = ("phase", p.name)
        self.calls[key] = set()
        self.current_key = key
        body = self.block(p.body, u)
        return m.PhaseDecl(p.name, p.param, body, u.n, span=p.span)

    def check_action(self, a: n.Action) -> m.ActionDecl:
        u = _Unit("action", a.name, you=True)
        key = ("action", a.name)
        self.calls[key] = set()
        self.current_key = key
        params = []
        for prm in a.params:
            if prm.name in u.scopes[0]:
                self.error(prm.span, f"parameter `{prm.name}` is named twice")
            slot = u.alloc()
            pt = prm.type
            if pt.kind == "choice":
                key = _domain_key(pt.choices)
                if len(set(pt.choices)) != len(pt.choices):
                    self.error(pt.span, "a choice is listed twice")
                self.add_domain(key, tuple(dict.fromkeys(pt.choices)))
                t = m.symbol_type(key)
                params.append(m.ParamDecl(prm.name, "choice", slot, t, secret=prm.secret, choices=tuple(pt.choices), span=prm.span))
            elif pt.kind == "number":
                lo = self.expr(pt.low, u)
                hi = self.expr(pt.high, u)
                self.expect(lo, "number", pt.low, "the low end")
                self.expect(hi, "number", pt.high, "the high end")
                self.lint_range(prm, lo, hi)
                params.append(m.ParamDecl(prm.name, "number", slot, m.NUMBER, None, lo, hi, secret=prm.secret, span=prm.span))
                t = m.NUMBER
            else:
                src = self.expr(pt.source, u)
                if src.type == ERR:
                    t = ERR
                elif src.type.is_collection:
                    t = m.Type("collection", element=src.type.element) if pt.kind == "some" else src.type.element
                elif src.type.kind == "list" and pt.kind == "one of":
                    t = src.type.element or m.NUMBER
                else:
                    what = "some" if pt.kind == "some" else "one of"
                    self.error(pt.source.span, f"`{what}` needs a collection to choose from, not {src.type}")
                    t = ERR
                params.append(m.ParamDecl(prm.name, pt.kind, slot, t, src, secret=prm.secret, span=prm.span))
            u.scopes[0][prm.name] = m.Local(slot, t, prm.name)
        requires = []
        body_stmts = list(a.body)
        head = []
        heady = (n.Require, n.WhenBroken)
        while body_stmts and (
            isinstance(body_stmts[0], heady)
            or (isinstance(body_stmts[0], n.RuleBlock) and all(isinstance(s, heady) for s in body_stmts[0].body))
        ):
            head.append(body_stmts.pop(0))
        broken = []
        for s in head:
            for r in [s] if isinstance(s, heady) else list(s.body):
                if isinstance(r, n.Require):
                    c = self.expr(r.condition, u)
                    self.expect(c, "bool", r.condition, f'rule "{r.name}"')
                    requires.append(m.RequireDecl(r.name, c, span=r.span))
                else:
                    broken.append(r)
        names = [r.name for r in requires]
        handlers = []
        for w in broken:
            if w.rule not in names:
                self.error(w.span, f'action `{a.name}` has no rule "{w.rule}"', self.suggest(w.rule, names))
                continue
            cond = None
            if w.condition is not None:
                cond = self.expr(w.condition, u)
                self.expect(cond, "bool", w.condition, "the condition of `when … is broken`")
            handlers.append(m.BrokenDecl(w.rule, cond, self.block(w.body, u), span=w.span))
        for s in body_stmts:
            if isinstance(s, n.WhenBroken):
                self.error(s.span, "`when … is broken` belongs with the action's rules, before its effects")
        body = self.block(tuple(s for s in body_stmts if not isinstance(s, n.WhenBroken)), u)
        return m.ActionDecl(a.name, tuple(params), tuple(requires), body, u.n, span=a.span, broken=tuple(handlers))

    def check_reachable(self) -> None:
        if "game" not in self.phase_nodes:
            self.error(self.top, "the rules have no `phase game`", "the game starts by playing `phase game`: add one")
            return
        seen = set()
        todo = [("phase", "game")]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            todo.extend(self.calls.get(k, ()))
        # Unreachable rules are dead, not wrong (an overlay that replaces a phase may leave some of
        # the base behind): they are reported as warnings, which `fishrules check` prints.
        for name, p in self.phase_nodes.items():
            if ("phase", name) not in seen:
                self.warn(p.span, f"phase `{name}` is never played", "play it from another phase (`play " + name + "`), or remove it",
                          code="unreachable")
        for name, a in self.action_nodes.items():
            if ("action", name) not in seen:
                self.warn(a.span, f"action `{name}` is never offered", f"offer it with `PLAYER chooses {name}`, or remove it",
                          code="unreachable")

    # ---- statements -----------------------------------------------------------------------------

    def block(self, stmts: tuple, u: _Unit) -> tuple:
        out = []
        for s in stmts:
            r = self.stmt(s, u)
            if r is not None:
                out.append(r)
        return tuple(out)

    def scoped_block(self, stmts: tuple, u: _Unit, bindings: dict) -> tuple:
        u.scopes.append(bindings)
        try:
            return self.block(stmts, u)
        finally:
            u.scopes.pop()

    def stmt(self, s: n.Stmt, u: _Unit) -> Optional[m.Stmt]:
        """The model of the statement `s`, or None after reporting what is wrong with it (it is then
        left out of its block).  Dispatch is by node kind (`visit_<Node>`)."""
        return getattr(self, "visit_" + type(s).__name__)(s, u)

    # ---- changing values ----------------------------------------------------------------------------

    def visit_Set(self, s: n.Set, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        target = self.lvalue(s.target, u)
        value = self.expr(s.value, u, expected=target.type if target is not None else None)
        if target is not None and target.type.kind == "zone":
            self.error(sp, f"{self.describe_target(s.target)} is a zone: put cards in it with `move`")
            return None
        if target is not None:
            self.compatible(target.type, value, s.value, self.describe_target(s.target))
            return m.Assign(target, value, span=sp)
        return None

    def change_operands(self, s, u: _Unit) -> Optional[tuple[m.Expr, m.Expr]]:
        """The target and the value of `add`, `subtract` or `remove` (None if either is in error)."""
        target = self.lvalue(s.target, u)
        value = self.expr(s.value, u)
        if target is None or value.type == ERR or target.type == ERR:
            return None
        return target, value

    def visit_AddTo(self, s: n.AddTo, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        operands = self.change_operands(s, u)
        if operands is None:
            return None
        target, value = operands
        tk, vk = target.type.kind, value.type.kind
        if tk == "number" and vk == "number":
            return m.Change("increase", target, value, span=sp)
        if tk == "list" and vk == "number":
            return m.Change("append", target, value, span=sp)
        if tk == "list" and vk == "list":
            return m.Change("extend", target, value, span=sp)
        self.error(sp, f"cannot add {value.type} to {self.describe_target(s.target)}, which is {target.type}")
        return None

    def visit_SubtractFrom(self, s: n.SubtractFrom, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        operands = self.change_operands(s, u)
        if operands is None:
            return None
        target, value = operands
        if target.type.kind == "number" and value.type.kind == "number":
            return m.Change("decrease", target, value, span=sp)
        self.error(sp, f"cannot subtract {value.type} from {self.describe_target(s.target)}, which is {target.type}",
                   "`subtract` works on numbers; use `remove X from LIST` for lists")
        return None

    def visit_RemoveFrom(self, s: n.RemoveFrom, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        operands = self.change_operands(s, u)
        if operands is None:
            return None
        target, value = operands
        if target.type.kind == "list" and value.type.kind == "number":
            return m.Change("remove", target, value, span=sp)
        self.error(sp, f"cannot remove {value.type} from {self.describe_target(s.target)}, which is {target.type}",
                   "`remove` takes a number out of a list of numbers")
        return None

    def visit_Clear(self, s: n.Clear, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        target = self.lvalue(s.target, u)
        if target is None:
            return None
        if target.type.kind not in ("list", "symbol", "player"):
            self.error(sp, f"`clear` empties a list or takes back a choice or a player, but {self.describe_target(s.target)} is {target.type}",
                       "use `set … to 0` for a number")
            return None
        return m.Change("clear", target, None, span=sp)

    # ---- cards and dice -----------------------------------------------------------------------------

    def visit_Move(self, s: n.Move, u: _Unit) -> Optional[m.Stmt]:
        cards = self.expr(s.cards, u)
        self.expect_cards(cards, s.cards, "what `move` moves")
        target = self.zone_lvalue(s.zone, u)
        if target is None:
            return None
        return m.MoveCards(cards, target, s.facing, span=s.span)

    def visit_Draw(self, s: n.Draw, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        count = self.expr(s.count, u) if s.count is not None else m.Const(1, m.NUMBER, span=sp)
        if s.count is not None:
            self.expect(count, "number", s.count, "how many cards to draw")
        source = self.zone_lvalue(s.source, u)
        target = self.zone_lvalue(s.target, u)
        if source is None or target is None:
            return None
        return m.DrawCards(count, source, target, s.facing, u.alloc(3), span=sp)

    def visit_Shuffle(self, s: n.Shuffle, u: _Unit) -> Optional[m.Stmt]:
        z = self.zone_lvalue(s.zone, u)
        return m.ShuffleZone(z, span=s.span) if z is not None else None

    def visit_Reveal(self, s: n.Reveal, u: _Unit) -> Optional[m.Stmt]:
        cards = self.expr(s.cards, u)
        self.expect_cards(cards, s.cards, "what `reveal` shows")
        return m.RevealCards(cards, span=s.span)

    def visit_Roll(self, s: n.Roll, u: _Unit) -> Optional[m.Stmt]:
        d = self.expr(s.dice, u)
        if d.type not in (m.DIE, m.DICE, ERR):
            self.error(s.dice.span, f"only dice can be rolled, not {d.type}")
        return m.RollDice(d, u.alloc(2), span=s.span)

    # ---- phases, choices and the end ----------------------------------------------------------------

    def visit_Play(self, s: n.Play, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        p = self.phase_nodes.get(s.phase)
        if p is None:
            hint = self.suggest(s.phase, self.phase_nodes, "phase")
            if s.phase in self.action_nodes:
                hint = f"`{s.phase}` is an action: offer it with `PLAYER chooses {s.phase}`"
            self.error(sp, f"there is no phase `{s.phase}`", hint)
            return None
        self.calls[self.current_key].add(("phase", s.phase))
        arg = None
        if p.param is not None and s.argument is None:
            self.error(sp, f"phase `{s.phase}` is played for a player: write `play {s.phase} for PLAYER`")
        elif p.param is None and s.argument is not None:
            self.error(s.argument.span, f"phase `{s.phase}` is not played for a player", f"write `play {s.phase}`")
        elif s.argument is not None:
            arg = self.expr(s.argument, u)
            self.expect(arg, "player", s.argument, f"the player of phase `{s.phase}`")
        return m.CallPhase(s.phase, arg, span=sp)

    def visit_PlayAgain(self, s: n.PlayAgain, u: _Unit) -> Optional[m.Stmt]:
        return m.Restart(span=s.span)

    def visit_End(self, s: n.End, u: _Unit) -> Optional[m.Stmt]:
        if s.name != "game" and s.name not in self.phase_nodes:
            self.error(s.span, f"there is no phase `{s.name}` to end", self.suggest(s.name, lambda: list(self.phase_nodes) + ["game"], "phase or game"))
            return None
        return m.EndPhase(s.name, span=s.span)

    def visit_Chooses(self, s: n.Chooses, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        who = self.expr(s.chooser, u)
        self.expect(who, "player", s.chooser, "the one who chooses")
        ok = True
        for name, asp in zip(s.actions, s.action_spans or [sp] * len(s.actions)):
            if name not in self.action_nodes:
                hint = self.suggest(name, self.action_nodes, "action")
                if name in self.phase_nodes:
                    hint = f"`{name}` is a phase: write `play {name}`"
                self.error(asp, f"there is no action `{name}`", hint)
                ok = False
            else:
                self.calls[self.current_key].add(("action", name))
        if len(set(s.actions)) != len(s.actions):
            self.error(sp, "an action is offered twice in the same choice")
        if not ok:
            return None
        return m.Choose(who, tuple(s.actions), u.alloc(), span=sp)

    def visit_ChoosesTogether(self, s: n.ChoosesTogether, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        who = self.expr(s.choosers, u)
        if who.type == m.PLAYER:
            who = m.Singleton(who, span=who.span)
        if who.type not in (m.PLAYERS, ERR):
            self.error(s.choosers.span, f"those who choose together must be players, not {who.type}")
        ok = True
        for name, asp in zip(s.actions, s.action_spans or [sp] * len(s.actions)):
            if name not in self.action_nodes:
                self.error(asp, f"there is no action `{name}`", self.suggest(name, self.action_nodes, "action"))
                ok = False
            else:
                self.calls[self.current_key].add(("action", name))
                self.lint_broken_together(name, asp)
        if not ok:
            return None
        return m.ChooseTogether(who, tuple(s.actions), u.alloc(2), span=sp)

    def visit_Nothing(self, s: n.Nothing, u: _Unit) -> Optional[m.Stmt]:
        return m.NoOp(span=s.span)

    def visit_Unavailable(self, s: n.Unavailable, u: _Unit) -> Optional[m.Stmt]:
        return m.Refuse(s.message, span=s.span)

    def visit_WhenBroken(self, s: n.WhenBroken, u: _Unit) -> Optional[m.Stmt]:
        self.error(s.span, "`when … is broken` is only for the rules of an action")
        return None

    def visit_Require(self, s: n.Require, u: _Unit) -> Optional[m.Stmt]:
        where = "an action" if u.kind == "action" else f"{u.kind} `{u.name}`"
        self.error(s.span, f"`require` must come first in an action, before anything happens (found in {where})",
                   "move it to the top of the action; phases decide with `if`")
        return None

    # ---- blocks -------------------------------------------------------------------------------------

    def visit_If(self, s: n.If, u: _Unit) -> Optional[m.Stmt]:
        branches = []
        for cond, body in s.branches:
            c = self.expr(cond, u)
            self.expect(c, "bool", cond, "the condition of `if`")
            branches.append((c, self.scoped_block(body, u, {})))
        return m.IfStmt(tuple(branches), self.scoped_block(s.otherwise, u, {}), span=s.span)

    def visit_Repeat(self, s: n.Repeat, u: _Unit) -> Optional[m.Stmt]:
        e = None
        slot = -1
        if s.kind == "times":
            e = self.expr(s.expr, u)
            self.expect(e, "number", s.expr, "the number of repeats")
            slot = u.alloc()
        elif s.kind in ("while", "until"):
            e = self.expr(s.expr, u)
            self.expect(e, "bool", s.expr, f"the condition of `repeat {s.kind}`")
        body = self.scoped_block(s.body, u, {})
        return m.RepeatStmt(s.kind, e, slot, body, span=s.span)

    def visit_ForEach(self, s: n.ForEach, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        if s.source is None:
            plural = _PLURAL.get(s.var)
            if plural is None:
                self.error(sp, f"say what to go through: `for each {s.var} in …`")
                return None
            coll = self.expr(n.Name(plural, span=sp), u)
        else:
            coll = self.expr(s.source, u)
        if coll.type == ERR:
            elem = ERR
        elif coll.type.is_collection:
            elem = coll.type.element
        elif coll.type.kind == "list":
            elem = coll.type.element or m.NUMBER
        else:
            self.error(s.source.span if s.source else sp, f"`for each` goes through a collection or a list, not {coll.type}")
            elem = ERR
        var_slot = u.alloc()
        list_slot = u.alloc(2)
        body = self.scoped_block(s.body, u, {s.var: m.Local(var_slot, elem, s.var)})
        return m.ForEachStmt(var_slot, coll, list_slot, body, span=sp)

    def visit_RuleBlock(self, s: n.RuleBlock, u: _Unit) -> Optional[m.Stmt]:
        return m.RuleStmt(s.name, self.scoped_block(s.body, u, {}), span=s.span)

    def expect_cards(self, e: m.Expr, src: n.Expr, what: str) -> None:
        t = e.type
        if t == ERR or t.kind == "card" or (t.is_collection and t.element.kind == "card"):
            return
        self.error(src.span, f"{what} must be a card or cards, not {t}")

    def zone_lvalue(self, e: n.Expr, u: _Unit) -> Optional[m.Expr]:
        """A zone cards can be put in: a zone variable, the game's or a player's."""
        if isinstance(e, n.Call) and e.func in self.gvars and self.gvars[e.func].family:
            r = self.zone_at(e, u)
            return r if r.type != ERR else None
        if isinstance(e, n.Name) and e.name in self.gvars and self.gvars[e.name].family:
            self.error(e.span, f"`{e.name}` is a family of zones: name one, as in `{e.name}({self.gvars[e.name].family[0]})`")
            return None
        if isinstance(e, n.Name) and e.name in self.gvars:
            v = self.gvars[e.name]
            if v.type.kind != "zone":
                self.error(e.span, f"`{e.name}` is {v.type}, not a zone of cards")
                return None
            return m.GameVar(v.slot, v.type, v.name, span=e.span)
        if isinstance(e, (n.Your, n.Possessive)):
            r = self.expr(e, u)
            if r.type == ERR:
                return None
            if isinstance(r, m.PlayerVar) and r.type.kind == "zone":
                return r
            self.error(e.span, f"`{e.name}` is {r.type}, not a zone of cards")
            return None
        if isinstance(e, n.Name) and e.name in self.pvars:
            self.error(e.span, f"`{e.name}` belongs to each player", f"write `your {e.name}` or `PLAYER's {e.name}`")
            return None
        name = getattr(e, "name", None)
        self.error(e.span, "cards go into a zone, such as `discard` or `your hand`",
                   self.suggest(name, self.zone_names, "zone") if isinstance(name, str) else None)
        return None

    def describe_target(self, e: n.Expr) -> str:
        if isinstance(e, n.Name):
            return f"`{e.name}`"
        if isinstance(e, n.Your):
            return f"`your {e.name}`"
        if isinstance(e, n.Possessive):
            return f"`{e.name}`"
        return "that"

    def lvalue(self, e: n.Expr, u: _Unit) -> Optional[m.Expr]:
        if isinstance(e, n.Name):
            if e.name in self.gvars:
                v = self.gvars[e.name]
                if v.family:
                    self.error(e.span, f"`{e.name}` is a family of zones: put cards in them with `move`")
                    return None
                return m.GameVar(v.slot, v.type, v.name, span=e.span)
            if e.name in self.options:
                self.error(e.span, f"`{e.name}` is an option: it is chosen when the game starts and cannot change")
                return None
            if e.name in self.pvars:
                self.error(e.span, f"`{e.name}` belongs to each player", f"write `your {e.name}` or `PLAYER's {e.name}`")
                return None
            for sc in reversed(u.scopes):
                if e.name in sc:
                    self.error(e.span, f"`{e.name}` names a player or a thing here and cannot be changed")
                    return None
            self.error(e.span, f"there is no variable `{e.name}`", self.suggest(e.name, lambda: list(self.gvars) + list(self.pvars), "variable"))
            return None
        if isinstance(e, (n.Your, n.Possessive)):
            r = self.expr(e, u)
            if isinstance(r, m.PlayerVar):
                return r
            if r.type != ERR:
                self.error(e.span, f"`{e.name}` cannot be changed: only variables declared with `each player has` can")
            return None
        self.error(e.span, "only a variable can be changed here")
        return None


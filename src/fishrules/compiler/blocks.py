"""Stage 4, blocks: a phase's or an action's statements -> one Python function.

`b7(s, fr)` runs block 7 from where its frame `fr = [block, pc, L]` stands, and returns True when the
rules wait (a player's decision, or chance in manual mode: `fr[1]` then says which pause), False when
the block is done or hands over to another frame (it played a phase, or ended some).  Where the game
stands stays plain data — the frame's `pc` and locals `L` — so a state can be copied or saved at any
pause; within a call the function runs on without returning to the driver.

Statements that can neither wait nor hand over become plain Python (`if`, `for`, `while`); the others
cut the block into arms of a `while True: if pc == K:` dispatch, one arm per place the block can be
resumed: after a decision or a played phase, and at a chance node (which is entered again after each
outcome).  A decision at pc P resumes at P + 1, as the runtime expects.

Every statement sets `at` to its index in the block's table of positions, so a rule that goes wrong
is reported at its own line (`Located`).  Dispatch is by node type (`visit_<Node>`), as in `expressions`.

Whatever the checker accepts must compile, and CPython has limits the rules do not: 100 levels of
indentation, 20 nested loops in a function, and `if … elif` chains of about 3,000 links.  Statements
nested deeper than `_INLINE_DEPTH` (or loops deeper than `_INLINE_LOOPS`) become arms of the
dispatch; an `if` of more than `_CHAIN` links, and a dispatch of more than `_CHAIN` arms, are
written as several chains one after the other.
"""

from __future__ import annotations

from typing import Optional

import attrs

from .. import model as m
from .. import reasons
from ..errors import Span
from ..walk import Node, find_all
from .expressions import ExprWriter
from .program import ChoosePause, DrawPause, Program, RollPause, SimulPause
from .source import Source, where

__all__ = ["BlockWriter"]

_WAITS = (m.Choose, m.ChooseTogether, m.RollDice, m.DrawCards, m.CallPhase)
#: Python refuses more than 100 levels of indentation and 20 nested loops in a function: statements
#: nested deeper are written as arms of the dispatch, which start at the left again.
_INLINE_DEPTH = 60
_INLINE_LOOPS = 12
#: CPython compiles an `if … elif …` chain as ifs nested in one another, and gives up at about
#: 3,000 links (its recursion limit): longer chains (`otherwise if` after `otherwise if`, the
#: dispatch of a block with many places to resume) are written as several chains of at most this
#: many links, one after the other.
_CHAIN = 100


@attrs.frozen(slots=True)
class _Fire(Node):
    """A statement of the compiler's own: the rule numbered `index` fires here."""

    index: int


def waits(stmts) -> bool:
    """Whether any of these statements (or one inside them) can wait or hand over to a phase."""
    return any(find_all(stmts, _WAITS, stop_at=m.Expr))


def _depths(stmts) -> tuple[int, int]:
    """(how many blocks deep, how many loops deep) the statements nest."""
    blocks = loops = 0
    for s in stmts:
        if isinstance(s, m.IfStmt):
            inner = [_depths(b) for _, b in s.branches] + [_depths(s.otherwise)]
            b, lp = max(x for x, _ in inner), max(y for _, y in inner)
            extra = 2 if len(s.branches) > _CHAIN else 1  # a long chain: its later parts under `if f:`
            blocks, loops = max(blocks, b + extra), max(loops, lp)
        elif isinstance(s, (m.RepeatStmt, m.ForEachStmt)):
            b, lp = _depths(s.body)
            blocks, loops = max(blocks, b + 1), max(loops, lp + 1)
        elif isinstance(s, m.RuleStmt):
            b, lp = _depths(s.body)
            blocks, loops = max(blocks, b), max(loops, lp)
    return blocks, loops


class BlockWriter:
    """Writes the function of one block."""

    def __init__(self, src: Source, ex: ExprWriter, prog: Program, model: m.Model, bid: int, noted):
        self.src = src
        self.ex = ex
        self.prog = prog
        self.model = model
        self.bid = bid
        self.noted = noted  # noted(target): a change of it is an event (not `internal`)
        self.arms: dict[int, list[str]] = {}
        self.lines: Optional[list[str]] = None
        self.labels = 0
        self.spans: list[Optional[Span]] = []
        self.loops = 0  # Python loops open around the statement being written

    # ---- layout ----------------------------------------------------------------------------------

    def label(self, count: int = 1) -> int:
        """`count` consecutive new labels; returns the first."""
        first = self.labels
        self.labels += count
        return first

    def arm(self, label: int) -> None:
        self.lines = self.arms[label] = []

    def put(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def goto(self, depth: int, label: int) -> None:
        self.put(depth, f"pc = {label}")
        self.put(depth, "continue")

    def at(self, depth: int, span: Optional[Span]) -> None:
        self.spans.append(span)
        self.put(depth, f"at = {len(self.spans) - 1}")

    # ---- the block -------------------------------------------------------------------------------

    def write(self, name: str, body: tuple, span: Optional[Span], comment: str) -> str:
        """The block's function; returns its name.  Registers its pauses in `prog.pauses`."""
        self.spans.append(span)  # at = 0: the block itself
        self.arm(self.label())
        self.stmts(body, 1)
        self.put(1, "s.stack.pop()")
        self.put(1, "return False")
        spans = self.src.const(tuple(self.spans), "sp")
        out = [f"# {comment}", f"def {name}(s, fr):", "    L = fr[2]", "    pc = fr[1]", "    at = 0", "    try:"]
        if len(self.arms) == 1:
            out += ["        " + line[4:] if line.startswith("    ") else line for line in self.arms[0]]
        elif len(self.arms) <= _CHAIN:
            out.append("        while True:")
            for i, (label, lines) in enumerate(self.arms.items()):
                out.append(f"            {'if' if i == 0 else 'elif'} pc == {label}:")
                out += ["            " + line for line in lines]
        else:  # many arms: chains of _CHAIN arms, each under a test of the range of its labels
            out.append("        while True:")
            labels = sorted(self.arms)
            for start in range(0, len(labels), _CHAIN):
                part = labels[start:start + _CHAIN]
                out.append(f"            if {part[0]} <= pc <= {part[-1]}:")
                for i, label in enumerate(part):
                    out.append(f"                {'if' if i == 0 else 'elif'} pc == {label}:")
                    out += ["                " + line for line in self.arms[label]]
        out += ["    except (Unplayable, Located):", "        raise",
                "    except Exception as exc:", f"        raise Located(exc, {spans}[at]) from None"]
        self.src.add("\n".join(out) + "\n")
        return name

    # ---- statements ------------------------------------------------------------------------------

    def stmts(self, body, depth: int) -> None:
        for s in body:
            self.stmt(s, depth)

    def stmt(self, s: m.Stmt, depth: int) -> None:
        getattr(self, "visit_" + type(s).__name__)(s, depth)

    def e(self, x: m.Expr) -> str:
        return self.ex.expr(x, {})

    def changed(self, depth: int, part=None) -> None:
        """The state changed: defines worked out before are stale — all of them, or with `part`
        (the variable ("g", slot) or ("p", slot) that changed) those that read it."""
        stale = self.ex.stale_after(part) if part is not None else None
        if stale is not None:  # a value changed: its defines forget all their values
            stale = tuple(dict.fromkeys(e if isinstance(e, int) else e[0] for e in stale))
        if stale is None or len(stale) > 4:
            self.put(depth, "if s._dmemo:")
            self.put(depth + 1, "s._dmemo.clear()")
        elif stale:
            self.put(depth, "if s._dmemo:")
            for index in stale:
                self.put(depth + 1, f"s._dmemo.pop({index}, None)")

    def visit_NoOp(self, s, depth):
        pass

    def visit_RuleStmt(self, s, depth):
        self.put(depth, f"# rule {ascii(s.name)}, {where(s.span)}")
        k = self.prog.rules[s.name]  # (numbered by fishrules.analysis.rule_numbers)
        body = s.body
        if len(body) == 1 and isinstance(body[0], m.IfStmt) and not body[0].otherwise:
            # a rule that is one `if` (a guard) fires when one of its conditions holds
            guard = body[0]
            body = (attrs.evolve(guard, branches=tuple((c, (_Fire(k), *b)) for c, b in guard.branches)),)
        else:  # any other rule fires whenever its lines are reached
            self.visit__Fire(_Fire(k), depth)
        self.stmts(body, depth)

    def visit__Fire(self, s, depth):
        """Count a rule's firing, when the state counts them (`State.rules_fired`): one test of
        None on the fast path otherwise."""
        self.put(depth, "if s.fires is not None:")
        self.put(depth + 1, f"s.fires[{s.index}] += 1")

    def visit_Assign(self, s, depth):
        self.at(depth, s.span)
        self.put(depth, f"v = checked_value({self.e(s.value)})")
        self.store(s.target, depth)

    def store(self, target, depth: int) -> None:
        """Store `v` in the variable `target`, noting the change as an event."""
        noted = self.noted(target)
        if isinstance(target, m.GameVar):
            self.put(depth, f"o = s.g[{target.slot}]")
            self.put(depth, f"s.g[{target.slot}] = v")
            who = "-1"
        else:
            self.put(depth, f"w = {self.e(target.player)}")
            self.put(depth, "if w is None:")
            self.put(depth + 1, f'raise Fail({reasons.CHANGED_NOBODY!r})')
            self.put(depth, f"o = s.p[w][{target.slot}]")
            self.put(depth, f"s.p[w][{target.slot}] = v")
            who = "w"
        if noted:
            self.put(depth, "if v != o and s.events is not None:")
            self.put(depth + 1, f"note_set(s, {who}, {target.slot}, o, v)")
        self.changed(depth, ("g" if isinstance(target, m.GameVar) else "p", target.slot))

    _CHANGE = {
        "increase": "bounded(o + {v})",
        "decrease": "bounded(o - {v})",
        "append": "checked_value(o + (checked_value({v}),))",
        "extend": "extended(o, {v})",
        "remove": "removed(o, {v})",
    }

    def visit_Change(self, s, depth):
        self.at(depth, s.span)
        t = s.target
        if isinstance(t, m.GameVar):
            self.put(depth, f"o = s.g[{t.slot}]")
        else:
            self.put(depth, f"w = {self.e(t.player)}")
            self.put(depth, "if w is None:")
            self.put(depth + 1, f'raise Fail({reasons.CHANGED_NOBODY!r})')
            self.put(depth, f"o = s.p[w][{t.slot}]")
        if s.op == "clear":
            new = "()" if t.type.kind == "list" else "None"
        else:
            new = self._CHANGE[s.op].format(v=self.e(s.value))
        self.put(depth, f"v = {new}")
        if isinstance(t, m.GameVar):
            self.put(depth, f"s.g[{t.slot}] = v")
        else:
            self.put(depth, f"s.p[w][{t.slot}] = v")
        if self.noted(t):
            self.put(depth, "if v != o and s.events is not None:")
            self.put(depth + 1, f"note_set(s, {'-1' if isinstance(t, m.GameVar) else 'w'}, {t.slot}, o, v)")
        self.changed(depth, ("g" if isinstance(t, m.GameVar) else "p", t.slot))

    def visit_MoveCards(self, s, depth):
        self.at(depth, s.span)
        # _move itself forgets the defines that read the zones it changes
        self.put(depth, f"s._move(tuple({self.ex.cards(s.cards, {})}), {self.ex.zone_key(s.target, {})}, {s.facing!r})")

    def visit_ShuffleZone(self, s, depth):
        self.at(depth, s.span)
        self.put(depth, f"s.mixed = s.mixed | {{{self.ex.zone_key(s.zone, {})}}}")
        self.changed(depth)

    def visit_RevealCards(self, s, depth):
        self.at(depth, s.span)
        self.put(depth, f"reveal(s, {self.ex.cards(s.cards, {})})")
        self.changed(depth)

    def visit_Refuse(self, s, depth):
        self.at(depth, s.span)
        self.put(depth, f"raise Unplayable({self.src.const(s.message)})")

    def visit_Restart(self, s, depth):
        self.at(depth, s.span)
        self.put(depth, "if s.events is not None:")
        self.put(depth + 1, 's.events.append(("restart", len(s._history)))')
        self.put(depth, "s._restart()")
        self.put(depth, "return False")

    def visit_EndPhase(self, s, depth):
        self.at(depth, s.span)
        if s.phase == "game":
            self.put(depth, "s.stack.clear()")
        else:
            self.put(depth, f"end_phase(s, {self.prog.phase_block[s.phase]}, {self.src.const(s.phase)})")
        self.put(depth, "return False")

    def fits(self, stmts, depth: int) -> bool:
        """Whether the statements can be written as plain Python here: they neither wait nor hand
        over, and nest within Python's limits from this depth."""
        if waits(stmts):
            return False
        blocks, loops = _depths(stmts)
        return depth + blocks < _INLINE_DEPTH and self.loops + loops < _INLINE_LOOPS

    def visit_IfStmt(self, s, depth):
        if self.fits([s], depth):
            if len(s.branches) + bool(s.otherwise) > _CHAIN:  # `else` is a link of the chain too
                self.long_if(s, depth)
                return
            for i, (cond, body) in enumerate(s.branches):
                self.put(depth, f"{'if' if i == 0 else 'elif'} {self.cond(cond, s)}:")
                self.stmts(body, depth + 1)
                self.put(depth + 1, "pass")
            if s.otherwise:
                self.put(depth, "else:")
                self.stmts(s.otherwise, depth + 1)
                self.put(depth + 1, "pass")
            return
        end = self.label()
        arms = []
        for i, (cond, body) in enumerate(s.branches):
            # Every branch jumps away, so a chain that goes on after _CHAIN branches is a new `if`.
            self.put(depth, f"{'if' if i % _CHAIN == 0 else 'elif'} {self.cond(cond, s)}:")
            if not self.fits(body, depth + 1):
                here = self.label()
                arms.append((here, body))
                self.goto(depth + 1, here)
            else:
                self.stmts(body, depth + 1)
                self.goto(depth + 1, end)
        if s.otherwise:
            self.put(depth, "else:")
            if not self.fits(s.otherwise, depth + 1):
                here = self.label()
                arms.append((here, s.otherwise))
                self.goto(depth + 1, here)
            else:
                self.stmts(s.otherwise, depth + 1)
                self.goto(depth + 1, end)
        self.goto(depth, end)
        for here, body in arms:
            self.arm(here)
            self.stmts(body, 1)
            self.goto(1, end)
        self.arm(end)

    def long_if(self, s, depth: int) -> None:
        """An `if` of more than _CHAIN branches, as plain Python: chains of _CHAIN branches, each
        after the first tried only while the flag says no branch has been taken."""
        flag = self.src.mint("f")
        self.put(depth, f"{flag} = True")
        for start in range(0, len(s.branches), _CHAIN):
            at = depth
            if start:
                self.put(depth, f"if {flag}:")
                at = depth + 1
            for i, (cond, body) in enumerate(s.branches[start:start + _CHAIN]):
                self.put(at, f"{'if' if i == 0 else 'elif'} {self.cond(cond, s)}:")
                self.put(at + 1, f"{flag} = False")
                self.stmts(body, at + 1)
        if s.otherwise:
            self.put(depth, f"if {flag}:")
            self.stmts(s.otherwise, depth + 1)
            self.put(depth + 1, "pass")

    def cond(self, cond: m.Expr, s) -> str:
        """A condition of an `if`, noting where it is written as it is tested."""
        self.spans.append(cond.span or s.span)
        return f"(at := {len(self.spans) - 1}) and {self.e(cond)}"

    def visit_RepeatStmt(self, s, depth):
        if self.fits([s], depth):
            self.at(depth, s.span)
            if s.kind == "times":
                self.put(depth, f"for _ in range({self.e(s.expr)}):")
            elif s.kind == "while":
                self.put(depth, f"while {self.e(s.expr)}:")
            elif s.kind == "until":
                self.put(depth, f"while not {self.e(s.expr)}:")
            else:
                self.put(depth, "while True:")
            self.put(depth + 1, "charge(s, 1)")
            self.loops += 1
            self.stmts(s.body, depth + 1)
            self.loops -= 1
            return
        top = self.label(2)
        end = top + 1
        self.at(depth, s.span)
        if s.kind == "times":
            self.put(depth, f"L[{s.slot}] = {self.e(s.expr)}")
        self.goto(depth, top)
        self.arm(top)
        self.at(1, s.span)
        self.put(1, "charge(s, 1)")
        if s.kind == "times":
            self.put(1, f"if L[{s.slot}] <= 0:")
            self.goto(2, end)
            self.put(1, f"L[{s.slot}] -= 1")
        elif s.kind == "while":
            self.put(1, f"if not {self.e(s.expr)}:")
            self.goto(2, end)
        elif s.kind == "until":
            self.put(1, f"if {self.e(s.expr)}:")
            self.goto(2, end)
        self.stmts(s.body, 1)
        self.goto(1, top)
        self.arm(end)

    def visit_ForEachStmt(self, s, depth):
        if self.fits([s], depth):
            self.at(depth, s.span)
            self.put(depth, f"for L[{s.var_slot}] in ch(s, tuple({self.e(s.collection)})):")
            self.loops += 1
            self.stmts(s.body, depth + 1)
            self.loops -= 1
            self.put(depth + 1, "pass")
            return
        top = self.label(2)
        end = top + 1
        ls = s.list_slot
        self.at(depth, s.span)
        self.put(depth, f"L[{ls}] = ch(s, tuple({self.e(s.collection)}))")
        self.put(depth, f"L[{ls + 1}] = 0")
        self.goto(depth, top)
        self.arm(top)
        self.put(1, f"i = L[{ls + 1}]")
        self.put(1, f"if i >= len(L[{ls}]):")
        self.goto(2, end)
        self.put(1, f"L[{s.var_slot}] = L[{ls}][i]")
        self.put(1, f"L[{ls + 1}] = i + 1")
        self.stmts(s.body, 1)
        self.goto(1, top)
        self.arm(end)

    # ---- statements that wait or hand over: each ends the arm it is in ---------------------------

    def visit_CallPhase(self, s, depth):
        target = self.prog.phase_block[s.phase]
        nl = self.model.phases[s.phase].nlocals
        back = self.label()
        self.at(depth, s.span)
        self.put(depth, f"fr[1] = {back}")
        if s.argument is None:
            self.put(depth, f"push(s, {target}, [None] * {nl})")
        else:
            self.put(depth, f"push_for(s, {target}, {nl}, {self.e(s.argument)}, {self.src.const(s.phase)})")
        self.put(depth, "return False")
        self.arm(back)

    def visit_Choose(self, s, depth):
        pause = self.label(2)
        self.prog.pauses[(self.bid, pause)] = ChoosePause([self.prog.actions[nm] for nm in s.actions], s.slot, s.span)
        self.at(depth, s.span)
        self.put(depth, f"w = {self.e(s.chooser)}")
        self.put(depth, "if w is None:")
        self.put(depth + 1, f'raise Fail({reasons.NOBODY_CHOOSES!r})')
        self.put(depth, f"L[{s.slot}] = w")
        self.put(depth, "s.cur = w")
        self.put(depth, f"fr[1] = {pause}")
        self.put(depth, "return True")
        self.arm(pause + 1)

    def visit_ChooseTogether(self, s, depth):
        pause = self.label(2)
        self.prog.pauses[(self.bid, pause)] = SimulPause([self.prog.actions[nm] for nm in s.actions], s.slot, s.span)
        self.at(depth, s.span)
        self.put(depth, f"w = tuple(dict.fromkeys(p for p in {self.e(s.choosers)} if p is not None))")
        self.put(depth, "if w:")
        self.put(depth + 1, f"L[{s.slot}] = w")
        self.put(depth + 1, f"L[{s.slot + 1}] = ()")
        self.put(depth + 1, "s.cur = SIMULTANEOUS")
        self.put(depth + 1, f"fr[1] = {pause}")
        self.put(depth + 1, "return True")
        self.goto(depth, pause + 1)
        self.arm(pause + 1)

    def visit_RollDice(self, s, depth):
        pause = self.label()
        self.prog.pauses[(self.bid, pause)] = RollPause(s.list_slot, s.span)
        single = s.dice.type == m.DIE
        self.at(depth, s.span)
        self.put(depth, f"start_roll(s, L, {s.list_slot}, {self.e(s.dice)}, {single})")
        self.goto(depth, pause)
        self.arm(pause)
        self.at(1, s.span)
        self.put(1, f"if roll_wait(s, L, {s.list_slot}):")
        self.put(2, f"fr[1] = {pause}")
        self.put(2, "return True")

    def visit_DrawCards(self, s, depth):
        pause = self.label()
        self.prog.pauses[(self.bid, pause)] = DrawPause(s.slot, s.facing, s.span)
        ls = s.slot
        self.at(depth, s.span)
        self.put(depth, f"L[{ls}] = {self.e(s.count)}")
        self.put(depth, f"L[{ls + 1}] = {self.ex.zone_key(s.source, {})}")
        self.put(depth, f"L[{ls + 2}] = {self.ex.zone_key(s.target, {})}")
        self.goto(depth, pause)
        self.arm(pause)
        self.at(1, s.span)
        self.put(1, f"if draw_wait(s, L, {ls}, {s.facing!r}):")
        self.put(2, f"fr[1] = {pause}")
        self.put(2, "return True")

"""Resumable blocks: a block whose rules can wait, cut into arms that a frame's `pc` can resume.

A phase or action that waits (it plays a phase, or a player decides) must be able to stop there
and, later, from the state array alone, carry on where it stopped.  As the engine's compiler does
(fishrules.compiler.blocks), the statements that can wait cut the block into *arms*, numbered by
label: straight code that ends by going to another arm, returning, or calling a block.  Statements
that cannot wait stay structured inside an arm.  Both emitters print the same arms: Python as a
`while True: if pc == K:` dispatch, C as a `switch` in a loop.

How a block calls a block (`Invoke`): it calls the callee's function; if the callee waits it
returns PAUSE, and the caller writes its own place (`back`) and locals into its frame and returns
PAUSE too, up to the driver.  To resume, the driver calls the outermost block with `resume`; it
loads its frame and goes to `back`, which calls its callee with `resume`, and so on up to the block
that waited.  In a playout nothing ever waits (choices are made on the spot), so no frame is ever
written: a playout pays for none of this.
"""

from __future__ import annotations

from typing import Optional

import attrs

from . import ir
from .abi import FAULT_RULE, H_CHANCE, H_CHANCE_B, H_CHANCE_C, H_MANUAL, H_MOVE

__all__ = ["Goto", "Invoke", "Ask", "AskAll", "PlayChosen", "RollWait", "DrawWait", "NO_OUTCOME", "cut", "Arms"]

#: What the caller writes into the first move slot at a chance wait to give no outcome: chance
#: has been handed to the generator since the game began to wait (`state.manual = False`), and
#: the game goes on as the engine's `_run` does there, the generator resolving what is left
NO_OUTCOME = -1

node = attrs.frozen(slots=True)


@node
class Goto(ir.Stmt):
    label: int


@node
class Invoke(ir.Stmt):
    """Call `block` with `args` (block None: the move in the move slots), or resume it (`fresh`
    False: its frame is the next one); if it waits, wait too, to resume at `back`; when it is done,
    go to `next`."""

    block: Optional[int]
    args: tuple
    fresh: bool
    back: int
    next: int


@node
class Ask(ir.Stmt):
    """Decision site `site`, for the player in local `who`.  In a playout: list the moves, pick one
    at random into the move slots, go to `call`.  Otherwise wait, to resume at `after` (the caller
    has put the chosen move into the move slots)."""

    site: int
    who: str
    after: int
    call: int


@node
class AskAll(ir.Stmt):
    """Simultaneous site `site` for the seats of buffer `who`: in a playout each picks a move at
    random (all from the same position) into `chosen`, then go to `start`; otherwise wait, to
    resume at `after` (the caller has filled `chosen`)."""

    site: int
    who: str
    chosen: str
    after: int
    start: int


@node
class PlayChosen(ir.Stmt):
    """Put move `index` of the buffer `chosen` into the move slots."""

    chosen: str
    index: str


@node
class RollWait(ir.Stmt):
    """Chance is the caller's: wait for the face of die `die` (a local), to resume at `after` (the
    caller has put the face into the first move slot)."""

    die: str
    after: int


@node
class DrawWait(ir.Stmt):
    """Chance is the caller's: wait for the card drawn from zone `src` (a local) to zone `dest` (a
    local), landing as `facing` says, to resume at `after` (the caller has put the card into the
    first move slot)."""

    src: str
    dest: str
    facing: int
    after: int


class Arms:
    """The arms of one function: `labels` in order, `code[label]` the statements of each."""

    def __init__(self, fn: ir.Function, seats: int, move_width: int, dice: int = 1):
        self.fn = fn
        self.seats = seats
        self.dice = max(dice, 1)
        self.move_width = move_width
        self.code: dict[int, list] = {}
        self.cur: list = []
        self.n = 0
        self.scalars: list[str] = []
        self.buffers: list[tuple[str, int]] = []

    def label(self) -> int:
        self.n += 1
        return self.n - 1

    def open(self, label: int) -> None:
        self.cur = self.code[label] = []

    def temp(self) -> str:
        name = f"w{len(self.scalars) + len(self.buffers)}"
        self.scalars.append(name)
        return name

    def tempbuf(self, cap: int) -> str:
        name = f"w{len(self.scalars) + len(self.buffers)}"
        self.buffers.append((name, cap))
        return name

    def run(self) -> "Arms":
        self.open(self.label())
        self.block(self.fn.body, None)
        self.cur.append(ir.Leave(0))
        return self

    def block(self, stmts, loop) -> None:
        for s in stmts:
            self.stmt(s, loop)

    def stmt(self, s, loop) -> None:
        if not ir.waits([s]):
            self.cur.append(_rewrite(s, loop))
            return
        getattr(self, "a_" + type(s).__name__)(s, loop)

    def a_If(self, s, loop):
        then, otherwise, end = self.label(), self.label(), self.label()
        self.cur.append(ir.If(s.test, (Goto(then),), (Goto(otherwise),)))
        self.open(then)
        self.block(s.then, loop)
        self.cur.append(Goto(end))
        self.open(otherwise)
        self.block(s.otherwise, loop)
        self.cur.append(Goto(end))
        self.open(end)

    def a_While(self, s, loop):
        top, end = self.label(), self.label()
        self.cur.append(Goto(top))
        self.open(top)
        if not (isinstance(s.test, ir.Int) and s.test.value):
            self.cur.append(ir.If(ir.Not(s.test), (Goto(end),)))
        self.block(s.body, (top, end))
        self.cur.append(Goto(top))
        self.open(end)

    def a_For(self, s, loop):
        if not isinstance(s.stream, ir.BufS) or not isinstance(s.stream.buf, ir.BufVar):
            raise AssertionError("a loop that waits goes through a snapshot")  # pragma: no cover
        buf = s.stream.buf
        i = self.temp()
        top, end = self.label(), self.label()
        self.cur.append(ir.Set(i, ir.Int(0)))
        self.cur.append(Goto(top))
        self.open(top)
        self.cur.append(ir.If(ir.Cmp(">=", ir.Var(i), ir.Len(buf)), (Goto(end),)))
        self.cur.append(ir.Set(s.var, ir.At(buf, ir.Var(i))))
        self.cur.append(ir.Set(i, ir.Help("plus_one", (ir.Var(i),))))
        self.block(s.body, (top, end))
        self.cur.append(Goto(top))
        self.open(end)

    def a_CallBlock(self, s, loop):
        back, nxt = self.label(), self.label()
        self.cur.append(Invoke(s.block, s.args, True, back, nxt))
        self.open(back)
        self.cur.append(Invoke(s.block, (), False, back, nxt))
        self.open(nxt)

    def a_Decide(self, s, loop):
        who = self.temp()
        after, call, back, nxt = self.label(), self.label(), self.label(), self.label()
        self.cur.append(ir.Set(who, s.chooser))
        self.cur.append(Ask(s.site, who, after, call))
        self.open(after)
        self.cur.append(Goto(call))
        self.open(call)
        self.cur.append(Invoke(None, (), True, back, nxt))
        self.open(back)
        self.cur.append(Invoke(None, (), False, back, nxt))
        self.open(nxt)

    def a_Together(self, s, loop):
        who = self.tempbuf(self.seats)
        chosen = self.tempbuf(self.seats * self.move_width)
        j = self.temp()
        after, start, top, back, step, end = (self.label() for _ in range(6))
        self.cur.append(ir.SetBuf(who, s.who))
        self.cur.append(ir.If(ir.Cmp("==", ir.Len(ir.BufVar(who, self.seats)), ir.Int(0)), (Goto(end),)))
        self.cur.append(AskAll(s.site, who, chosen, after, start))
        self.open(after)
        self.cur.append(Goto(start))
        self.open(start)
        self.cur.append(ir.Set(j, ir.Int(0)))
        self.cur.append(Goto(top))
        self.open(top)
        self.cur.append(ir.If(ir.Cmp(">=", ir.Var(j), ir.Len(ir.BufVar(who, self.seats))), (Goto(end),)))
        self.cur.append(PlayChosen(chosen, j))
        self.cur.append(Invoke(None, (), True, back, step))
        self.open(back)
        self.cur.append(Invoke(None, (), False, back, step))
        self.open(step)
        self.cur.append(ir.Set(j, ir.Help("plus_one", (ir.Var(j),))))
        # The engine's machine puts every chosen move's action on its stack at once, so that one
        # runs after another with no step of this block between them (runtime/machine.py `_run`):
        # the step this block counts when a move is done (emit_*'s Invoke) is not one before the next.
        self.cur.append(ir.If(ir.Cmp("<", ir.Var(j), ir.Len(ir.BufVar(who, self.seats))),
                              (ir.Do("charge", (ir.Int(-1),)),)))
        self.cur.append(Goto(top))
        self.open(end)


    def a_Roll(self, s, loop):
        # The generator's roll is today's helper, as it was (one header test more); only when
        # chance is the caller's does the block wait, for each die in turn, every die of the
        # group showing no face until its own is given (as the engine's `start_roll`).
        dice, die, i = self.tempbuf(self.dice), self.temp(), self.temp()
        top, after, end = self.label(), self.label(), self.label()
        seeded = ir.Do("roll_one", (s.one,)) if s.dice is None else ir.Do("roll", (s.dice,))
        self.cur.append(ir.If(ir.Not(ir.Get(ir.Int(H_MANUAL))), (seeded, Goto(end))))
        if s.dice is None:
            self.cur.append(ir.Set(die, s.one))
            self.cur.append(ir.If(ir.Cmp("==", ir.Var(die), ir.Nil()), (ir.Fault(FAULT_RULE),)))
            self.cur.append(ir.SetBuf(dice, ir.Collect(ir.OneS(ir.Var(die)))))
        else:
            self.cur.append(ir.SetBuf(dice, s.dice))
        buf = ir.BufVar(dice, self.dice)
        self.cur.append(ir.Do("roll_start", (buf,)))
        self.cur.append(ir.Set(i, ir.Int(0)))
        self.cur.append(Goto(top))
        self.open(top)
        self.cur.append(ir.If(ir.Cmp(">=", ir.Var(i), ir.Len(buf)), (Goto(end),)))
        # Chance handed to the generator while the group waits (`state.manual = False`): the dice
        # left are rolled together with one draw, as the engine's `roll_wait` rolls them
        self.cur.append(ir.If(ir.Not(ir.Get(ir.Int(H_MANUAL))), (ir.Do("roll_rest", (buf, ir.Var(i))), Goto(end))))
        self.cur.append(ir.Set(die, ir.At(buf, ir.Var(i))))
        # (the die's place in its group, and the group's size: what a seeded game would have drawn
        # here, for a replay that follows its generator: `KState._consume_chance_draws`)
        self.cur.append(ir.Put(ir.Int(H_CHANCE_B), ir.Var(i)))
        self.cur.append(ir.Put(ir.Int(H_CHANCE_C), ir.Len(buf)))
        self.cur.append(RollWait(die, after))
        self.open(after)
        self.cur.append(_RESUMED)
        self.cur.append(_no_outcome(top))
        self.cur.append(ir.Do("roll_face", (ir.Var(die),)))
        self.cur.append(ir.Set(i, ir.Help("plus_one", (ir.Var(i),))))
        self.cur.append(Goto(top))
        self.open(end)


    def a_Draw(self, s, loop):
        # As a roll: the generator's draw is today's helper; when chance is the caller's the block
        # takes the cards one at a time (`draw_step`: 0 done, 1 the top card of a zone not
        # shuffled taken, or one of a shuffled zone the generator drew once chance is its own
        # again, 2 a card of a shuffled zone to wait for), as the engine's `draw_wait`.
        n, src, dest, r = self.temp(), self.temp(), self.temp(), self.temp()
        top, after, end = self.label(), self.label(), self.label()
        seeded = ir.Do("draw", (s.count, s.src, s.dest, ir.Int(s.facing)))
        self.cur.append(ir.If(ir.Not(ir.Get(ir.Int(H_MANUAL))), (seeded, Goto(end))))
        self.cur.append(ir.Set(n, s.count))
        self.cur.append(ir.Set(src, s.src))
        self.cur.append(ir.Set(dest, s.dest))
        self.cur.append(Goto(top))
        self.open(top)
        self.cur.append(ir.Set(r, ir.Help("draw_step", (ir.Var(n), ir.Var(src), ir.Var(dest), ir.Int(s.facing)))))
        self.cur.append(ir.If(ir.Cmp("==", ir.Var(r), ir.Int(0)), (Goto(end),)))
        self.cur.append(ir.If(ir.Cmp("==", ir.Var(r), ir.Int(1)),
                              (ir.Set(n, ir.Help("minus_one", (ir.Var(n),))), Goto(top))))
        self.cur.append(DrawWait(src, dest, s.facing, after))
        self.open(after)
        self.cur.append(_RESUMED)
        self.cur.append(_no_outcome(top))
        self.cur.append(ir.Do("draw_card", (ir.Var(src), ir.Var(dest), ir.Int(s.facing))))
        self.cur.append(ir.Set(n, ir.Help("minus_one", (ir.Var(n),))))
        self.cur.append(Goto(top))
        self.open(end)


#: Where a block goes on after chance (the caller's outcome given): the step of its run from here,
#: as the engine's machine counts it (a run that waits again counts none: emit_*'s `pause` takes
#: it back); a run that goes on after a move or a block it called is counted where that returns.
_RESUMED = ir.Do("charge", (ir.Int(1),))


def _no_outcome(top: int) -> ir.Stmt:
    """Resumed with no outcome (`NO_OUTCOME`) once chance is the generator's: back to the top of
    the roll or the draw, where the generator resolves what is left (the wait no longer one)."""
    return ir.If(ir.Not(ir.Get(ir.Int(H_MANUAL))),
                 (ir.If(ir.Cmp("==", ir.Get(ir.Int(H_MOVE)), ir.Int(NO_OUTCOME)),
                        (ir.Put(ir.Int(H_CHANCE), ir.Int(0)), Goto(top))),))


def _rewrite(s, loop):
    """`s` with its `break`/`continue` of the loop cut into arms (`loop` = (top, end)) made gotos;
    those of loops inside `s` stay as they are."""
    if loop is None:
        return s
    if isinstance(s, ir.Break):
        return Goto(loop[1])
    if isinstance(s, ir.Continue):
        return Goto(loop[0])
    if isinstance(s, ir.If):
        return ir.If(s.test, tuple(_rewrite(x, loop) for x in s.then), tuple(_rewrite(x, loop) for x in s.otherwise))
    return s


def cut(fn: ir.Function, seats: int, move_width: int, dice: int = 1) -> Optional[Arms]:
    """The arms of a block that can wait; None for code that runs straight through.  `dice`: the
    most dice a roll may name (a waiting roll keeps them in its frame)."""
    if fn.kind != "block" or not ir.waits(fn.body):
        return None
    return Arms(fn, seats, move_width, dice).run()

"""Stage 4: typed model -> runnable program.

Expressions become Python closures `f(state, locals)`; phases and actions become flat lists of
instructions with jumps, so that where the game stands is nothing but data: a stack of frames
`[block, pc, locals]` inside the state (see `fishrules.runtime`).  The program itself holds every
closure and is shared, read-only, by all the states of a game.

An instruction is a closure `ins(state, frame)` that sets `frame[1]` (the next pc) and returns a true
value only when the game must wait: for a player's decision or for chance.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Callable, Optional

from . import model as m
from .errors import Span
from .limits import MAX_CHOICES, MAX_LIST_LENGTH, MAX_NUMBER, MAX_PHASE_DEPTH, MAX_SUBSET, WORK_BUDGET

__all__ = ["compile_model", "Program", "ActionProgram", "Fail", "CHANCE", "SIMULTANEOUS", "charge"]

CHANCE = "chance"
SIMULTANEOUS = "simultaneous"

#: Phases calling phases deeper than this is a runaway recursion in the rules.
MAX_STACK = MAX_PHASE_DEPTH

Fn = Callable


_MISSING = object()


class Fail(Exception):
    """A rule went wrong while running.  `span` is where, when the failing piece knows it;
    otherwise the runtime names the instruction, action or score that was being worked out."""

    def __init__(self, message: str, span: Optional[Span] = None):
        super().__init__(message)
        self.span = span


OVER_BUDGET = (f"the rules did more than {WORK_BUDGET:,} steps of work without waiting for anybody: "
               "an endless loop, or a rule that looks at far too many things")


def charge(s, n: int) -> None:
    """Count `n` more things looked at (or steps run) against the work budget of this call."""
    w = s._work + n
    s._work = w
    if w > WORK_BUDGET:
        raise Fail(OVER_BUDGET)


def bounded(v):
    """A number that a rule worked out, checked to lie within ±MAX_NUMBER."""
    if -MAX_NUMBER <= v <= MAX_NUMBER:
        return v
    raise Fail(f"a number grew past {MAX_NUMBER:,}, the largest the rules may use")


def _checked_value(v):
    """A value about to be stored in the state: numbers within bounds, lists within length."""
    t = type(v)
    if t is int:
        return bounded(v)
    if t is tuple and len(v) > MAX_LIST_LENGTH:
        raise Fail(f"a list grew past {MAX_LIST_LENGTH:,} entries, the longest the rules may keep")
    return v


class Unplayable(Exception):
    """`unavailable "…"`: the rules cannot be played as asked."""


# ---- program pieces -------------------------------------------------------------------------------


class ParamProgram:
    __slots__ = ("name", "kind", "slot", "domain", "render", "parse", "element", "span", "describe", "elements",
                 "render_one", "secret")

    def __init__(self, name, kind, slot, domain, render, parse, element, span, describe, elements=None,
                 render_one=None, secret=False):
        self.name = name
        self.kind = kind
        self.slot = slot
        self.domain = domain
        self.render = render
        self.parse = parse
        self.element = element
        self.span = span
        self.describe = describe
        self.elements = elements  # for `some`: the things chosen from, in their order
        self.render_one = render_one or render  # how one element is written
        self.secret = secret  # written `?` in the history everybody but the actor sees


class ActionProgram:
    __slots__ = ("name", "block", "nlocals", "params", "requires", "checks", "span", "broken")

    def __init__(self, name, block, nlocals, params, requires, span):
        self.name = name
        self.block = block
        self.nlocals = nlocals
        self.params: list[ParamProgram] = params
        self.requires: list[tuple[str, Span, Fn]] = requires
        # the requires that enumeration must still test (others are built into a domain)
        self.checks: list[Fn] = [f for _, _, f in requires]
        self.span = span
        # rule name -> (condition or None, block): a violation accepted instead of refused
        self.broken: dict[str, tuple] = {}

    def render(self, values: tuple) -> str:
        if not values:
            return self.name
        return " ".join([self.name] + [p.render(v) for p, v in zip(self.params, values)])

    def render_redacted(self, values: tuple) -> Optional[str]:
        """The text others see, when some parameter is secret; None when nothing is."""
        if not any(p.secret for p in self.params):
            return None
        return " ".join([self.name] + ["?" if p.secret else p.render(v) for p, v in zip(self.params, values)])


class ChoosePause:
    __slots__ = ("actions", "slot", "span", "key", "memo")

    def __init__(self, actions, slot, span):
        self.actions: list[ActionProgram] = actions
        self.slot = slot
        self.span = span
        # key(state, actor): everything the legality of these actions reads, or None when that
        # cannot be known; legal lists are then shared by all positions with the same key.
        self.key: Optional[Fn] = None
        self.memo: dict = {}


#: Positions remembered per decision point before the memo stops growing.
MEMO_LIMIT = 50_000


class DrawPause:
    __slots__ = ("slot", "facing", "span")

    def __init__(self, slot, facing, span):
        self.slot = slot
        self.facing = facing
        self.span = span


#: Zone keys: a game zone is its slot; a player's zone is G + slot * MAX_SEATS + player.
MAX_SEATS = 64


class SimulPause(ChoosePause):
    """`each of PLAYERS secretly chooses …`: L[slot] who chooses, L[slot + 1] their choices so far,
    as (player, action, values) in the order they were made."""

    __slots__ = ()


class RollPause:
    __slots__ = ("slot", "span")

    def __init__(self, slot, span):
        self.slot = slot
        self.span = span


class Program:
    """Everything needed to run a game, compiled once."""

    def __init__(self, model: m.Model):
        self.model = model
        self.model_span = model.span  # where a fault with no better position is reported
        self.winners_span = getattr(model.winners, "span", None) or model.span
        self.identity = ""  # the game's rule hash, set by `Game`
        self.code: list[list[Fn]] = []
        self.spans: list[list[Optional[Span]]] = []
        self.block_names: list[str] = []
        self.block_is_phase: list[bool] = []
        self.block_nlocals: list[int] = []
        self.pauses: dict[tuple[int, int], object] = {}
        self.phase_block: dict[str, int] = {}
        self.actions: dict[str, ActionProgram] = {}
        self.defines: dict[str, Fn] = {}
        self.score_terms: list[tuple[str, Fn]] = []
        self.score: Fn = lambda s, p: 0
        self.winners: Fn = lambda s: ()
        self.game_inits: list[tuple[int, Fn]] = []
        self.player_inits: list[Fn] = []
        self.dice_count: Optional[Fn] = None
        self.faces: list[m.FaceInfo] = []
        self.face_kinds: list = []
        self.face_values: list[int] = []
        self.face_labels: list[str] = []
        self.face_canonical: list[int] = []
        self.unrolled = 0
        self.chance_outcomes: list[tuple[str, int, Fraction]] = []
        self.roll_texts: list[list[str]] = []
        self.n_options = len(model.options)
        self.option_slots = {o.name: o.slot for o in model.options}
        self.G = model.n_game_slots
        self.cards = list(model.cards)
        self.card_labels = [ci.label for ci in model.cards]
        self.card_values: dict[str, list] = {}
        for i, ci in enumerate(model.cards):
            for a, v in ci.values:
                self.card_values.setdefault(a, [None] * len(model.cards))[i] = v
        # visibility of every variable: vis(state, viewer, owner) -> may the viewer see it
        self.game_vis: dict[int, Fn] = {}
        self.player_vis: dict[int, Fn] = {}
        # who sees a value or a zone now: aud(state, owner) -> None (everybody) or a tuple of players
        self.game_audience: dict[int, Fn] = {}
        self.player_audience: dict[int, Fn] = {}
        self.game_zone_names: dict[int, str] = {}
        self.game_var_names: dict[int, str] = {}
        self.player_var_names: dict[int, str] = {}
        self.public_defines: set[str] = set()

    def zone_of_key(self, key: int) -> tuple[bool, int, int]:
        """(is a game zone, slot, owner) of a zone key."""
        if key < self.G:
            return True, key, -1
        k = key - self.G
        return False, k // MAX_SEATS, k % MAX_SEATS

    def can_see_zone(self, s, key: int, viewer) -> bool:
        is_game, slot, owner = self.zone_of_key(key)
        vis = self.game_vis[slot] if is_game else self.player_vis[slot]
        return vis(s, viewer, owner)

    def audience(self, s, key: int) -> Optional[tuple]:
        """Who sees what is in the zone `key` now: None for everybody, else a tuple of players
        (the cards' faces aside).  -1, cards in no zone (the box), is seen by nobody."""
        if key < 0:
            return ()
        is_game, slot, owner = self.zone_of_key(key)
        f = self.game_audience[slot] if is_game else self.player_audience[slot]
        return f(s, owner)

    def zone_name(self, key: int) -> str:
        """A zone as the rules name it: `deck`, `rows(2)`, `hand of p1`; `the box` for -1."""
        if key < 0:
            return "the box"
        is_game, slot, owner = self.zone_of_key(key)
        return self.game_zone_names[slot] if is_game else f"{self.player_var_names[slot]} of p{owner}"

    def roll_text(self, die: int, face: int) -> str:
        return f"die {die + 1} rolls {self.face_labels[face]}"


# ---- the compiler ---------------------------------------------------------------------------------


class _Compiler:
    def __init__(self, model: m.Model):
        self.model = model
        self.prog = Program(model)
        self.define_fns: dict[str, Fn] = {}
        self.winners_cell: list[Fn] = [lambda s: ()]
        self.score_cell: list[Fn] = [lambda s, p: 0]

    def run(self) -> Program:
        prog, model = self.prog, self.model
        if model.dice is not None:
            faces = list(model.dice.faces)
            prog.faces = faces
            prog.face_kinds = [f.kind for f in faces] + [None]
            prog.face_values = [f.value for f in faces] + [0]
            prog.face_labels = [f.label for f in faces] + ["-"]
            prog.unrolled = len(faces)
            first: dict[str, int] = {}
            for i, f in enumerate(faces):
                first.setdefault(f.label, i)
            prog.face_canonical = [first[f.label] for f in faces] + [len(faces)]
            counts: dict[str, int] = {}
            for f in faces:
                counts[f.label] = counts.get(f.label, 0) + 1
            prog.chance_outcomes = [(lab, first[lab], Fraction(c, len(faces))) for lab, c in counts.items()]
            prog.dice_count = self.expr(model.dice.count)
        for name in model.defines:
            self.define(name)
        prog.defines = dict(self.define_fns)
        # scores
        terms = []
        for t in model.scores:
            terms.append((t.name, self.per_player_fn(t.expr, t.nlocals)))
        prog.score_terms = terms
        fns = [f for _, f in terms]
        if len(fns) == 1:
            prog.score = fns[0]
        else:
            prog.score = lambda s, p: sum(f(s, p) for f in fns)
        self.score_cell[0] = prog.score
        wf = self.expr(model.winners)
        wn = model.winners_nlocals
        prog.winners = lambda s: tuple(sorted(set(wf(s, [None] * wn))))
        self.winners_cell[0] = prog.winners
        # initial values (they may use options only)
        for v in model.game_vars:
            init = self.expr(v.initial)
            for i in range(v.family[1] if v.family else 1):
                prog.game_inits.append((v.slot + i, init))
        prog.player_inits = [self.expr(v.initial) for v in model.player_vars]
        for v in model.game_vars:
            vis, aud = self.visibility(v), self.audience(v)
            for i in range(v.family[1] if v.family else 1):
                prog.game_vis[v.slot + i] = vis
                prog.game_audience[v.slot + i] = aud
                prog.game_var_names[v.slot + i] = v.name
                prog.game_zone_names[v.slot + i] = f"{v.name}({v.family[0] + i})" if v.family else v.name
        for o in model.options:
            prog.game_vis[o.slot] = lambda s, viewer, owner: True
        for v in model.player_vars:
            prog.player_vis[v.slot] = self.visibility(v)
            prog.player_audience[v.slot] = self.audience(v)
            prog.player_var_names[v.slot] = v.name
        public = {("g", v.slot + i) for v in model.game_vars if v.visibility == "public"
                  for i in range(v.family[1] if v.family else 1)}
        public |= {("g", o.slot) for o in model.options}
        public |= {("p", v.slot) for v in model.player_vars if v.visibility == "public"}
        for name, d in model.defines.items():
            r = self.reads(d.expr)
            if r is not None and all(x in public for x in r if isinstance(x, tuple) and x[0] in ("g", "p")):
                prog.public_defines.add(name)
        # blocks: allocate ids first so calls can refer to any phase
        for name, ph in model.phases.items():
            prog.phase_block[name] = self.new_block(name, True, ph.nlocals)
        for name, a in model.actions.items():
            bid = self.new_block(f"action {name}", False, a.nlocals)
            prog.actions[name] = ActionProgram(name, bid, a.nlocals, [], [], a.span)
            for b in a.broken:
                hb = self.new_block(f"action {name}, rule {b.rule!r} broken", False, a.nlocals)
                cond = self.expr(b.condition) if b.condition is not None else None
                prog.actions[name].broken[b.rule] = (cond, hb)
        for name, ph in model.phases.items():
            self.emit_block(prog.phase_block[name], ph.body, ph.span)
        for name, a in model.actions.items():
            ap = prog.actions[name]
            # An action whose rules may be broken on purpose lists its violations too, each
            # judged by the rules in order: no rule of it becomes a filter on a domain.
            pushed = self.pushdown(a) if not a.broken else {"done": set()}
            ap.params = [self.param(p, pushed.get(p.slot)) for p in a.params]
            ap.requires = [(r.name, r.span, self.expr(r.condition)) for r in a.requires]
            ap.checks = [f for r, (_, _, f) in zip(a.requires, ap.requires) if id(r) not in pushed.get("done", ())]
            self.emit_block(ap.block, a.body, a.span)
            for b in a.broken:
                self.emit_block(ap.broken[b.rule][1], b.body, b.span)
        for info in prog.pauses.values():
            if isinstance(info, ChoosePause):  # simultaneous choices too
                info.key = self.legality_key([self.model.actions[ap.name] for ap in info.actions])
        return prog

    def visibility(self, v: m.Variable) -> Fn:
        if v.visibility == "public":
            return lambda s, viewer, owner: True
        if v.visibility == "secret":
            return lambda s, viewer, owner: viewer is not None and viewer == owner
        if v.visibility == "seen by":
            who = self.expr(v.seen_by)
            return lambda s, viewer, owner: viewer is not None and viewer == who(s, ())
        return lambda s, viewer, owner: False

    def audience(self, v: m.Variable) -> Fn:
        """aud(state, owner): who sees the variable now (None: everybody)."""
        if v.visibility == "public":
            return lambda s, owner: None
        if v.visibility == "secret":
            return lambda s, owner: (owner,)
        if v.visibility == "seen by":
            who = self.expr(v.seen_by)

            def aud(s, owner):
                p = who(s, ())
                return () if p is None else (p,)

            return aud
        return lambda s, owner: ()

    def zone_key(self, e: m.Expr) -> Fn:
        if isinstance(e, m.ZoneAt):
            return self.zone_index(e, key=True)
        if isinstance(e, m.GameVar):
            k = e.slot
            return lambda s, L: k
        pf, base = self.expr(e.player), self.prog.G + e.slot * MAX_SEATS

        def key(s, L):
            p = pf(s, L)
            if p is None:
                raise Fail("a rule used a zone of nobody")
            return base + p

        return key

    def board_adjacency(self) -> dict:
        """circle -> the circles next to it on some line, in order."""
        adj: dict = {}
        for line in self.model.board.lines:
            for x, y in zip(line, line[1:]):
                adj.setdefault(x, set()).add(y)
                adj.setdefault(y, set()).add(x)
        return {c: tuple(sorted(v)) for c, v in adj.items()}

    def board_runs(self) -> dict:
        """circle -> the runs of circles leading away from it along each of its lines, nearest
        first: a piece sliding in a straight line goes along one run until something is in the way."""
        runs: dict = {}
        for line in self.model.board.lines:
            for i, c in enumerate(line):
                runs.setdefault(c, []).append(tuple(line[i + 1:]))
                runs.setdefault(c, []).append(tuple(reversed(line[:i])))
        return {c: tuple(r for r in rs if r) for c, rs in runs.items()}

    def zone_index(self, e: m.ZoneAt, key: bool) -> Fn:
        f, base, lo, count, name = self.expr(e.index), e.base, e.low, e.count, e.name

        def at(s, L):
            i = f(s, L)
            if i is None or not (lo <= i < lo + count):
                raise Fail(f"there is no `{name}({i})`: they are numbered {lo} to {lo + count - 1}")
            return base + i - lo if key else s.g[base + i - lo]

        return at

    def x_ZoneAt(self, e):
        return self.zone_index(e, key=False)

    def cards_fn(self, e: m.Expr) -> Fn:
        f = self.expr(e)
        if e.type.kind == "card":

            def one(s, L):
                c = f(s, L)
                return () if c is None else (c,)

            return one
        return f

    # ---- what legality depends on ------------------------------------------------------------

    def reads(self, e, seen=None) -> Optional[set]:
        """The parts of a state an expression reads: "dice", ("g", slot), ("p", slot); None if
        that cannot be told."""
        seen = seen if seen is not None else set()
        out: set = set()
        stack = [e]
        while stack:
            x = stack.pop()
            if x is None:
                continue
            if isinstance(x, m.GameVar):
                out.add(("g", x.slot))
            elif isinstance(x, m.PlayerVar):
                out.add(("p", x.slot))
            elif isinstance(x, m.DieShows):
                out.add(("shows", x.kind))
            elif isinstance(x, m.DieAttr):
                out.add("dice")
            elif isinstance(x, (m.AllCards, m.CardAttr)):
                pass  # cards' attributes never change
            elif isinstance(x, m.ZoneAt):
                out.update(("g", x.base + i) for i in range(x.count))
            elif isinstance(x, m.DefineRef):
                if x.name not in seen:
                    seen.add(x.name)
                    stack.append(self.model.defines[x.name].expr)
            elif isinstance(x, m.ScoreOf):
                if "score" not in seen:
                    seen.add("score")
                    stack.extend(t.expr for t in self.model.scores)
            elif isinstance(x, m.WinnersRef):
                if "winners" not in seen:
                    seen.add("winners")
                    stack.append(self.model.winners)
            elif not isinstance(x, (m.Const, m.Local, m.AllPlayers, m.AllDice, m.Beside, m.Seat, m.Builtin, m.BinOp,
                                    m.Not, m.Negate, m.IfExpr, m.Filter, m.Project, m.Best, m.Quantified,
                                    m.Exclude, m.Rotate, m.Direction, m.Singleton)):
                return None  # something new: do not guess
            stack.extend(m.children(x))
        return out

    def legality_key(self, actions) -> Optional[Fn]:
        parts: set = set()
        for a in actions:
            exprs = [r.condition for r in a.requires] + [b.condition for b in a.broken if b.condition is not None]
            for p in a.params:
                exprs += [p.source, p.low, p.high]
            for e in exprs:
                r = self.reads(e)
                if r is None:
                    return None
                parts |= r
        # A card parameter stands for identical cards by a face-up copy first, so which cards are
        # face up is part of what legality reads.
        faces_up = any(_chooses_cards(p) for a in actions for p in a.params)
        pairs = [p for p in parts if p != "dice"]
        gslots = sorted(k for x, k in pairs if x == "g")
        pslots = sorted(k for x, k in pairs if x == "p")
        shown = {k for x, k in pairs if x == "shows"}
        if "dice" in parts or not shown:
            dice = "dice" in parts
            classes = None
        else:
            # Only `die shows KIND` is asked: a face matters only as one of those kinds or not.
            dice = True
            kinds = self.prog.face_kinds
            classes = [k if k in shown else None for k in kinds]
        if faces_up:
            inner = self._legality_key(gslots, pslots, dice, classes)
            return lambda s, actor: (inner(s, actor), tuple(s.up))
        return self._legality_key(gslots, pslots, dice, classes)

    @staticmethod
    def _legality_key(gslots, pslots, dice, classes) -> Fn:
        if not gslots and not pslots:
            if classes is not None:
                return lambda s, actor: (s.n, actor, *[classes[f] for f in s.dice])
            if dice:
                return lambda s, actor: (s.n, actor, *s.dice)
            return lambda s, actor: (s.n, actor)

        def key(s, actor):
            k = [s.n, actor]
            if classes is not None:
                k.extend(classes[f] for f in s.dice)
            elif dice:
                k.extend(s.dice)
            g = s.g
            k.extend(g[i] for i in gslots)
            for row in s.p:
                k.extend(row[i] for i in pslots)
            return tuple(k)

        return key

    # ---- blocks ------------------------------------------------------------------------------

    def new_block(self, name: str, is_phase: bool, nlocals: int) -> int:
        p = self.prog
        p.code.append([])
        p.spans.append([])
        p.block_names.append(name)
        p.block_is_phase.append(is_phase)
        p.block_nlocals.append(nlocals)
        return len(p.code) - 1

    def emit_block(self, bid: int, body: tuple, span) -> None:
        ops: list = []
        self.stmts(body, ops)
        ops.append(("return", span))
        # resolve labels
        labels = {}
        real = []
        for op in ops:
            if op[0] == "label":
                labels[op[1]] = len(real)
            else:
                real.append(op)
        code = self.prog.code[bid]
        spans = self.prog.spans[bid]
        for pc, op in enumerate(real):
            code.append(self.materialize(bid, pc, op, labels))
            spans.append(op[-1])

    def stmts(self, body, ops: list) -> None:
        for s in body:
            self.stmt(s, ops)

    _label = 0

    def label(self) -> int:
        _Compiler._label += 1
        return _Compiler._label

    def stmt(self, s, ops: list) -> None:
        sp = s.span
        if isinstance(s, m.Assign):
            ops.append(("exec", self.assign(s.target, s.value), sp))
        elif isinstance(s, m.Change):
            ops.append(("exec", self.change(s), sp))
        elif isinstance(s, m.MoveCards):
            cf, kf, facing = self.cards_fn(s.cards), self.zone_key(s.target), s.facing

            def move(st, L):
                st._move(tuple(cf(st, L)), kf(st, L), facing)

            ops.append(("exec", move, sp))
        elif isinstance(s, m.DrawCards):
            ops.append(("draw_init", self.expr(s.count), self.zone_key(s.source), self.zone_key(s.target), s.slot, sp))
            ops.append(("draw_wait", s.slot, s.facing, sp))
        elif isinstance(s, m.ShuffleZone):
            kf = self.zone_key(s.zone)

            def shuffle(st, L):
                st.mixed = st.mixed | {kf(st, L)}

            ops.append(("exec", shuffle, sp))
        elif isinstance(s, m.RevealCards):
            cf = self.cards_fn(s.cards)

            def reveal(st, L):
                up = st.up
                cards = tuple(c for c in cf(st, L) if not up[c])
                for card in cards:
                    up[card] = True
                if cards and st.events is not None:
                    st.events.append(("reveal", len(st.history), cards, tuple(st.where[c] for c in cards)))

            ops.append(("exec", reveal, sp))
        elif isinstance(s, m.RollDice):
            ops.append(("roll_init", self.expr(s.dice), s.dice.type == m.DIE, s.list_slot, sp))
            ops.append(("roll_wait", s.list_slot, sp))
        elif isinstance(s, m.CallPhase):
            arg = self.expr(s.argument) if s.argument is not None else None
            ops.append(("call", s.phase, arg, sp))
        elif isinstance(s, m.Restart):
            ops.append(("restart", sp))
        elif isinstance(s, m.EndPhase):
            ops.append(("end", s.phase, sp))
        elif isinstance(s, m.Choose):
            ops.append(("choose", self.expr(s.chooser), s.slot, s.actions, sp))
        elif isinstance(s, m.ChooseTogether):
            ops.append(("together", self.expr(s.choosers), s.slot, s.actions, sp))
        elif isinstance(s, m.NoOp):
            pass
        elif isinstance(s, m.Refuse):
            msg = s.message

            def refuse(st, L):
                raise Unplayable(msg)

            ops.append(("exec", refuse, sp))
        elif isinstance(s, m.RuleStmt):
            self.stmts(s.body, ops)
        elif isinstance(s, m.IfStmt):
            end = self.label()
            for cond, body in s.branches:
                nxt = self.label()
                ops.append(("jumpifnot", self.expr(cond), nxt, cond.span or sp))
                self.stmts(body, ops)
                ops.append(("jump", end, sp))
                ops.append(("label", nxt))
            self.stmts(s.otherwise, ops)
            ops.append(("label", end))
        elif isinstance(s, m.RepeatStmt):
            top, end = self.label(), self.label()
            if s.kind == "times":
                ops.append(("times_init", self.expr(s.expr), s.slot, sp))
                ops.append(("label", top))
                ops.append(("times_test", s.slot, end, sp))
            else:
                ops.append(("label", top))
                if s.kind == "while":
                    ops.append(("jumpifnot", self.expr(s.expr), end, sp))
                elif s.kind == "until":
                    ops.append(("jumpif", self.expr(s.expr), end, sp))
            self.stmts(s.body, ops)
            ops.append(("jump", top, sp))
            ops.append(("label", end))
        elif isinstance(s, m.ForEachStmt):
            top, end = self.label(), self.label()
            ops.append(("each_init", self.expr(s.collection), s.list_slot, sp))
            ops.append(("label", top))
            ops.append(("each_next", s.var_slot, s.list_slot, end, sp))
            self.stmts(s.body, ops)
            ops.append(("jump", top, sp))
            ops.append(("label", end))
        else:  # pragma: no cover
            raise AssertionError(s)

    def materialize(self, bid: int, pc: int, op, labels) -> Fn:
        kind = op[0]
        nxt = pc + 1
        prog = self.prog
        if kind == "exec":
            fn = op[1]

            def ins(s, fr):
                fn(s, fr[2])
                if s._dmemo:  # the state changed: remembered defines are stale
                    s._dmemo.clear()
                fr[1] = nxt

            return ins
        if kind == "jump":
            target = labels[op[1]]

            def ins(s, fr):
                fr[1] = target

            return ins
        if kind in ("jumpifnot", "jumpif"):
            cond, target = op[1], labels[op[2]]
            if kind == "jumpifnot":

                def ins(s, fr):
                    fr[1] = nxt if cond(s, fr[2]) else target

            else:

                def ins(s, fr):
                    fr[1] = target if cond(s, fr[2]) else nxt

            return ins
        if kind == "times_init":
            nf, slot = op[1], op[2]

            def ins(s, fr):
                L = fr[2]
                L[slot] = nf(s, L)
                fr[1] = nxt

            return ins
        if kind == "times_test":
            slot, target = op[1], labels[op[2]]

            def ins(s, fr):
                L = fr[2]
                if L[slot] > 0:
                    L[slot] -= 1
                    fr[1] = nxt
                else:
                    fr[1] = target

            return ins
        if kind == "each_init":
            cf, ls = op[1], op[2]

            def ins(s, fr):
                L = fr[2]
                items = L[ls] = tuple(cf(s, L))
                charge(s, len(items))
                L[ls + 1] = 0
                fr[1] = nxt

            return ins
        if kind == "each_next":
            var, ls, target = op[1], op[2], labels[op[3]]

            def ins(s, fr):
                L = fr[2]
                i = L[ls + 1]
                items = L[ls]
                if i < len(items):
                    L[var] = items[i]
                    L[ls + 1] = i + 1
                    fr[1] = nxt
                else:
                    fr[1] = target

            return ins
        if kind == "call":
            phase, argf = op[1], op[2]
            target = prog.phase_block[phase]
            nl = self.model.phases[phase].nlocals
            if argf is None:

                def ins(s, fr):
                    fr[1] = nxt
                    st = s.stack
                    st.append([target, 0, [None] * nl])
                    if len(st) > MAX_STACK:
                        raise Fail(f"phases are nested more than {MAX_STACK} deep: the rules recurse without end")

            else:

                def ins(s, fr):
                    fr[1] = nxt
                    L = [None] * nl
                    p = argf(s, fr[2])
                    if p is None:
                        raise Fail(f"phase `{phase}` is played for nobody")
                    L[0] = p
                    st = s.stack
                    st.append([target, 0, L])
                    if len(st) > MAX_STACK:
                        raise Fail(f"phases are nested more than {MAX_STACK} deep: the rules recurse without end")

            return ins
        if kind == "return":

            def ins(s, fr):
                s.stack.pop()

            return ins
        if kind == "end":
            phase = op[1]
            if phase == "game":

                def ins(s, fr):
                    s.stack.clear()

                return ins
            target = prog.phase_block[phase]

            def ins(s, fr):
                st = s.stack
                for i in range(len(st) - 1, -1, -1):
                    if st[i][0] == target:
                        del st[i:]
                        return None
                raise Fail(f"`end {phase}`: phase `{phase}` is not being played now")

            return ins
        if kind == "restart":

            def ins(s, fr):
                if s.events is not None:
                    s.events.append(("restart", len(s.history)))
                s._restart()

            return ins
        if kind == "roll_init":
            df, single, ls = op[1], op[2], op[3]

            unrolled = prog.unrolled

            def ins(s, fr):
                L = fr[2]
                d = df(s, L)
                rolled = L[ls] = (d,) if single else tuple(d)
                L[ls + 1] = 0
                # A die in the air shows no face: a view at the chance node must not show the face
                # it had before it was picked up.
                faces = s.dice
                for x in rolled:
                    faces[x] = unrolled
                if s._dmemo:
                    s._dmemo.clear()
                fr[1] = nxt

            return ins
        if kind == "roll_wait":
            ls = op[1]
            prog.pauses[(bid, pc)] = RollPause(ls, op[-1])
            chance = CHANCE
            canonical = prog.face_canonical
            nfaces = len(prog.faces)
            texts = prog.roll_text

            def ins(s, fr):
                L = fr[2]
                dice, i = L[ls], L[ls + 1]
                if i < len(dice):
                    if s.manual:
                        s.cur = chance
                        return True
                    # a seeded game rolls every die here, recording each outcome in the history
                    faces, hist = s.dice, s.history
                    for d, f in zip(dice[i:], roll_faces(s, len(dice) - i, nfaces)):
                        f = canonical[f]
                        faces[d] = f
                        hist.append(texts(d, f))
                    L[ls + 1] = len(dice)
                    s._dmemo.clear()
                fr[1] = nxt
                return None

            return ins
        if kind == "draw_init":
            nf, sf, tf, ls = op[1], op[2], op[3], op[4]

            def ins(s, fr):
                L = fr[2]
                L[ls] = nf(s, L)
                L[ls + 1] = sf(s, L)
                L[ls + 2] = tf(s, L)
                fr[1] = nxt

            return ins
        if kind == "draw_wait":
            ls, facing = op[1], op[2]
            prog.pauses[(bid, pc)] = DrawPause(ls, facing, op[-1])
            chance = CHANCE

            def ins(s, fr):
                L = fr[2]
                while L[ls] > 0:
                    src = L[ls + 1]
                    cards = s._zget(src)
                    if not cards:
                        break
                    if src in s.mixed:
                        if s.manual:
                            s.cur = chance
                            return True
                        card = s._same_card(cards, cards[s._randbelow(len(cards))])
                        s._draw(card, L[ls + 2], facing)
                    else:
                        s._move((cards[-1],), L[ls + 2], facing)  # the top card: no chance involved
                    L[ls] -= 1
                    s._dmemo.clear()
                fr[1] = nxt
                return None

            return ins
        if kind == "together":
            wf, slot, names = op[1], op[2], op[3]
            prog.pauses[(bid, pc)] = SimulPause([prog.actions[nm] for nm in names], slot, op[-1])
            simultaneous = SIMULTANEOUS

            def ins(s, fr):
                L = fr[2]
                who = tuple(dict.fromkeys(p for p in wf(s, L) if p is not None))
                if not who:
                    fr[1] = nxt
                    return None
                L[slot] = who
                L[slot + 1] = ()
                s.cur = simultaneous
                return True

            return ins
        if kind == "choose":
            wf, slot, names = op[1], op[2], op[3]
            prog.pauses[(bid, pc)] = ChoosePause([prog.actions[nm] for nm in names], slot, op[-1])

            def ins(s, fr):
                L = fr[2]
                who = wf(s, L)
                if who is None:
                    raise Fail("nobody is there to choose")
                L[slot] = who
                s.cur = who
                return True

            return ins
        raise AssertionError(kind)  # pragma: no cover

    # ---- statements' effects -----------------------------------------------------------------

    def noted(self, target) -> bool:
        """Whether a change of the variable is an event players may see (not the rules' own
        `internal` bookkeeping)."""
        var = (self.model.game_vars if isinstance(target, m.GameVar) else self.model.player_vars)
        v = next(x for x in var if x.slot == target.slot or (x.family and x.slot <= target.slot < x.slot + x.family[1]))
        return v.visibility != "internal"

    def assign(self, target, value) -> Fn:
        vf = self.expr(value)
        noted = self.noted(target)
        gaud, paud = self.prog.game_audience, self.prog.player_audience
        if isinstance(target, m.GameVar):
            k = target.slot

            def f(s, L):
                g = s.g
                old, new = g[k], _checked_value(vf(s, L))
                g[k] = new
                if noted and new != old and s.events is not None:
                    s.events.append(("set", len(s.history), -1, k, old, new, gaud[k](s, -1)))

            return f
        pf, k = self.expr(target.player), target.slot

        def f(s, L):
            p = pf(s, L)
            if p is None:
                raise Fail("a rule changed something of nobody")
            row = s.p[p]
            old, new = row[k], _checked_value(vf(s, L))
            row[k] = new
            if noted and new != old and s.events is not None:
                s.events.append(("set", len(s.history), p, k, old, new, paud[k](s, p)))

        return f

    def change(self, c: m.Change) -> Fn:
        op = c.op
        vf = self.expr(c.value) if c.value is not None else None
        if op == "increase":
            upd = lambda old, v: bounded(old + v)  # noqa: E731
        elif op == "decrease":
            upd = lambda old, v: bounded(old - v)  # noqa: E731
        elif op == "append":
            upd = lambda old, v: _checked_value(old + (_checked_value(v),))  # noqa: E731
        elif op == "extend":

            def upd(old, v):
                new = _checked_value(old + tuple(v))
                for x in v:
                    bounded(x)
                return new

        elif op == "remove":

            def upd(old, v):
                try:
                    i = old.index(v)
                except ValueError:
                    raise Fail(f"{v} is not in the list to remove it from") from None
                return old[:i] + old[i + 1:]

        elif op == "clear":
            empty = () if c.target.type.kind == "list" else None  # a list empties; a choice or player is unset
            upd = lambda old, v: empty  # noqa: E731
        else:  # pragma: no cover
            raise AssertionError(op)
        t = c.target
        noted = self.noted(t)
        gaud, paud = self.prog.game_audience, self.prog.player_audience
        if vf is None:
            vf = lambda s, L: None  # noqa: E731
        if isinstance(t, m.GameVar):
            k = t.slot

            def f(s, L):
                g = s.g
                old = g[k]
                new = g[k] = upd(old, vf(s, L))
                if noted and new != old and s.events is not None:
                    s.events.append(("set", len(s.history), -1, k, old, new, gaud[k](s, -1)))

            return f
        pf, k = self.expr(t.player), t.slot

        def f(s, L):
            p = pf(s, L)
            if p is None:
                raise Fail("a rule changed something of nobody")
            row = s.p[p]
            old = row[k]
            new = row[k] = upd(old, vf(s, L))
            if noted and new != old and s.events is not None:
                s.events.append(("set", len(s.history), p, k, old, new, paud[k](s, p)))

        return f

    # ---- actions' parameters -----------------------------------------------------------------

    def pushdown(self, a: m.ActionDecl) -> dict:
        """Requires that only say which elements a `some` parameter may contain
        (`no die in chosen shows SIX`, `every card in chosen where …`) become a filter on the
        elements, so enumeration never builds a subset the rule would refuse.  The rule itself is
        kept to explain a refusal."""
        out: dict = {"done": set()}
        later: dict[int, set[int]] = {}
        slots = [p.slot for p in a.params]
        for i, p in enumerate(a.params):
            later[p.slot] = set(slots[i:])
        for r in a.requires:
            q = r.condition
            if not (isinstance(q, m.Quantified) and q.quantifier in ("no", "every") and isinstance(q.collection, m.Local)):
                continue
            p = next((p for p in a.params if p.slot == q.collection.slot and p.kind == "some"), None)
            if p is None or _locals_in(q.condition) & later[p.slot]:
                continue
            out.setdefault(p.slot, []).append((q.slot, self.expr(q.condition), q.quantifier == "every"))
            out["done"].add(id(r))
        return out

    def param(self, p: m.ParamDecl, filters=None) -> ParamProgram:
        if p.kind == "choice":
            choices = list(p.choices)
            return ParamProgram(p.name, "choice", p.slot, lambda s, L: choices, str, lambda t: t, p.type, p.span,
                                "one of " + " or ".join(choices), secret=p.secret)
        if p.kind == "number":
            lo, hi = self.expr(p.low), self.expr(p.high)
            name, span = p.name, p.span

            def domain(s, L):
                low, high = lo(s, L), hi(s, L)
                if high - low + 1 > MAX_CHOICES:
                    raise Fail(f"`{name}` could be any of {high - low + 1:,} numbers; one decision offers at most {MAX_CHOICES:,}",
                               span)
                return range(low, high + 1)

            return ParamProgram(p.name, "number", p.slot, domain, str, _parse_int, m.NUMBER, p.span, "a number",
                                secret=p.secret)
        src = self.expr(p.source)
        elem = p.type.element if p.kind == "some" else p.type
        render1, parse1, what = _codec(elem, self.prog)
        if p.kind == "one of":
            if elem.kind == "card":
                labels = self.prog.card_labels

                def domain(s, L):
                    # Identical cards are one choice.  The one that stands for them is a face-up
                    # copy if there is one: moving it never shows more than the table saw before
                    # (moving a face-down copy would leave the face-up twin on show).
                    at, out = {}, []
                    up = s.up
                    items = src(s, L)
                    charge(s, len(items))
                    for v in items:
                        lab = labels[v]
                        i = at.get(lab)
                        if i is None:
                            at[lab] = len(out)
                            out.append(v)
                        elif up[v] and not up[out[i]]:
                            out[i] = v
                    return out

            else:

                def domain(s, L):
                    items = src(s, L)
                    charge(s, len(items))
                    return list(dict.fromkeys(items))

            return ParamProgram(p.name, "one of", p.slot, domain, render1, parse1, elem, p.span, what,
                                render_one=render1, secret=p.secret)

        if filters:

            def pool(s, L):
                out = []
                items = src(s, L)
                charge(s, len(items))
                for x in items:
                    for k, cond, want in filters:
                        L[k] = x
                        if bool(cond(s, L)) != want:
                            break
                    else:
                        out.append(x)
                return out

        else:
            pool = src

        dedupe = elem.kind == "card"
        span = p.span
        labels = self.prog.card_labels

        def domain(s, L):
            items = tuple(pool(s, L))
            if len(items) > MAX_SUBSET:
                raise Fail(f"choosing some of {len(items)} things has too many ways (at most {MAX_SUBSET} things)", span)
            charge(s, 1 << len(items))
            out = []
            for k in range(1, len(items) + 1):
                out.extend(itertools.combinations(items, k))
            if dedupe:  # identical cards: one choice per different set of labels
                seen, kept = set(), []
                for combo in out:
                    key = tuple(sorted(labels[c] for c in combo))
                    if key not in seen:
                        seen.add(key)
                        kept.append(combo)
                out = kept
            return out

        memo: dict = {}

        def render(vals):
            t = memo.get(vals)
            if t is None:
                t = " ".join(render1(v) for v in vals)
                if len(memo) < 4096:
                    memo[vals] = t
            return t

        return ParamProgram(p.name, "some", p.slot, domain, render, parse1, elem, p.span, f"one or more of {what}",
                            lambda s, L: tuple(src(s, L)), render_one=render1, secret=p.secret)

    # ---- expressions -------------------------------------------------------------------------

    def define(self, name: str) -> Fn:
        if name in self.define_fns:
            return self.define_fns[name]
        d = self.model.defines[name]
        body = self.expr(d.expr)
        nl = d.nlocals
        # A define is a pure function of the state (and its arguments): its value is remembered in
        # the state's `_dmemo` until the next change of the state (see `State._dmemo`).
        if d.params:
            pad = [None] * (nl - len(d.params))

            def fn(s, args, name=name):
                key = (name, *args)
                memo = s._dmemo
                v = memo.get(key, _MISSING)
                if v is _MISSING:
                    v = memo[key] = body(s, args + pad)
                return v

        elif d.per_player:
            inner = _per_player(body, nl)

            def fn(s, p, name=name):
                key = (name, p)
                memo = s._dmemo
                v = memo.get(key, _MISSING)
                if v is _MISSING:
                    v = memo[key] = inner(s, p)
                return v

        else:

            def fn(s, L, key=(name,)):
                memo = s._dmemo
                v = memo.get(key, _MISSING)
                if v is _MISSING:
                    v = memo[key] = body(s, [None] * nl if nl else ())
                return v

        self.define_fns[name] = fn
        return fn

    def per_player_fn(self, e: m.Expr, nlocals: int) -> Fn:
        """A closure f(s, player) for a score term or per-player define."""
        return _per_player(self.expr(e), nlocals)

    def expr(self, e: m.Expr) -> Fn:
        meth = getattr(self, "x_" + type(e).__name__)
        return meth(e)

    def x_Const(self, e):
        v = e.value
        return lambda s, L: v

    def x_Local(self, e):
        k = e.slot
        return lambda s, L: L[k]

    def x_GameVar(self, e):
        k = e.slot
        return lambda s, L: s.g[k]

    def x_PlayerVar(self, e):
        k = e.slot
        if isinstance(e.player, m.Local):
            j = e.player.slot
            return lambda s, L: s.p[L[j]][k]
        pf = self.expr(e.player)
        return lambda s, L: s.p[pf(s, L)][k]

    def x_DefineRef(self, e):
        fn = self.define(e.name)
        if e.args:
            afs = [self.expr(a) for a in e.args]
            return lambda s, L: fn(s, [a(s, L) for a in afs])
        if e.player is None:
            return fn
        pf = self.expr(e.player)
        return lambda s, L: fn(s, pf(s, L))

    def x_ScoreOf(self, e):
        cell = self.score_cell
        pf = self.expr(e.player)
        return lambda s, L: cell[0](s, pf(s, L))

    def x_WinnersRef(self, e):
        cell = self.winners_cell
        return lambda s, L: cell[0](s)

    def x_AllPlayers(self, e):
        return lambda s, L: s.seats

    def x_AllDice(self, e):
        return lambda s, L: s.dice_ids

    def x_AllCards(self, e):
        cs = next(c for c in self.model.card_sets if c.name == e.card_set)
        ids = tuple(range(cs.first, cs.first + cs.count))
        return lambda s, L: ids

    def x_CardAttr(self, e):
        cf, values = self.expr(e.card), self.prog.card_values[e.attr]

        def f(s, L):
            c = cf(s, L)
            return None if c is None else values[c]

        return f

    def x_DieAttr(self, e):
        df = self.expr(e.die)
        prog = self.prog
        if e.attr == "face":
            kinds = prog.face_kinds
            return lambda s, L: kinds[s.dice[df(s, L)]]
        if e.attr == "value":
            values = prog.face_values
            return lambda s, L: values[s.dice[df(s, L)]]
        return lambda s, L: df(s, L) + 1

    def x_DieShows(self, e):
        df = self.expr(e.die)
        kinds, kind = self.prog.face_kinds, e.kind
        return lambda s, L: kinds[s.dice[df(s, L)]] == kind

    def x_Beside(self, e):
        pf, off = self.expr(e.player), e.offset
        return lambda s, L: (pf(s, L) + off) % s.n

    def x_Seat(self, e):
        pf = self.expr(e.player)

        def seat(s, L):
            p = pf(s, L)
            if p is None:
                raise Fail("a rule asked for the seat of nobody")
            return p

        return seat

    def x_Singleton(self, e):
        pf = self.expr(e.player)

        def f(s, L):
            p = pf(s, L)
            return () if p is None else (p,)

        return f

    def x_Builtin(self, e):
        args = [self.expr(a) for a in e.args]
        f = e.func
        if f == "count":
            a = args[0]
            return lambda s, L: len(a(s, L))
        if f == "sum":
            a = args[0]

            def g(s, L):
                v = a(s, L)
                charge(s, len(v))
                return sum(v)

            return g
        if f == "abs":
            a = args[0]
            return lambda s, L: abs(a(s, L))
        if f in ("first", "last"):
            a = args[0]
            i = 0 if f == "first" else -1
            empty = 0 if e.args[0].type == m.LIST else None

            def g(s, L):
                v = a(s, L)
                return v[i] if v else empty

            return g
        if f == "top":
            kf, xf = args

            def g(s, L):
                k = kf(s, L)
                v = tuple(xf(s, L))
                return v[len(v) - k:] if k > 0 else ()

            return g
        if f == "distinct":
            a = args[0]

            def g(s, L):
                v = a(s, L)
                charge(s, len(v))
                return tuple(dict.fromkeys(v))

            return g
        if f == "adjacent":
            a, adj = args[0], self.board_adjacency()
            return lambda s, L: adj.get(a(s, L), ())
        if f == "slide":
            a, blocked = args
            runs = self.board_runs()

            def g(s, L):
                c, stop = a(s, L), set(blocked(s, L))
                charge(s, len(stop) + len(runs.get(c, ())))
                out = set()
                for run in runs.get(c, ()):
                    for x in run:
                        if x in stop:
                            break
                        out.add(x)
                return tuple(sorted(out))

            return g
        if f == "divide":
            a, b = args
            span = e.span

            def g(s, L):
                d = b(s, L)
                if d == 0:
                    raise Fail("divide by zero", span)
                return a(s, L) // d

            return g
        if f in ("min", "max"):
            op = min if f == "min" else max
            if len(args) == 1:
                a = args[0]

                def g(s, L):
                    v = a(s, L)
                    charge(s, len(v))
                    return op(v) if v else 0

                return g
            if len(args) == 2:
                a, b = args
                return lambda s, L: op(a(s, L), b(s, L))
            if len(args) == 3:
                a, b, c = args
                return lambda s, L: op(a(s, L), b(s, L), c(s, L))
            return lambda s, L: op(x(s, L) for x in args)
        if f in ("largest", "smallest"):
            kf, lf = args
            rev = f == "largest"

            def g(s, L):
                k = kf(s, L)
                if k <= 0:
                    return ()
                v = lf(s, L)
                charge(s, len(v))
                return tuple(sorted(v, reverse=rev)[:k])

            return g
        raise AssertionError(f)  # pragma: no cover

    def x_BinOp(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        op = e.op
        if op == "and":
            return lambda s, L: a(s, L) and b(s, L)
        if op == "or":
            return lambda s, L: a(s, L) or b(s, L)
        if op == "+":
            return lambda s, L: a(s, L) + b(s, L)
        if op == "-":
            return lambda s, L: a(s, L) - b(s, L)
        if op == "*":
            return lambda s, L: bounded(a(s, L) * b(s, L))
        if op == "=":
            if isinstance(e.right, m.Const):
                v = e.right.value
                return lambda s, L: a(s, L) == v
            return lambda s, L: a(s, L) == b(s, L)
        if op == "!=":
            if isinstance(e.right, m.Const):
                v = e.right.value
                return lambda s, L: a(s, L) != v
            return lambda s, L: a(s, L) != b(s, L)
        if op == "<":
            return lambda s, L: a(s, L) < b(s, L)
        if op == "<=":
            return lambda s, L: a(s, L) <= b(s, L)
        if op == ">":
            return lambda s, L: a(s, L) > b(s, L)
        if op == ">=":
            return lambda s, L: a(s, L) >= b(s, L)
        if op == "in":

            def f(s, L):
                items = b(s, L)
                charge(s, len(items))
                return a(s, L) in items

            return f
        if op == "notin":

            def f(s, L):
                items = b(s, L)
                charge(s, len(items))
                return a(s, L) not in items

            return f
        raise AssertionError(op)  # pragma: no cover

    def x_Not(self, e):
        a = self.expr(e.operand)
        return lambda s, L: not a(s, L)

    def x_Negate(self, e):
        a = self.expr(e.operand)
        return lambda s, L: -a(s, L)

    def x_IfExpr(self, e):
        t, a, b = self.expr(e.test), self.expr(e.then), self.expr(e.otherwise)
        return lambda s, L: a(s, L) if t(s, L) else b(s, L)

    def _die_kind_test(self, cond, slot):
        """The face kind tested by `cond` if it is just `element shows KIND`, for a fast path."""
        if isinstance(cond, m.DieShows) and isinstance(cond.die, m.Local) and cond.die.slot == slot:
            return cond.kind
        return None

    def x_Filter(self, e):
        cf = self.expr(e.collection)
        k = e.slot
        kind = self._die_kind_test(e.condition, k)
        if kind is not None:
            kinds = self.prog.face_kinds
            return lambda s, L: tuple(d for d in cf(s, L) if kinds[s.dice[d]] == kind)
        cond = self.expr(e.condition)

        def f(s, L):
            out = []
            items = cf(s, L)
            charge(s, len(items))
            for x in items:
                L[k] = x
                if cond(s, L):
                    out.append(x)
            return tuple(out)

        return f

    def x_Project(self, e):
        cf = self.expr(e.collection)
        k = e.slot
        ex = e.expr
        if isinstance(ex, m.DieAttr) and isinstance(ex.die, m.Local) and ex.die.slot == k and ex.attr == "value":
            values = self.prog.face_values
            return lambda s, L: tuple(values[s.dice[d]] for d in cf(s, L))
        xf = self.expr(ex)

        def f(s, L):
            out = []
            items = cf(s, L)
            charge(s, len(items))
            for x in items:
                L[k] = x
                out.append(xf(s, L))
            return tuple(out)

        return f

    def x_Best(self, e):
        cf, kf, k, hi = self.expr(e.collection), self.expr(e.key), e.slot, e.highest

        def f(s, L):
            best = None
            out: list = []
            items = cf(s, L)
            charge(s, len(items))
            for x in items:
                L[k] = x
                v = kf(s, L)
                if best is None or (v > best if hi else v < best):
                    best, out = v, [x]
                elif v == best:
                    out.append(x)
            return tuple(out)

        return f

    def x_Quantified(self, e):
        cf, k, q = self.expr(e.collection), e.slot, e.quantifier
        kind = self._die_kind_test(e.condition, k)
        if kind is not None:
            kinds = self.prog.face_kinds
            if q == "every":
                return lambda s, L: all(kinds[s.dice[d]] == kind for d in cf(s, L))
            if q == "any":
                return lambda s, L: any(kinds[s.dice[d]] == kind for d in cf(s, L))
            return lambda s, L: not any(kinds[s.dice[d]] == kind for d in cf(s, L))
        cond = self.expr(e.condition)

        def test(s, L):
            items = cf(s, L)
            charge(s, len(items))
            for x in items:
                L[k] = x
                yield cond(s, L)

        if q == "every":
            return lambda s, L: all(test(s, L))
        if q == "any":
            return lambda s, L: any(test(s, L))
        return lambda s, L: not any(test(s, L))

    def x_Exclude(self, e):
        cf, xf = self.expr(e.collection), self.expr(e.excluded)
        if e.excluded.type.kind == "collection":

            def f(s, L):
                out = set(xf(s, L))
                items = cf(s, L)
                charge(s, len(items) + len(out))
                return tuple(x for x in items if x not in out)

            return f

        def f(s, L):
            v = xf(s, L)
            return tuple(x for x in cf(s, L) if x != v)

        return f

    def x_Rotate(self, e):
        cf, ff = self.expr(e.collection), self.expr(e.first)

        def f(s, L):
            first = ff(s, L)
            n = s.n
            items = cf(s, L)
            charge(s, len(items))
            return tuple(sorted(items, key=lambda p: (p - first) % n))

        return f

    def x_Direction(self, e):
        cf, df = self.expr(e.collection), self.expr(e.direction)

        def f(s, L):
            items = tuple(cf(s, L))
            if not items:
                return items
            charge(s, len(items))
            first, n = items[0], s.n
            if df(s, L) == "counterclockwise":
                return tuple(sorted(items, key=lambda p: (first - p) % n))
            return tuple(sorted(items, key=lambda p: (p - first) % n))

        return f


def _chooses_cards(p: m.ParamDecl) -> bool:
    if p.kind == "some":
        return p.type.element is not None and p.type.element.kind == "card"
    return p.kind == "one of" and p.type.kind == "card"


def _locals_in(e) -> set[int]:
    """The local slots an expression reads."""
    found: set[int] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, m.Local):
            found.add(x.slot)
        stack.extend(m.children(x))
    return found


def roll_faces(s, k: int, nfaces: int) -> list[int]:
    """The faces (indices) of k dice rolled together by the seeded generator: one draw for the
    group when its outcomes fit in 62 bits, exactly uniform thanks to the generator's rejection."""
    total = nfaces**k
    if total <= 1 << 62:
        r = s._randbelow(total)
        out = []
        for _ in range(k):
            r, f = divmod(r, nfaces)
            out.append(f)
        return out
    return [s._randbelow(nfaces) for _ in range(k)]


def _per_player(body: Fn, nl: int) -> Fn:
    if nl == 1:
        return lambda s, p: body(s, [p])
    pad = [None] * (nl - 1)
    return lambda s, p: body(s, [p] + pad)


def _parse_int(tok: str):
    """A whole number written in ASCII digits (an optional minus first), within ±MAX_NUMBER; or None.
    (int() alone would read other scripts' digits, and raise on thousands of them.)"""
    digits = tok[1:] if tok.startswith("-") else tok
    if not digits or len(digits) > 16 or not digits.isascii() or not digits.isdigit():
        return None
    v = int(tok)
    return v if -MAX_NUMBER <= v <= MAX_NUMBER else None


def _codec(t: m.Type, prog: Program):
    """How a value of type `t` is written in an action's text, and read back."""
    if t.kind == "die":

        def parse_die(tok):
            v = _parse_int(tok)
            return v - 1 if v is not None and v > 0 else None

        return (lambda d: str(d + 1)), parse_die, "dice (by number, 1 first)"
    if t.kind == "player":

        def parse(tok):
            tok = tok.lower()
            if 2 <= len(tok) <= 3 and tok.startswith("p") and tok[1:].isascii() and tok[1:].isdigit():
                return int(tok[1:])
            return None

        return (lambda p: f"p{p}"), parse, "players (written p0, p1, …)"
    if t.kind == "number":
        return str, _parse_int, "numbers"
    if t.kind == "symbol":
        return str, (lambda tok: tok), "choices"
    if t.kind == "card":
        labels = prog.card_labels
        return (lambda c: labels[c]), (lambda tok: tok), "cards"
    return str, (lambda tok: tok), str(t)


def compile_model(model: m.Model) -> Program:
    return _Compiler(model).run()

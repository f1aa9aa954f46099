"""Analysis: what the stages after the checker need to know of a checked model, worked out once.

The engine's compiler (`fishrules.compiler`) and the kernel's lowering (`fishrules.kernel.lower`)
turn the same model into two programs, and both must agree on what the rules mean beyond each
statement: which parts of a state an expression reads, which defines loop (and so are kept until
what they read changes), the order the defines are worked out in, the board's neighbours and lines,
which rules of an action filter a parameter's elements, how blocks and named rules are numbered,
the tables of the dice's faces and the cards' values.  Each is worked out here, from the model
alone, and nowhere else.

This module imports only the model (and what the model imports), so that every later stage may use
it, and nothing here runs rules or writes code.  A part of a state is named as the engine's memo
names it: ("g", slot) a game value or zone, ("p", slot) a player's value or zone in every seat,
"dice" the dice's faces, ("shows", kind) only whether dice show a kind.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Iterable, Optional

import attrs

from . import model as m
from .walk import Node, find_all

__all__ = [
    "reference", "node_reads", "reads", "reads_by_argument", "kept_reads", "loops", "kept_defines", "define_order",
    "define_uses", "board_adjacency", "board_runs", "locals_in", "free_locals", "chooses_cards", "pushdown",
    "Blocks", "number_blocks", "rule_numbers", "card_values", "Faces", "faces", "public_defines",
    "face_up_in_shuffled",
]


# ---- what an expression reads ---------------------------------------------------------------------


def reference(x: Node) -> Optional[tuple]:
    """The define, the score or the winners an expression node refers to, as ("define", name),
    ("score", "") or ("winners", ""); None for any other node."""
    if isinstance(x, m.DefineRef):
        return ("define", x.name)
    if isinstance(x, m.ScoreOf):
        return ("score", "")
    if isinstance(x, m.WinnersRef):
        return ("winners", "")
    return None


_READ_NOTHING = (m.Const, m.Local, m.AllPlayers, m.AllDice, m.Beside, m.Seat, m.Builtin, m.BinOp, m.Not, m.Negate,
                 m.IfExpr, m.Filter, m.Project, m.Best, m.Quantified, m.Exclude, m.Rotate, m.Direction, m.Singleton,
                 m.AllCards, m.CardAttr)


def node_reads(x: Node) -> Optional[set]:
    """What one node reads itself, its children apart (`reads` for a node that is not a define,
    a score or the winners); None if that cannot be told."""
    if isinstance(x, m.GameVar):
        return {("g", x.slot)}
    if isinstance(x, m.PlayerVar):
        return {("p", x.slot)}
    if isinstance(x, m.DieShows):
        return {("shows", x.kind)}
    if isinstance(x, m.DieAttr):
        return {"dice"}
    if isinstance(x, m.ZoneAt):
        return {("g", x.base + i) for i in range(x.count)}
    if isinstance(x, _READ_NOTHING):
        return set()
    return None


def reads(model: m.Model, e: Optional[Node]) -> Optional[set]:
    """The parts of a state an expression reads, through the defines, the score and the winners it
    uses; None if that cannot be told (a kind of node this does not know: never a guess)."""
    seen: set = set()
    out: set = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        ref = reference(x)
        if ref is None:
            r = node_reads(x)
            if r is None:
                return None
            out |= r
        elif ref not in seen:
            seen.add(ref)
            if ref[0] == "define":
                stack.append(model.defines[ref[1]].expr)
            elif ref[0] == "score":
                stack.extend(t.expr for t in model.scores)
            else:
                stack.append(model.winners)
        stack.extend(x.iter_child_nodes())
    return out


def reads_by_argument(model: m.Model, name: str, known: dict) -> tuple:
    """For a define of one argument: (what it reads wholly, as `reads` gives it or None; the zone
    families (base, low, count) it reads only at its argument: `top of stack(c)`, so that a change
    of stack(3) makes only its value for 3 stale).  A family read at anything else (an element of a
    loop, another define's argument) is read wholly.  `known` keeps the answers by define."""
    if name in known:
        return known[name]
    whole: Optional[set] = set()
    by_arg: set = set()
    stack = [model.defines[name].expr]
    while stack and whole is not None:
        x = stack.pop()
        if isinstance(x, m.ZoneAt) and isinstance(x.index, m.Local) and x.index.slot == 0:
            by_arg.add((x.base, x.low, x.count))  # slot 0 is the argument: loops bind others
            continue
        if isinstance(x, m.DefineRef) and x.name in model.defines:
            callee = model.defines[x.name]
            if len(callee.params) == 1 and len(x.args) == 1 and isinstance(x.args[0], m.Local) \
                    and x.args[0].slot == 0:
                w, b = reads_by_argument(model, x.name, known)  # the argument passed on as it is
                whole = None if w is None else whole | w
                by_arg |= b
                continue
            r = reads(model, x)
            whole = None if r is None else whole | r
            continue
        if isinstance(x, (m.ScoreOf, m.WinnersRef)):
            r = reads(model, x)
            whole = None if r is None else whole | r
            continue
        r = node_reads(x)
        if r is None:
            whole = None
            break
        whole |= r
        stack.extend(x.iter_child_nodes())
    if whole is not None:  # a family read wholly somewhere is read wholly
        by_arg = {f for f in by_arg if not any(("g", f[0] + i) in whole for i in range(f[2]))}
    known[name] = (whole, frozenset(by_arg))
    return known[name]


def kept_reads(model: m.Model, name: str, known: dict) -> tuple:
    """What a kept define reads, to tell which writes make its values stale: (what it reads wholly,
    or None; for a define of one argument, the zone families it reads only at its argument, see
    `reads_by_argument`).  `known` keeps `reads_by_argument`'s answers."""
    d = model.defines[name]
    if len(d.params) == 1:
        return reads_by_argument(model, name, known)
    return reads(model, d.expr), frozenset()


# ---- the defines ----------------------------------------------------------------------------------

_LOOPS = (m.Filter, m.Project, m.Best, m.Quantified, m.Exclude, m.Rotate, m.Direction, m.ScoreOf, m.WinnersRef)
_LOOPING_BUILTINS = {"sum", "distinct", "slide", "min", "max", "largest", "smallest"}


def loops(e: m.Expr, defines: dict, memo: dict) -> bool:
    """Whether working `e` out loops over a collection (itself, or through a define that does,
    as `memo` says: name -> loops)."""
    for x in e.walk():
        if isinstance(x, _LOOPS):
            return True
        if isinstance(x, m.Builtin) and x.func in _LOOPING_BUILTINS:
            return True
        if isinstance(x, m.BinOp) and x.op in ("in", "notin"):
            return True
        if isinstance(x, m.DefineRef) and memo.get(x.name):
            return True
    return False


def kept_defines(model: m.Model) -> dict[str, bool]:
    """Define name -> whether its values are kept until what it reads changes, in `define_order`:
    a define that loops over something is; one of a few operations is cheaper to work out again."""
    kept: dict[str, bool] = {}
    for name in define_order(model.defines):
        kept[name] = loops(model.defines[name].expr, model.defines, kept)
    return kept


def define_uses(e: m.Expr) -> list[str]:
    """The defines an expression names, in the order a walk comes to them."""
    return [x.name for x in e.find_all(m.DefineRef)]


def define_order(defines: dict) -> list[str]:
    """The defines, each after the defines it uses (the checker refused cycles)."""
    return dependency_order(list(defines), lambda name: (u for u in define_uses(defines[name].expr) if u in defines))


def dependency_order(names: list, uses: Callable[[Any], Iterable]) -> list:
    """`names`, each after those of them it `uses` (a depth-first walk, without recursion: a chain
    may be as long as the file).  The members of a cycle come in the order they are met; the
    checker reports cycles, and orders the syntax's defines with this too."""
    order: list = []
    state: dict = {}  # 1: being visited, 2: placed
    for root in names:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(uses(root)))]
        while stack:
            name, it = stack[-1]
            nxt = next((u for u in it if u not in state), None)
            if nxt is None:
                stack.pop()
                state[name] = 2
                order.append(name)
            else:
                state[nxt] = 1
                stack.append((nxt, iter(uses(nxt))))
    return order


def public_defines(model: m.Model) -> frozenset[str]:
    """The game-wide defines that read only public values (options, public game and player
    values): a view shows them to everybody."""
    public = {("g", v.slot + i) for v in model.game_vars if v.visibility == "public"
              for i in range(v.family[1] if v.family else 1)}
    public |= {("g", o.slot) for o in model.options}
    public |= {("p", v.slot) for v in model.player_vars if v.visibility == "public"}
    out = set()
    for name, d in model.defines.items():
        r = reads(model, d.expr)
        if r is not None and all(x in public for x in r if isinstance(x, tuple) and x[0] in ("g", "p")):
            out.add(name)
    return frozenset(out)


# ---- the board ------------------------------------------------------------------------------------


def board_adjacency(board: m.Board) -> dict:
    """circle -> the circles next to it on some line, in order."""
    adj: dict = {}
    for line in board.lines:
        for x, y in zip(line, line[1:]):
            adj.setdefault(x, set()).add(y)
            adj.setdefault(y, set()).add(x)
    return {c: tuple(sorted(v)) for c, v in adj.items()}


def board_runs(board: m.Board) -> dict:
    """circle -> the runs of circles leading away from it along each of its lines, nearest first:
    a piece sliding in a straight line goes along one run until something is in the way."""
    runs: dict = {}
    for line in board.lines:
        for i, c in enumerate(line):
            runs.setdefault(c, []).append(tuple(line[i + 1:]))
            runs.setdefault(c, []).append(tuple(reversed(line[:i])))
    return {c: tuple(r for r in rs if r) for c, rs in runs.items()}


# ---- locals and an action's parameters ----------------------------------------------------------


def locals_in(e: Node) -> set[int]:
    """The local slots an expression reads."""
    return {x.slot for x in e.find_all(m.Local)}


_BINDERS = (m.Filter, m.Project, m.Best, m.Quantified)  # each binds its `slot` in all but `collection`


def free_locals(e: Node, known: dict) -> frozenset:
    """The local slots `e` reads that it does not bind itself (`known` keeps them by node)."""
    got = known.get(id(e))
    if got is not None:
        return got
    if isinstance(e, m.Local):
        out = frozenset((e.slot,))
    elif isinstance(e, _BINDERS):
        out = free_locals(e.collection, known)
        for c in e.iter_child_nodes():
            if c is not e.collection:
                out |= free_locals(c, known) - {e.slot}
    else:
        out = frozenset()
        for c in e.iter_child_nodes():
            out |= free_locals(c, known)
    known[id(e)] = out
    return out


def chooses_cards(p: m.ParamDecl) -> bool:
    """Whether a parameter's choices are cards (identical cards are then one choice)."""
    if p.kind == "some":
        return p.type.element is not None and p.type.element.kind == "card"
    return p.kind == "one of" and p.type.kind == "card"


def pushdown(a: m.ActionDecl) -> dict:
    """The `require`s that only say which elements a `some` parameter may contain (`no die in chosen
    shows SIX`), as filters on the elements, so that no subset the rule would refuse is built (the
    rule is kept, to explain a refusal): {param slot: [(element slot, condition, wanted), …],
    "done": ids of the requires used}.  Nothing for an action with `when … is broken`: its
    violations are listed too, each judged by the rules in order."""
    out: dict = {"done": set()}
    if a.broken:
        return out
    later: dict[int, set[int]] = {}
    slots = [p.slot for p in a.params]
    for i, p in enumerate(a.params):
        later[p.slot] = set(slots[i:])
    for r in a.requires:
        q = r.condition
        if not (isinstance(q, m.Quantified) and q.quantifier in ("no", "every") and isinstance(q.collection, m.Local)):
            continue
        chosen = next((p for p in a.params if p.slot == q.collection.slot and p.kind == "some"), None)
        if chosen is None or locals_in(q.condition) & later[chosen.slot]:
            continue
        out.setdefault(chosen.slot, []).append((q.slot, q.condition, q.quantifier == "every"))
        out["done"].add(id(r))
    return out


# ---- numbers both programs give the same things ---------------------------------------------------


@attrs.frozen
class Blocks:
    """The blocks of a program, numbered: every phase (in the model's order), then every action
    followed by its `when … is broken` handlers.  A frame `[block, pc, locals]` names a block by
    this number, on the engine's machine and in the kernel alike."""

    names: tuple  # block -> what it is, for messages (`action take, rule "x" broken`)
    is_phase: tuple  # block -> whether it is a phase
    nlocals: tuple  # block -> how many local slots it has
    phase: dict  # phase name -> block
    action: dict  # action name -> block
    handler: dict  # (action name, rule name) -> block of its `when … is broken` handler


def number_blocks(model: m.Model) -> Blocks:
    names: list = []
    is_phase: list = []
    nlocals: list = []

    def new(name: str, phase: bool, n: int) -> int:
        names.append(name)
        is_phase.append(phase)
        nlocals.append(n)
        return len(names) - 1

    phase = {name: new(name, True, ph.nlocals) for name, ph in model.phases.items()}
    action: dict = {}
    handler: dict = {}
    for name, a in model.actions.items():
        action[name] = new(f"action {name}", False, a.nlocals)
        for b in a.broken:
            handler[(name, b.rule)] = new(f"action {name}, rule {b.rule!r} broken", False, a.nlocals)
    return Blocks(tuple(names), tuple(is_phase), tuple(nlocals), phase, action, handler)


def rule_numbers(model: m.Model) -> dict[str, int]:
    """The named rules (`rule "…":` blocks), numbered in the order they are written: phases, then
    each action and its handlers.  A state's counts of firings are by these numbers."""
    out: dict[str, int] = {}
    stmts: list = [s for ph in model.phases.values() for s in ph.body]
    for a in model.actions.values():
        stmts.extend(a.body)
        stmts.extend(s for b in a.broken for s in b.body)
    for s in find_all(stmts, m.RuleStmt, stop_at=m.Expr):
        out.setdefault(s.name, len(out))
    return out


def face_up_in_shuffled(model: m.Model) -> bool:
    """Whether a card can lie face up in a zone the rules shuffle (and so be drawn as an outcome of
    its own, `forms.draw_text`): they shuffle a zone and turn some card face up (`face up`,
    `reveal`).  Cards start face down."""
    if next(model.find_all(m.ShuffleZone), None) is None:
        return False
    if next(model.find_all(m.RevealCards), None) is not None:
        return True
    return any(s.facing == "up" for kind in (m.MoveCards, m.DrawCards) for s in model.find_all(kind))


def card_values(model: m.Model) -> dict[str, list]:
    """Card attribute -> its value for each card (by number), None where a card has none."""
    out: dict[str, list] = {}
    for i, ci in enumerate(model.cards):
        for a, v in ci.values:
            out.setdefault(a, [None] * len(model.cards))[i] = v
    return out


@attrs.frozen
class Faces:
    """The dice's faces, by index, and one more index past them for a die not rolled yet."""

    kinds: tuple  # face -> its kind (None: not rolled)
    values: tuple  # face -> its value (0: not rolled)
    labels: tuple  # face -> how it is written ("-": not rolled)
    canonical: tuple  # face -> the first face with the same label
    outcomes: tuple  # one die rolled: (label, canonical face, probability) for each label


def faces(model: m.Model) -> Faces:
    found = list(model.dice.faces) if model.dice is not None else []
    first: dict[str, int] = {}
    counts: dict[str, int] = {}
    for i, f in enumerate(found):
        first.setdefault(f.label, i)
        counts[f.label] = counts.get(f.label, 0) + 1
    return Faces(
        tuple(f.kind for f in found) + (None,),
        tuple(f.value for f in found) + (0,),
        tuple(f.label for f in found) + ("-",),
        tuple(first[f.label] for f in found) + (len(found),),
        tuple((lab, first[lab], Fraction(c, len(found))) for lab, c in counts.items()),
    )

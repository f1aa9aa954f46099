"""Stage 4, actions: what an action's parameters can be, and what their legality depends on.

Worked out here from the model (the `require`s that only filter a `some` parameter's elements
are found by `fishrules.analysis.pushdown`):

- `param`: each parameter's domain (what it may be, in a fixed order); how a value is written in an
  action's text and read back is the parameter's form (`fishrules.forms`), from the model alone;
- `legality_key`: everything the legality of a decision's actions reads, so that legal lists can be
  shared by every position that agrees on it;
- `write_enumerator`: the generated function that lists an action's choices.
"""

from __future__ import annotations

from typing import Callable, Optional

from .. import model as m
from .. import reasons
from ..analysis import chooses_cards, reads
from ..forms import ParamForm
from ..limits import MAX_CHOICES
from .expressions import CachePlan
from .program import Fail, ParamProgram, Program, card_choices, charge, distinct_choices, subsets

__all__ = ["param", "legality_key", "write_enumerator"]

Fn = Callable

#: The parameters whose loops one function of an enumerator nests (CPython allows 20 nested loops
#: in a function): the loops of the parameters after them are in a function of their own.
LOOPS_PER_FUNCTION = 12


def param(prog: Program, form: ParamForm, p: m.ParamDecl, src: Optional[Fn], lo: Optional[Fn], hi: Optional[Fn],
          filters: Optional[list]) -> ParamProgram:
    """The program of one parameter (`form`: how its values are written and read); `src`, `lo`,
    `hi` are the compiled functions of its source and bounds, `filters` [(element slot, compiled
    condition, wanted)]."""
    if p.kind == "choice":
        choices = list(p.choices)
        return ParamProgram(form, lambda s, L: choices, p.span)
    if p.kind == "number":
        name, span = p.name, p.span

        def domain(s, L):
            low, high = lo(s, L), hi(s, L)
            if high - low + 1 > MAX_CHOICES:
                raise Fail(reasons.too_many_numbers(name, high - low + 1), span)
            return range(low, high + 1)

        return ParamProgram(form, domain, p.span)
    elem = form.element
    if p.kind == "one of":
        if elem.kind == "card":
            labels = prog.card_labels

            def domain(s, L):
                return card_choices(s, src(s, L), labels)  # identical cards are one choice

        else:

            def domain(s, L):
                return distinct_choices(s, src(s, L))

        return ParamProgram(form, domain, p.span)

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
    labels = prog.card_labels

    def domain(s, L):
        return subsets(s, pool(s, L), labels if dedupe else None, span)

    return ParamProgram(form, domain, p.span, lambda s, L: tuple(src(s, L)))


# ---- what legality depends on ----------------------------------------------------------------------


def legality_key(prog: Program, model: m.Model, actions) -> Optional[Fn]:
    """key(state, actor): everything the legality of these actions reads, or None."""
    parts: set = set()
    for a in actions:
        exprs = [r.condition for r in a.requires] + [b.condition for b in a.broken if b.condition is not None]
        for p in a.params:
            exprs += [p.source, p.low, p.high]
        for e in exprs:
            r = reads(model, e)
            if r is None:
                return None
            parts |= r
    # A card parameter stands for identical cards by a face-up copy first, so which cards are face
    # up is part of what legality reads.
    faces_up = any(chooses_cards(p) for a in actions for p in a.params)
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
        classes = [k if k in shown else None for k in prog.face_kinds]
    inner = _key(gslots, pslots, dice, classes)
    if faces_up:
        return lambda s, actor: (inner(s, actor), tuple(s.up))
    return inner


def _key(gslots, pslots, dice, classes) -> Fn:
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


# ---- enumeration, written as code ---------------------------------------------------------------


def write_enumerator(src, ex, a: m.ActionDecl, pushed: dict, where_: str) -> str:
    """A function `f(s, actor, ok, bad)` that lists every choice of action `a` for `actor`, in the
    parameters' order: a choice that keeps the rules goes to `ok` as its tuple of values; one that
    breaks a rule whose `when … is broken` block applies goes to `bad` as (values, rule name).  The
    parameters are Python loop variables, the rules inline conditions.  An action of more than
    LOOPS_PER_FUNCTION parameters is listed by several functions, each calling the next from its
    innermost loop with the values chosen so far."""
    name = src.mint("v")
    env = {0: "actor"}
    lines = [f"# the choices of an action, {where_}", f"def {name}(s, actor, ok, bad):"]
    functions = [lines]
    depth = 1
    values = []
    starts = [len(lines)]  # where each loop's body starts (index 0: before every loop)
    for i, p in enumerate(a.params):
        if i and i % LOOPS_PER_FUNCTION == 0:  # Python nests at most 20 loops in one function
            more = src.mint("v")
            head = ", ".join(["s", "actor", "ok", "bad", *values])
            lines.append("    " * depth + f"{more}({head})")
            lines = [f"# the choices of an action, {where_}, from its parameter {i + 1} on", f"def {more}({head}):"]
            functions.append(lines)
            depth = 1
        var, dom = src.mint("x"), src.mint("x")  # the compiler's own names: never a global's
        lines.append("    " * depth + f"{dom} = {_domain(src, ex, p, env, pushed.get(p.slot, ()))}")
        lines.append("    " * depth + f"charge(s, len({dom}))")
        lines.append("    " * depth + f"for {var} in {dom}:")
        env = {**env, p.slot: var}
        values.append(var)
        depth += 1
        starts.append(len(lines))
    pad = "    " * depth
    tup = "(" + "".join(v + ", " for v in values) + ")"
    if len(a.params) > 1 or a.broken:
        lines.append(pad + "if len(ok) + len(bad) >= MAX_CHOICES:")
        lines.append(pad + f"    raise Fail({src.const(reasons.too_many_choices(a.name))}, "
                           f"{src.const(a.span, 'sp')})")
    handlers = {b.rule: b for b in a.broken}
    plan = None
    if a.params and len(functions) == 1:  # (a value kept in one function cannot be read in the next)
        levels = {0: -1, **{p.slot: i for i, p in enumerate(a.params)}}
        plan = ex.cache_plan = CachePlan(levels, len(a.params) - 1, src)
    try:
        for r in a.requires:
            if id(r) in pushed.get("done", ()):
                continue  # a filter on the elements already
            lines.append(pad + f"if not ({ex.expr(r.condition, env)}):")
            b = handlers.get(r.name)
            if b is not None:
                cond = ex.expr(b.condition, env) if b.condition is not None else "True"
                lines.append(pad + f"    if {cond}:")
                lines.append(pad + f"        bad.append(({tup}, {src.const(r.name)}))")
            lines.append(pad + "    " + ("continue" if a.params else "return"))
    finally:
        ex.cache_plan = None
    if plan is not None:
        for level in sorted(plan.inits, reverse=True):  # later insertions first: indices hold
            at = starts[level + 1]
            lines[at:at] = ["    " * (level + 2) + f"{v} = MISSING" for v in plan.inits[level]]
    lines.append(pad + f"ok.append({tup})")
    for f in functions:
        src.add("\n".join(f) + "\n")
    return name


def _domain(src, ex, p: m.ParamDecl, env: dict, filters) -> str:
    if p.kind == "choice":
        return src.const(tuple(p.choices))
    if p.kind == "number":
        return (f"number_choices({ex.expr(p.low, env)}, {ex.expr(p.high, env)}, {src.const(p.name)}, "
                f"{src.const(p.span, 'sp')})")
    source = ex.expr(p.source, env)
    prog = ex.prog
    if p.kind == "one of":
        if p.type.kind == "card":
            return f"card_choices(s, {source}, {src.const(tuple(prog.card_labels), 'labels')})"
        return f"distinct_choices(s, {source})"
    if filters:
        x = src.mint("x")
        tests = []
        for k, cond, want in filters:
            test = ex.expr(cond, {**env, k: x})
            tests.append(test if want else f"not {test}")
        source = f"tuple([{x} for {x} in ch(s, {source}) if {' and '.join(f'({t})' for t in tests)}])"
    dedupe = p.type.element is not None and p.type.element.kind == "card"
    labels = src.const(tuple(prog.card_labels), "labels") if dedupe else "None"
    return f"subsets(s, {source}, {labels}, {src.const(p.span, 'sp')})"

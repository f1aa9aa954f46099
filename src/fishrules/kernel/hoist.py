"""Loop-invariant parts of rules, worked out once: the kernel's CachePlan.

An action's rules are checked inside one loop per parameter, and a define's `where` and `any`
look at every element of a collection: a part of a condition that does not change from one
element (or one choice) to the next (`no c in your hand where suit is lead_suit`, while the cards
of the hand are gone through) is worked out the first time it is needed and kept (`ir.Cached`),
forgotten when what it reads changes (`ir.Forget` where the loop that binds it moves on).  As in
the engine's compiler (fishrules.compiler.expressions.CachePlan) the kept part is worked out exactly
when the plain code would first work it out: a rule that goes wrong does so at the same point.
"""

from __future__ import annotations

import attrs

from . import ir

__all__ = ["Hoister", "free_vars"]

_CHEAP = (ir.Int, ir.Nil, ir.Var, ir.Get, ir.Tab, ir.Attr, ir.Cmp, ir.And, ir.Or, ir.Not, ir.Neg, ir.Arith, ir.Mod,
          ir.Div, ir.Cond, ir.Bounded, ir.Help, ir.Len, ir.At, ir.Cached)


def _children(x):
    for f in attrs.fields(type(x)):
        v = getattr(x, f.name)
        if isinstance(v, (ir.Expr, ir.Stream, ir.BufExpr)):
            yield v
        elif isinstance(v, tuple):
            for i in v:
                if isinstance(i, (ir.Expr, ir.Stream, ir.BufExpr)):
                    yield i


def _binds(x):
    """The local a node binds for its parts other than its source, if any."""
    if isinstance(x, (ir.FilterS, ir.MapS, ir.Quant, ir.BestBuf)):
        return x.var
    return None


def _source(x):
    """The part of a node that binds a local which is outside that local's reach."""
    if isinstance(x, (ir.FilterS, ir.MapS, ir.BestBuf)):
        return x.source
    return x.stream if isinstance(x, ir.Quant) else None


def free_vars(x, memo: dict) -> frozenset:
    """The locals an expression, stream or buffer reads that it does not bind itself."""
    got = memo.get(id(x))
    if got is not None:
        return got
    if isinstance(x, ir.Var):
        out = frozenset((x.name,))
    elif isinstance(x, ir.BufVar):
        out = frozenset((x.name,))
    else:
        out = frozenset()
        v = _binds(x)
        src = _source(x)
        for c in _children(x):
            f = free_vars(c, memo)
            if v is not None and c is not src:
                f = f - {v}
            out |= f
    memo[id(x)] = out
    return out


def costly(x) -> bool:
    """Worth keeping: it loops, or calls a function."""
    if not isinstance(x, ir.Expr):
        return False
    if not isinstance(x, _CHEAP):
        return True
    return any(costly(c) for c in _children(x) if isinstance(c, ir.Expr))


class Hoister:
    """Rewrites expressions of one function, keeping their loop-invariant parts.

    `levels` maps each local that may be read to the loop level that binds it (-1: set before
    every loop); a part is kept if everything it reads is bound at a level below `innermost`
    (`in_stage_only`: and it is inside a `where`/`of`/`any`, where it would be worked out again and
    again).  `names[level]` lists the locals to forget where that level's loop moves on."""

    def __init__(self, prefix: str, levels: dict, innermost: int, in_stage_only: bool):
        self.prefix = prefix
        self.levels = levels
        self.innermost = innermost
        self.in_stage_only = in_stage_only
        self.memo: dict = {}
        self.names: dict[int, list[str]] = {}
        self._by_code: dict = {}

    def all_names(self) -> list[str]:
        return [n for names in self.names.values() for n in names]

    def expr(self, e, depth: int = 0):
        return self._x(e, depth, frozenset())

    def _x(self, x, depth: int, inner: frozenset):
        if isinstance(x, ir.Expr) and costly(x) and (depth > 0 or not self.in_stage_only):
            free = free_vars(x, self.memo)
            if not (free & inner) and free <= self.levels.keys():
                level = max((self.levels[v] for v in free), default=-1)
                if level < self.innermost:
                    key = (level, x)
                    name = self._by_code.get(key)
                    if name is None:
                        name = self._by_code[key] = f"{self.prefix}{len(self._by_code)}"
                        self.names.setdefault(level, []).append(name)
                    return ir.Cached(name, x)
        v = _binds(x)
        changes = {}
        for f in attrs.fields(type(x)):
            old = getattr(x, f.name)
            src = _source(x)
            deeper = depth + 1 if (v is not None and old is not src) else depth
            bound = inner | {v} if (v is not None and old is not src) else inner
            if isinstance(old, (ir.Expr, ir.Stream, ir.BufExpr)):
                new = self._x(old, deeper, bound)
                if new is not old:
                    changes[f.name] = new
            elif isinstance(old, tuple) and any(isinstance(i, (ir.Expr, ir.Stream, ir.BufExpr)) for i in old):
                new_t = tuple(self._x(i, deeper, bound) if isinstance(i, (ir.Expr, ir.Stream, ir.BufExpr)) else i
                              for i in old)
                if any(a is not b for a, b in zip(new_t, old)):
                    changes[f.name] = new_t
        return attrs.evolve(x, **changes) if changes else x

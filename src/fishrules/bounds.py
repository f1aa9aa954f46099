"""What values an expression of the rules can take, worked out from the rules alone.

`Bounds(model, players, dice, options)` bounds the numbers an expression can be (`num`: its
lowest and highest value, or of the numbers of a list or a collection) and how many things a
collection or a list can hold (`length`), for a number of players, of dice and the options' values,
with None where the rules set no bound.  A variable is bounded by its first value and every value
the rules store in it (a number the rules add to or subtract from has no bound).  This is a static
analysis of the model, nothing runs; `fishrules.spaces` numbers the actions of a ruleset with it
(an action's `a number from 1 to count(hand)` has as many values as a hand can hold cards), and the
kernel's layout gives each list variable the room `list_lengths` finds it can need.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from . import model as m
from .forms import forms_of
from .walk import find_all

__all__ = ["Bounds"]

_Range = tuple[Optional[int], Optional[int]]


class Bounds:
    """Bounds on numbers and list lengths worked out from the model (None: not bounded)."""

    def __init__(self, model: m.Model, players: int, dice: int, options: Mapping[str, Any]):
        self.model, self.n, self.dice = model, players, dice
        self.forms = forms_of(model)  # the faces' and the cards' values
        self.opt_values = {o.slot: options[o.name] for o in model.options}
        self.busy: set = set()
        self.memo: dict = {}
        self._writes: Optional[dict] = None

    def num(self, e: Any) -> _Range:
        """The lowest and highest value of a number, or of the numbers of a list or collection."""
        key = ("num", id(e))
        if key in self.memo:
            return self.memo[key]
        if key in self.busy:
            return (None, None)
        self.busy.add(key)
        try:
            r = self._num(e)
        finally:
            self.busy.discard(key)
        self.memo[key] = r
        return r

    def _num(self, e: Any) -> _Range:
        if isinstance(e, m.Const):
            v = e.value
            if isinstance(v, bool):
                return (0, 1)
            if isinstance(v, int):
                return (v, v)
            if isinstance(v, tuple) and v and all(isinstance(x, int) for x in v):
                return (min(v), max(v))
            return (None, None)
        if isinstance(e, m.GameVar):
            if e.slot in self.opt_values and isinstance(self.opt_values[e.slot], int):
                v = self.opt_values[e.slot]
                return (v, v)
            return self._written(("g", e.slot), e.type)
        if isinstance(e, m.PlayerVar):
            return self._written(("p", e.slot), e.type)
        if isinstance(e, m.DefineRef):
            d = self.model.defines.get(e.name)
            return self.num(d.expr) if d is not None else (None, None)
        if isinstance(e, (m.Filter, m.Exclude, m.Rotate, m.Direction)):
            return self.num(e.collection)
        if isinstance(e, m.Best):
            return self.num(e.collection)
        if isinstance(e, m.Project):
            return self.num(e.expr)
        if isinstance(e, m.Seat):
            return (0, self.n - 1)
        if isinstance(e, m.Negate):
            lo, hi = self.num(e.operand)
            return (None if hi is None else -hi, None if lo is None else -lo)
        if isinstance(e, m.IfExpr):
            return _union(self.num(e.then), self.num(e.otherwise))
        if isinstance(e, m.DieAttr):
            if e.attr == "number":
                return (1, self.dice)
            values = self.forms.face_values
            return (min(values), max(values)) if values else (None, None)
        if isinstance(e, m.CardAttr):
            vals = [v for v in self.forms.card_values.get(e.attr, ()) if isinstance(v, int) and not isinstance(v, bool)]
            return (min(vals), max(vals)) if vals else (None, None)
        if isinstance(e, m.BinOp) and e.op in ("+", "-", "*"):
            a, b = self.num(e.left), self.num(e.right)
            if None in a or None in b:
                return (None, None)
            if e.op == "+":
                return (a[0] + b[0], a[1] + b[1])  # type: ignore[operator]
            if e.op == "-":
                return (a[0] - b[1], a[1] - b[0])  # type: ignore[operator]
            products = [x * y for x in a for y in b]  # type: ignore[operator]
            return (min(products), max(products))
        if isinstance(e, m.Builtin):
            return self._builtin(e)
        return (None, None)

    def _builtin(self, e: m.Builtin) -> _Range:
        f, args = e.func, e.args
        if f in ("min", "max"):
            if len(args) == 1:
                return self.num(args[0])
            rs = [self.num(a) for a in args]
            los, his = [r[0] for r in rs], [r[1] for r in rs]
            if f == "min":
                known = [h for h in his if h is not None]
                return (None if None in los else min(los), min(known) if known else None)  # type: ignore[type-var]
            known = [lo for lo in los if lo is not None]
            return (max(known) if known else None, None if None in his else max(his))  # type: ignore[type-var]
        if f == "count":
            return (0, self.length(args[0]))
        if f == "sum":
            lo, hi = self.num(args[0])
            n = self.length(args[0])
            if lo is None or hi is None or n is None:
                return (None, None)
            return (min(0, n * lo), max(0, n * hi))
        if f == "abs":
            lo, hi = self.num(args[0])
            if lo is None or hi is None:
                return (0, None)
            return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
        if f in ("first", "last", "distinct", "largest", "smallest"):
            return self.num(args[-1])
        if f == "top":
            return self.num(args[1])
        if f in ("adjacent", "slide"):
            board = self.model.board
            return (board.low, board.high) if board is not None else (None, None)
        if f == "divide":
            lo, hi = self.num(args[0])
            dlo, dhi = self.num(args[1])
            if None in (lo, hi, dlo, dhi) or dlo <= 0:  # type: ignore[operator]
                return (None, None)
            cands = [lo // dlo, lo // dhi, hi // dlo, hi // dhi]  # type: ignore[operator]
            return (min(cands), max(cands))
        return (None, None)

    def length(self, e: Any) -> Optional[int]:
        """The most things a collection or list can hold, or None."""
        if isinstance(e, m.Const):
            return len(e.value) if isinstance(e.value, tuple) else None
        if isinstance(e, m.AllDice):
            return self.dice
        if isinstance(e, m.AllPlayers):
            return self.n
        if isinstance(e, m.AllCards):
            return len(self.model.cards)
        if isinstance(e, (m.Filter, m.Exclude, m.Project, m.Best, m.Rotate, m.Direction)):
            return self.length(e.collection)
        if isinstance(e, m.Singleton):
            return 1
        if e.type.kind == "zone":
            return len(self.model.cards)
        if isinstance(e, m.DefineRef):
            d = self.model.defines.get(e.name)
            key = ("len", e.name)
            if d is None or key in self.busy:
                return None
            self.busy.add(key)
            try:
                return self.length(d.expr)
            finally:
                self.busy.discard(key)
        if isinstance(e, m.Builtin):
            if e.func in ("adjacent", "slide") and self.model.board is not None:
                return self.model.board.high - self.model.board.low + 1
            if e.func in ("distinct", "largest", "smallest", "top"):
                return self.length(e.args[-1])
        return None

    def list_lengths(self) -> dict[tuple[str, int], Optional[int]]:
        """("g" or "p", slot) of every list variable (each member of a family) -> the most entries
        it can hold: the longest of its first value and every value the rules `set` it to, or None
        where the rules add to it (or write it in a way this does not follow: then no list is
        bounded)."""
        decl: dict[tuple[str, int], tuple[str, int]] = {}
        values: dict[tuple[str, int], Optional[list]] = {}
        for scope, vs in (("g", self.model.game_vars), ("p", self.model.player_vars)):
            for v in vs:
                if v.type.kind != "list":
                    continue
                values[(scope, v.slot)] = [v.initial]
                for i in range(v.family[1] if v.family else 1):
                    decl[(scope, v.slot + i)] = (scope, v.slot)
        if not values:
            return {}
        decls = (*self.model.phases.values(), *self.model.actions.values())
        for s in find_all(decls, (m.Assign, m.Change), stop_at=m.Expr):
            t = s.target
            if getattr(t, "type", None) is None or t.type.kind != "list":
                continue
            k = ("g", t.slot) if isinstance(t, m.GameVar) else ("p", t.slot) if isinstance(t, m.PlayerVar) else None
            if k is None or k not in decl:  # a list written where this does not look: none is bounded
                return {k2: None for k2 in decl}
            got = values[decl[k]]
            if got is None:
                continue
            if isinstance(s, m.Assign):
                got.append(s.value)
            elif s.op in ("append", "extend"):
                values[decl[k]] = None
        out: dict[tuple[str, int], Optional[int]] = {}
        for k, d in decl.items():
            out[k] = self._longest(values[d])
        return out

    def _longest(self, es: Optional[list]) -> Optional[int]:
        if es is None:
            return None
        most = 0
        for e in es:
            if e is None or (isinstance(e, m.Const) and e.value in (None, ())):
                continue
            n = self.length(e)
            if n is None:
                return None
            most = max(most, n)
        return most

    def _written(self, key: tuple, t: m.Type) -> _Range:
        """The values a list variable can hold: its first value and everything the rules put in it
        (a number variable that rules add to or subtract from has no bound)."""
        if t.kind != "list":
            return (None, None)
        writes = self._all_writes().get(key)
        if writes is None:
            return (None, None)
        r: _Range = (None, None)
        first = True
        for e in writes:
            er = self.num(e)
            if None in er:
                return (None, None)
            r = er if first else _union(r, er)
            first = False
        return r if not first else (0, 0)

    def _all_writes(self) -> dict:
        """Variable -> the expressions whose values (or elements) the rules store in it; a
        variable changed any other way (added to, subtracted from) maps to None."""
        if self._writes is not None:
            return self._writes
        out: dict = {}
        for v in self.model.game_vars:
            out.setdefault(("g", v.slot), []).append(v.initial)
        for v in self.model.player_vars:
            out.setdefault(("p", v.slot), []).append(v.initial)

        def target(t: Any) -> Optional[tuple]:
            if isinstance(t, m.GameVar):
                return ("g", t.slot)
            if isinstance(t, m.PlayerVar):
                return ("p", t.slot)
            return None

        decls = (*self.model.phases.values(), *self.model.actions.values())
        for s in find_all(decls, (m.Assign, m.Change), stop_at=m.Expr):
            k = target(s.target)
            if isinstance(s, m.Assign):
                if k is not None and out.get(k) is not None:
                    out[k].append(s.value)
                continue
            if k is None or out.get(k) is None:
                continue
            if s.op in ("append", "extend") and s.value is not None:
                out[k].append(s.value)
            elif s.op in ("increase", "decrease"):
                out[k] = None
        # nothing (`None`, an empty list) adds no value
        for k, es in out.items():
            if es is not None:
                out[k] = [e for e in es if e is not None and not (isinstance(e, m.Const) and e.value in (None, ()))]
        self._writes = out
        return out


def _union(a: _Range, b: _Range) -> _Range:
    lo = None if a[0] is None or b[0] is None else min(a[0], b[0])
    hi = None if a[1] is None or b[1] is None else max(a[1], b[1])
    return (lo, hi)


def zones_moved_into(model: m.Model) -> Optional[set]:
    """("g", slot of a game zone or of a family's first zone) or ("p", slot of a player's zone) of
    every zone variable the rules move or draw cards into; None if a target is one this does not
    follow (then every zone keeps room for every card of its kind)."""
    first: dict[int, int] = {}
    for v in model.game_vars:
        if v.type.kind == "zone":
            for i in range(v.family[1] if v.family else 1):
                first[v.slot + i] = v.slot
    out: set = set()

    def into(e: m.Expr) -> bool:
        if isinstance(e, m.IfExpr):
            return into(e.then) and into(e.otherwise)
        if isinstance(e, m.GameVar) and e.slot in first:
            out.add(("g", first[e.slot]))
        elif isinstance(e, m.ZoneAt) and e.base in first:
            out.add(("g", first[e.base]))
        elif isinstance(e, m.PlayerVar):
            out.add(("p", e.slot))
        else:
            return False
        return True

    for s in model.find_all((m.MoveCards, m.DrawCards)):
        if not into(s.target):
            return None
    return out

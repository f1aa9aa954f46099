"""The checker, defines: which are about one player, and each define's typed body."""

from __future__ import annotations

from typing import Optional

from .. import model as m
from .. import nodes as n
from ..errors import Span
from .core import (
    _PARAM_TYPES,
    _Unit,
    _walk,
)


class Defines:
    # ---- defines ---------------------------------------------------------------------------------

    def is_per_player(self, name: str, seen: Optional[set] = None) -> bool:
        if name in self.per_player_cache:
            return self.per_player_cache[name]
        d = self.define_nodes.get(name)
        if d is None or d.params:
            return False
        seen = seen if seen is not None else set()
        if name in seen:
            return False
        seen.add(name)
        result = False
        for x in _walk(d.expr):
            # `you`, `your X`, or the bare name of another define about one player
            if isinstance(x, (n.You, n.Your)) or (
                isinstance(x, n.Name) and x.name != name and x.name in self.define_nodes and self.is_per_player(x.name, seen)
            ):
                result = True
                break
        if result or len(seen) == 1:
            self.per_player_cache[name] = result
        return result

    def define(self, name: str, span: Span | None) -> Optional[m.DefineDecl]:
        if name in self.defines:
            return self.defines[name]
        d = self.define_nodes[name]
        if name in self.defining:
            self.error(span or d.span, f"`{name}` is defined in terms of itself", "a define cannot refer to itself, even through other defines")
            return None
        self.defining.add(name)
        per = self.is_per_player(name)
        u = _Unit("define", name, you=per)
        params = []
        for pname, tword in d.params:
            t = _PARAM_TYPES.get(tword)
            if t is None:
                self.error(d.span, f"`{pname}: {tword}`: a define's parameter is a number, player, card or die")
                t = "number"
            pt = {"number": m.NUMBER, "player": m.PLAYER, "card": m.card_type(None), "die": m.DIE}[t]
            slot = u.alloc()
            u.scopes[0][pname] = m.Local(slot, pt, pname)
            params.append((pname, pt))
        if d.params and any(isinstance(x, (n.You, n.Your)) for x in _walk(d.expr)):
            self.error(d.span, f"`{name}` has parameters, so it cannot also be about `you`", "pass the player as a parameter")
        e = self.expr(d.expr, u)
        self.defining.discard(name)
        decl = m.DefineDecl(name, per, e, u.n, e.type, span=d.span, params=tuple(params))
        self.defines[name] = decl
        return decl


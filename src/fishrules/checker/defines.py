"""The checker, defines: which are about one player, and each define's typed body."""

from __future__ import annotations

from typing import Optional

from .. import model as m
from .. import nodes as n
from ..analysis import dependency_order
from ..errors import Span
from .core import (
    _PARAM_TYPES,
    _Unit,
)

#: the syntax that can name a define: `name`, `your name`, `X's name`, `name of X`
_NAMING = (n.Name, n.Your, n.Possessive, n.AttrOf)


class Defines:
    # ---- defines ---------------------------------------------------------------------------------

    def order_defines(self) -> None:
        """Put the defines in an order where each comes after the defines it names, and work out
        which are about one player, without recursion (a chain of defines may be as long as the
        file).  A cycle is left for `define` to report; its members come in file order."""
        uses: dict[str, list[str]] = {}
        for name, d in self.define_nodes.items():
            found = []
            for x in d.expr.walk(last_first=True):  # (the order the defines are checked in rests on it)
                word = x.func if isinstance(x, n.Call) else getattr(x, "name", None) if isinstance(x, _NAMING) else None
                if word is not None and word != name and word in self.define_nodes:
                    found.append(word)
            uses[name] = list(dict.fromkeys(found))
        order = dependency_order(list(self.define_nodes), uses.__getitem__)
        self.define_order = order
        self.define_uses = uses
        # `you`, `your X`, or the bare name of another define about one player
        for name in order:
            d = self.define_nodes[name]
            per = False
            if not d.params:
                for x in d.expr.walk():
                    if isinstance(x, (n.You, n.Your)) or (
                        isinstance(x, n.Name) and x.name != name and self.per_player_cache.get(x.name, False)
                    ):
                        per = True
                        break
            self.per_player_cache[name] = per

    def named_numbers(self) -> dict[str, int]:
        """The defines that are a number written out (`define hand_size: 4`, `define penalty: -5`):
        the numbers a table changes most.  Where one is used it is that number (so naming a number
        changes neither how fast the rules run nor what they do), and it is not a value of the
        position: a view does not show it."""
        found = getattr(self, "_named_numbers", None)
        if found is None:
            found = {}
            for name, d in self.define_nodes.items():
                e = d.expr
                sign = 1
                if isinstance(e, n.Negate):
                    e, sign = e.operand, -1
                if not d.params and isinstance(e, n.Number):
                    found[name] = sign * e.value
            self._named_numbers = found
        return found

    def is_per_player(self, name: str) -> bool:
        return self.per_player_cache.get(name, False)

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
        if d.params and any(d.expr.find_all((n.You, n.Your))):
            self.error(d.span, f"`{name}` has parameters, so it cannot also be about `you`", "pass the player as a parameter")
        e = self.expr(d.expr, u)
        self.defining.discard(name)
        decl = m.DefineDecl(name, per, e, u.n, e.type, span=d.span, params=tuple(params))
        self.defines[name] = decl
        return decl


"""The checker, expressions: names and scopes, attributes, built-in functions, operators and types.

Each kind of expression is checked by its own method, `visit_<Node>` (as the compiler writes each
kind of model node), and each built-in function by the method `_BUILTIN_CHECKS` names; every one
returns the model of what it checked, a stand-in of the type `ERR` after reporting a problem."""

from __future__ import annotations

from typing import Optional

from .. import model as m
from .. import nodes as n
from .core import (
    _DIE_ATTRS,
    _DIRECTION_CHOICES,
    _PLURAL,
    BUILTINS,
    ERR,
    _as_coll,
    _domain_key,
    _Unit,
    listed,
)


#: Words of other languages for what the rules write otherwise.
_OTHER_LANGUAGES = {
    "true": "yes and no are written `yes` and `no`", "false": "yes and no are written `yes` and `no`",
    "null": "no player is written `nobody`", "none": "no player is written `nobody`",
    "nil": "no player is written `nobody`", "self": "the player acting is `you`", "this": "the player acting is `you`",
    "len": "how many is `count(…)`", "length": "how many is `count(…)`", "size": "how many is `count(…)`",
}


#: built-in function -> the method that checks a call of it (each name of `BUILTINS` has one)
_BUILTIN_CHECKS = {
    "first": "builtin_first_last", "last": "builtin_first_last", "top": "builtin_top",
    "distinct": "builtin_distinct", "adjacent": "builtin_board", "slide": "builtin_board",
    "divide": "builtin_divide", "count": "builtin_count", "sum": "builtin_sum_abs", "abs": "builtin_sum_abs",
    "min": "builtin_min_max", "max": "builtin_min_max", "largest": "builtin_largest_smallest",
    "smallest": "builtin_largest_smallest",
}


class Expressions:
    # ---- expressions ----------------------------------------------------------------------------

    def expect(self, e: m.Expr, kind: str, src: n.Expr, what: str) -> bool:
        if e.type == ERR or e.type.kind == kind:
            return True
        want = {"number": "a number", "bool": "yes or no (a condition)", "player": "a player"}.get(kind, kind)
        self.error(getattr(src, "span", None), f"{what} must be {want}, not {e.type}")
        return False

    def compatible(self, t: m.Type, e: m.Expr, src: n.Expr, what: str) -> bool:
        if e.type == ERR or t == ERR or e.type == t:
            return True
        self.error(getattr(src, "span", None), f"{what} is {t}; this is {e.type}")
        return False

    def expr(self, e: n.Expr, u: _Unit, expected: Optional[m.Type] = None) -> m.Expr:
        """The typed model of the expression `e` (a stand-in of the type `ERR` after reporting what
        is wrong with it).  `expected` is the type the place of `e` calls for, if any: a bare choice
        (`red`) is read as a choice of that type.  Dispatch is by node kind (`visit_<Node>`)."""
        try:
            return getattr(self, "visit_" + type(e).__name__)(e, u, expected)
        except RecursionError:
            self.error(getattr(e, "span", None), "this expression is nested too deeply")
            return self.bad(getattr(e, "span", None))

    # ---- words --------------------------------------------------------------------------------------

    def visit_Number(self, e: n.Number, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        return m.Const(e.value, m.NUMBER, span=e.span)

    def visit_Boolean(self, e: n.Boolean, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        return m.Const(e.value, m.BOOL, span=e.span)

    def visit_Text(self, e: n.Text, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        return m.Const(e.value, m.TEXT, span=e.span)

    def visit_Nobody(self, e: n.Nobody, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        return m.Const(None, m.PLAYER, span=e.span)

    def visit_You(self, e: n.You, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        sp = e.span
        if u.you is None:
            self.error(sp, "`you` only means something in an action, a score, or a define about a player",
                       "in a phase, name the player, as in `roller`")
            return self.bad(sp)
        return m.Local(u.you, m.PLAYER, "you", span=sp)

    def visit_It(self, e: n.It, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        sp = e.span
        if not u.elems:
            self.error(sp, "`it` only means something inside `where`, `every`, `any`, `no` or `with the highest`")
            return self.bad(sp)
        el = u.elems[-1]
        return m.Local(el.slot, el.type, "it", span=sp)

    def visit_Your(self, e: n.Your, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        sp = e.span
        if u.you is None:
            self.error(sp, f"`your {e.name}`: there is no `you` here",
                       f"`your` means the player an action, score or define is about; in a phase write `PLAYER's {e.name}`")
            return self.bad(sp)
        return self.player_attr(e.name, m.Local(u.you, m.PLAYER, "you"), sp)

    def visit_Possessive(self, e: n.Possessive, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        return self.attr(e.name, self.expr(e.owner, u), e.span, u)

    def visit_AttrOf(self, e: n.AttrOf, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        return self.attr(e.name, self.expr(e.target, u), e.span, u)

    def visit_Beside(self, e: n.Beside, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        p = self.expr(e.player, u)
        self.expect(p, "player", e.player, "`left of`/`right of`")
        return m.Beside(p, e.offset, span=e.span)

    # ---- operators ----------------------------------------------------------------------------------

    def visit_Not(self, e: n.Not, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        x = self.expr(e.operand, u)
        self.expect(x, "bool", e.operand, "what `not` applies to")
        return m.Not(x, span=e.span)

    def visit_Negate(self, e: n.Negate, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        x = self.expr(e.operand, u)
        self.expect(x, "number", e.operand, "what `-` applies to")
        return m.Negate(x, span=e.span)

    def visit_IfExpr(self, e: n.IfExpr, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        sp = e.span
        t = self.expr(e.test, u)
        self.expect(t, "bool", e.test, "the condition of `if`")
        a = self.expr(e.then, u, expected)
        b = self.expr(e.otherwise, u, expected if expected else a.type)
        if ERR in (a.type, b.type):
            return m.IfExpr(t, a, b, ERR, span=sp)
        if a.type != b.type:
            if {a.type, b.type} == {m.PLAYER, m.PLAYERS}:
                a = m.Singleton(a, span=a.span) if a.type == m.PLAYER else a
                b = m.Singleton(b, span=b.span) if b.type == m.PLAYER else b
            else:
                self.error(sp, f"the two sides of this `if … then … otherwise …` differ: {a.type} and {b.type}")
                return m.IfExpr(t, a, b, ERR, span=sp)
        return m.IfExpr(t, a, b, a.type, span=sp)

    # ---- dice, collections and their elements -------------------------------------------------------

    def visit_Shows(self, e: n.Shows, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        d = self.expr(e.thing, u)
        self.expect(d, "die", e.thing, "what `shows` applies to")
        self.face(e.face, e.span)
        return m.DieShows(d, e.face, span=e.span)

    def visit_Quantified(self, e: n.Quantified, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        sp = e.span
        if e.source is not None:
            coll = self.expr(e.source, u)
        else:
            plural = _PLURAL.get(e.var)
            if plural is None:
                self.error(sp, f"say what to look through: `{e.quantifier} {e.var} in …`")
                return self.bad(sp)
            coll = self.expr(n.Name(plural, span=sp), u)
        elem = self.elem_type(coll, e.source or e, f"`{e.quantifier}`")
        slot = u.alloc()
        el = m.Local(slot, elem, e.var)
        u.scopes.append({e.var: el})
        u.elems.append(el)
        try:
            if e.face is not None:
                if elem not in (m.DIE, ERR):
                    self.error(sp, f"only dice show faces; these are {coll.type}")
                self.face(e.face, sp)
                cond = m.DieShows(el, e.face)
            else:
                cond = self.expr(e.condition, u)
                self.expect(cond, "bool", e.condition, "the condition")
                self.lint_quantifier(e, elem)
        finally:
            u.scopes.pop()
            u.elems.pop()
        return m.Quantified(e.quantifier, coll, slot, cond, span=sp)

    def visit_Showing(self, e: n.Showing, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        sp = e.span
        coll = self.expr(e.collection, u)
        elem = self.elem_type(coll, e.collection, "`showing`")
        if elem not in (m.DIE, ERR):
            self.error(e.collection.span, f"only dice show faces; this is {coll.type}")
        self.face(e.face, sp)
        slot = u.alloc()
        return m.Filter(coll, slot, m.DieShows(m.Local(slot, m.DIE), e.face), coll.type, span=sp)

    def visit_Where(self, e: n.Where, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        coll, slot, cond = self.each_element(e.collection, e.condition, u, "`where`")
        self.expect(cond, "bool", e.condition, "the condition of `where`")
        return m.Filter(coll, slot, cond, _as_coll(coll.type), span=e.span)

    def visit_WithBest(self, e: n.WithBest, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        sp = e.span
        coll, slot, key = self.each_element(e.collection, e.key, u, "`with the highest`")
        self.expect(key, "number", e.key, "what is compared")
        if coll.type == m.LIST:
            self.error(sp, "`with the highest` picks among things; for numbers use `max(…)`")
            return self.bad(sp)
        return m.Best(coll, slot, key, e.highest, _as_coll(coll.type), span=sp)

    def visit_OtherThan(self, e: n.OtherThan, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        coll = self.expr(e.collection, u)
        elem = self.elem_type(coll, e.collection, "`other than`")
        x = self.expr(e.excluded, u)
        if x.type != ERR and elem != ERR and x.type != elem and x.type != coll.type:
            self.error(e.excluded.span, f"`other than` leaves out {elem}, not {x.type}")
        return m.Exclude(coll, x, _as_coll(coll.type), span=e.span)

    def visit_StartingWith(self, e: n.StartingWith, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        coll = self.expr(e.collection, u)
        if coll.type not in (m.PLAYERS, ERR):
            self.error(e.collection.span, f"only players have a turn order to start from; this is {coll.type}")
        f = self.expr(e.first, u)
        self.expect(f, "player", e.first, "the first player")
        return m.Rotate(coll, f, coll.type, span=e.span)

    def visit_Going(self, e: n.Going, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        coll = self.expr(e.collection, u)
        if coll.type not in (m.PLAYERS, ERR):
            self.error(e.collection.span, f"only players go round the table; this is {coll.type}")
        dkey = _domain_key(_DIRECTION_CHOICES)
        d = self.expr(e.direction, u, expected=m.symbol_type(dkey))
        if d.type != ERR and d.type != m.symbol_type(dkey):
            self.error(e.direction.span, f"`going` takes clockwise or counterclockwise, not {d.type}")
        return m.Direction(coll, d, coll.type, span=e.span)

    def each_element(self, coll_src: n.Expr, body_src: n.Expr, u: _Unit, what: str):
        """Check `body_src` once per element of `coll_src` (bound as `it`, its values named bare):
        (the collection, the element's slot, the body)."""
        coll = self.expr(coll_src, u)
        elem = self.elem_type(coll, coll_src, what)
        slot = u.alloc()
        u.elems.append(m.Local(slot, elem, "it"))
        try:
            body = self.expr(body_src, u)
        finally:
            u.elems.pop()
        return coll, slot, body

    def elem_type(self, coll: m.Expr, src, what: str) -> m.Type:
        if coll.type == ERR:
            return ERR
        if coll.type.is_collection:
            return coll.type.element
        if coll.type.kind == "list":
            return coll.type.element or m.NUMBER
        self.error(getattr(src, "span", None), f"{what} needs a collection, not {coll.type}")
        return ERR

    def face(self, name: str, span) -> None:
        if self.dice_node is None:
            self.error(span, "the rules have no dice", "declare them, as in `dice: 2 with faces 1, 2, 3, 4, 5, 6`")
        elif name not in self.face_kinds:
            self.error(span, f"no die has a face `{name}`", self.suggest(name, self.face_kinds, "face"))

    def visit_Name(self, e: n.Name, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        nm, sp = e.name, e.span
        for sc in reversed(u.scopes):
            if nm in sc:
                loc = sc[nm]
                return m.Local(loc.slot, loc.type, nm, span=sp)
        for el in reversed(u.elems):
            r = self.elem_attr(nm, m.Local(el.slot, el.type, "it"), el.type, sp)
            if r is not None:
                return r
        if expected is not None and expected.kind == "symbol" and nm in self.symbols.get(expected.domain, ()):
            return m.Const(nm, expected, span=sp)
        if nm in self.gvars:
            v = self.gvars[nm]
            if v.family:
                # a family's bare name is its numbers: `for each r in rows`, `one of rows`
                numbers = self.family_numbers.get(nm)
                if numbers is None:  # one tuple, shared by every rule that reads the family
                    lo, count = v.family
                    numbers = self.family_numbers[nm] = tuple(range(lo, lo + count))
                return m.Const(numbers, m.LIST, span=sp)
            return m.GameVar(v.slot, v.type, nm, span=sp)
        if nm in self.options:
            o = self.options[nm]
            return m.GameVar(o.slot, o.type, nm, span=sp)
        if nm in self.define_nodes and self.define_nodes[nm].params:
            ps = ", ".join(p for p, _ in self.define_nodes[nm].params)
            self.error(sp, f"`{nm}` takes {ps}: write `{nm}({ps})`")
            return self.bad(sp)
        if nm == "circles" and self.board_node is not None and nm not in self.gvars:
            if self.circles is None:  # a board refused (too large, say): said at the board
                return self.bad(sp)
            return m.Const(self.circles.value, m.LIST, span=sp)
        if nm in self.define_nodes:
            if self.is_per_player(nm):
                if u.you is not None:
                    # inside a rule about one player, another fact about a player means theirs
                    d = self.define(nm, sp)
                    if d is None:
                        return self.bad(sp)
                    return m.DefineRef(nm, m.Local(u.you, m.PLAYER, "you"), d.type, span=sp)
                self.error(sp, f"`{nm}` is worked out for one player at a time", f"write `your {nm}` or `PLAYER's {nm}`")
                return self.bad(sp)
            d = self.define(nm, sp)
            if d is None:
                return self.bad(sp)
            if nm in self.named_numbers():
                # a named number (`define hand_size: 4`) is the number itself, where it is used
                return m.Const(self.named_numbers()[nm], m.NUMBER, span=sp)
            return m.DefineRef(nm, None, d.type, span=sp)
        if nm == "players":
            return m.AllPlayers(span=sp)
        if nm == "dice":
            if self.dice_node is None:
                self.error(sp, "the rules have no dice", "declare them, as in `dice: 2 with faces 1, 2, 3, 4, 5, 6`")
                return self.bad(sp)
            return m.AllDice(span=sp)
        if nm == "winners":
            return m.WinnersRef(span=sp)
        if nm in self.card_sets:
            return m.AllCards(nm, m.cards_type(nm), span=sp)
        if nm in self.symbol_domains:
            return m.Const(nm, m.symbol_type(self.symbol_domains[nm][0]), span=sp)
        if nm in self.pvars or nm == "score":
            self.error(sp, f"`{nm}` belongs to each player", f"write `your {nm}` or `PLAYER's {nm}`")
            return self.bad(sp)
        if nm in self.action_nodes or nm in self.phase_nodes:
            kind = "an action" if nm in self.action_nodes else "a phase"
            self.error(sp, f"`{nm}` is {kind}, not a value")
            return self.bad(sp)
        other = _OTHER_LANGUAGES.get(nm.lower())
        hint = other or self.suggest(nm, lambda: self.all_names(u), None if any(u.scopes) or u.elems else "name")
        if hint is None and u.elems and u.elems[-1].type == m.NUMBER and nm in _DIE_ATTRS:
            hint = "this filters numbers, which have no attributes; filter the things first, as in `value of (dice where …)`"
        self.error(sp, f"unknown name `{nm}`", hint)
        return self.bad(sp)

    def elem_attr(self, nm: str, el: m.Local, t: m.Type, sp) -> Optional[m.Expr]:
        if t.kind == "player":
            if nm in self.pvars or nm in ("score", "seat") or (nm in self.define_nodes and self.is_per_player(nm)):
                return self.player_attr(nm, el, sp)
        elif t.kind == "die":
            if nm in _DIE_ATTRS:
                return m.DieAttr(el, nm, _DIE_ATTRS[nm], span=sp)
        elif t.kind == "card":
            sets = [t.domain] if t.domain else list(self.card_sets)
            if any(a == nm for s_ in sets for a, _ in self.card_sets[s_].attrs):
                return self.card_attr(nm, el, sp)
        return None

    def attr(self, nm: str, target: m.Expr, sp, u: _Unit) -> m.Expr:
        t = target.type
        if t == ERR:
            return self.bad(sp)
        if t == m.PLAYER:
            return self.player_attr(nm, target, sp)
        if t == m.DIE:
            if nm not in _DIE_ATTRS:
                self.error(sp, f"a die has no `{nm}`", self.suggest(nm, _DIE_ATTRS, "die") or "a die has a face, a value and a number")
                return self.bad(sp)
            return m.DieAttr(target, nm, _DIE_ATTRS[nm], span=sp)
        if t.kind == "card":
            return self.card_attr(nm, target, sp)
        if t.is_collection:
            slot = u.alloc()
            el = m.Local(slot, t.element)
            inner = self.attr(nm, el, sp, u)
            if inner.type == ERR:
                return inner
            if inner.type.kind == "symbol":
                return m.Project(target, slot, inner, m.Type("list", element=inner.type), span=sp)
            if inner.type != m.NUMBER:
                self.error(sp, f"`{nm} of …` over many things gives a list of numbers, but `{nm}` is {inner.type}",
                           "to compare one thing's attribute, take one thing first, as in `" + nm + " of first(…)`")
                return self.bad(sp)
            return m.Project(target, slot, inner, span=sp)
        self.error(sp, f"{t} has no `{nm}`")
        return self.bad(sp)

    def card_attr(self, nm: str, c: m.Expr, sp) -> m.Expr:
        sets = [c.type.domain] if c.type.domain else list(self.card_sets)
        types = {t for s_ in sets for a, t in self.card_sets[s_].attrs if a == nm}
        if not types:
            cands = [a for s_ in sets for a, _ in self.card_sets[s_].attrs]
            what = f"a {c.type.domain} card" if c.type.domain else "a card"
            self.error(sp, f"{what} has no `{nm}`", self.suggest(nm, cands, f"{what} attribute") or ("its attributes: " + listed(cands)))
            return self.bad(sp)
        return m.CardAttr(c, nm, types.pop(), span=sp)

    def player_attr(self, nm: str, p: m.Expr, sp) -> m.Expr:
        if nm in self.pvars:
            v = self.pvars[nm]
            return m.PlayerVar(p, v.slot, v.type, nm, span=sp)
        if nm == "score":
            return m.ScoreOf(p, span=sp)
        if nm == "seat":
            return m.Seat(p, span=sp)
        if nm in self.define_nodes:
            if not self.is_per_player(nm):
                self.error(sp, f"`{nm}` is the same for every player", f"write just `{nm}`")
                return self.bad(sp)
            d = self.define(nm, sp)
            if d is None:
                return self.bad(sp)
            return m.DefineRef(nm, p, d.type, span=sp)
        self.error(sp, f"a player has no `{nm}`", self.suggest(nm, lambda: self.elem_attr_names(m.PLAYER), "player attribute"))
        return self.bad(sp)

    def zone_at(self, e: n.Call, u: _Unit) -> m.Expr:
        v = self.gvars[e.func]
        if len(e.args) != 1:
            self.error(e.span, f"one zone of `{e.func}` is named by one number, as in `{e.func}({v.family[0]})`")
            return self.bad(e.span)
        i = self.expr(e.args[0], u)
        self.expect(i, "number", e.args[0], f"the number of a zone of `{e.func}`")
        lo, count = v.family
        return m.ZoneAt(v.slot, lo, count, i, e.func, v.type, span=e.span)

    # ---- calls: zones of a family, defines with parameters, built-in functions ---------------------

    def visit_Call(self, e: n.Call, u: _Unit, expected: Optional[m.Type] = None) -> m.Expr:
        f, sp = e.func, e.span
        if f in self.gvars and self.gvars[f].family:
            return self.zone_at(e, u)
        if f in self.define_nodes and self.define_nodes[f].params:
            return self.define_call(e, u)
        if f not in BUILTINS:
            hint = self.suggest(f, BUILTINS, "function") or ("the functions are " + ", ".join(BUILTINS))
            self.error(sp, f"unknown function `{f}`", hint)
            for a in e.args:
                self.expr(a, u)
            return self.bad(sp)
        args = [self.expr(a, u) for a in e.args]
        if any(a.type == ERR for a in args):
            return self.bad(sp)
        return getattr(self, _BUILTIN_CHECKS[f])(e, args, [a.type.kind for a in args])

    def define_call(self, e: n.Call, u: _Unit) -> m.Expr:
        """`name(a, b)` of a define with parameters."""
        f, sp = e.func, e.span
        d = self.define(f, sp)
        args = [self.expr(a, u) for a in e.args]
        if d is None:
            return self.bad(sp)
        if len(args) != len(d.params):
            self.error(sp, f"`{f}` takes {len(d.params)}, not {len(args)}: " + ", ".join(p for p, _ in d.params))
            return self.bad(sp)
        for a, src, (pname, pt) in zip(args, e.args, d.params):
            if a.type != ERR and a.type.kind != pt.kind:
                self.error(src.span, f"`{pname}` of `{f}` is {pt}, not {a.type}")
        return m.DefineRef(f, None, d.type, span=sp, args=tuple(args))

    # Each built-in function is checked by the method `_BUILTIN_CHECKS` names, given the call, its
    # arguments' models (none of them in error) and their kinds.

    def arity(self, e: n.Call, args: list, k: int) -> bool:
        """Whether the built-in function is given `k` arguments (reported if not)."""
        f = e.func
        if len(args) != k:
            self.error(e.span, f"`{f}` takes {k} {'thing' if k == 1 else 'things'}, not {len(args)}", f"`{f}` takes {BUILTINS[f]}")
            return False
        return True

    def builtin_first_last(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if not self.arity(e, args, 1):
            return self.bad(sp)
        t = args[0].type
        if t.is_collection:
            return m.Builtin(f, tuple(args), t.element, span=sp)
        if t.kind == "list":
            return m.Builtin(f, tuple(args), t.element or m.NUMBER, span=sp)
        self.error(e.args[0].span, f"`{f}` takes a collection or a list, not {t}")
        return self.bad(sp)

    def builtin_top(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if not self.arity(e, args, 2):
            return self.bad(sp)
        t = args[1].type
        if kinds[0] != "number" or not (t.is_collection or t.kind == "list"):
            self.error(sp, "`top` takes how many and a zone, collection or list, as in `top(2, deck)`")
            return self.bad(sp)
        rt = m.Type("collection", element=t.element) if t.is_collection else t
        return m.Builtin(f, tuple(args), rt, span=sp)

    def builtin_distinct(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if not self.arity(e, args, 1):
            return self.bad(sp)
        if kinds[0] != "list":
            self.error(sp, "`distinct` takes a list, as in `distinct(colour of taken)`")
            return self.bad(sp)
        return m.Builtin(f, tuple(args), args[0].type, span=sp)

    def builtin_board(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        """`adjacent` and `slide`, about the circles of the board."""
        f, sp = e.func, e.span
        if self.board_node is None:
            self.error(sp, f"`{f}` needs a board", "declare one: `board: circles from 1 to 9` with its lines below")
            return self.bad(sp)
        if not self.arity(e, args, 1 if f == "adjacent" else 2):
            return self.bad(sp)
        if kinds[0] != "number" or (f == "slide" and args[1].type != m.LIST):
            self.error(sp, f"`{f}` takes {BUILTINS[f]}")
            return self.bad(sp)
        return m.Builtin(f, tuple(args), m.LIST, span=sp)

    def builtin_divide(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if not self.arity(e, args, 2):
            return self.bad(sp)
        if kinds != ["number", "number"]:
            self.error(sp, "`divide` takes two numbers")
            return self.bad(sp)
        return m.Builtin(f, tuple(args), m.NUMBER, span=sp)

    def builtin_count(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if not self.arity(e, args, 1):
            return self.bad(sp)
        if kinds[0] not in ("collection", "list", "zone"):
            self.error(e.args[0].span, f"`count` counts a collection or a list, not {args[0].type}")
            return self.bad(sp)
        return m.Builtin(f, tuple(args), m.NUMBER, span=sp)

    def builtin_sum_abs(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if not self.arity(e, args, 1):
            return self.bad(sp)
        want = "list" if f == "sum" else "number"
        if kinds[0] != want or (f == "sum" and args[0].type != m.LIST):
            hint = "take a number from each first, as in `sum(value of dice)`" if kinds[0] == "collection" else None
            self.error(e.args[0].span, f"`{f}` takes {m.LIST if f == 'sum' else m.NUMBER}, not {args[0].type}", hint)
            return self.bad(sp)
        return m.Builtin(f, tuple(args), m.NUMBER, span=sp)

    def builtin_min_max(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if len(args) == 0:
            self.error(sp, f"`{f}` needs something to compare")
            return self.bad(sp)
        if len(args) == 1:
            if args[0].type != m.LIST:
                self.error(e.args[0].span, f"`{f}` of one thing takes a list of numbers, not {args[0].type}")
                return self.bad(sp)
        else:
            for a, src in zip(args, e.args):
                if a.type != m.NUMBER:
                    self.error(src.span, f"`{f}` compares numbers, not {a.type}")
                    return self.bad(sp)
        return m.Builtin(f, tuple(args), m.NUMBER, span=sp)

    def builtin_largest_smallest(self, e: n.Call, args: list, kinds: list) -> m.Expr:
        f, sp = e.func, e.span
        if not self.arity(e, args, 2):
            return self.bad(sp)
        if kinds[0] != "number" or args[1].type != m.LIST:
            self.error(sp, f"`{f}` takes how many and a list of numbers, as in `{f}(3, value of dice)`")
            return self.bad(sp)
        return m.Builtin(f, tuple(args), m.LIST, span=sp)

    # ---- binary operators ---------------------------------------------------------------------------

    def visit_BinOp(self, e: n.BinOp, u: _Unit, expected: Optional[m.Type] = None) -> m.Expr:
        op, sp = e.op, e.span
        if op in ("and", "or"):
            a, b = self.expr(e.left, u), self.expr(e.right, u)
            self.expect(a, "bool", e.left, f"each side of `{op}`")
            self.expect(b, "bool", e.right, f"each side of `{op}`")
            return m.BinOp(op, a, b, m.BOOL, span=sp)
        if op in ("+", "-", "*"):
            a, b = self.expr(e.left, u), self.expr(e.right, u)
            ok = self.expect(a, "number", e.left, f"each side of `{op}`") & self.expect(b, "number", e.right, f"each side of `{op}`")
            return m.BinOp(op, a, b, m.NUMBER if ok else ERR, span=sp)
        if op in ("<", "<=", ">", ">="):
            a, b = self.expr(e.left, u), self.expr(e.right, u)
            self.expect(a, "number", e.left, f"each side of `{op}`")
            self.expect(b, "number", e.right, f"each side of `{op}`")
            return m.BinOp(op, a, b, m.BOOL, span=sp)
        if op in ("=", "!=", "is", "is not"):
            # Check the side that is not a bare symbol first, so the symbol is read in its domain.
            left_first = not (isinstance(e.left, n.Name) and e.left.name in self.symbol_domains)
            if left_first:
                a = self.expr(e.left, u)
                b = self.expr(e.right, u, expected=a.type)
            else:
                b = self.expr(e.right, u)
                a = self.expr(e.left, u, expected=b.type)
            mop = "=" if op in ("=", "is") else "!="
            if ERR not in (a.type, b.type) and a.type != b.type:
                hint = None
                if a.type.kind == "symbol" or b.type.kind == "symbol":
                    sym = a if a.type.kind == "symbol" else b
                    other = b if sym is a else a
                    if other.type.kind == "symbol":
                        hint = "the choices are " + ", ".join(self.symbols.get(other.type.domain, ()))
                self.error(sp, f"cannot compare {a.type} with {b.type}", hint)
            return m.BinOp(mop, a, b, m.BOOL, span=sp)
        if op in ("in", "not in"):
            b = self.expr(e.right, u)
            elem = self.elem_type(b, e.right, f"`{op}`")
            a = self.expr(e.left, u, expected=elem if elem != ERR else None)
            if ERR not in (a.type, elem) and a.type != elem:
                self.error(sp, f"{b.type} cannot hold {a.type}")
            return m.BinOp("in" if op == "in" else "notin", a, b, m.BOOL, span=sp)
        raise AssertionError(op)  # pragma: no cover



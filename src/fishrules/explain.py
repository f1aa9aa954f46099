"""The effective rules, printed back as .fish text (`fishrules explain`).

Works on the resolved syntax tree (after every overlay and variant), so what it prints is exactly
what the checker saw; each declaration says which file and line it came from.  The printed text
parses back to the same rules.
"""

from __future__ import annotations

from . import nodes as n

__all__ = ["explain", "unparse_expr", "unparse_items"]

# Binding strength of each kind of expression: higher binds tighter.
_PREC = {
    "full": 0,
    "or": 1,
    "and": 2,
    "not": 3,
    "cmp": 4,
    "sum": 5,
    "product": 6,
    "unary": 7,
    "postfix": 8,
    "primary": 9,
}

_BIN_PREC = {"or": 1, "and": 2, "+": 5, "-": 5, "*": 6}


def _wrap(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _open_right(e) -> bool:
    """Does the expression end in a `where …` that would swallow whatever is written after it?"""
    if isinstance(e, n.Quantified):
        return e.condition is not None
    if isinstance(e, n.BinOp):
        return _open_right(e.right)
    if isinstance(e, (n.Not, n.Negate)):
        return _open_right(e.operand)
    return False


def unparse_expr(e: n.Expr, need: int = 0) -> str:
    text, prec = _expr(e)
    return _wrap(text, prec, need)


def _expr(e) -> tuple[str, int]:
    P = _PREC
    if isinstance(e, n.Number):
        return str(e.value), P["primary"]
    if isinstance(e, n.Text):
        return f'"{e.value}"', P["primary"]
    if isinstance(e, n.Boolean):
        return ("yes" if e.value else "no"), P["primary"]
    if isinstance(e, n.Nobody):
        return "nobody", P["primary"]
    if isinstance(e, n.You):
        return "you", P["primary"]
    if isinstance(e, n.It):
        return "it", P["primary"]
    if isinstance(e, n.Name):
        return e.name, P["primary"]
    if isinstance(e, n.Your):
        return f"your {e.name}", P["primary"]
    if isinstance(e, n.Possessive):
        return f"{unparse_expr(e.owner, P['primary'])}'s {e.name}", P["primary"]
    if isinstance(e, n.AttrOf):
        return f"{e.name} of {unparse_expr(e.target, P['postfix'])}", P["primary"]
    if isinstance(e, n.Beside):
        side = "left" if e.offset > 0 else "right"
        return f"{side} of {unparse_expr(e.player, P['primary'])}", P["primary"]
    if isinstance(e, n.Call):
        return f"{e.func}({', '.join(unparse_expr(a) for a in e.args)})", P["primary"]
    if isinstance(e, n.BinOp):
        if e.op in _BIN_PREC:
            p = _BIN_PREC[e.op]
            left = unparse_expr(e.left, p)
            if _open_right(e.left):
                left = f"({left})"
            return f"{left} {e.op} {unparse_expr(e.right, p + 1)}", p
        return f"{unparse_expr(e.left, P['sum'])} {e.op} {unparse_expr(e.right, P['sum'])}", P["cmp"]
    if isinstance(e, n.Not):
        return f"not {unparse_expr(e.operand, P['not'])}", P["not"]
    if isinstance(e, n.Negate):
        return f"-{unparse_expr(e.operand, P['unary'])}", P["unary"]
    if isinstance(e, n.IfExpr):
        return (f"if {unparse_expr(e.test, P['or'])} then {unparse_expr(e.then)} otherwise {unparse_expr(e.otherwise)}", P["full"])
    if isinstance(e, n.Shows):
        return f"{unparse_expr(e.thing, P['sum'])} shows {e.face}", P["cmp"]
    if isinstance(e, n.Quantified):
        src = f" in {unparse_expr(e.source, P['postfix'])}" if e.source is not None else ""
        pred = f"shows {e.face}" if e.face is not None else f"where {unparse_expr(e.condition, P['or'])}"
        return f"{e.quantifier} {e.var}{src} {pred}", P["not"]
    if isinstance(e, n.Showing):
        return f"{unparse_expr(e.collection, P['postfix'])} showing {e.face}", P["postfix"]
    if isinstance(e, n.OtherThan):
        return f"{unparse_expr(e.collection, P['postfix'])} other than {unparse_expr(e.excluded, P['primary'])}", P["postfix"]
    if isinstance(e, n.StartingWith):
        return f"{unparse_expr(e.collection, P['postfix'])} starting with {unparse_expr(e.first, P['primary'])}", P["postfix"]
    if isinstance(e, n.Going):
        return f"{unparse_expr(e.collection, P['postfix'])} going {unparse_expr(e.direction, P['primary'])}", P["postfix"]
    if isinstance(e, n.Where):
        return f"{unparse_expr(e.collection, P['or'])} where {unparse_expr(e.condition, P['or'])}", P["full"]
    if isinstance(e, n.WithBest):
        hl = "highest" if e.highest else "lowest"
        return f"{unparse_expr(e.collection, P['or'])} with the {hl} {unparse_expr(e.key, P['or'])}", P["full"]
    raise AssertionError(e)  # pragma: no cover


def _type(t) -> str:
    if isinstance(t, n.NumberType):
        if t.low is not None:
            return f"number from {unparse_expr(t.low, _PREC['sum'])} to {unparse_expr(t.high, _PREC['sum'])}"
        return "number"
    if isinstance(t, n.BoolType):
        return "yes or no"
    if isinstance(t, n.PlayerType):
        return "player"
    if isinstance(t, n.ListType):
        return "list of numbers"
    if isinstance(t, n.EnumType):
        return "one of " + ", ".join(t.choices)
    if isinstance(t, n.ZonesType):
        return f"zones from {unparse_expr(t.low, _PREC['sum'])} to {unparse_expr(t.high, _PREC['sum'])}" + (f" of {t.of}" if t.of else "")
    if isinstance(t, n.ZoneType):
        return "zone" + (f" of {t.of}" if t.of else "")
    raise AssertionError(t)  # pragma: no cover


def _stmts(body, indent: int) -> list[str]:
    out: list[str] = []
    pad = "  " * indent
    for s in body:
        out.extend(_stmt(s, indent, pad))
    return out


def _block(header: str, body, indent: int, pad: str) -> list[str]:
    lines = _stmts(body, indent + 1)
    if not lines:
        lines = ["  " * (indent + 1) + "nothing"]
    return [pad + header + ":"] + lines


def _stmt(s, indent: int, pad: str) -> list[str]:
    u = unparse_expr
    if isinstance(s, n.Set):
        return [f"{pad}set {u(s.target, _PREC['primary'])} to {u(s.value)}"]
    if isinstance(s, n.AddTo):
        return [f"{pad}add {u(s.value, 1)} to {u(s.target, _PREC['primary'])}"]
    if isinstance(s, n.SubtractFrom):
        return [f"{pad}subtract {u(s.value, 1)} from {u(s.target, _PREC['primary'])}"]
    if isinstance(s, n.RemoveFrom):
        return [f"{pad}remove {u(s.value, 1)} from {u(s.target, _PREC['primary'])}"]
    if isinstance(s, n.Clear):
        return [f"{pad}clear {u(s.target, _PREC['primary'])}"]
    if isinstance(s, n.Roll):
        return [f"{pad}roll {u(s.dice)}"]
    if isinstance(s, n.Play):
        return [f"{pad}play {s.phase}" + (f" for {u(s.argument)}" if s.argument is not None else "")]
    if isinstance(s, n.PlayAgain):
        return [f"{pad}play again"]
    if isinstance(s, n.End):
        return [f"{pad}end {s.name}"]
    if isinstance(s, n.Chooses):
        return [f"{pad}{u(s.chooser, 1)} chooses {' or '.join(s.actions)}"]
    if isinstance(s, n.ChoosesTogether):
        return [f"{pad}each of {u(s.choosers)} secretly chooses {' or '.join(s.actions)}"]
    if isinstance(s, n.Nothing):
        return [f"{pad}nothing"]
    face = {"up": " face up", "down": " face down", None: ""}
    if isinstance(s, n.Move):
        return [f"{pad}move {u(s.cards)} to {u(s.zone, _PREC['primary'])}{face[s.facing]}"]
    if isinstance(s, n.Draw):
        count = f" {u(s.count, _PREC['sum'])}" if s.count is not None else ""
        return [f"{pad}draw{count} from {u(s.source, _PREC['primary'])} to {u(s.target, _PREC['primary'])}{face[s.facing]}"]
    if isinstance(s, n.Shuffle):
        return [f"{pad}shuffle {u(s.zone, _PREC['primary'])}"]
    if isinstance(s, n.Reveal):
        return [f"{pad}reveal {u(s.cards)}"]
    if isinstance(s, n.Unavailable):
        return [f'{pad}unavailable "{s.message}"']
    if isinstance(s, n.WhenBroken):
        cond = f" and {u(s.condition, 1)}" if s.condition is not None else ""
        return _block(f'when "{s.rule}" is broken{cond}', s.body, indent, pad)
    if isinstance(s, n.Require):
        return [f'{pad}require "{s.name}": {u(s.condition)}']
    if isinstance(s, n.If):
        out: list[str] = []
        for i, (c, b) in enumerate(s.branches):
            head = ("if " if i == 0 else "otherwise if ") + u(c)
            out.extend(_block(head, b, indent, pad))
        if s.otherwise:
            out.extend(_block("otherwise", s.otherwise, indent, pad))
        return out
    if isinstance(s, n.Repeat):
        if s.kind == "times":
            head = f"repeat {u(s.expr, 1)} times"
        elif s.kind == "forever":
            head = "repeat"
        else:
            head = f"repeat {s.kind} {u(s.expr)}"
        return _block(head, s.body, indent, pad)
    if isinstance(s, n.ForEach):
        head = f"for each {s.var}" + (f" in {u(s.source)}" if s.source is not None else "")
        return _block(head, s.body, indent, pad)
    if isinstance(s, n.RuleBlock):
        return _block(f'rule "{s.name}"', s.body, indent, pad)
    raise AssertionError(s)  # pragma: no cover


def _item(it) -> list[str]:
    u = unparse_expr
    if isinstance(it, n.GameDecl):
        return [f'game "{it.title}"']
    if isinstance(it, n.PlayersDecl):
        return [f"players {it.low} to {it.high}"]
    if isinstance(it, n.OptionDecl):
        doc = f', "{it.doc}"' if it.doc else ""
        return [f"option {it.name}: {_type(it.type)} = {u(it.default)}{doc}"]
    if isinstance(it, n.DiceDecl):
        faces = ", ".join(f.name + (f" {f.value}" if f.value else "") for f in it.faces)
        return [f"dice: {u(it.count, _PREC['sum'])} with faces {faces}"]
    if isinstance(it, n.VarDecl):
        who = "each player has" if it.scope == "player" else "the game has"
        vis = "" if it.visibility == "public" else it.visibility + " "
        init = f" = {u(it.initial)}" if it.initial is not None else ""
        seen = f" seen by {u(it.seen_by, _PREC['primary'])}" if it.seen_by is not None else ""
        return [f"{who} {vis}{it.name}: {_type(it.type)}{seen}{init}"]
    if isinstance(it, n.CardsDecl):
        parts = []
        for a in it.attrs:
            vals = ", ".join(str(v) + (f" x {k}" if k != 1 else "") for v, k in a.values)
            parts.append(f"{a.name} in {vals}")
        return [f"cards {it.name}: " + " and ".join(parts)]
    if isinstance(it, n.Define):
        params = "(" + ", ".join(f"{p}: {t}" for p, t in it.params) + ")" if it.params else ""
        return [f"define {it.name}{params}: {u(it.expr)}"]
    if isinstance(it, n.BoardDecl):
        return [f"board: circles from {it.low} to {it.high}"] + ["  line " + ", ".join(map(str, ln)) for ln in it.lines]
    if isinstance(it, n.Score):
        return [f'score "{it.name}": {u(it.expr)}']
    if isinstance(it, n.Winners):
        return [f"winners: {u(it.expr)}"]
    if isinstance(it, n.Phase):
        head = f"phase {it.name}" + (f" for {it.param}" if it.param else "")
        return _block(head, it.body, 0, "")
    if isinstance(it, n.Action):
        params = ""
        if it.params:
            ps = []
            for p in it.params:
                t = p.type
                if t.kind == "number":
                    ps.append(f"{p.name}: a number from {u(t.low, _PREC['sum'])} to {u(t.high, _PREC['sum'])}")
                elif t.kind == "choice":
                    ps.append(f"{p.name}: one of " + " or ".join(t.choices))
                else:
                    ps.append(f"{p.name}: {t.kind} {u(t.source, _PREC['postfix'])}")
                if p.secret:
                    ps[-1] = "secret " + ps[-1]
            params = "(" + ", ".join(ps) + ")"
        return _block(f"action {it.name}{params}", it.body, 0, "")
    raise AssertionError(it)  # pragma: no cover


def unparse_items(items, with_origin: bool = True) -> str:
    out: list[str] = []
    prev_kind = None
    for it in items:
        kind = type(it).__name__
        lines = _item(it)
        block = len(lines) > 1
        if out and (block or kind != prev_kind):
            out.append("")
        if with_origin and getattr(it, "span", None) is not None and not isinstance(it, (n.GameDecl, n.PlayersDecl)):
            out.append(f"# from {it.span}")
        out.extend(lines)
        prev_kind = kind
    return "\n".join(out) + "\n"


def explain(resolved, game=None) -> str:
    head = []
    if game is not None:
        head.append(f"# The effective rules of {game.title}" + (f", variant {game.variant}" if game.variant else ""))
        head.append("# read from " + ", then ".join(resolved.files))
        if game.options:
            opts = "; ".join(f"{o.name} = {o.default}" for o in game.options.values())
            head.append(f"# options (defaults): {opts}")
        head.append("")
    return "\n".join(head) + unparse_items(resolved.items)

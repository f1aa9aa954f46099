"""The effective rules, printed back as .fish text (`fishrules explain`).

Works on the resolved syntax tree (after every overlay and variant), so what it prints is exactly
what the checker saw; each declaration says which file and line it came from.  The printed text
parses back to the same rules.
"""

from __future__ import annotations

from . import nodes as n

__all__ = ["explain", "unparse_expr", "unparse_type", "unparse_item", "unparse_items"]

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
    """The text of an expression, in brackets if it binds less tightly than `need`."""
    text, prec = _WRITER.expr(e)
    return _wrap(text, prec, need)


def unparse_type(t: n.TypeSpec) -> str:
    """The text of the type of an option or a variable (`number from 1 to 6`)."""
    return _WRITER.type_(t)


def unparse_item(it: n.Item) -> list[str]:
    """The lines of one declaration of a file."""
    return _WRITER.item(it)


_FACING = {"up": " face up", "down": " face down", None: ""}


class _Writer:
    """Writes syntax nodes back as text, one method per kind of node (`visit_<Node>`): an
    expression's gives its text and how tightly it binds (`_PREC`), a type's its text, a
    statement's or a declaration's its lines."""

    def expr(self, e: n.Expr) -> tuple[str, int]:
        return getattr(self, "visit_" + type(e).__name__)(e)

    def type_(self, t: n.TypeSpec) -> str:
        return getattr(self, "visit_" + type(t).__name__)(t)

    def stmts(self, body, indent: int) -> list[str]:
        out: list[str] = []
        pad = "  " * indent
        for s in body:
            out.extend(getattr(self, "visit_" + type(s).__name__)(s, indent, pad))
        return out

    def block(self, header: str, body, indent: int, pad: str) -> list[str]:
        lines = self.stmts(body, indent + 1)
        if not lines:
            lines = ["  " * (indent + 1) + "nothing"]
        return [pad + header + ":"] + lines

    def item(self, it: n.Item) -> list[str]:
        return getattr(self, "visit_" + type(it).__name__)(it)

    # ---- expressions --------------------------------------------------------------------------------

    def visit_Number(self, e: n.Number) -> tuple[str, int]:
        return str(e.value), _PREC["primary"]

    def visit_Text(self, e: n.Text) -> tuple[str, int]:
        return f'"{e.value}"', _PREC["primary"]

    def visit_Boolean(self, e: n.Boolean) -> tuple[str, int]:
        return ("yes" if e.value else "no"), _PREC["primary"]

    def visit_Nobody(self, e: n.Nobody) -> tuple[str, int]:
        return "nobody", _PREC["primary"]

    def visit_You(self, e: n.You) -> tuple[str, int]:
        return "you", _PREC["primary"]

    def visit_It(self, e: n.It) -> tuple[str, int]:
        return "it", _PREC["primary"]

    def visit_Name(self, e: n.Name) -> tuple[str, int]:
        return e.name, _PREC["primary"]

    def visit_Your(self, e: n.Your) -> tuple[str, int]:
        return f"your {e.name}", _PREC["primary"]

    def visit_Possessive(self, e: n.Possessive) -> tuple[str, int]:
        return f"{unparse_expr(e.owner, _PREC['primary'])}'s {e.name}", _PREC["primary"]

    def visit_AttrOf(self, e: n.AttrOf) -> tuple[str, int]:
        return f"{e.name} of {unparse_expr(e.target, _PREC['postfix'])}", _PREC["primary"]

    def visit_Beside(self, e: n.Beside) -> tuple[str, int]:
        side = "left" if e.offset > 0 else "right"
        return f"{side} of {unparse_expr(e.player, _PREC['primary'])}", _PREC["primary"]

    def visit_Call(self, e: n.Call) -> tuple[str, int]:
        return f"{e.func}({', '.join(unparse_expr(a) for a in e.args)})", _PREC["primary"]

    def visit_BinOp(self, e: n.BinOp) -> tuple[str, int]:
        if e.op in _BIN_PREC:
            p = _BIN_PREC[e.op]
            left = unparse_expr(e.left, p)
            if _open_right(e.left):
                left = f"({left})"
            return f"{left} {e.op} {unparse_expr(e.right, p + 1)}", p
        return f"{unparse_expr(e.left, _PREC['sum'])} {e.op} {unparse_expr(e.right, _PREC['sum'])}", _PREC["cmp"]

    def visit_Not(self, e: n.Not) -> tuple[str, int]:
        return f"not {unparse_expr(e.operand, _PREC['not'])}", _PREC["not"]

    def visit_Negate(self, e: n.Negate) -> tuple[str, int]:
        return f"-{unparse_expr(e.operand, _PREC['unary'])}", _PREC["unary"]

    def visit_IfExpr(self, e: n.IfExpr) -> tuple[str, int]:
        return (f"if {unparse_expr(e.test, _PREC['or'])} then {unparse_expr(e.then)} otherwise {unparse_expr(e.otherwise)}",
                _PREC["full"])

    def visit_Shows(self, e: n.Shows) -> tuple[str, int]:
        return f"{unparse_expr(e.thing, _PREC['sum'])} shows {e.face}", _PREC["cmp"]

    def visit_Quantified(self, e: n.Quantified) -> tuple[str, int]:
        src = f" in {unparse_expr(e.source, _PREC['postfix'])}" if e.source is not None else ""
        pred = f"shows {e.face}" if e.face is not None else f"where {unparse_expr(e.condition, _PREC['or'])}"
        return f"{e.quantifier} {e.var}{src} {pred}", _PREC["not"]

    def visit_Showing(self, e: n.Showing) -> tuple[str, int]:
        return f"{unparse_expr(e.collection, _PREC['postfix'])} showing {e.face}", _PREC["postfix"]

    def visit_OtherThan(self, e: n.OtherThan) -> tuple[str, int]:
        return (f"{unparse_expr(e.collection, _PREC['postfix'])} other than {unparse_expr(e.excluded, _PREC['primary'])}",
                _PREC["postfix"])

    def visit_StartingWith(self, e: n.StartingWith) -> tuple[str, int]:
        return (f"{unparse_expr(e.collection, _PREC['postfix'])} starting with {unparse_expr(e.first, _PREC['primary'])}",
                _PREC["postfix"])

    def visit_Going(self, e: n.Going) -> tuple[str, int]:
        return (f"{unparse_expr(e.collection, _PREC['postfix'])} going {unparse_expr(e.direction, _PREC['primary'])}",
                _PREC["postfix"])

    def visit_Where(self, e: n.Where) -> tuple[str, int]:
        return f"{unparse_expr(e.collection, _PREC['or'])} where {unparse_expr(e.condition, _PREC['or'])}", _PREC["full"]

    def visit_WithBest(self, e: n.WithBest) -> tuple[str, int]:
        hl = "highest" if e.highest else "lowest"
        return f"{unparse_expr(e.collection, _PREC['or'])} with the {hl} {unparse_expr(e.key, _PREC['or'])}", _PREC["full"]

    # ---- types --------------------------------------------------------------------------------------

    def visit_NumberType(self, t: n.NumberType) -> str:
        if t.low is not None:
            return f"number from {unparse_expr(t.low, _PREC['sum'])} to {unparse_expr(t.high, _PREC['sum'])}"
        return "number"

    def visit_BoolType(self, t: n.BoolType) -> str:
        return "yes or no"

    def visit_PlayerType(self, t: n.PlayerType) -> str:
        return "player"

    def visit_ListType(self, t: n.ListType) -> str:
        return "list of numbers"

    def visit_EnumType(self, t: n.EnumType) -> str:
        return "one of " + ", ".join(t.choices)

    def visit_ZonesType(self, t: n.ZonesType) -> str:
        return f"zones from {unparse_expr(t.low, _PREC['sum'])} to {unparse_expr(t.high, _PREC['sum'])}" + (f" of {t.of}" if t.of else "")

    def visit_ZoneType(self, t: n.ZoneType) -> str:
        return "zone" + (f" of {t.of}" if t.of else "")

    # ---- statements ---------------------------------------------------------------------------------

    def visit_Set(self, s: n.Set, indent: int, pad: str) -> list[str]:
        return [f"{pad}set {unparse_expr(s.target, _PREC['primary'])} to {unparse_expr(s.value)}"]

    def visit_AddTo(self, s: n.AddTo, indent: int, pad: str) -> list[str]:
        return [f"{pad}add {unparse_expr(s.value, 1)} to {unparse_expr(s.target, _PREC['primary'])}"]

    def visit_SubtractFrom(self, s: n.SubtractFrom, indent: int, pad: str) -> list[str]:
        return [f"{pad}subtract {unparse_expr(s.value, 1)} from {unparse_expr(s.target, _PREC['primary'])}"]

    def visit_RemoveFrom(self, s: n.RemoveFrom, indent: int, pad: str) -> list[str]:
        return [f"{pad}remove {unparse_expr(s.value, 1)} from {unparse_expr(s.target, _PREC['primary'])}"]

    def visit_Clear(self, s: n.Clear, indent: int, pad: str) -> list[str]:
        return [f"{pad}clear {unparse_expr(s.target, _PREC['primary'])}"]

    def visit_Roll(self, s: n.Roll, indent: int, pad: str) -> list[str]:
        return [f"{pad}roll {unparse_expr(s.dice)}"]

    def visit_Play(self, s: n.Play, indent: int, pad: str) -> list[str]:
        return [f"{pad}play {s.phase}" + (f" for {unparse_expr(s.argument)}" if s.argument is not None else "")]

    def visit_PlayAgain(self, s: n.PlayAgain, indent: int, pad: str) -> list[str]:
        return [f"{pad}play again"]

    def visit_End(self, s: n.End, indent: int, pad: str) -> list[str]:
        return [f"{pad}end {s.name}"]

    def visit_Chooses(self, s: n.Chooses, indent: int, pad: str) -> list[str]:
        return [f"{pad}{unparse_expr(s.chooser, 1)} chooses {' or '.join(s.actions)}"]

    def visit_ChoosesTogether(self, s: n.ChoosesTogether, indent: int, pad: str) -> list[str]:
        return [f"{pad}each of {unparse_expr(s.choosers)} secretly chooses {' or '.join(s.actions)}"]

    def visit_Nothing(self, s: n.Nothing, indent: int, pad: str) -> list[str]:
        return [f"{pad}nothing"]

    def visit_Move(self, s: n.Move, indent: int, pad: str) -> list[str]:
        return [f"{pad}move {unparse_expr(s.cards)} to {unparse_expr(s.zone, _PREC['primary'])}{_FACING[s.facing]}"]

    def visit_Draw(self, s: n.Draw, indent: int, pad: str) -> list[str]:
        count = f" {unparse_expr(s.count, _PREC['sum'])}" if s.count is not None else ""
        return [f"{pad}draw{count} from {unparse_expr(s.source, _PREC['primary'])} "
                f"to {unparse_expr(s.target, _PREC['primary'])}{_FACING[s.facing]}"]

    def visit_Shuffle(self, s: n.Shuffle, indent: int, pad: str) -> list[str]:
        return [f"{pad}shuffle {unparse_expr(s.zone, _PREC['primary'])}"]

    def visit_Reveal(self, s: n.Reveal, indent: int, pad: str) -> list[str]:
        return [f"{pad}reveal {unparse_expr(s.cards)}"]

    def visit_Unavailable(self, s: n.Unavailable, indent: int, pad: str) -> list[str]:
        return [f'{pad}unavailable "{s.message}"']

    def visit_WhenBroken(self, s: n.WhenBroken, indent: int, pad: str) -> list[str]:
        cond = f" and {unparse_expr(s.condition, 1)}" if s.condition is not None else ""
        return self.block(f'when "{s.rule}" is broken{cond}', s.body, indent, pad)

    def visit_Require(self, s: n.Require, indent: int, pad: str) -> list[str]:
        return [f'{pad}require "{s.name}": {unparse_expr(s.condition)}']

    def visit_If(self, s: n.If, indent: int, pad: str) -> list[str]:
        out: list[str] = []
        for i, (c, b) in enumerate(s.branches):
            head = ("if " if i == 0 else "otherwise if ") + unparse_expr(c)
            out.extend(self.block(head, b, indent, pad))
        if s.otherwise:
            out.extend(self.block("otherwise", s.otherwise, indent, pad))
        return out

    def visit_Repeat(self, s: n.Repeat, indent: int, pad: str) -> list[str]:
        if s.kind == "times":
            head = f"repeat {unparse_expr(s.expr, 1)} times"
        elif s.kind == "forever":
            head = "repeat"
        else:
            head = f"repeat {s.kind} {unparse_expr(s.expr)}"
        return self.block(head, s.body, indent, pad)

    def visit_ForEach(self, s: n.ForEach, indent: int, pad: str) -> list[str]:
        head = f"for each {s.var}" + (f" in {unparse_expr(s.source)}" if s.source is not None else "")
        return self.block(head, s.body, indent, pad)

    def visit_RuleBlock(self, s: n.RuleBlock, indent: int, pad: str) -> list[str]:
        return self.block(f'rule "{s.name}"', s.body, indent, pad)

    # ---- declarations -------------------------------------------------------------------------------

    def visit_GameDecl(self, it: n.GameDecl) -> list[str]:
        return [f'game "{it.title}"']

    def visit_PlayersDecl(self, it: n.PlayersDecl) -> list[str]:
        return [f"players {it.low} to {it.high}"]

    def visit_OptionDecl(self, it: n.OptionDecl) -> list[str]:
        doc = f', "{it.doc}"' if it.doc else ""
        return [f"option {it.name}: {self.type_(it.type)} = {unparse_expr(it.default)}{doc}"]

    def visit_DiceDecl(self, it: n.DiceDecl) -> list[str]:
        faces = ", ".join(f.name + (f" {f.value}" if f.value else "") for f in it.faces)
        return [f"dice: {unparse_expr(it.count, _PREC['sum'])} with faces {faces}"]

    def visit_VarDecl(self, it: n.VarDecl) -> list[str]:
        who = "each player has" if it.scope == "player" else "the game has"
        vis = "" if it.visibility == "public" else it.visibility + " "
        init = f" = {unparse_expr(it.initial)}" if it.initial is not None else ""
        seen = f" seen by {unparse_expr(it.seen_by, _PREC['primary'])}" if it.seen_by is not None else ""
        return [f"{who} {vis}{it.name}: {self.type_(it.type)}{seen}{init}"]

    def visit_CardsDecl(self, it: n.CardsDecl) -> list[str]:
        parts = []
        for a in it.attrs:
            vals = ", ".join(str(v) + (f" x {k}" if k != 1 else "") for v, k in a.values)
            parts.append(f"{a.name} in {vals}")
        return [f"cards {it.name}: " + " and ".join(parts)]

    def visit_Define(self, it: n.Define) -> list[str]:
        params = "(" + ", ".join(f"{p}: {t}" for p, t in it.params) + ")" if it.params else ""
        return [f"define {it.name}{params}: {unparse_expr(it.expr)}"]

    def visit_BoardDecl(self, it: n.BoardDecl) -> list[str]:
        return [f"board: circles from {it.low} to {it.high}"] + ["  line " + ", ".join(map(str, ln)) for ln in it.lines]

    def visit_Score(self, it: n.Score) -> list[str]:
        return [f'score "{it.name}": {unparse_expr(it.expr)}']

    def visit_Winners(self, it: n.Winners) -> list[str]:
        return [f"winners: {unparse_expr(it.expr)}"]

    def visit_Presentation(self, it: n.Presentation) -> list[str]:
        lines = ["presentation:"]
        for e in it.entries:
            if e.kind == "log":
                lines.append(f'  log {e.name}: "{e.label}"')
                continue
            if e.kind == "about":
                lines.append(f'  about: "{e.label}"')
                continue
            if e.bound is not None:
                lines.append(f"  {e.kind} {e.name}: out of {e.bound}")
                continue
            head = f"  {e.kind} {e.name}" + (f" {e.param}" if e.param else "")
            if e.hidden:
                lines.append(f"{head}: hidden")
            else:
                lines.append(f'{head}: "{e.label}"' + (f', "{e.description}"' if e.description is not None else ""))
        return lines

    def visit_Phase(self, it: n.Phase) -> list[str]:
        head = f"phase {it.name}" + (f" for {it.param}" if it.param else "")
        return self.block(head, it.body, 0, "")

    def visit_Action(self, it: n.Action) -> list[str]:
        params = "(" + ", ".join(self.param(p) for p in it.params) + ")" if it.params else ""
        return self.block(f"action {it.name}{params}", it.body, 0, "")

    def param(self, p: n.Param) -> str:
        t = p.type
        if t.kind == "number":
            text = f"{p.name}: a number from {unparse_expr(t.low, _PREC['sum'])} to {unparse_expr(t.high, _PREC['sum'])}"
        elif t.kind == "choice":
            text = f"{p.name}: one of " + " or ".join(t.choices)
        else:
            text = f"{p.name}: {t.kind} {unparse_expr(t.source, _PREC['postfix'])}"
        return "secret " + text if p.secret else text


_WRITER = _Writer()


def unparse_items(items, with_origin: bool = True) -> str:
    out: list[str] = []
    prev_kind = None
    for it in items:
        kind = type(it).__name__
        lines = _WRITER.item(it)
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

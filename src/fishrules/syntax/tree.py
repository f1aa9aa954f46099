"""Lark's parse tree -> the syntax nodes of `fishrules.nodes`.

`Build` is a Lark transformer with one method per rule of `grammar.lark` (the rule's name, as Lark
calls it); each returns the node of that construct, with its `Span`.  It runs without recursion
(`Transformer_NonRecursive`), so a tree as deep as the guards allow converts safely.  A number too
large for the rules is reported here (`Build.diags`) and read as 0, so the rest of the file is
still read.
"""

from __future__ import annotations

from typing import Any

from lark import Token, v_args
from lark.visitors import Transformer_NonRecursive

from .. import nodes as n
from ..errors import Diagnostic, Source, Span
from ..limits import MAX_CARDS, MAX_NUMBER

__all__ = ["Build", "HELD"]

#: More digits than this cannot be a number within MAX_NUMBER (and int() of thousands of digits is
#: refused by Python itself), so a literal is measured before it is converted.
_MAX_DIGITS = len(str(MAX_NUMBER))

#: The name of a stand-in header (`fishrules.syntax.recovery`): the lines under a line that could not
#: be read are parsed under it, and the tree leaves it out with them.  No name in a file can hold a NUL.
HELD = "\x00held"


def _is_tok(x: Any) -> bool:
    return isinstance(x, Token)


@v_args(meta=True)
class Build(Transformer_NonRecursive):
    """Builds `nodes` from the Lark tree.  Literal keywords are filtered by Lark already."""

    def __init__(self, source: Source):
        super().__init__(visit_tokens=False)
        self.source = source
        self.diags: list[Diagnostic] = []

    def _int(self, tok: Token) -> int:
        """A whole number written in the rules, within ±MAX_NUMBER (0 after reporting one that is not)."""
        text = str(tok)
        if len(text) > _MAX_DIGITS or int(text) > MAX_NUMBER:
            shown = text if len(text) <= 24 else text[:20] + "…"
            self.diags.append(Diagnostic(self._tsp(tok), f"the number {shown} is too large",
                                         f"numbers in the rules are at most {MAX_NUMBER:,} (see the limits in the language reference)"))
            return 0
        return int(text)

    # positions
    def _sp(self, meta) -> Span | None:
        if getattr(meta, "empty", True):
            return None
        return Span(self.source, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tsp(self, tok: Token) -> Span:
        return Span(self.source, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))

    @staticmethod
    def _text(tok: Token) -> str:
        return str(tok)[1:-1]  # a STRING token, quotes removed

    # module
    def start(self, meta, items):
        return n.Module(tuple(i for i in items if i is not None), source=self.source)

    # The stand-in headers of lines that could not be read (see `fishrules.syntax.recovery`) are left out.
    @staticmethod
    def _held(x) -> bool:
        return (isinstance(x, Token) and x.endswith(HELD)) or (isinstance(x, n.Name) and x.name == HELD)

    # header
    def game_decl(self, meta, c):
        return n.GameDecl(self._text(c[0]), span=self._sp(meta))

    def players_decl(self, meta, c):
        return n.PlayersDecl(self._int(c[0]), self._int(c[1]), span=self._sp(meta))

    def extends_decl(self, meta, c):
        return n.Extends(self._text(c[0]), span=self._sp(meta))

    # declarations
    def option_decl(self, meta, c):
        name, type_, default, doc = c
        return n.OptionDecl(str(name), type_, default, self._text(doc) if doc else None, span=self._sp(meta))

    def t_number(self, meta, c):
        return n.NumberType(c[0], c[1], span=self._sp(meta))

    def t_bool(self, meta, c):
        return n.BoolType(span=self._sp(meta))

    def t_player(self, meta, c):
        return n.PlayerType(span=self._sp(meta))

    def t_list(self, meta, c):
        return n.ListType(span=self._sp(meta))

    def t_enum(self, meta, c):
        return n.EnumType(c[0], span=self._sp(meta))

    def t_zone(self, meta, c):
        return n.ZoneType(str(c[0]) if c[0] is not None else None, span=self._sp(meta))

    def t_zones(self, meta, c):
        lo, hi, of = c
        return n.ZonesType(lo, hi, str(of) if of is not None else None, span=self._sp(meta))

    def unavailable_stmt(self, meta, c):
        return n.Unavailable(self._text(c[0]), span=self._sp(meta))

    def broken_stmt(self, meta, c):
        name, cond, body = c
        return n.WhenBroken(self._text(name), cond, body, span=self._sp(meta))

    def cards_decl(self, meta, c):
        return n.CardsDecl(str(c[0]), tuple(c[1:]), span=self._sp(meta))

    def attr_values(self, meta, c):
        name, *values = c
        return n.CardAttr(str(name), tuple(values), span=self._sp(meta))

    def attr_range(self, meta, c):
        name, lo, hi = c
        low, high = self._int(lo), self._int(hi)
        if high - low + 1 > MAX_CARDS:
            # measured before the values are built: a range of a billion is refused at once
            self.diags.append(Diagnostic(self._sp(meta), f"`{name} from {low} to {high}` makes more than {MAX_CARDS:,} cards",
                                         f"a game has at most {MAX_CARDS:,} cards in all"))
            high = low
        return n.CardAttr(str(name), tuple((v, 1) for v in range(low, high + 1)), span=self._sp(meta))

    def card_value(self, meta, c):
        v, k = c
        value = self._int(v) if v.type == "INT" else str(v)
        return (value, self._int(k) if k is not None else 1)

    def name_list(self, meta, c):
        return tuple(str(t) for t in c)

    def dice_decl(self, meta, c):
        return n.DiceDecl(c[0], tuple(c[1:]), span=self._sp(meta))

    def face(self, meta, c):
        return n.Face(str(c[0]), self._int(c[1]) if c[1] is not None else 0, span=self._sp(meta))

    def _var(self, scope, meta, c):
        vis, name, type_, seen_by, init = c[0]
        return n.VarDecl(scope, str(name), type_, init, vis or "public", seen_by, span=self._sp(meta))

    def player_var(self, meta, c):
        return self._var("player", meta, c)

    def game_var(self, meta, c):
        return self._var("game", meta, c)

    def var_spec(self, meta, c):
        return tuple(c)

    def vis_public(self, meta, c):
        return "public"

    def vis_secret(self, meta, c):
        return "secret"

    def vis_hidden(self, meta, c):
        return "hidden"

    def vis_internal(self, meta, c):
        return "internal"

    def define_decl(self, meta, c):
        name, *rest = c
        expr = rest[-1]
        params = tuple(x for x in rest[:-1] if x is not None)
        return n.Define(str(name), expr, span=self._sp(meta), params=params)

    def define_param(self, meta, c):
        return (str(c[0]), str(c[1]))

    def board_decl(self, meta, c):
        lo, hi, *lines = c
        return n.BoardDecl(self._int(lo), self._int(hi), tuple(l for l, _ in lines), span=self._sp(meta),
                           line_spans=tuple(sp for _, sp in lines))

    def board_line(self, meta, c):
        return tuple(self._int(t) for t in c), self._sp(meta)

    def simultaneous_stmt(self, meta, c):
        who, *names = c
        names = [t for t in names if _is_tok(t) and t.type == "NAME"]
        return n.ChoosesTogether(who, tuple(str(t) for t in names), span=self._sp(meta),
                                 action_spans=tuple(self._tsp(t) for t in names))

    def phase_decl(self, meta, c):
        name, param, body = c
        if self._held(name):
            return None
        return n.Phase(str(name), str(param) if param is not None else None, body, span=self._sp(meta))

    def action_decl(self, meta, c):
        name, *rest = c
        body = rest[-1]
        params = tuple(p for p in rest[:-1] if p is not None)
        return n.Action(str(name), params, body, span=self._sp(meta))

    def param(self, meta, c):
        secret, name, type_ = c
        return n.Param(str(name), type_, secret is not None, span=self._sp(meta))

    def p_some(self, meta, c):
        return n.ParamType("some", c[0], span=self._sp(meta))

    def p_one_of(self, meta, c):
        return n.ParamType("one of", c[0], span=self._sp(meta))

    def p_choice(self, meta, c):
        return n.ParamType("choice", None, span=self._sp(meta), choices=tuple(str(t) for t in c))

    def p_number(self, meta, c):
        return n.ParamType("number", None, c[0], c[1], span=self._sp(meta))

    def score_decl(self, meta, c):
        name, expr = c
        return n.Score(self._text(name) if name is not None else "score", expr, span=self._sp(meta))

    def winners_decl(self, meta, c):
        return n.Winners(c[0], span=self._sp(meta))

    def variant_decl(self, meta, c):
        name, doc, *items = c
        return n.Variant(str(name), self._text(doc) if doc else None, tuple(i for i in items if i is not None),
                         span=self._sp(meta))

    # presentation
    def presentation_decl(self, meta, c):
        return n.Presentation(tuple(x for x in c if x is not None), span=self._sp(meta))

    def present_words(self, meta, c):
        kind, name, param, label, doc = c
        return n.PresentWords(str(kind), str(name), str(param) if param is not None else None, self._text(label),
                              self._text(doc) if doc is not None else None, span=self._sp(meta))

    def present_hidden(self, meta, c):
        kind, name = c
        return n.PresentWords(str(kind), str(name), hidden=True, span=self._sp(meta))

    def present_log(self, meta, c):
        name, text = c
        return n.PresentWords("log", str(name), label=self._text(text), span=self._sp(meta))

    def present_bound(self, meta, c):
        kind, name, bound = c
        return n.PresentWords(str(kind), str(name), bound=str(bound), span=self._sp(meta))

    def present_about(self, meta, c):
        return n.PresentWords("about", "", label=self._text(c[0]), span=self._sp(meta))

    # overlays
    def replace_decl(self, meta, c):
        return n.Replace(c[0], span=self._sp(meta))

    def rule_decl(self, meta, c):
        return n.RuleBlock(self._text(c[0]), c[1], span=self._sp(meta))

    def remove_decl(self, meta, c):
        kind, name = c
        value = self._text(name) if name.type == "STRING" else str(name)
        return n.Remove(str(kind), value, span=self._sp(meta))

    def add_rule_decl(self, meta, c):
        name, (where, anchor_kind, anchor), body = c
        rule = n.RuleBlock(self._text(name), body, span=self._sp(meta))
        return n.AddRule(rule, where, anchor_kind, anchor, span=self._sp(meta))

    def place_rule(self, meta, c):
        return (str(c[0]), "rule", self._text(c[1]))

    def place_block(self, meta, c):
        return (str(c[0]), str(c[1]), str(c[2]))

    # statements
    def block(self, meta, c):
        return tuple(s for s in c if s is not None)

    def set_stmt(self, meta, c):
        return n.Set(c[0], c[1], span=self._sp(meta))

    def add_stmt(self, meta, c):
        return n.AddTo(c[0], c[1], span=self._sp(meta))

    def subtract_stmt(self, meta, c):
        return n.SubtractFrom(c[0], c[1], span=self._sp(meta))

    def remove_stmt(self, meta, c):
        return n.RemoveFrom(c[0], c[1], span=self._sp(meta))

    def clear_stmt(self, meta, c):
        return n.Clear(c[0], span=self._sp(meta))

    def roll_stmt(self, meta, c):
        return n.Roll(c[1], span=self._sp(meta))

    def play_stmt(self, meta, c):
        return n.Play(str(c[0]), c[1], span=self._sp(meta))

    def again_stmt(self, meta, c):
        return n.PlayAgain(span=self._sp(meta))

    def end_stmt(self, meta, c):
        return n.End(str(c[0]), span=self._sp(meta))

    def choose_stmt(self, meta, c):
        who, *names = c
        names = [t for t in names if _is_tok(t) and t.type == "NAME"]
        return n.Chooses(
            who,
            tuple(str(t) for t in names),
            span=self._sp(meta),
            action_spans=tuple(self._tsp(t) for t in names),
        )

    def move_stmt(self, meta, c):
        return n.Move(c[0], c[1], c[2], span=self._sp(meta))

    def draw_stmt(self, meta, c):
        return n.Draw(c[0], c[1], c[2], c[3], span=self._sp(meta))

    def shuffle_stmt(self, meta, c):
        return n.Shuffle(c[0], span=self._sp(meta))

    def reveal_stmt(self, meta, c):
        return n.Reveal(c[0], span=self._sp(meta))

    def face_up(self, meta, c):
        return "up"

    def face_down(self, meta, c):
        return "down"

    def nothing_stmt(self, meta, c):
        return n.Nothing(span=self._sp(meta))

    def require_stmt(self, meta, c):
        return n.Require(self._text(c[0]), c[1], span=self._sp(meta))

    def if_stmt(self, meta, c):
        cond, body, *rest = c
        if self._held(cond):
            return None
        branches = [(cond, body)]
        otherwise: tuple = ()
        for r in rest:
            if r is None:
                continue
            if r[0] == "elif":
                branches.append((r[1], r[2]))
            else:
                otherwise = r[1]
        return n.If(tuple(branches), otherwise, span=self._sp(meta))

    def elif_clause(self, meta, c):
        return ("elif", c[0], c[1])

    def else_clause(self, meta, c):
        return ("else", c[0])

    def repeat_times(self, meta, c):
        return n.Repeat("times", c[0], c[1], span=self._sp(meta))

    def repeat_while(self, meta, c):
        return n.Repeat("while", c[0], c[1], span=self._sp(meta))

    def repeat_until(self, meta, c):
        return n.Repeat("until", c[0], c[1], span=self._sp(meta))

    def repeat_forever(self, meta, c):
        return n.Repeat("forever", None, c[0], span=self._sp(meta))

    def for_stmt(self, meta, c):
        var, source, body = c
        sp = self._sp(meta)
        if isinstance(source, tuple) and source and source[0] == "mods":
            mods = source[1]
            coll = None
            if mods:
                coll = n.Name(_PLURALS.get(str(var), str(var)), span=sp)
                for kind, arg, msp in mods:
                    coll = kind(coll, arg, span=msp)
            source = coll
        return n.ForEach(str(var), source, body, span=sp)

    def for_in(self, meta, c):
        return c[0]

    def for_mods(self, meta, c):
        return ("mods", list(c))

    def mod_other_than(self, meta, c):
        return (n.OtherThan, c[0], self._sp(meta))

    def mod_starting_with(self, meta, c):
        return (n.StartingWith, c[0], self._sp(meta))

    def mod_going(self, meta, c):
        return (n.Going, c[0], self._sp(meta))

    def mod_where(self, meta, c):
        return (n.Where, c[0], self._sp(meta))

    def rule_stmt(self, meta, c):
        if self._held(c[0]):
            return None
        return n.RuleBlock(self._text(c[0]), c[1], span=self._sp(meta))

    # expressions
    def where(self, meta, c):
        return n.Where(c[0], c[1], span=self._sp(meta))

    def with_best(self, meta, c):
        coll, hl, key = c
        return n.WithBest(coll, str(hl) == "highest", key, span=self._sp(meta))

    def cond(self, meta, c):
        return n.IfExpr(c[0], c[1], c[2], span=self._sp(meta))

    def or_(self, meta, c):
        return n.BinOp("or", c[0], c[1], span=self._sp(meta))

    def and_(self, meta, c):
        return n.BinOp("and", c[0], c[1], span=self._sp(meta))

    def not_(self, meta, c):
        return n.Not(c[0], span=self._sp(meta))

    def _quant(self, q, meta, c):
        var, source, pred = c
        face, condition = pred
        return n.Quantified(q, str(var), source, face, condition, span=self._sp(meta))

    def q_every(self, meta, c):
        return self._quant("every", meta, c)

    def q_any(self, meta, c):
        return self._quant("any", meta, c)

    def q_no(self, meta, c):
        return self._quant("no", meta, c)

    def qp_shows(self, meta, c):
        return (str(c[0]), None)

    def qp_where(self, meta, c):
        return (None, c[0])

    def compare(self, meta, c):
        return n.BinOp(str(c[1]), c[0], c[2], span=self._sp(meta))

    def equals(self, meta, c):
        return n.BinOp("=", c[0], c[1], span=self._sp(meta))

    def is_(self, meta, c):
        return n.BinOp("is", c[0], c[1], span=self._sp(meta))

    def is_not(self, meta, c):
        return n.BinOp("is not", c[0], c[1], span=self._sp(meta))

    def shows(self, meta, c):
        return n.Shows(c[0], str(c[1]), span=self._sp(meta))

    def member(self, meta, c):
        return n.BinOp("in", c[0], c[1], span=self._sp(meta))

    def not_member(self, meta, c):
        return n.BinOp("not in", c[0], c[1], span=self._sp(meta))

    def add(self, meta, c):
        return n.BinOp("+", c[0], c[1], span=self._sp(meta))

    def sub(self, meta, c):
        return n.BinOp("-", c[0], c[1], span=self._sp(meta))

    def mul(self, meta, c):
        return n.BinOp("*", c[0], c[1], span=self._sp(meta))

    def neg(self, meta, c):
        return n.Negate(c[0], span=self._sp(meta))

    def showing(self, meta, c):
        return n.Showing(c[0], str(c[1]), span=self._sp(meta))

    def other_than(self, meta, c):
        return n.OtherThan(c[0], c[1], span=self._sp(meta))

    def starting_with(self, meta, c):
        return n.StartingWith(c[0], c[1], span=self._sp(meta))

    def going(self, meta, c):
        return n.Going(c[0], c[1], span=self._sp(meta))

    def possessive(self, meta, c):
        return n.Possessive(c[0], str(c[2]), span=self._sp(meta))

    def attr_of(self, meta, c):
        return n.AttrOf(str(c[0]), c[1], span=self._sp(meta))

    def your(self, meta, c):
        return n.Your(str(c[0]), span=self._sp(meta))

    def left_of(self, meta, c):
        return n.Beside(1, c[0], span=self._sp(meta))

    def right_of(self, meta, c):
        return n.Beside(-1, c[0], span=self._sp(meta))

    def number(self, meta, c):
        return n.Number(self._int(c[0]), span=self._sp(meta))

    def string(self, meta, c):
        return n.Text(self._text(c[0]), span=self._sp(meta))

    def name(self, meta, c):
        return n.Name(str(c[0]), span=self._sp(meta))

    def yes(self, meta, c):
        return n.Boolean(True, span=self._sp(meta))

    def no(self, meta, c):
        return n.Boolean(False, span=self._sp(meta))

    def nobody(self, meta, c):
        return n.Nobody(span=self._sp(meta))

    def you(self, meta, c):
        return n.You(span=self._sp(meta))

    def it(self, meta, c):
        return n.It(span=self._sp(meta))

    def call(self, meta, c):
        func, *args = c
        args = [a for a in args if a is not None and not (_is_tok(a) and a.type in ("LPAR", "RPAR"))]
        return n.Call(str(func), tuple(args), span=self._sp(meta))

    def paren(self, meta, c):
        inner = [x for x in c if not _is_tok(x)]
        return inner[0]


#: `for each player other than x` iterates `players`; the singular names the collection.
_PLURALS = {"player": "players", "die": "dice"}

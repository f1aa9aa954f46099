"""Stage 1: .fish text -> syntax tree (`fishrules.nodes`).

One module-level LALR parser, built once from `grammar.lark` (shipped with the package), with
positions on every node.  Lark's exceptions are turned into `RuleError`s here and nowhere else, with
the expected tokens named the way they are written and hints for the usual slips.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.indenter import DedentError, Indenter

from . import nodes as n
from .errors import Diagnostic, RuleError, Source, Span, did_you_mean
from .limits import MAX_CARDS, MAX_NESTING, MAX_NUMBER, MAX_SOURCE_BYTES

__all__ = ["parse", "MAX_SOURCE_BYTES"]

#: More digits than this cannot be a number within MAX_NUMBER (and int() of thousands of digits is
#: refused by Python itself), so a literal is measured before it is converted.
_MAX_DIGITS = len(str(MAX_NUMBER))


class _FishIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR"]
    CLOSE_PAREN_types = ["RPAR"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


@functools.cache
def _parser() -> Lark:
    """The LALR parser.  Building its tables takes most of a second, so they are cached in a file
    named after the grammar, Lark's and Python's versions (a changed grammar is a new file): beside
    the package when that folder is writable (a checkout, an editable install), else in the user's
    cache folder, else nowhere (every process builds them, and still works)."""
    grammar = resources.files("fishrules").joinpath("grammar.lark").read_text(encoding="utf-8")
    options = dict(parser="lalr", postlex=_FishIndenter(), propagate_positions=True, maybe_placeholders=True)
    cache = _cache_file(grammar)
    if cache is None:
        return Lark(grammar, **options)
    quiet = logging.getLogger("lark")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # a cache that cannot be read or written is no error of the user's
    try:
        return Lark(grammar, cache=cache, **options)
    finally:
        quiet.setLevel(level)


def _cache_file(grammar: str) -> Optional[str]:
    import lark

    key = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}".encode()).hexdigest()[:16]
    name = f"_grammar-{key}.lark-cache"
    here = Path(__file__).resolve().parent
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fishrules"
    for folder in (here, home):
        if (folder / name).is_file():
            return str(folder / name)
    for folder in (here, home):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return str(folder / name)
    return None


# ---- tree -> nodes --------------------------------------------------------------------------------


def _is_tok(x: Any) -> bool:
    return isinstance(x, Token)


@v_args(meta=True)
class _Build(Transformer):
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
        return n.BoardDecl(self._int(lo), self._int(hi), tuple(lines), span=self._sp(meta))

    def board_line(self, meta, c):
        return tuple(self._int(t) for t in c)

    def simultaneous_stmt(self, meta, c):
        who, *names = c
        names = [t for t in names if _is_tok(t) and t.type == "NAME"]
        return n.ChoosesTogether(who, tuple(str(t) for t in names), span=self._sp(meta),
                                 action_spans=tuple(self._tsp(t) for t in names))

    def phase_decl(self, meta, c):
        name, param, body = c
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
        return n.Variant(str(name), self._text(doc) if doc else None, tuple(items), span=self._sp(meta))

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


# ---- errors -------------------------------------------------------------------------------------

_TOKEN_WORDS = {
    "NAME": "a name",
    "INT": "a whole number",
    "STRING": 'a text in double quotes',
    "_NL": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the indented block",
    "$END": "the end of the file",
    "POSS": "`'s`",
    "COMPARE": "a comparison such as `<`",
}

#: terminals that stand for a few keywords; each keyword is listed on its own
_TOKEN_CHOICES = {
    "HIGH_LOW": ("highest", "lowest"),
    "BEFORE_AFTER": ("before", "after"),
    "START_END": ("start", "end"),
    "PHASE_ACTION": ("phase", "action"),
    "REMOVABLE": ("phase", "action", "define", "option", "score", "rule"),
}

#: the words that start a line at the left edge of a file
_ITEM_WORDS = ("game", "players", "extends", "option", "dice", "each", "the", "define", "phase", "action",
               "score", "winners", "variant", "replace", "remove", "add")


def _describe(term: str) -> str:
    if term in _TOKEN_WORDS:
        return _TOKEN_WORDS[term]
    try:
        pattern = _parser().get_terminal(term).pattern
    except KeyError:
        return term.lower()
    if pattern.type == "str":
        return f"`{pattern.value}`"
    return term.lower()


def _expected(expected: set[str]) -> str:
    words = sorted({f"`{w}`" for e in expected if e in _TOKEN_CHOICES for w in _TOKEN_CHOICES[e]}
                   | {_describe(e) for e in expected if not e.startswith("__") and e not in _TOKEN_CHOICES})
    if not words:
        return ""
    if len(words) > 8:
        # A long list helps nobody; keep the punctuation and the structural words.
        keep = [w for w in words if w.startswith("`") and len(w) <= 4] + [w for w in words if not w.startswith("`")]
        words = (keep or words)[:8] + ["…"]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _open_paren_before(text: str, pos: int) -> tuple[int, int] | None:
    """The line and column of an unclosed `(` before `pos`, if any."""
    depth_stack: list[int] = []
    in_str = False
    in_comment = False
    for i, ch in enumerate(text[:pos]):
        if in_comment:
            if ch == "\n":
                in_comment = False
            continue
        if ch == '"':
            in_str = not in_str
        elif in_str:
            if ch == "\n":
                in_str = False
        elif ch == "#":
            in_comment = True
        elif ch == "(":
            depth_stack.append(i)
        elif ch == ")" and depth_stack:
            depth_stack.pop()
    if not depth_stack:
        return None
    i = depth_stack[-1]
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return line, col


def _syntax_error(exc: UnexpectedInput, source: Source) -> Diagnostic:
    text = source.text
    line = getattr(exc, "line", None) or 1
    col = getattr(exc, "column", None) or 1
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        hint = None
        if ch == "'":
            hint = 'texts are written in double quotes, like "this"; `\'s` must follow a name directly'
        elif ch == "=" and text[exc.pos_in_stream:exc.pos_in_stream + 2] == "==":
            hint = "compare with a single `=` (or `is`)"
        elif ch in "{}[];":
            hint = "blocks are written by indenting the lines under a line that ends in `:`"
        elif ch == "/":
            hint = "there is no division; whole numbers only"
        elif ch == '"':
            hint = 'a text in double quotes must end, with another `"`, on the same line'
        span = Span(source, line, col, line, col + 1)
        return Diagnostic(span, f"unexpected character {ch!r}", hint)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        expected = getattr(exc, "accepts", None) or getattr(exc, "expected", None) or set()
        open_at = _open_paren_before(text, len(text))
        last = max(1, len(text.rstrip("\n").splitlines()))
        span = Span(source, last, 1, last, 1)
        hint = None
        if "_INDENT" in expected:
            hint = "a line ending in `:` must be followed by at least one indented line"
        if open_at:
            hint = f"you probably forgot to close the `(` opened at line {open_at[0]}, column {open_at[1]}"
            span = Span(source, open_at[0], open_at[1], open_at[0], open_at[1] + 1)
        return Diagnostic(span, "the file ends too early" + (f"; expected {_expected(set(expected))}" if expected else ""), hint)
    assert isinstance(exc, UnexpectedToken)
    tok = exc.token
    # `accepts` is what the parser can really take here; `expected` also lists tokens that the
    # state would only reduce on before failing, which made the "expected …" lists misleading.
    expected = set(getattr(exc, "accepts", None) or exc.expected or ())
    tline = tok.line or line
    tcol = tok.column or col
    width = max(1, len(str(tok))) if tok.type not in ("_NL", "_INDENT", "_DEDENT") else 1
    span = Span(source, tline, tcol, tline, tcol + width)
    hint = None
    if tok.type == "_INDENT":
        # The indenter gives _INDENT the position of the newline before it; its end is where the
        # over-indented line starts.
        if tok.end_line:
            span = Span(source, tok.end_line, tok.end_column, tok.end_line, tok.end_column + 1)
        msg = "this line is indented more than the line before it"
        hint = "only the lines under a line ending in `:` are indented"
    elif "_INDENT" in expected and tok.type not in ("_DEDENT", "_NL"):
        # A block header followed by a line at the same indentation: point at the header.
        prev = (getattr(exc, "token_history", None) or [None])[-1]
        hline = prev.line if prev is not None and prev.line else _previous_code_line(text, tline)
        htext = source.line(hline).rstrip()
        span = Span(source, hline, len(htext) + 1, hline, len(htext) + 2)
        msg = "nothing is indented under this line"
        hint = "a line ending in `:` must be followed by at least one indented line"
    elif tok.type == "_DEDENT":
        msg = "the indented block ends too early"
        if "_INDENT" in expected:
            hint = "a line ending in `:` must be followed by at least one indented line"
    elif tok.type == "_NL":
        # Point at the end of the line where something is missing.
        src_line = source.line(tline)
        span = Span(source, tline, len(src_line.rstrip()) + 1, tline, len(src_line.rstrip()) + 2) if src_line else span
        if tok.line is not None and tok.line > 0:
            # the _NL token starts at the end of the offending line
            src_line = source.line(tok.line)
            span = Span(source, tok.line, len(src_line.rstrip()) + 1, tok.line, len(src_line.rstrip()) + 2)
        msg = "this line ends too early"
        if expected:
            msg += f"; expected {_expected(expected)}"
        if "COLON" in expected:
            hint = "a line that starts a block (phase, action, if, repeat, for each, rule) ends with `:`"
        open_at = _open_paren_before(text, tok.start_pos or 0)
        if open_at:
            hint = f"you probably forgot to close the `(` opened at line {open_at[0]}, column {open_at[1]}"
        return Diagnostic(span, msg, hint)
    else:
        shown = str(tok)
        msg = f"unexpected `{shown}`"
        if expected:
            msg += f"; expected {_expected(expected)}"
        if tok.type == "COLON" and "_NL" in expected:
            hint = "only lines that start a block end with `:`"
        elif tok.type == "NAME" and "COLON" in expected:
            hint = "names are single words; join words with `_`, as in `fish_limit`"
        elif "$END" in expected and tok.type != "COLON" and tok.column == 1:
            msg = f"unexpected `{shown}` at the start of a line"
            hint = did_you_mean(shown, _ITEM_WORDS) or (
                "a line at the left edge starts with " + ", ".join(f"`{w}`" for w in _ITEM_WORDS[:-1]) + " or `add rule`;"
                " the lines of a phase or an action are indented under it")
        elif shown == "=" and text[(tok.start_pos or 1) - 1:(tok.start_pos or 0) + 1] == "==":
            msg = "unexpected `==`"
            span = Span(source, tline, tcol - 1, tline, tcol + 1)
            hint = "compare with a single `=`, or `is`, as in `count(dice) is 2`"
        if "RPAR" in expected:
            open_at = _open_paren_before(text, tok.start_pos or 0)
            # only when the rest of the line does not close it either
            end = text.find("\n", tok.start_pos or 0)
            if open_at and _open_paren_before(text, len(text) if end < 0 else end) == open_at:
                hint = f"you probably forgot to close the `(` opened at line {open_at[0]}, column {open_at[1]}"
    return Diagnostic(span, msg, hint)


def _previous_code_line(text: str, before: int) -> int:
    """The last line before line `before` that holds more than blanks and a comment."""
    lines = text.splitlines()
    for i in range(min(before - 1, len(lines)), 0, -1):
        stripped = lines[i - 1].strip()
        if stripped and not stripped.startswith("#"):
            return i
    return max(1, before - 1)


def parse(text: str, filename: str = "<rules>") -> n.Module:
    """Parse one .fish file.  Raises `RuleError` (never a Lark exception) on bad input."""
    source = Source(filename, text)
    if len(text) > MAX_SOURCE_BYTES or len(text.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        raise RuleError(Diagnostic(Span(source, 1, 1, 1, 1), f"the rule file is larger than {MAX_SOURCE_BYTES // 1024} KiB",
                                   "split it: a house rule can `extends` the file it changes"))
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise RuleError(Diagnostic(Span(source, line, 1, line, 2), "the file holds a NUL character: it is not a text file"))
    if "\t" in text:
        for i, line in enumerate(text.splitlines(), 1):
            stripped = line.lstrip(" \t")
            if "\t" in line[: len(line) - len(stripped)]:
                raise RuleError(
                    Diagnostic(
                        Span(source, i, 1, i, 2),
                        "a tab in the indentation",
                        "indent with spaces only, so the blocks line up the same for everybody",
                    )
                )
    deep = _bracket_too_deep(text)
    if deep is not None:
        line, col = deep
        raise RuleError(Diagnostic(Span(source, line, col, line, col + 1),
                                   f"brackets are nested more than {MAX_NESTING} deep here",
                                   "name a part with `define` to flatten it"))
    if not text.endswith("\n"):
        text = text + "\n"
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise RuleError(_syntax_error(exc, source)) from None
    except DedentError:
        line = _dedent_line(text)
        raise RuleError(
            Diagnostic(
                Span(source, line, 1, line, 2),
                "this line's indentation does not match any line above it",
                "line it up with the block it belongs to",
            )
        ) from None
    # Every later stage walks the tree recursively, so its depth is bounded here, before any walk.
    too_deep = _too_deep(tree)
    if too_deep is not None:
        line, col = too_deep
        raise RuleError(Diagnostic(Span(source, line, col, line, col + 1),
                                   f"the rules are nested more than {MAX_NESTING} deep here",
                                   "blocks inside blocks and brackets inside brackets count together; "
                                   "name a part with `define` to flatten it"))
    build = _Build(source)
    try:
        module = build.transform(tree)
    except VisitError as exc:  # pragma: no cover - a bug in _Build, not in the input
        raise exc.orig_exc from None
    if build.diags:
        raise RuleError(build.diags)
    return module


def _bracket_too_deep(text: str) -> tuple[int, int] | None:
    """The line and column of the first `(` nested more than MAX_NESTING deep, or None.  Brackets
    leave no trace in the tree (they only group), so they are counted in the text."""
    if text.count("(") <= MAX_NESTING:
        return None
    depth, line, start, in_str, in_comment = 0, 1, 0, False, False
    for i, ch in enumerate(text):
        if ch == "\n":
            line, start, in_str, in_comment = line + 1, i + 1, False, False
        elif in_comment:
            continue
        elif ch == '"':
            in_str = not in_str
        elif in_str:
            continue
        elif ch == "#":
            in_comment = True
        elif ch == "(":
            depth += 1
            if depth > MAX_NESTING:
                return line, i - start + 1
        elif ch == ")" and depth:
            depth -= 1
    return None


def _too_deep(tree: Tree) -> tuple[int, int] | None:
    """The line and column of the first node deeper than MAX_NESTING, or None (iterative: the
    tree may be as deep as the file is long)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            if getattr(meta, "empty", True):
                return 1, 1
            return meta.line, meta.column
        for child in reversed(node.children):  # leftmost first: report where the nesting starts
            if isinstance(child, Tree):
                stack.append((child, depth + 1))
    return None


def _dedent_line(text: str) -> int:
    """Best guess at the line whose dedent does not match an open indentation level."""
    levels = [0]
    depth = 0
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        depth += line.count("(") - line.count(")")
        indent = len(line) - len(line.lstrip(" "))
        if indent > levels[-1]:
            levels.append(indent)
        else:
            while indent < levels[-1]:
                levels.pop()
            if indent != levels[-1]:
                return i
    return 1

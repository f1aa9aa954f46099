"""Stage 1: .fish text -> syntax tree (`fishrules.nodes`).

One module-level LALR parser, built once from `grammar.lark` (shipped with the package), with
positions on every node.  Lark's exceptions are turned into `RuleError`s here and nowhere else, with
the expected tokens named the way they are written and hints for the usual slips.
"""

from __future__ import annotations

import bisect
import copy
import functools
import hashlib
import logging
import os
import re
import stat
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Optional

import attrs
from lark import Lark, Token, Tree, v_args
from lark.visitors import Transformer_NonRecursive
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.indenter import DedentError, Indenter
from lark.parsers.lalr_interactive_parser import InteractiveParser

from . import nodes as n
from .errors import Diagnostic, RuleError, Source, Span, did_you_mean
from .limits import MAX_CARDS, MAX_NESTING, MAX_NUMBER, MAX_SOURCE_BYTES

__all__ = ["parse", "parse_partial", "Parsed", "MAX_SOURCE_BYTES", "MAX_SYNTAX_ERRORS"]

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
    cache folder, else nowhere (every process builds them, and still works).  Lark reads the cache
    with `pickle`, which runs code as it reads: see `_private`."""
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


def _cache_name(grammar: str) -> str:
    import lark

    key = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}".encode()).hexdigest()[:16]
    return f"_grammar-{key}.lark-cache"


def _cache_folders() -> tuple[Path, ...]:
    """Where the parser's tables may be cached, in order: beside the package, the user's cache."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fishrules"
    return Path(__file__).resolve().parent, home


def _cache_file(grammar: str) -> Optional[str]:
    """The cache file of the parser's tables to read (if it is there) or write, or None.  Only a
    file and a folder nobody but this user could have written are used (`_private`)."""
    name = _cache_name(grammar)
    folders = _cache_folders()
    for folder in folders:
        if (folder / name).is_file() and _private(folder) and _private(folder / name):
            return str(folder / name)
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK) and _private(folder) and not os.path.lexists(folder / name):
            return str(folder / name)
    return None


def _private(path: Path) -> bool:
    """Whether nobody but this user (or root) can have written `path`: it is not a symbolic link,
    it belongs to this user or root, and neither its group nor others may write it.  Lark reads its
    cache with `pickle`, which runs any code the file holds, so a cache file anybody else could have
    planted or changed (in a shared cache folder, a folder writable by a group) is neither read nor
    written (a link planted there would send the write elsewhere): the tables are built afresh."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    getuid = getattr(os, "getuid", None)  # (not on Windows, where the bits above are all there is)
    return getuid is None or st.st_uid in (getuid(), 0)


# ---- tree -> nodes --------------------------------------------------------------------------------


def _is_tok(x: Any) -> bool:
    return isinstance(x, Token)


@v_args(meta=True)
class _Build(Transformer_NonRecursive):
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

    # The stand-in headers of lines that could not be read (see `_Recovering.hold`) are left out.
    @staticmethod
    def _held(x) -> bool:
        return (isinstance(x, Token) and x.endswith(_HELD)) or (isinstance(x, n.Name) and x.name == _HELD)

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


def _open_paren_before(text: str, pos: int, since: int = 0) -> tuple[int, int] | None:
    """The line and column of an unclosed `(` between `since` and `pos`, if any."""
    depth_stack: list[int] = []
    in_str = False
    in_comment = False
    for i, ch in enumerate(text[since:pos], since):
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


def _code_end(line: str) -> int:
    """The length of a line without its trailing comment and blanks."""
    in_str = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_str = not in_str
        elif ch == "#" and not in_str:
            return len(line[:i].rstrip())
    return len(line.rstrip())


def _syntax_error(exc: UnexpectedInput, source: Source, since: int = 0) -> Diagnostic:
    """The diagnostic of a Lark exception; `since` is where the logical line with the error starts
    (a bracket left open before it is another error's)."""
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
        open_at = _open_paren_before(text, len(text), since)
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
        hend = _code_end(source.line(hline))
        span = Span(source, hline, hend + 1, hline, hend + 2)
        msg = "nothing is indented under this line"
        hint = "a line ending in `:` must be followed by at least one indented line"
    elif tok.type == "_DEDENT":
        msg = "the indented block ends too early"
        if "_INDENT" in expected:
            hint = "a line ending in `:` must be followed by at least one indented line"
    elif tok.type == "_NL":
        # Point at the end of the line where something is missing.
        src_line = source.line(tline)
        span = Span(source, tline, _code_end(src_line) + 1, tline, _code_end(src_line) + 2) if src_line else span
        if tok.line is not None and tok.line > 0:
            # the _NL token starts at the end of the offending line
            src_line = source.line(tok.line)
            span = Span(source, tok.line, _code_end(src_line) + 1, tok.line, _code_end(src_line) + 2)
        msg = "this line ends too early"
        if expected:
            msg += f"; expected {_expected(expected)}"
        if "COLON" in expected:
            hint = "a line that starts a block (phase, action, if, repeat, for each, rule) ends with `:`"
        open_at = _open_paren_before(text, tok.start_pos or 0, since)
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
            open_at = _open_paren_before(text, tok.start_pos or 0, since)
            # only when the rest of the line does not close it either
            end = text.find("\n", tok.start_pos or 0)
            if open_at and _open_paren_before(text, len(text) if end < 0 else end, since) == open_at:
                hint = f"you probably forgot to close the `(` opened at line {open_at[0]}, column {open_at[1]}"
    return Diagnostic(span, msg, hint)


# ---- habits from word processors and other languages ---------------------------------------------

#: (pattern, what it is, what to write).  Each is looked for in the code of a line (outside texts in
#: straight quotes and comments); on a line with a syntax error, it is the one error reported there.
_HABITS: tuple[tuple[re.Pattern, str, str], ...] = (
    (re.compile("[\u201c\u201d\u201e\u201f\u00ab\u00bb]"),
     "curly quotes `{m}`: a text is written in straight double quotes",
     'write `"` instead (a word processor curls quotes as you type: write rules in a plain text editor)'),
    (re.compile("[\u2018\u2019\u201b\u00b4`]"),
     "a curly apostrophe `{m}`",
     "write a straight one, `'` (as in `roller's catch`; a word processor curls them as you type)"),
    (re.compile("[\u2013\u2014\u2212]"),
     "a dash `{m}`: fishrules reads only the plain minus sign `-`",
     "for a range of players write `players 2 to 6`; for a minus, type `-`"),
    (re.compile("[\u00a0\u2007\u202f\u200b\u2060\ufeff]"),
     "an invisible space that is not a plain space (a non-breaking or zero-width space)",
     "delete it and type a plain space (word processors and web pages put them in)"),
    (re.compile("\u2026"), "an ellipsis character `\u2026`", "write what it stands for; `\u2026` is no word of the rules"),
    (re.compile(r"^\s*(?:replace\s+)?option\s+(\w+)\s*(?P<at>=)(?!=)"),
     "an option is written whole: its kind, then its default",
     "write `replace option {1}: number from 1 to 100 = \u2026` with its kind as the ruleset it extends has it "
     "(`fishrules explain` prints it); for one game only, `--option {1}=\u2026`"),
    (re.compile(r"\belif\b|\belse\s+if\b"), "`{m}` is written `otherwise if`",
     "write `otherwise if CONDITION:`"),
    (re.compile(r"\belse\b"), "`else` is written `otherwise`",
     "write `if CONDITION then A otherwise B` in a formula, and `otherwise:` under an `if` block"),
    (re.compile(r"&&|\|\|"), "`{m}` is written as a word", "write `and` for `&&`, `or` for `||`"),
    (re.compile(r"!(?!=)"), "`!` is written as a word", "write `not`, as in `if not done:` (`!=` is fine)"),
    (re.compile(r"//"), "comments start with `#`", "write `# \u2026` instead of `// \u2026`"),
    (re.compile(r"^\s+(\w+(?:'s\s+\w+)?)\s*(?P<at>(\+|-)=)"), "`{3}=` is written in words",
     "write `add \u2026 to {1}` or `subtract \u2026 from {1}`"),
    (re.compile(r"^\s+(?!if\b|require\b|repeat\b|set\b)(\w+(?:'s\s+\w+)?)\s*(?P<at>=)(?!=)"),
     "a value is changed with `set`",
     "write `set {1} to \u2026` (`=` compares two values, as in `if {1} = 3:`)"),
)


def _code_parts(line: str):
    """The parts of a line that are code: (column, text), outside texts in straight quotes and the
    comment."""
    parts, start, in_str = [], 0, False
    for i, ch in enumerate(line):
        if ch == '"':
            if not in_str:
                parts.append((start, line[start:i]))
            in_str = not in_str
            start = i + 1
        elif ch == "#" and not in_str:
            parts.append((start, line[start:i]))
            return parts
    if not in_str:
        parts.append((start, line[start:]))
    return parts


def habit_of(line: str) -> Optional[tuple[int, int, str, str]]:
    """A habit from a word processor or another language on a line of rules: (column, width,
    message, hint), or None."""
    for pattern, message, hint in _HABITS:
        for col, code in _code_parts(line):
            whole = pattern.pattern.startswith("^")
            if whole and col != 0:
                continue
            m = pattern.search(line if whole else code)
            if m is None:
                continue
            point = "at" if "at" in pattern.groupindex else 0
            at = m.start(point) + (0 if whole else col)
            width = max(1, len(m.group(point)))
            groups = [m.group(0).strip()] + [g or "" for g in m.groups()]
            return at + 1, width, message.format(*groups, m=groups[0]), hint.format(*groups, m=groups[0])
    return None


def _habits(errors: list[Diagnostic], source: Source) -> list[Diagnostic]:
    """The syntax errors of a file, each line with a habit of another language reported once, as
    that habit, with what to write (code `habit`)."""
    out, done = [], set()
    for d in errors:
        line = d.span.line if d.span is not None else 0
        if line in done:
            continue
        found = habit_of(source.line(line)) if line else None
        if found is None:
            out.append(d)
            continue
        col, width, message, hint = found
        done.add(line)
        out.append(Diagnostic(Span(source, line, col, line, col + width), message, hint, code="habit"))
    return out


def _previous_code_line(text: str, before: int) -> int:
    """The last line before line `before` that holds more than blanks and a comment."""
    lines = text.splitlines()
    for i in range(min(before - 1, len(lines)), 0, -1):
        stripped = lines[i - 1].strip()
        if stripped and not stripped.startswith("#"):
            return i
    return max(1, before - 1)


@attrs.frozen(slots=True)
class Parsed:
    """A file parsed as far as it could be: the tree of every part that could be read, the syntax
    errors of the others (in order; empty for a good file), and the names the left-out lines
    declared (`lost`), so that later stages can leave out the errors that only follow from them."""

    module: n.Module
    errors: tuple[Diagnostic, ...] = ()
    lost: frozenset = frozenset()


def parse(text: str, filename: str = "<rules>") -> n.Module:
    """Parse one .fish file.  Raises `RuleError` (never a Lark exception) on bad input, holding
    every syntax error of the file."""
    parsed = parse_partial(text, filename)
    if parsed.errors:
        raise RuleError(list(parsed.errors))
    return parsed.module


def parse_partial(text: str, filename: str = "<rules>") -> Parsed:
    """Parse one .fish file, going on after syntax errors: every syntax error is reported once, in
    order (at most MAX_SYNTAX_ERRORS), and the tree holds the rest of the file.  A file too large,
    not text, indented with tabs or nested too deeply still raises `RuleError` at once."""
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
    errors: list[Diagnostic] = []
    lost: frozenset = frozenset()
    try:
        tree = _parser().parse(text)
    except (UnexpectedInput, DedentError):
        # The good files take Lark's own loop; a bad one is parsed again, going on after each error.
        tree, errors, lost = _Recovering(text, source).run()
    # Later stages walk the tree recursively, so its depth is bounded here, before any walk (this
    # one, and the tree's conversion to nodes, are iterative).
    too_deep = _too_deep(tree)
    if too_deep is not None:
        line, col = too_deep
        raise RuleError(Diagnostic(Span(source, line, col, line, col + 1),
                                   f"the rules are nested more than {MAX_NESTING} deep here",
                                   f"blocks may be nested {MAX_NESTING} deep, and so may the parts of an expression; "
                                   "name a part with `define` to flatten it"))
    build = _Build(source)
    try:
        module = build.transform(tree)
    except VisitError as exc:  # pragma: no cover - a bug in _Build, not in the input
        raise exc.orig_exc from None
    return Parsed(module, tuple(sorted(_habits(errors, source) + build.diags, key=Diagnostic.sort_key)), lost)


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


#: The rules of the grammar that nest: a block (a level of indentation), and every operator of an
#: expression.  Blocks and the operators of one expression are counted apart, each up to
#: MAX_NESTING; the grammar's other rules (a clause, a parameter) sit a bounded number of levels
#: apart, so the depth of every recursive walk of the rules stays bounded.
_EXPRESSIONS = frozenset({
    "where", "with_best", "cond", "or_", "and_", "not_", "q_every", "q_any", "q_no", "compare", "equals",
    "is_", "is_not", "shows", "member", "not_member", "add", "sub", "mul", "neg", "showing", "other_than",
    "starting_with", "going", "possessive", "attr_of", "your", "left_of", "right_of", "call",
})


def _too_deep(tree: Tree) -> tuple[int, int] | None:
    """The line and column of the first block, or operator of an expression, nested more than
    MAX_NESTING deep, or None (iterative: the tree may be as deep as the file is long)."""
    stack = [(tree, 0, 0)]
    while stack:
        node, blocks, ops = stack.pop()
        if node.data == "block" or node.data == "variant_decl":
            blocks += 1
        elif node.data in _EXPRESSIONS:
            ops += 1
        if blocks > MAX_NESTING or ops > MAX_NESTING:
            meta = node.meta
            if getattr(meta, "empty", True):
                return 1, 1
            return meta.line, meta.column
        for child in reversed(node.children):  # leftmost first: report where the nesting starts
            if isinstance(child, Tree):
                stack.append((child, blocks, ops))
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


# ---- recovering from syntax errors ---------------------------------------------------------------

#: A file with more syntax errors than this shows these and stops (the rest are most likely one
#: mistake repeated, or not a rule file at all).
MAX_SYNTAX_ERRORS = 50

#: The first words of a line that declares something, and what the checker hears about when that
#: line could not be read: its name, so that uses of it are not reported as unknown as well.
_DECLARES = re.compile(
    r"(?:replace\s+|add\s+)?(?:(phase|action|define|option|cards|tiles|tokens)\s+([A-Za-z_]\w*)"
    r"|(?:each\s+player|the\s+game)\s+has\s+(?:(?:public|secret|hidden|internal)\s+)?([A-Za-z_]\w*)"
    r'|(?:rule|require)\s+"([^"\n]*)"'
    r"|(game|players|dice|board|winners|extends)\b)")
_IF = re.compile(r"(?:if|otherwise)\b")
#: The name of a stand-in header (`_Recovering.hold`): no name in a file can hold a NUL.
_HELD = "\x00held"
_OTHERWISE = re.compile(r"otherwise\b")


def _at(exc) -> int:
    """Where in the text a Lark exception is."""
    if isinstance(exc, UnexpectedToken):
        return exc.token.start_pos or 0
    return getattr(exc, "pos_in_stream", 0) or 0


class _Recovering:
    """The parse of a file with syntax errors: every error reported once, in order, and a tree of
    everything else.

    It runs Lark's own LALR tables through its interactive parser, feeding it the contextual
    lexer's tokens through the same indentation rules as `_FishIndenter` (kept here, so that the
    indentation can be picked up again after an error).  On an error, the broken line is taken
    back off the parser's stacks (the values it shifted), the rest of the line and every line
    indented under it are skipped, and parsing goes on at the next line of the same indentation or
    less: a broken statement is left out of its block (a block left empty holds `nothing`), a broken
    declaration is left out of the file, and the names it declared are noted (`lost`) so that later
    stages do not report their uses as a second error.  A line that cannot follow the one left out
    (an `otherwise` after a broken `if`) is skipped without a second report.
    """

    def __init__(self, text: str, source: Source):
        self.text = text
        self.source = source
        lark = _parser()
        ip = lark.parse_interactive(text)
        self.ip = ip
        self.ps = ip.parser_state
        self.lstate = ip.lexer_thread.state
        self.lexer = ip.lexer_thread.lexer.lexer  # the contextual lexer, under the indenter
        conf = copy.copy(self.ps.parse_conf)
        conf.callbacks = {}
        self.quiet_conf = conf  # for trial feeds: no callbacks, no trees built
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.diags: list[Diagnostic] = []
        self.lost: set[str] = set()
        self.indent = [0]
        self.paren = 0
        self.line_start: Optional[int] = None  # where the logical line being fed starts
        self.prev_start: Optional[int] = None  # where the logical line before it started
        self.last: Optional[Token] = None  # the last token fed
        self.gaveup = False
        self.braces = 0  # blocks opened with `{` (reported): their `}` is no second error

    # ---- the parser ------------------------------------------------------------------------------

    def accepts(self, ttype: str) -> bool:
        trial = self.ps.copy(deepcopy_values=False)
        trial.parse_conf = self.quiet_conf
        try:
            trial.feed_token(Token(ttype, ""), ttype == "$END")
        except UnexpectedToken:
            return False
        return True

    def feed(self, tok: Token) -> None:
        self.ps.feed_token(tok, tok.type == "$END")
        self.last = tok

    def exception(self, tok: Token) -> UnexpectedToken:
        """The exception Lark raises for `tok` here, with what the parser accepts, for the message."""
        states = self.ps.parse_conf.states
        expected = {s for s in states[self.ps.position] if s.isupper()}
        ip = InteractiveParser(self.ip.parser, self.ps.copy(deepcopy_values=False), self.ip.lexer_thread)
        return UnexpectedToken(tok, expected, state=self.ps, interactive_parser=ip)

    def report(self, exc, since: Optional[int] = None) -> None:
        if since is None:
            since = self.line_start if self.line_start is not None else self.starts[self.line_of(_at(exc)) - 1]
        if len(self.diags) >= MAX_SYNTAX_ERRORS:
            d = _syntax_error(exc, self.source, since)
            self.diags.append(Diagnostic(d.span, "more syntax errors follow; fix these first",
                                         f"fishrules shows the first {MAX_SYNTAX_ERRORS} syntax errors of a file"))
            self.gaveup = True
            return
        self.diags.append(_syntax_error(exc, self.source, since))

    # ---- positions ------------------------------------------------------------------------------------

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def indent_of(self, line: int) -> Optional[int]:
        """The indentation of a physical line, or None for a blank line or a comment."""
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        s = self.text[start:end]
        body = s.lstrip(" \t\f")
        if not body.strip() or body.startswith("#"):
            return None
        return len(s) - len(body)

    def resume_line(self, first: int, base: int) -> Optional[int]:
        """The first line from `first` on that holds code indented `base` or less (None: none)."""
        for line in range(first, len(self.starts) + 1):
            if line - 1 >= len(self.starts) or self.starts[line - 1] >= len(self.text):
                return None
            ind = self.indent_of(line)
            if ind is not None and ind <= base:
                return line
        return None

    def note_lost(self, pos: int) -> None:
        """Note the names the line starting at `pos` declares, since it is left out."""
        m = _DECLARES.match(self.text, pos)
        if m is None:
            return
        kind, name, var, rule, word = m.groups()
        if name:
            self.lost.add(name)
            self.lost.add(f"{kind} {name}")
        elif var:
            self.lost.add(var)
        elif rule is not None:
            self.lost.add(rule)
        elif word:
            self.lost.add(word)

    def pop_from(self, pos: int) -> None:
        """Take every value shifted from `pos` on back off the parser's stacks."""
        vs, ss = self.ps.value_stack, self.ps.state_stack
        k = len(vs)
        while k > 0:
            v = vs[k - 1]
            if isinstance(v, Token):
                at = v.start_pos
            elif isinstance(v, Tree) and not getattr(v.meta, "empty", True):
                at = v.meta.start_pos
            else:
                at = None
            if at is not None and at < pos:
                break
            k -= 1
        del vs[k:]
        del ss[k + 1:]

    # ---- the main loop -------------------------------------------------------------------------

    def run(self) -> tuple[Tree, list[Diagnostic], frozenset]:
        self.lex_from(None)
        while not self.gaveup:
            try:
                tok = next(self.tokens)
            except StopIteration:
                break
            except UnexpectedCharacters as exc:
                ch = self.text[exc.pos_in_stream:exc.pos_in_stream + 1]
                if ch == "}" and self.braces:
                    self.braces -= 1  # the end of a block written in braces: reported at its `{`
                elif not self.skipping:
                    self.braces += ch == "{"
                    self.report(exc)
                self.broken(exc.pos_in_stream, self.line_of(exc.pos_in_stream) + 1)
                continue
            except UnexpectedToken as exc:  # the contextual lexer: a word that cannot come here
                self.on_token_error(exc.token, exc)
                continue
            self.take(tok)
        tree = self.finish()
        return tree, self.diags, frozenset(self.lost)

    def lex_from(self, line: Optional[int]) -> None:
        """Lex on from the start of `line` (None: where the lexer stands)."""
        if line is not None:
            pos = self.starts[line - 1]
            ind = self.indent_of(line) or 0
            ctr = self.lstate.line_ctr
            ctr.char_pos = pos + ind
            ctr.line = line
            ctr.line_start_pos = pos
            ctr.column = ind + 1
            self.skipping = False
        else:
            self.skipping = False
        self.tokens = self.lexer.lex(self.lstate, self.ps)

    def take(self, tok: Token) -> None:
        """One token from the lexer, through the indentation rules."""
        if tok.type == "_NL":
            if self.paren > 0:
                return
            if not self.feed_or_recover(tok):
                return
            self.prev_start, self.line_start = self.line_start, None
            self.layout(tok)
            return
        if self.line_start is None:
            self.line_start = tok.start_pos
        if not self.feed_or_recover(tok):
            return
        if tok.type == "LPAR":
            self.paren += 1
        elif tok.type == "RPAR" and self.paren > 0:
            self.paren -= 1

    def layout(self, nl: Token) -> None:
        """The indentation after a newline: _INDENT, or as many _DEDENT as blocks end."""
        indent_str = nl.rsplit("\n", 1)[1]
        ind = indent_str.count(" ") + indent_str.count("\t") * _FishIndenter.tab_len
        if ind > self.indent[-1]:
            tok = Token.new_borrow_pos("_INDENT", indent_str, nl)
            try:
                self.feed(tok)
            except UnexpectedToken:
                # a line indented more than the one before it: leave it (and what is under it) out
                self.report(self.exception(tok))
                nxt = self.line_of(nl.end_pos)
                self.note_lost(nl.end_pos)
                self.skip_to(self.resume_line(nxt + 1, self.indent[-1]))
                return
            self.indent.append(ind)
            return
        self.dedent_to(ind, indent_str, nl)

    def dedent_to(self, ind: int, indent_str: str, at: Token) -> None:
        while ind < self.indent[-1]:
            self.indent.pop()
            tok = Token.new_borrow_pos("_DEDENT", indent_str, at)
            try:
                self.feed(tok)
            except UnexpectedToken:
                exc = self.exception(tok)
                if "_INDENT" in (exc.accepts or ()) and not self.skipping:
                    # a line ending in `:` with nothing under it: leave that line out
                    self.report(exc)
                    if self.prev_start is not None:
                        self.note_lost(self.prev_start)
                        self.pop_from(self.prev_start)
                self.force(tok)
        if ind != self.indent[-1]:
            line = self.line_of(at.end_pos) if at.type != "$END" else self.line_of(at.start_pos)
            if not self.skipping:
                self.diags.append(Diagnostic(Span(self.source, line, 1, line, 2),
                                             "this line's indentation does not match any line above it",
                                             "line it up with the block it belongs to"))
            self.skip_to(self.resume_line(line + 1, self.indent[-1]))

    def feed_or_recover(self, tok: Token) -> bool:
        """Feed a token; on a syntax error, report it and recover.  True if the token was taken."""
        try:
            self.feed(tok)
            return True
        except UnexpectedToken:
            self.on_token_error(tok, self.exception(tok))
            return False

    def on_token_error(self, tok: Token, exc: UnexpectedToken) -> None:
        if exc.interactive_parser is None:
            exc.interactive_parser = InteractiveParser(self.ip.parser, self.ps.copy(deepcopy_values=False),
                                                       self.ip.lexer_thread)
        quiet = self.skipping
        if tok.type == "_NL":
            # the line ends too early: leave it out, and whatever is indented under it
            if not quiet:
                self.report(exc)
            start = self.line_start if self.line_start is not None else tok.start_pos
            self.broken(start, self.line_of(tok.start_pos) + 1)
            return
        first_on_line = self.text[self.starts[self.line_of(tok.start_pos) - 1]:tok.start_pos].strip() == ""
        if self.line_start is None or self.line_start == tok.start_pos:
            if "_INDENT" in (exc.accepts or ()) and self.prev_start is not None:
                # nothing is indented under a line ending in `:`: leave that line out, go on here
                if not quiet:
                    self.report(exc)
                self.note_lost(self.prev_start)
                self.pop_from(self.prev_start)
                self.line_start = None
                self.paren = 0
                self.skip_to(self.past_otherwise(self.line_of(tok.start_pos), self.prev_start))
                return
            # a line that cannot start here
            if not quiet:
                self.report(exc)
            self.broken(tok.start_pos, self.line_of(tok.start_pos) + 1)
            return
        if not quiet:
            self.report(exc)
        line = self.line_of(tok.start_pos)
        if first_on_line and line > self.line_of(self.line_start):
            # a bracket left open on an earlier line: the broken line ended before this one
            self.broken(self.line_start, line)
        else:
            self.broken(self.line_start, line + 1)

    def broken(self, start: int, resume_from: int) -> None:
        """Leave out the logical line starting at `start`: take it back off the stacks and go on at
        the first line from `resume_from` on that is not indented under it."""
        if self.line_start is not None and self.line_start < start:
            start = self.line_start
        self.note_lost(start)
        self.pop_from(start)
        self.line_start = None
        self.paren = 0
        body = self.resume_line(resume_from, 1 << 30)
        if body is not None and (self.indent_of(body) or 0) > self.indent[-1] and self.hold(start, body):
            return
        self.skip_to(self.past_otherwise(self.resume_line(resume_from, self.indent[-1]), start))

    def hold(self, start: int, body: int) -> bool:
        """Parse the lines indented under a broken line that starts a block, so that their own
        errors are found too: they are read under a stand-in header (an `if` for an `if`, else a
        `rule`, or a `phase` at the left edge) that `_Build` leaves out of the tree with them: what
        they say would make little sense to the checker without their header."""
        line = self.line_of(start)
        col = start - self.starts[line - 1] + 1
        if re.match(r"(?:replace\s+)?board\b", self.text[start:start + 40]):
            return False  # a board's `line …` rows are no statements: left out with their header

        def tok(ttype: str, value: str) -> Token:
            return Token(ttype, value, start, line, col, line, col, start)

        if _IF.match(self.text, start) and self.accepts("IF"):
            header = [tok("IF", "if"), tok("NAME", _HELD)]
        elif self.accepts("RULE"):
            header = [tok("RULE", "rule"), tok("STRING", f'"{_HELD}"')]
        elif self.accepts("PHASE"):
            header = [tok("PHASE", "phase"), tok("NAME", _HELD)]
        else:
            return False
        ind = self.indent_of(body) or 0
        nl = Token("_NL", "\n" + " " * ind, self.starts[body - 1] - 1, body - 1, 1, body, ind + 1, self.starts[body - 1] + ind)
        try:
            for t in header + [tok("COLON", ":"), nl, Token.new_borrow_pos("_INDENT", " " * ind, nl)]:
                self.feed(t)
        except UnexpectedToken:  # pragma: no cover - each header was asked for first
            return False
        self.indent.append(ind)
        self.lex_from(body)
        return True

    def past_otherwise(self, line: Optional[int], start: int) -> Optional[int]:
        """`line`, or if the line left out (at `start`) is an `if` or an `otherwise`, the first line
        after the `otherwise` branches that go with it."""
        if line is None or not _IF.match(self.text, start):
            return line
        while line is not None and self.indent_of(line) == self.indent[-1]:
            at = self.starts[line - 1] + self.indent[-1]
            if not _OTHERWISE.match(self.text, at):
                break
            line = self.resume_line(line + 1, self.indent[-1])
        return line

    def skip_to(self, line: Optional[int]) -> None:
        """Go on lexing at `line` (None: the end of the file), after its indentation has ended the
        blocks it ends.  The first token there is fed without a second report."""
        if line is None:
            self.lstate.line_ctr.char_pos = len(self.text)
            self.tokens = iter(())
            self.skipping = False
            return
        ind = self.indent_of(line) or 0
        self.lex_from(line)
        at = Token("_NL", "\n" + " " * ind, self.starts[line - 1] - 1, line - 1, 1, line, ind + 1,
                   self.starts[line - 1] + ind)
        self.skipping = True
        self.dedent_to(ind, " " * ind, at)
        self.first_after_skip()

    def first_after_skip(self) -> None:
        """Feed the first token of the line parsing goes on at; if it cannot come here either (an
        `otherwise` after a broken `if`), leave that line out too, without a second report."""
        while True:
            try:
                tok = next(self.tokens)
            except StopIteration:
                self.skipping = False
                return
            except (UnexpectedCharacters, UnexpectedToken) as exc:
                pos = exc.pos_in_stream if isinstance(exc, UnexpectedCharacters) else exc.token.start_pos
                line = self.line_of(pos)
                nxt = self.resume_line(line + 1, self.indent[-1])
                if nxt is None:
                    self.skip_to(None)
                    return
                self.lex_from(nxt)
                ind = self.indent_of(nxt) or 0
                self.dedent_quietly(ind, nxt)
                continue
            if tok.type == "_NL":  # cannot be: the line holds code
                continue
            try:
                self.feed(tok)
            except UnexpectedToken:
                line = self.line_of(tok.start_pos)
                nxt = self.resume_line(line + 1, self.indent[-1])
                self.note_lost(tok.start_pos)
                if nxt is None:
                    self.skip_to(None)
                    return
                self.lex_from(nxt)
                self.dedent_quietly(self.indent_of(nxt) or 0, nxt)
                continue
            self.line_start = tok.start_pos
            if tok.type == "LPAR":
                self.paren += 1
            self.skipping = False
            return

    def dedent_quietly(self, ind: int, line: int) -> None:
        at = Token("_NL", "\n" + " " * ind, self.starts[line - 1] - 1, line - 1, 1, line, ind + 1,
                   self.starts[line - 1] + ind)
        self.skipping = True
        self.dedent_to(ind, " " * ind, at)

    def force(self, tok: Token) -> None:
        """Feed a _DEDENT where the block it ends has lost its lines: an emptied block holds
        `nothing`, and a block that cannot be empty (a board's lines, a variant) is left out, with
        its header."""
        injected = False
        while True:
            if self.accepts(tok.type):
                self.feed(tok)
                return
            if not injected and self.accepts("NOTHING"):
                injected = True
                self.feed(Token.new_borrow_pos("NOTHING", "nothing", tok))
                if self.accepts("_NL"):
                    self.feed(Token.new_borrow_pos("_NL", "\n", tok))
                continue
            vs = self.ps.value_stack
            if not vs:
                return
            top = vs[-1]
            del vs[-1]
            del self.ps.state_stack[-1]
            if isinstance(top, Token) and top.type == "_INDENT":
                # the block this _DEDENT closes cannot be empty: leave it out, with its header
                header = self.line_of(top.start_pos)
                at = self.starts[header - 1] + (self.indent_of(header) or 0)
                self.note_lost(at)
                self.pop_from(at)
                return

    def finish(self) -> Tree:
        """Close the open blocks and the file, leaving out what cannot be finished."""
        if not self.gaveup:
            at = Token.new_borrow_pos("_NL", "\n", self.last) if self.last is not None else Token("_NL", "\n", 0, 1, 1, 1, 1, 0)
            while len(self.indent) > 1:
                self.indent.pop()
                tok = Token.new_borrow_pos("_DEDENT", "", at)
                try:
                    self.feed(tok)
                except UnexpectedToken:
                    exc = self.exception(tok)
                    if "_INDENT" in (exc.accepts or ()):
                        self.report(exc)
                        if self.prev_start is not None:
                            self.note_lost(self.prev_start)
                            self.pop_from(self.prev_start)
                    self.force(tok)
        end = Token.new_borrow_pos("$END", "", self.last) if self.last is not None else Token("$END", "", 0, 1, 1)
        if not self.gaveup and not self.accepts("$END"):
            self.report(self.exception(end))
        while not self.accepts("$END"):
            # take back values until what is left is a whole file
            del self.ps.value_stack[-1]
            del self.ps.state_stack[-1]
        return self.ps.feed_token(end, True)

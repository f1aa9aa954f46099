"""The messages of syntax errors: a Lark exception -> a `Diagnostic` a person can act on.

`syntax_error` names what was expected the way it is written (`` `:` ``, "the end of the line",
never Lark's `__ANON_3` or `_NL`), points at the place to fix (the end of a line that ends too
early, the `(` left open, the header with nothing indented under it) and adds a hint for the usual
slips.  `habits` replaces the errors of a line written with the habits of a word processor or of
another language (curly quotes, `else`, `==`, `+=`) by one message saying what to write instead.
"""

from __future__ import annotations

import re
from typing import Optional

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import Diagnostic, Source, Span, did_you_mean
from .lark_parser import lalr_parser

__all__ = ["syntax_error", "habits", "habit_of"]

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
        pattern = lalr_parser().get_terminal(term).pattern
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


def syntax_error(exc: UnexpectedInput, source: Source, since: int = 0) -> Diagnostic:
    """The diagnostic of a Lark exception; `since` is where the logical line with the error starts
    (a bracket left open before it is another error's)."""
    if isinstance(exc, UnexpectedCharacters):
        return _unexpected_character(exc, source)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        return _file_ends(exc, source, since)
    assert isinstance(exc, UnexpectedToken)
    if exc.token.type == "_NL":
        return _line_ends(exc, source, since)
    return _unexpected_token(exc, source, since)


def _position(exc: UnexpectedInput) -> tuple[int, int]:
    """The line and column Lark gives an error (1, 1 when it gives none)."""
    return getattr(exc, "line", None) or 1, getattr(exc, "column", None) or 1


def _accepted(exc: UnexpectedToken) -> set[str]:
    """What the parser could take where `exc` happened.  `accepts` is what the parser can really
    take here; `expected` also lists tokens that the state would only reduce on before failing,
    which made the "expected …" lists misleading."""
    return set(getattr(exc, "accepts", None) or exc.expected or ())


def _unexpected_character(exc: UnexpectedCharacters, source: Source) -> Diagnostic:
    """A character that starts no word of the rules."""
    text = source.text
    line, col = _position(exc)
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


def _file_ends(exc: UnexpectedInput, source: Source, since: int) -> Diagnostic:
    """The file ends where more must follow: a block with nothing in it, a bracket left open."""
    text = source.text
    expected = getattr(exc, "accepts", None) or getattr(exc, "expected", None) or set()
    open_at = _open_paren_before(text, len(text), since)
    last = max(1, text.rstrip("\n").count("\n") + 1)
    span = Span(source, last, 1, last, 1)
    hint = None
    if "_INDENT" in expected:
        hint = "a line ending in `:` must be followed by at least one indented line"
    if open_at:
        hint = f"you probably forgot to close the `(` opened at line {open_at[0]}, column {open_at[1]}"
        span = Span(source, open_at[0], open_at[1], open_at[0], open_at[1] + 1)
    return Diagnostic(span, "the file ends too early" + (f"; expected {_expected(set(expected))}" if expected else ""), hint)


def _line_ends(exc: UnexpectedToken, source: Source, since: int) -> Diagnostic:
    """A line ends where more must follow: pointed at the end of its code."""
    text = source.text
    tok = exc.token
    expected = _accepted(exc)
    line, col = _position(exc)
    tline, tcol = tok.line or line, tok.column or col
    span = Span(source, tline, tcol, tline, tcol + 1)
    src_line = source.line(tline)
    span = Span(source, tline, _code_end(src_line) + 1, tline, _code_end(src_line) + 2) if src_line else span
    if tok.line is not None and tok.line > 0:
        # the _NL token starts at the end of the offending line
        src_line = source.line(tok.line)
        span = Span(source, tok.line, _code_end(src_line) + 1, tok.line, _code_end(src_line) + 2)
    msg = "this line ends too early"
    if expected:
        msg += f"; expected {_expected(expected)}"
    hint = None
    if "COLON" in expected:
        hint = "a line that starts a block (phase, action, if, repeat, for each, rule) ends with `:`"
    open_at = _open_paren_before(text, tok.start_pos or 0, since)
    if open_at:
        hint = f"you probably forgot to close the `(` opened at line {open_at[0]}, column {open_at[1]}"
    return Diagnostic(span, msg, hint)


def _unexpected_token(exc: UnexpectedToken, source: Source, since: int) -> Diagnostic:
    """A word, a sign or a change of indentation that cannot come here (not the end of a line, nor
    of the file)."""
    text = source.text
    tok = exc.token
    expected = _accepted(exc)
    line, col = _position(exc)
    tline, tcol = tok.line or line, tok.column or col
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
    elif "_INDENT" in expected and tok.type != "_DEDENT":
        # A block header followed by a line at the same indentation: point at the header.
        prev = (getattr(exc, "token_history", None) or [None])[-1]
        hline = prev.line if prev is not None and prev.line else _previous_code_line(source, tline)
        hend = _code_end(source.line(hline))
        span = Span(source, hline, hend + 1, hline, hend + 2)
        msg = "nothing is indented under this line"
        hint = "a line ending in `:` must be followed by at least one indented line"
    elif tok.type == "_DEDENT":
        msg = "the indented block ends too early"
        if "_INDENT" in expected:
            hint = "a line ending in `:` must be followed by at least one indented line"
    else:
        span, msg, hint = _unexpected_word(tok, expected, source, span)
    if "RPAR" in expected:
        open_at = _open_paren_before(text, tok.start_pos or 0, since)
        # only when the rest of the line does not close it either
        end = text.find("\n", tok.start_pos or 0)
        if open_at and _open_paren_before(text, len(text) if end < 0 else end, since) == open_at:
            hint = f"you probably forgot to close the `(` opened at line {open_at[0]}, column {open_at[1]}"
    return Diagnostic(span, msg, hint)


def _unexpected_word(tok, expected: set[str], source: Source, span: Span) -> tuple[Span, str, Optional[str]]:
    """(span, message, hint) of a word or sign that cannot come here."""
    text = source.text
    shown = str(tok)
    msg = f"unexpected `{shown}`"
    hint = None
    if expected:
        msg += f"; expected {_expected(expected)}"
    stray = _stray_otherwise(source, tok)
    if stray is not None:
        # `otherwise` where no `if` block ends is read as the start of a statement (a name), so
        # the parser's own complaint is about the word after it: say what is really wrong.
        return (Span(source, span.line, stray, span.line, stray + len("otherwise")),
                "`otherwise` follows no `if` block",
                "an `otherwise:` block comes right after the block of the `if` it belongs to, "
                "indented as that `if` is")
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
        tline, tcol = span.line, span.column
        span = Span(source, tline, tcol - 1, tline, tcol + 1)
        hint = "compare with a single `=`, or `is`, as in `count(dice) is 2`"
    return span, msg, hint


_OTHERWISE_LINE = re.compile(r"(\s*)otherwise\s*(?=:|if\b)")


def _stray_otherwise(source: Source, tok) -> Optional[int]:
    """The column of a line's leading `otherwise` when `tok` is the word right after it (`:` or
    `if`): an `otherwise` that no `if` block ends.  None otherwise."""
    if not tok.line or tok.type not in ("COLON", "IF"):
        return None
    m = _OTHERWISE_LINE.match(source.line(tok.line))
    if m is None or (tok.column or 0) - 1 != m.end():
        return None
    return len(m.group(1)) + 1


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


def habits(errors: list[Diagnostic], source: Source) -> list[Diagnostic]:
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


def _previous_code_line(source: Source, before: int) -> int:
    """The last line before line `before` that holds more than blanks and a comment."""
    for i in range(before - 1, 0, -1):
        stripped = source.line(i).strip()
        if stripped and not stripped.startswith("#"):
            return i
    return max(1, before - 1)

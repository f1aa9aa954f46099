"""`fishrules fmt`: one canonical layout for .fish files, keeping every comment where it was.

The layout, which the bundled rulesets already follow:

- two spaces of indentation per block;
- one space between words, none before `,` `:` `)` and `'s`, none after `(` or a minus sign that
  negates, none between a name and the `(` of its parameters or arguments (`count(dice)`);
- a comment after code keeps its column when the code ends before it, else stands two spaces after
  the code; a comment on a line of its own is indented as the line after it if it was, else as the
  innermost block it stands in;
- at most two blank lines in a row between declarations at the left edge, at most one inside a
  block, none at the start of a block or the start and end of the file; a declaration at the left
  edge that follows a block has a blank line (or a comment group after a blank line) before it.

Only whitespace changes: the tokens, and so the parsed rules, stay the same (a test parses every
ruleset before and after).  A line continued inside brackets over several lines keeps its own
layout after its first line.  The text is parsed with the same parser as the rules (its
contextual lexer tells a keyword from a name), so a file with syntax errors is not formatted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from lark import Token

from .errors import RuleError
from .syntax import parse_partial
from .syntax.lark_parser import lalr_parser

__all__ = ["format_text", "format_files", "INDENT"]

#: One level of indentation.
INDENT = "  "

_NO_SPACE_BEFORE = frozenset({"COMMA", "COLON", "RPAR", "POSS"})
#: Tokens after which a `-` subtracts (anything else before it makes it a minus sign).
_VALUES = frozenset({"NAME", "INT", "STRING", "RPAR", "YES", "NO", "NOBODY", "YOU", "IT"})
_LAYOUT = frozenset({"_NL", "_INDENT", "_DEDENT"})


def format_text(text: str, name: str = "<rules>") -> str:
    """The canonical layout of a .fish text.  Raises `RuleError` (every syntax error) if it does
    not parse: only a file that parses can be laid out again safely."""
    parsed = parse_partial(text, name)
    if parsed.errors:
        raise RuleError(list(parsed.errors))
    if not text.endswith("\n"):
        text += "\n"
    return _Layout(text).run()


def _spaced(tokens: list[Token]) -> str:
    out: list[str] = []
    prev: Optional[Token] = None
    before: Optional[Token] = None  # the token before `prev`
    for tok in tokens:
        if prev is not None:
            space = True
            if tok.type in _NO_SPACE_BEFORE or prev.type == "LPAR":
                space = False
            elif tok.type == "LPAR" and prev.type == "NAME":
                space = False
            elif prev.type == "MINUS" and (before is None or before.type not in _VALUES):
                space = False  # a minus sign: `-1`, `set x to -y`
            if space:
                out.append(" ")
        out.append(str(tok))
        before, prev = prev, tok
    return "".join(out)


class _Line:
    __slots__ = ("tokens", "depth", "comment", "comment_col", "verbatim")

    def __init__(self, tokens: list[Token], depth: int):
        self.tokens = tokens
        self.depth = depth
        self.comment: Optional[str] = None
        self.comment_col = 0
        self.verbatim: Optional[str] = None


class _Layout:
    def __init__(self, text: str):
        self.text = text
        self.out: list[str] = []
        self.depth = 0
        self.indents = [0]  # the original indentation of each open block
        self.prev: Optional[_Line] = None  # the last line written
        self.gap: list[tuple[int, str]] = []  # blank lines (-1, "") and comments (indent, text) before the next line
        self.gap_indents: list[int] = []

    def run(self) -> str:
        ip = lalr_parser().parse_interactive(self.text)
        line: list[Token] = []
        for tok in ip.iter_parse():
            if tok.type == "_NL":
                if line:
                    self.line(line, tok)
                    line = []
                else:
                    self.read_gap(str(tok), first=True)
            elif tok.type == "_INDENT":
                self.depth += 1
                self.indents.append(len(str(tok)))
            elif tok.type == "_DEDENT":
                self.depth -= 1
                self.indents.pop()
            else:
                line.append(tok)
        ip.feed_eof()
        if line:  # pragma: no cover - the text always ends with a newline, so with _NL
            self.line(line, None)
        self.flush_gap(None)
        return "\n".join(self.out) + "\n" if self.out else ""

    # ---- the gaps between lines: blank lines and comments ------------------------------------------

    def read_gap(self, value: str, first: bool = False) -> None:
        """Read the blank lines and comments of a newline token (after its trailing comment)."""
        parts = value.split("\n")
        body = parts[1:-1] if not first else parts[:-1]
        if first and parts and parts[0].strip() and not parts[0].lstrip().startswith("#"):  # pragma: no cover
            body = parts[:-1]
        for raw in body:
            raw = raw.rstrip("\r")
            stripped = raw.strip()
            if not stripped:
                self.gap.append((-1, ""))
            else:
                self.gap.append((len(raw) - len(raw.lstrip(" \t")), stripped))
        self.gap_indents = list(self.indents)

    def flush_gap(self, nxt: Optional[_Line]) -> None:
        """Write the gap before `nxt` (None: the end of the file)."""
        gap, self.gap = self.gap, []
        prev = self.prev
        top = nxt is not None and nxt.depth == 0
        most = 2 if (nxt is None or top) else 1
        if nxt is not None and prev is not None and nxt.depth > prev.depth:
            most = 0  # nothing blank at the start of a block
        # the depth of each comment: the next line's if it is indented as that line, else an open
        # block's that it is indented as, else the next line's
        open_indents = self.gap_indents if prev is not None else [0]
        next_indent = self.indents[-1] if nxt is not None else 0
        entries: list[tuple[str, int]] = []
        blanks = 0
        for indent, content in gap:
            if indent < 0:
                blanks += 1
                continue
            if blanks:
                entries.append(("", min(blanks, most)))
                blanks = 0
            if nxt is not None and indent == next_indent:
                depth = nxt.depth
            else:  # the innermost block open before the gap that it is indented under
                depth = max(d for d, at in enumerate(open_indents) if at <= indent)
            entries.append((INDENT * depth + content, depth))
        if blanks and nxt is not None:
            entries.append(("", min(blanks, most)))
        entries = [e for e in entries if e[0] or e[1]]  # (a comment, its depth) or ("", blank lines)
        if prev is None:  # nothing blank at the start of the file
            while entries and not entries[0][0]:
                entries.pop(0)
        if nxt is None:  # nor at its end
            while entries and not entries[-1][0]:
                entries.pop()
        if top and prev is not None and prev.depth > 0 and not any(not text for text, _ in entries):
            # a blank line after a block, after the comments still indented in it
            at = next((i for i, (text, depth) in enumerate(entries) if depth == 0), len(entries))
            entries.insert(at, ("", 1))
        for text, blanks in entries:
            if text:
                self.out.append(text)
            else:
                self.out.extend([""] * blanks)

    # ---- a line of code ------------------------------------------------------------------------

    def line(self, tokens: list[Token], nl: Optional[Token]) -> None:
        ln = _Line(tokens, self.depth)
        first, last = tokens[0], tokens[-1]
        if first.line != last.end_line:
            # continued over several lines (inside brackets): its own layout after the first line
            ln.verbatim = self.text[first.start_pos:last.end_pos]
        self.flush_gap(ln)
        code = INDENT * ln.depth + (ln.verbatim if ln.verbatim is not None else _spaced(tokens))
        if nl is not None:
            value = str(nl)
            if value.startswith("#"):
                comment = value.split("\n", 1)[0].rstrip()
                col = nl.column - 1  # where it stood (0-based)
                last_line = code.rsplit("\n", 1)[-1]
                at = col if col >= len(last_line) + 2 else len(last_line) + 2
                code = code + " " * (at - len(last_line)) + comment
            self.out.append(code)
            self.prev = ln
            self.read_gap(value)
        else:  # pragma: no cover
            self.out.append(code)
            self.prev = ln


def format_files(files: list[str], check: bool = False, write=print, error=None, quiet: bool = False) -> int:
    """`fishrules fmt FILE…`: lay each file out again in place (`-`: standard input to standard
    output).  With `check`, change nothing and list the files that are not laid out canonically.
    Results go to `write`, errors (a file's syntax errors, a file that cannot be read or written)
    to `error`.  The exit status: 0, or 1 if a file has syntax errors, cannot be read or written,
    or (with `check`) would change."""
    import sys

    from .variants import read_rules

    if error is None:
        def error(msg: str) -> None:
            print(msg, file=sys.stderr)

    status = 0
    for ref in files:
        try:
            if ref == "-":
                text = sys.stdin.read()
                new = format_text(text, "<stdin>")
                if check:
                    if new != text:
                        write("<stdin>: would be laid out again")
                        status = 1
                else:
                    sys.stdout.write(new)
                continue
            text = read_rules(Path(ref), ref)
            new = format_text(text, ref)
        except RuleError as exc:
            error(exc.render())
            status = 1
            continue
        if new == text:
            continue
        if check:
            write(f"{ref}: would be laid out again")
            status = 1
            continue
        try:
            Path(ref).write_text(new, encoding="utf-8")
        except OSError as exc:
            error(f"{ref}: cannot be written ({exc.strerror})")
            status = 1
            continue
        if not quiet:
            write(f"{ref}: laid out again")
    return status

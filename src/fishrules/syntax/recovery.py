"""Going on after a syntax error: every error of a file reported once, and a tree of the rest.

A good file takes Lark's own loop (`fishrules.syntax.parse_partial`); a file with a syntax error is
parsed again by `Recovering`, which reads it line by line through Lark's LALR tables and, at each
error, leaves out the broken line and what is indented under it.  Its use of Lark's internals goes
through `lark_internals.TableDriver`, and nowhere else.
"""

from __future__ import annotations

import bisect
import re
from typing import Optional

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

from ..errors import Diagnostic, Source, Span
from .lark_internals import TableDriver
from .lark_parser import FishIndenter, lalr_parser
from .messages import syntax_error
from .tree import HELD

__all__ = ["Recovering", "MAX_SYNTAX_ERRORS"]

MAX_SYNTAX_ERRORS = 50

#: The first words of a line that declares something, and what the checker hears about when that
#: line could not be read: its name, so that uses of it are not reported as unknown as well.
_DECLARES = re.compile(
    r"(?:replace\s+|add\s+)?(?:(phase|action|define|option|cards|tiles|tokens)\s+([A-Za-z_]\w*)"
    r"|(?:each\s+player|the\s+game)\s+has\s+(?:(?:public|secret|hidden|internal)\s+)?([A-Za-z_]\w*)"
    r'|(?:rule|require)\s+"([^"\n]*)"'
    r"|(game|players|dice|board|winners|extends)\b)")
# (after any stray symbols the line broke on: `) if x:` is still an `if`, and its `otherwise` goes with it)
_IF = re.compile(r"[^\w\"#\n]*(?:if|otherwise)\b")
_OTHERWISE = re.compile(r"otherwise\b")
#: A header whose lines are rows or entries, not statements.
_ROWS = re.compile(r"[^\w\"#]*(?:replace\s+)?(?:board|presentation)\b")


def _at(exc) -> int:
    """Where in the text a Lark exception is."""
    if isinstance(exc, UnexpectedToken):
        return exc.token.start_pos or 0
    return getattr(exc, "pos_in_stream", 0) or 0


class Recovering:
    """The parse of a file with syntax errors: every error reported once, in order, and a tree of
    everything else.

    It runs Lark's own LALR tables through its interactive parser, feeding it the contextual
    lexer's tokens through the same indentation rules as `FishIndenter` (kept here, so that the
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
        self.lalr = TableDriver(lalr_parser(), text)
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.diags: list[Diagnostic] = []
        self.lost: set[str] = set()
        self.indent = [0]
        self.paren = 0
        self.line_start: Optional[int] = None  # where the logical line being fed starts
        self.prev_start: Optional[int] = None  # where the logical line before it started
        self.last: Optional[Token] = None  # the last token fed
        self.gaveup = False
        self.reported_at = -1  # where the last error reported is: a token is reported once
        self.braces = 0  # blocks opened with `{` (reported): their `}` is no second error

    # ---- the parser ------------------------------------------------------------------------------

    def accepts(self, ttype: str) -> bool:
        return self.lalr.accepts(ttype)

    def feed(self, tok: Token) -> None:
        self.lalr.feed(tok)
        self.last = tok

    def exception(self, tok: Token) -> UnexpectedToken:
        """The exception Lark raises for `tok` here, with what the parser accepts, for the message."""
        return self.lalr.unexpected(tok)

    def report(self, exc, since: Optional[int] = None) -> None:
        at = _at(exc)
        if at == self.reported_at:
            # the same token again: the line it opens was left out after its error (a bracket left
            # open on the line before, closed at the start of this one), and parsing went on here
            return
        self.reported_at = at
        if since is None:
            since = self.line_start if self.line_start is not None else self.starts[self.line_of(_at(exc)) - 1]
        if len(self.diags) >= MAX_SYNTAX_ERRORS:
            d = syntax_error(exc, self.source, since)
            self.diags.append(Diagnostic(d.span, "more syntax errors follow; fix these first",
                                         f"fishrules shows the first {MAX_SYNTAX_ERRORS} syntax errors of a file"))
            self.gaveup = True
            return
        self.diags.append(syntax_error(exc, self.source, since))

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
        vs = self.lalr.values
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
        self.lalr.keep_values(k)

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
            self.tokens = self.lalr.lex_from(pos, line, self.indent_of(line) or 0)
        else:
            self.tokens = self.lalr.lex()
        self.skipping = False

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
        ind = indent_str.count(" ") + indent_str.count("\t") * FishIndenter.tab_len
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
        exc = self.lalr.explained(exc)
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
        `rule`, or a `phase` at the left edge) that `tree.Build` leaves out of the tree with them: what
        they say would make little sense to the checker without their header."""
        line = self.line_of(start)
        col = start - self.starts[line - 1] + 1
        head = self.text[start:self.starts[line] if line < len(self.starts) else len(self.text)]
        if _ROWS.match(head):
            # a board's `line …` rows, a presentation's entries: no statements, left out with their
            # header (wherever the line broke: before the word too, as in `) presentation:`)
            return False

        def tok(ttype: str, value: str) -> Token:
            return Token(ttype, value, start, line, col, line, col, start)

        if _IF.match(self.text, start) and self.accepts("IF"):
            header = [tok("IF", "if"), tok("NAME", HELD)]
        elif self.accepts("RULE"):
            header = [tok("RULE", "rule"), tok("STRING", f'"{HELD}"')]
        elif self.accepts("PHASE"):
            header = [tok("PHASE", "phase"), tok("NAME", HELD)]
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
            self.lalr.lex_at_end(len(self.text))
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
        """Feed the first token of the line parsing goes on at; if it cannot come here either,
        leave that line out too (`drop_line`)."""
        while True:
            try:
                tok = next(self.tokens)
            except StopIteration:
                self.skipping = False
                return
            except (UnexpectedCharacters, UnexpectedToken) as exc:
                pos = exc.pos_in_stream if isinstance(exc, UnexpectedCharacters) else exc.token.start_pos
                if self.drop_line(self.line_of(pos), exc if isinstance(exc, UnexpectedCharacters) else self.lalr.explained(exc)):
                    return
                continue
            if tok.type == "_NL":  # cannot be: the line holds code
                continue
            try:
                self.feed(tok)
            except UnexpectedToken:
                if self.drop_line(self.line_of(tok.start_pos), self.lalr.explained(self.exception(tok))):
                    return
                continue
            self.line_start = tok.start_pos
            if tok.type == "LPAR":
                self.paren += 1
            self.skipping = False
            return

    def drop_line(self, line: int, exc) -> bool:
        """Leave out `line`, whose first token cannot come where parsing went on, and set the lexer
        at the line after it; True when there is nothing more for `first_after_skip` to do.

        An `otherwise` after a broken `if` only cannot follow the line left out: it goes quietly,
        with what is indented under it.  Any other line is broken itself (the next of several
        broken lines, each of which is an error to report in the same run, or a file of misspelled
        lines would show one error a run), and its body is read as `broken` reads one."""
        pos = self.starts[line - 1] + (self.indent_of(line) or 0)
        quiet = bool(_OTHERWISE.match(self.text, pos))
        if not quiet:
            self.report(exc, since=self.starts[line - 1])
        if self.gaveup:
            self.skip_to(None)
            return True
        self.note_lost(pos)
        if not quiet:
            body = self.resume_line(line + 1, 1 << 30)
            if body is not None and (self.indent_of(body) or 0) > self.indent[-1] and self.hold(pos, body):
                return True
        nxt = self.past_otherwise(self.resume_line(line + 1, self.indent[-1]), pos)
        if nxt is None:
            self.skip_to(None)
            return True
        self.lex_from(nxt)
        self.dedent_quietly(self.indent_of(nxt) or 0, nxt)
        return False

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
            vs = self.lalr.values
            if not vs:
                return
            top = vs[-1]
            self.lalr.drop_value()
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
            self.lalr.drop_value()
        return self.lalr.feed(end)

"""Every use of Lark's internals, in one place: its LALR tables driven one token at a time.

Going on after a syntax error (`fishrules.syntax.recovery`) needs more than Lark's public
interactive parser offers: feeding a token on trial without building anything, taking values back
off the parser's stacks, and starting the contextual lexer again at a line of our choosing.  Those
reach into Lark objects whose layout is not part of Lark's public API, and this module is the only
one that does:

- `InteractiveParser.parser_state`, a `ParserState`: its `parse_conf` (the `states` table, the
  `callbacks` that build the tree), `position`, `value_stack`, `state_stack`,
  `copy(deepcopy_values=False)` and `feed_token(token, is_end)`;
- `InteractiveParser.lexer_thread`: its `state` (a `LexerState`, whose `line_ctr` says where the
  lexer stands: `char_pos`, `line`, `line_start_pos`, `column`) and `lexer.lexer`, the contextual lexer under the indenter, with its
  `lex(lexer_state, parser_state)`;
- `InteractiveParser(parser, parser_state, lexer_thread)`, made by hand so that an
  `UnexpectedToken` can say what the parser `accepts`.

`tests/test_lark_internals.py` exercises each of them and fails, naming what changed, on a Lark
release that moves them; the Lark releases pyproject.toml allows are those that test has passed on.
"""

from __future__ import annotations

import copy
from typing import Any, Iterator, Optional

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedToken
from lark.parsers.lalr_interactive_parser import InteractiveParser

__all__ = ["TableDriver"]


class TableDriver:
    """One parse of `text` by the parser's LALR tables, fed a token at a time by its caller.

    The caller lexes (`lex_from`), feeds (`feed`, or `accepts` to ask first), and on an error takes
    back what it fed (`values`, `keep_values`, `drop_value`); `feed` of `$END` returns the tree."""

    def __init__(self, parser: Lark, text: str):
        ip = parser.parse_interactive(text)
        self._ip = ip
        self._state = ip.parser_state
        self._lexer_state = ip.lexer_thread.state
        self._lexer = ip.lexer_thread.lexer.lexer  # the contextual lexer, under the indenter
        conf = copy.copy(self._state.parse_conf)
        conf.callbacks = {}
        self._quiet_conf = conf  # for trial feeds: no callbacks, no trees built

    # ---- the parser ------------------------------------------------------------------------------

    def accepts(self, ttype: str) -> bool:
        """Whether a token of type `ttype` could be fed now (the parser is left as it is)."""
        trial = self._state.copy(deepcopy_values=False)
        trial.parse_conf = self._quiet_conf
        try:
            trial.feed_token(Token(ttype, ""), ttype == "$END")
        except UnexpectedToken:
            return False
        return True

    def feed(self, tok: Token) -> Optional[Tree]:
        """Feed one token (raising `UnexpectedToken` if it cannot come here); the tree of the whole
        file once `tok` is `$END`."""
        return self._state.feed_token(tok, tok.type == "$END")

    def unexpected(self, tok: Token) -> UnexpectedToken:
        """The exception Lark raises for `tok` here, with what the parser accepts, for the message."""
        states = self._state.parse_conf.states
        expected = {s for s in states[self._state.position] if s.isupper()}
        return UnexpectedToken(tok, expected, state=self._state, interactive_parser=self._interactive())

    def explained(self, exc: UnexpectedToken) -> UnexpectedToken:
        """`exc` (raised by the contextual lexer, which gives it no parser) able to say what the
        parser accepts here."""
        if exc.interactive_parser is None:
            exc.interactive_parser = self._interactive()
        return exc

    def _interactive(self) -> InteractiveParser:
        return InteractiveParser(self._ip.parser, self._state.copy(deepcopy_values=False), self._ip.lexer_thread)

    # ---- the parser's stacks -----------------------------------------------------------------------

    @property
    def values(self) -> list[Any]:
        """The values shifted so far (tokens and finished trees), oldest first.  Not to be changed
        but through `keep_values` and `drop_value`."""
        return self._state.value_stack

    def keep_values(self, k: int) -> None:
        """Take every value after the first `k` back off the stacks."""
        del self._state.value_stack[k:]
        del self._state.state_stack[k + 1:]

    def drop_value(self) -> None:
        """Take the last value back off the stacks."""
        del self._state.value_stack[-1]
        del self._state.state_stack[-1]

    # ---- the lexer ---------------------------------------------------------------------------------

    def lex(self) -> Iterator[Token]:
        """The contextual lexer's tokens from where it stands (`_NL` carrying the indentation, as the
        indenter would read it; no `_INDENT` nor `_DEDENT`)."""
        return self._lexer.lex(self._lexer_state, self._state)

    def lex_from(self, pos: int, line: int, indent: int) -> Iterator[Token]:
        """The lexer's tokens from the code of the line `line` that starts at `pos` and is indented
        `indent` spaces."""
        ctr = self._lexer_state.line_ctr
        ctr.char_pos = pos + indent
        ctr.line = line
        ctr.line_start_pos = pos
        ctr.column = indent + 1
        return self.lex()

    def lex_at_end(self, end: int) -> None:
        """Move the lexer to the end of the text (`end`): nothing more is lexed."""
        self._lexer_state.line_ctr.char_pos = end

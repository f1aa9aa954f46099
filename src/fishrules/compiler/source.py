"""Stage 4, the source writer: Python source built from checked model nodes, then compiled once.

Everything the compiler writes goes through `Source`.  It is the one place that decides what text
may appear in generated code:

- identifiers are minted here (`d3`, `e17`, `b2`): no name from a rule file is ever written into
  the code;
- literals are written with `repr()` of ints, bools, None and plain strings (and tuples of those),
  which Python reads back as the same value and nothing else;
- every other value the code needs (a table of card values, a dict of board lines) is passed in as
  a global under a minted name, never written out;
- comments say where a piece comes from by line number and, for a rule's name, its `ascii()` form,
  which cannot end the comment.

`fishrules explain --python FILE` prints what `text()` returns.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Optional

from ..errors import Span

__all__ = ["Source", "literal", "where", "describe"]

_LITERAL_TYPES = (int, str, bool, type(None))
_SAFE_FILE = re.compile(r"[^A-Za-z0-9_./-]")
# A longer tuple (a table of a value per card, say) is a named global: the code reads better with
# `card_value(x, cv12)` than with a hundred numbers in the middle of an expression.
LONGEST_INLINE_TUPLE = 8
_PREVIEW = 160


def literal(value: Any) -> Optional[str]:
    """`value` as Python source, if it is a plain literal (an int, a bool, None, a string, or a
    short tuple of those); None otherwise."""
    if isinstance(value, _LITERAL_TYPES):
        return repr(value)
    if (isinstance(value, tuple) and len(value) <= LONGEST_INLINE_TUPLE
            and all(isinstance(v, _LITERAL_TYPES) for v in value)):
        return repr(value)
    return None


def describe(value: Any) -> str:
    """A one-line account of a global's value, for a listing: plain data shown (cut short), other
    objects by kind.  Strings inside are `repr()`ed, so nothing here can end the comment line."""
    if isinstance(value, (tuple, frozenset, dict)) and _plain(value):
        text = ascii(value if not isinstance(value, frozenset) else tuple(sorted(value)))
        if len(text) > _PREVIEW:
            text = text[:_PREVIEW] + f"... ({len(value)} entries)"
        return text
    if isinstance(value, tuple) and value and all(isinstance(v, Span) or v is None for v in value):
        return "where each step is written in the rules (for error messages)"
    if isinstance(value, Span):
        return "a position in the rules (for error messages)"
    return f"a {type(value).__name__}"


def _plain(value: Any, depth: int = 0) -> bool:
    if isinstance(value, _LITERAL_TYPES):
        return True
    if depth > 3:
        return False
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, (tuple, frozenset)):
        return all(_plain(v, depth + 1) for v in value)
    return False


def where(span: Optional[Span]) -> str:
    """A comment's account of where a piece of rules is written: `x.fish line 12`."""
    if span is None:
        return "(no position)"
    return f"{_SAFE_FILE.sub('?', str(span.file))[:80]} line {span.line}"


class Source:
    """Lines of Python being written, the globals they use, and the names minted for them."""

    def __init__(self, filename: str):
        self.filename = filename
        self.lines: list[str] = []
        self.globals: dict[str, Any] = {}
        self._ids = itertools.count()
        self._by_id: dict[int, str] = {}
        self._by_value: dict[str, str] = {}  # plain data: one name per distinct value
        self._given: set[str] = set()

    def mint(self, prefix: str) -> str:
        """A new identifier (`prefix` is the compiler's own, never a rule's)."""
        return f"{prefix}{next(self._ids)}"

    def const(self, value: Any, prefix: str = "k") -> str:
        """The code's name for a value: a literal if it is one, else a global holding it (the same
        object always gets the same name)."""
        lit = literal(value)
        if lit is not None:
            return lit
        known = self._by_id.get(id(value))
        if known is not None and self.globals[known] is value:
            return known
        key = f"{type(value).__name__}:{ascii(value)}" if _plain(value) else None
        if key is not None and key in self._by_value:
            return self._by_value[key]
        name = self.mint(prefix)
        self.globals[name] = value
        self._by_id[id(value)] = name
        if key is not None:
            self._by_value[key] = name
        return name

    def give(self, name: str, value: Any) -> str:
        """Make `value` a global of the code under the compiler's own `name` (a helper function)."""
        self.globals[name] = value
        self._given.add(name)
        return name

    def add(self, text: str) -> None:
        """Append lines (a function, usually): their indentation is their own."""
        self.lines.extend(text.split("\n"))

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def listing(self) -> str:
        """The source with a header naming the globals it is given (the runtime's helpers apart):
        what `fishrules explain --python` prints."""
        head = ["# The globals this code is given, besides the runtime's helper functions:"]
        positions = []
        for name, value in self.globals.items():
            if name in self._given:
                continue
            if isinstance(value, Span) or (isinstance(value, tuple) and value and all(
                    isinstance(v, Span) or v is None for v in value)):
                positions.append(name)
            else:
                head.append(f"#   {name} = {describe(value)}")
        if positions:
            head.append(f"#   {', '.join(positions)}: where the steps are written in the rules, for error messages")
        return "\n".join(head) + "\n\n" + self.text()

    def compile(self) -> dict[str, Any]:
        """Run the code once, defining its functions; returns its namespace."""
        namespace = dict(self.globals)
        exec(compile(self.text(), self.filename, "exec"), namespace)  # noqa: S102 - the compiler's own source
        return namespace

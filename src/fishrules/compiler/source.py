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

__all__ = ["Source", "literal", "where"]

_LITERAL_TYPES = (int, str, bool, type(None))
_SAFE_FILE = re.compile(r"[^A-Za-z0-9_./-]")


def literal(value: Any) -> Optional[str]:
    """`value` as Python source, if it is a plain literal (an int, a bool, None, a string, or a
    tuple of those); None otherwise."""
    if isinstance(value, _LITERAL_TYPES):
        return repr(value)
    if isinstance(value, tuple) and all(isinstance(v, _LITERAL_TYPES) for v in value):
        return repr(value)
    return None


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
        name = self.mint(prefix)
        self.globals[name] = value
        self._by_id[id(value)] = name
        return name

    def give(self, name: str, value: Any) -> str:
        """Make `value` a global of the code under the compiler's own `name` (a helper function)."""
        self.globals[name] = value
        return name

    def add(self, text: str) -> None:
        """Append lines (a function, usually): their indentation is their own."""
        self.lines.extend(text.split("\n"))

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def compile(self) -> dict[str, Any]:
        """Run the code once, defining its functions; returns its namespace."""
        namespace = dict(self.globals)
        exec(compile(self.text(), self.filename, "exec"), namespace)  # noqa: S102 - the compiler's own source
        return namespace

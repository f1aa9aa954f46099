"""The parser's old address: the syntax stage is the package `fishrules.syntax`.

Kept so that code written against `fishrules.parser` goes on working; new code imports
`fishrules.syntax`.
"""

from __future__ import annotations

from .syntax import MAX_SOURCE_BYTES, MAX_SYNTAX_ERRORS, Parsed, parse, parse_partial

__all__ = ["parse", "parse_partial", "Parsed", "MAX_SOURCE_BYTES", "MAX_SYNTAX_ERRORS"]

"""Stage 1, the syntax: .fish text -> syntax tree (`fishrules.nodes`).

One module-level LALR parser, built once from `grammar.lark` (shipped with the package), with
positions on every node.  Lark's exceptions are turned into `RuleError`s in this package and
nowhere else, with the expected tokens named the way they are written and hints for the usual
slips.  The modules, in the order a file meets them:

- `guards`: what is refused at once, before and after the parse (too large, not text, tabs,
  nested too deeply);
- `lark_parser`: the Lark parser built from `grammar.lark`, its indenter, its tables' cache file;
- `recovery`: a file with syntax errors parsed again, going on after each one (its use of Lark's
  internals is all in `lark_internals`);
- `messages`: each syntax error as a message a person can act on;
- `tree`: Lark's tree -> the syntax nodes.
"""

from __future__ import annotations

import attrs
from lark.exceptions import UnexpectedInput, VisitError
from lark.indenter import DedentError

from .. import nodes as n
from ..errors import Diagnostic, RuleError, Source
from ..limits import MAX_SOURCE_BYTES
from .guards import check_depth, check_text
from .lark_parser import lalr_parser
from .messages import habits
from .recovery import MAX_SYNTAX_ERRORS, Recovering
from .tree import Build

__all__ = ["parse", "parse_partial", "Parsed", "MAX_SOURCE_BYTES", "MAX_SYNTAX_ERRORS"]


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
    check_text(text, source)
    if not text.endswith("\n"):
        text = text + "\n"
    errors: list[Diagnostic] = []
    lost: frozenset = frozenset()
    try:
        tree = lalr_parser().parse(text)
    except (UnexpectedInput, DedentError):
        # The good files take Lark's own loop; a bad one is parsed again, going on after each error.
        tree, errors, lost = Recovering(text, source).run()
    # Later stages walk the tree recursively, so its depth is bounded here, before any walk (this
    # one, and the tree's conversion to nodes, are iterative).
    check_depth(tree, source)
    build = Build(source)
    try:
        module = build.transform(tree)
    except VisitError as exc:  # pragma: no cover - a bug in Build, not in the input
        raise exc.orig_exc from None
    return Parsed(module, tuple(sorted(habits(errors, source) + build.diags, key=Diagnostic.sort_key)), lost)

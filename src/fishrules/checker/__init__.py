"""Stage 3: resolved syntax tree -> typed model (`fishrules.model`).

Resolves every name (with "did you mean" hints), checks types and arities, checks that every phase
and action can be reached from `phase game`, and numbers the variables.  Every problem found is
collected; `check` raises one `RuleError` holding all of them, sorted by position.
"""

from __future__ import annotations

from .. import model as m
from .core import BUILTINS, Core
from .deals import Deals
from .declarations import Declarations
from .defines import Defines
from .expressions import Expressions
from .limits import Limits
from .lints import Lints
from .statements import Statements

__all__ = ["check", "BUILTINS"]


class _Checker(Declarations, Defines, Statements, Expressions, Limits, Lints, Deals, Core):
    """One check of one resolved rule set; each concern is a mixin of its own module."""


def check(items: list, variants: tuple[str, ...] = (), source_names: tuple[str, ...] = (), source=None,
          lost: frozenset = frozenset(), warnings: tuple = ()) -> m.Model:
    """Check the items of a resolved rule set; raise `RuleError` with every problem found.
    `source` is the file checked (its problems as a whole are reported at its line 1).  `lost`
    names what lines that could not be parsed declared: problems that only follow from their
    absence (a use of a define whose line was broken) are not reported.  `warnings` are earlier
    stages' warnings, given with the checker's own."""
    checker = _Checker(items, variants, source_names, source, lost)
    checker.diags.extend(warnings)
    return checker.run()


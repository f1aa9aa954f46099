"""mkdocs hook: make the `fishrules` Pygments lexer of this checkout known to the docs build.

An installed fishrules registers it through its `pygments.lexers` entry point; a checkout whose
package was installed before the lexer existed (or not at all) has no entry point yet, so the
lexer is added to Pygments's table here, from `src/` beside this file.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent / "src"


def _register() -> None:
    from pygments.lexers import _mapping
    from pygments.util import ClassNotFound

    try:
        from pygments.lexers import get_lexer_by_name

        get_lexer_by_name("fishrules")
        return  # the entry point is installed
    except ClassNotFound:
        pass
    # loaded from its file under a name of its own: an installed `fishrules` may be another checkout's
    spec = importlib.util.spec_from_file_location("fishrules_docs_lexer", SRC / "fishrules" / "lexer.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    _mapping.LEXERS["FishrulesLexer"] = (spec.name, "fishrules", ("fishrules",), (), ("text/x-fishrules",))


_register()

"""The LALR parser of the rules: built once from `grammar.lark`, its tables cached on disk.

`lalr_parser()` is the one Lark parser of the package (LALR, with positions on every tree node, and
`FishIndenter` turning indentation into `_INDENT`/`_DEDENT` tokens).  Building its tables takes most
of a second, so they are kept in a cache file that only this user can have written (`_private`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import stat
import sys
from importlib import resources
from pathlib import Path
from typing import Optional

from lark import Lark
from lark.indenter import Indenter

__all__ = ["lalr_parser", "FishIndenter", "GRAMMAR"]

#: The grammar's file, shipped in this package.
GRAMMAR = "grammar.lark"


class FishIndenter(Indenter):
    """Indentation as tokens: `_INDENT` where a line is indented more than the one before it, one
    `_DEDENT` per block a line ends (`fishrules.syntax.recovery` applies the same rules itself, so
    that it can pick the indentation up again after an error)."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR"]
    CLOSE_PAREN_types = ["RPAR"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


@functools.cache
def lalr_parser() -> Lark:
    """The LALR parser.  Building its tables takes most of a second, so they are cached in a file
    named after the grammar, Lark's and Python's versions (a changed grammar is a new file): beside
    the package when that folder is writable (a checkout, an editable install), else in the user's
    cache folder, else nowhere (every process builds them, and still works).  Lark reads the cache
    with `pickle`, which runs code as it reads: see `_private`."""
    grammar = resources.files(__package__).joinpath(GRAMMAR).read_text(encoding="utf-8")
    options = dict(parser="lalr", postlex=FishIndenter(), propagate_positions=True, maybe_placeholders=True)
    cache = _cache_file(grammar)
    if cache is None:
        return Lark(grammar, **options)
    quiet = logging.getLogger("lark")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # a cache that cannot be read or written is no error of the user's
    try:
        return Lark(grammar, cache=cache, **options)
    finally:
        quiet.setLevel(level)


def _cache_name(grammar: str) -> str:
    import lark

    key = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}".encode()).hexdigest()[:16]
    return f"_grammar-{key}.lark-cache"


def _cache_folders() -> tuple[Path, ...]:
    """Where the parser's tables may be cached, in order: beside the package (the `fishrules`
    folder, above this one), the user's cache."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fishrules"
    return Path(__file__).resolve().parent.parent, home


def _cache_file(grammar: str) -> Optional[str]:
    """The cache file of the parser's tables to read (if it is there) or write, or None.  Only a
    file and a folder nobody but this user could have written are used (`_private`)."""
    name = _cache_name(grammar)
    folders = _cache_folders()
    for folder in folders:
        if (folder / name).is_file() and _private(folder) and _private(folder / name):
            return str(folder / name)
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK) and _private(folder) and not os.path.lexists(folder / name):
            return str(folder / name)
    return None


def _private(path: Path) -> bool:
    """Whether nobody but this user (or root) can have written `path`: it is not a symbolic link,
    it belongs to this user or root, and neither its group nor others may write it.  Lark reads its
    cache with `pickle`, which runs any code the file holds, so a cache file anybody else could have
    planted or changed (in a shared cache folder, a folder writable by a group) is neither read nor
    written (a link planted there would send the write elsewhere): the tables are built afresh."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    getuid = getattr(os, "getuid", None)  # (not on Windows, where the bits above are all there is)
    return getuid is None or st.st_uid in (getuid(), 0)

"""The LALR parser of the rules: built once from `grammar.lark`, its tables cached on disk.

`lalr_parser()` is the one Lark parser of the package (LALR, with positions on every tree node, and
`FishIndenter` turning indentation into `_INDENT`/`_DEDENT` tokens).  Building its tables takes most
of a second, so they are kept in a cache file that only this user (or root) can have written,
read through descriptors and handed to Lark as bytes (`_Cache`).
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
import secrets
import stat
import sys
from importlib import resources
from pathlib import Path
from typing import Optional

from lark import Lark
from lark.lark import _LOAD_ALLOWED_OPTIONS
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
    cache folder, else nowhere (every process builds them, and still works).  The tables are a
    pickle, which runs code as it is read: see `_Cache`."""
    grammar = resources.files(__package__).joinpath(GRAMMAR).read_text(encoding="utf-8")
    options: dict = dict(parser="lalr", postlex=FishIndenter(), propagate_positions=True, maybe_placeholders=True)
    cache = _Cache.find(grammar)
    if cache is None:
        return Lark(grammar, **options)
    with cache:
        if cache.tables is not None:
            try:
                # What Lark's own cache does once it has read a file, given the bytes read here
                # (the options that are objects of this process, such as the indenter, are not
                # in the tables: they are given again).
                loaded = Lark.__new__(Lark)
                kept = {k: v for k, v in options.items() if k in _LOAD_ALLOWED_OPTIONS}
                return loaded._load(pickle.loads(cache.tables), **kept)
            except Exception:  # tables this Lark cannot read (the name should have told): built afresh
                cache.writable = True
        parser = Lark(grammar, **options)
        if cache.writable:
            buf = io.BytesIO()
            parser.save(buf, _LOAD_ALLOWED_OPTIONS)
            cache.store(buf.getvalue())
        return parser


def _cache_name(grammar: str) -> str:
    import lark

    key = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}".encode()).hexdigest()[:16]
    return f"_grammar-{key}.lark-cache"


def _cache_folders() -> tuple[Path, ...]:
    """Where the parser's tables may be cached, in order: beside the package (the `fishrules`
    folder, above this one), the user's cache."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fishrules"
    return Path(__file__).resolve().parent.parent, home


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: Whether a folder can be opened and worked in through its descriptor (POSIX): elsewhere (Windows)
#: there is no owner to check and no safe way to read, and no disk cache is used at all.
_BY_FD = bool(_O_NOFOLLOW and _O_DIRECTORY and hasattr(os, "getuid")) and {os.open, os.rename, os.unlink} <= os.supports_dir_fd
#: The most a cache file may hold (the tables are about 100 KiB).
MAX_CACHE_BYTES = 16 << 20
_MAGIC = b"fishrules parser tables 1\n"


class _Cache:
    """The cache file of the parser's tables, in a folder opened once (never through a link) and
    checked on its descriptor (`_private`).  Lark reads its own cache with `pickle`, which runs any
    code the file holds, and reads it by its path, which can be made to lead elsewhere between a
    check and the read; so Lark is never given a path.  Here the file is opened through the
    folder's descriptor without following a link, checked on the opened descriptor (`os.fstat`),
    and read whole; only those bytes are unpickled, and only if they begin with this module's own
    header and the checksum of what follows.  A folder or a file anybody else could have written
    is neither read nor written: the tables are built afresh."""

    def __init__(self, fd: int, path: Path, name: str, tables: Optional[bytes], writable: bool):
        self.fd, self.path, self.name, self.tables, self.writable = fd, path, name, tables, writable

    def __enter__(self) -> "_Cache":
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    @classmethod
    def find(cls, grammar: str) -> Optional["_Cache"]:
        """The first folder holding good tables; else the first where they may be written (a
        private folder, writable, with no such file in it); else None."""
        if not _BY_FD:
            return None
        name = _cache_name(grammar)
        writable: Optional[_Cache] = None
        for folder in _cache_folders():
            fd = _open_private(folder)
            if fd is None:
                continue
            mine, tables = _read_private(fd, name)
            if tables is not None:
                if writable is not None:
                    os.close(writable.fd)
                return cls(fd, folder, name, tables, writable=False)
            if writable is None and mine and os.access(folder, os.W_OK):
                writable = cls(fd, folder, name, None, writable=True)
            else:
                os.close(fd)
        return writable

    def store(self, tables: bytes) -> None:
        """Write the tables beside a temporary name in the opened folder, then rename them into
        place (whole or not at all); a failure is no error of the user's."""
        tmp = f".{self.name}.{os.getpid()}.{secrets.token_hex(4)}"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, 0o600, dir_fd=self.fd)
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + hashlib.sha256(tables).hexdigest().encode() + b"\n" + tables)
            os.rename(tmp, self.name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError:
            try:
                os.unlink(tmp, dir_fd=self.fd)
            except OSError:
                pass


def _open_private(folder: Path) -> Optional[int]:
    """The folder, made if missing and opened (its last step never through a link), if nobody but
    this user or root can have written it (`_private`); else None.  What leads to it need not be
    checked: whatever it is, the descriptor is then of a folder that only this user or root can
    write, and nothing is looked up by path after."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        pass
    try:
        fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC)
    except OSError:
        return None
    if _private(os.fstat(fd)):
        return fd
    os.close(fd)
    return None


def _read_private(folder: int, name: str) -> tuple[bool, Optional[bytes]]:
    """(whether the file `name` of the opened folder is this process's to write: absent, or a
    private file (`_private`, checked on the opened descriptor); the tables it holds, if it holds
    this module's header and their checksum).  A private file that holds anything else (Lark's own
    layout, a write cut short) is written over; a link, or a file anybody else could have written,
    is left alone."""
    try:
        fd = os.open(name, os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=folder)
    except FileNotFoundError:
        return True, None
    except OSError:
        return False, None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _private(st):
            return False, None
        data = f.read(MAX_CACHE_BYTES + 1)
    if len(data) > MAX_CACHE_BYTES or not data.startswith(_MAGIC):
        return True, None
    digest, _, tables = data[len(_MAGIC):].partition(b"\n")
    return True, (tables if hashlib.sha256(tables).hexdigest().encode() == digest else None)


def _cache_file(grammar: str) -> Optional[str]:
    """The cache file of the parser's tables that would be read (if it is there) or written, or
    None (see `_Cache.find`)."""
    cache = _Cache.find(grammar)
    if cache is None:
        return None
    with cache:
        return str(cache.path / cache.name)


def _private(st: os.stat_result) -> bool:
    """Whether nobody but this user (or root) can have written what `st` describes: it belongs to
    this user or root, and neither its group nor others may write it (a folder like /tmp, which
    anybody may write, is refused).  The status is of an opened descriptor, so it is of what is
    then read, and no link can stand between."""
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    return st.st_uid in (os.getuid(), 0)

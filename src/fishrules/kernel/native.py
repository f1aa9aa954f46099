"""The native backend: the kernel program as C, compiled on first use, cached, loaded with ctypes.

`compiler()` finds a C compiler: `$FISHRULES_CC`, else `cc`, `gcc` or `clang` on PATH, else the
`ziglang` package (the extra `fishrules[native]`) as `python -m ziglang cc`.  `build(kp)` writes the
C (`emit_c`), compiles it into a shared library and caches it in the user's cache directory
(`$FISHRULES_CACHE`, else `$XDG_CACHE_HOME/fishrules`, else `~/.cache/fishrules`, in `kernels/`),
keyed by a hash of the C source (which holds the rules' layout and the emitter's version), the
compiler and the platform.  A library is built in a folder of its own and renamed into place only
once the compiler has finished, with a checksum beside it; a cache entry whose checksum does not
match (truncated, corrupted, written by somebody else) is never loaded: it is built again.
Processes that need the same library at once wait for the one building it (`_building`).

A library is code, and is only ever loaded from a place only its user (and root) can write: the
cache folder and every folder above it are checked as they are opened, the folder is then used
through its descriptor only, and a library is hashed and loaded through one descriptor (see "the
cache" below); with no such place, the library is built in a private temporary folder, removed
once loaded.  The cache keeps to a size bound (`cache_size`), evicting what was used least
recently.  The compiler runs in a process group of its own, killed whole at COMPILE_TIMEOUT; a
text it failed on is not compiled again for FAILURE_MEMORY seconds; a build cut short leaves
nothing that the next build does not remove.

`NativeError` says why native code cannot be had (no compiler, a compiler that failed, a library
that is no kernel); the caller (fishrules.kernel.Kernel) then uses the Python backend, with one
warning.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import platform
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from pathlib import Path
from typing import Iterator, Optional

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: processes that need a library each build it
    fcntl = None  # type: ignore[assignment]

from . import abi as A
from .abi import ARENA, FAULT_CAPACITY, FAULT_RULE, M64, MOVE_BYTES, MOVE_BYTES_MAX, MOVES_CAP, NIL, decision_seed
from .emit_c import EMITTER_VERSION, emit_c, frame_layout_c
from ..limits import MAX_PLAYOUT_DECISIONS
from .lower import KernelProgram
from .machine import _ask_all, give_outcome
from .pyruntime import KFault

__all__ = ["NativeError", "NativeBackend", "compiler", "build", "is_known", "remember", "cache_dir"]

#: Seconds a compile may take.
COMPILE_TIMEOUT = 120
#: Seconds a build waits for another process building the same library (then builds it too).
LOCK_WAIT = COMPILE_TIMEOUT + 10
#: The most C a build hands the compiler (the bundled rulesets write about 100 KiB): thousands of
#: phases make megabytes that take the compiler minutes and gigabytes, so they run as Python.
MAX_C_SOURCE = 4 << 20


class NativeError(Exception):
    """Native code cannot be built or loaded here; the message says why, for people."""


def _signed(v: int) -> int:
    v &= M64
    return v - (1 << 64) if v >= 1 << 63 else v


# ---- the compiler ------------------------------------------------------------------------------


_found: dict = {}


def compiler() -> tuple[list[str], str]:
    """(the command that compiles C, a description of it for the cache key); NativeError if none.
    Looked for once per process (and again if FISHRULES_CC or PATH change)."""
    key = (os.environ.get("FISHRULES_CC"), os.environ.get("PATH"))
    if key not in _found:
        try:
            _found[key] = _find_compiler()
        except NativeError as exc:
            _found[key] = exc
    got = _found[key]
    if isinstance(got, NativeError):
        raise NativeError(str(got))
    return got


def _find_compiler() -> tuple[list[str], str]:
    env = os.environ.get("FISHRULES_CC")
    candidates: list[list[str]] = []
    if env is not None:
        if not env.strip():
            raise NativeError("FISHRULES_CC is set but empty: no C compiler to use")
        candidates.append(env.split())
    else:
        for name in ("cc", "gcc", "clang"):
            path = shutil.which(name)
            if path:
                candidates.append([path])
        try:
            import ziglang  # noqa: F401  (the `native` extra: a C compiler as a Python package)

            candidates.append([sys.executable, "-m", "ziglang", "cc"])
        except ImportError:
            pass
    for cmd in candidates:
        try:
            out = subprocess.run(cmd + ["--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode == 0:
            return cmd, (out.stdout or out.stderr).splitlines()[0][:200] if (out.stdout or out.stderr) else cmd[0]
    if env is not None:
        raise NativeError(f"the C compiler FISHRULES_CC={env!r} does not run")
    raise NativeError("no C compiler was found (cc, gcc or clang on PATH, or `pip install fishrules[native]`)")


# ---- the cache ---------------------------------------------------------------------------------
#
# A library is code that runs as whoever loads it, so a cache entry may be believed only if nobody
# else can have changed it, nor the folders that lead to it, between the check and the load.  So
# every folder from the root down is checked (`_trusted`) as it is opened, each through the one
# above it and never through a link, and the cache folder is then held open: reading a checksum,
# hashing a library, storing one, evicting, all go through that descriptor and never the path
# again.  A library is hashed through its own descriptor and loaded from that descriptor
# (`/proc/self/fd/N`): the bytes that run are the bytes whose checksum was checked.  Where the
# platform cannot load from a descriptor (not Linux), the library is loaded by the path just
# checked from the root down, which only this user and root can change.

#: The most the kernel cache keeps, in bytes (`FISHRULES_CACHE_SIZE`, e.g. "64M", says otherwise):
#: past it, the libraries used least recently are removed (a library is "used" when built or loaded).
CACHE_SIZE = 256 << 20
#: Seconds for which a text the compiler failed on (an error, or more than COMPILE_TIMEOUT) is not
#: compiled again: it fails at once, with the same message.
FAILURE_MEMORY = 600
#: Seconds after which a half-built entry (`.build-*`, `.tmp-*`) is removed even if the process that
#: made it may still run (on another machine sharing the cache): no build takes that long.
STALE_AFTER = 3600

_O_DIR = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: Whether folders can be opened and worked in through descriptors (POSIX; not Windows, where the
#: cache is used by its path, with no owner to check).
_BY_FD = (bool(_O_DIR and _O_NOFOLLOW) and hasattr(os, "getuid")
          and {os.open, os.mkdir, os.rename, os.unlink, os.stat, os.utime} <= os.supports_dir_fd
          and os.listdir in os.supports_fd and os.utime in os.supports_fd)
_SUFFIX = ".dll" if sys.platform == "win32" else (".dylib" if sys.platform == "darwin" else ".so")
_LIB_NAME = re.compile(r"k[0-9a-f]{32}\.(?:so|dylib|dll)")
#: Every file the cache keeps: a library, its checksum, a note (`remember`), a failure (`_failed`).
_ENTRY = re.compile(r"(k[0-9a-f]{32})\.(?:so|dylib|dll)(?:\.sha256)?|([rf][0-9a-f]{32})")
#: Half-made things, named after the machine and process making them (`_owner`).
_PART = re.compile(r"(?:\.build-|\.tmp-|fishrules-kernel-)([0-9a-f]{8})-([0-9]+)-.*", re.S)


class _Failed(NativeError):
    """The compiler failed on a text (an error, or too long): remembered, not tried again at once."""


class _Folder:
    """A folder opened once: every name is reached through its descriptor `fd` (None where the
    platform has no such calls: then through `path`, the path it was opened by, which is also what
    the compiler is given and what messages name)."""

    def __init__(self, fd: Optional[int], path: str):
        self.fd, self.path = fd, path

    def __enter__(self) -> "_Folder":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = -1  # (closed: any later use fails, and never reaches some other path)

    def at(self, name: str) -> str:
        return name if self.fd is not None else os.path.join(self.path, name)

    def open(self, name: str, flags: int, mode: int = 0o600) -> int:
        return os.open(self.at(name), flags | _O_NOFOLLOW | _O_CLOEXEC, mode, dir_fd=self.fd)

    def sub(self, name: str) -> "_Folder":
        """The folder `name` in this one, opened (never through a link)."""
        if self.fd is None:
            return _Folder(None, os.path.join(self.path, name))
        return _Folder(self.open(name, os.O_RDONLY | _O_DIR), os.path.join(self.path, name))

    def stat(self, name: str) -> os.stat_result:
        return os.stat(self.at(name), dir_fd=self.fd, follow_symlinks=False)

    def names(self) -> list[str]:
        return os.listdir(self.fd if self.fd is not None else self.path)

    def move(self, name: str, to: "_Folder", new: str) -> None:
        os.rename(self.at(name), to.at(new), src_dir_fd=self.fd, dst_dir_fd=to.fd)

    def remove(self, name: str) -> None:
        """Remove a file or a whole folder (never following a link), whatever is left of it."""
        try:
            if stat.S_ISDIR(self.stat(name).st_mode):
                shutil.rmtree(self.at(name), dir_fd=self.fd)
            else:
                os.unlink(self.at(name), dir_fd=self.fd)
        except OSError:
            pass

    def write(self, name: str, data: bytes) -> None:
        """`data` as the file `name`, whole or not at all (written aside, then renamed)."""
        tmp = f".tmp-{_owner()}-{secrets.token_hex(6)}"
        fd = self.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            self.move(tmp, self, name)
        except BaseException:
            self.remove(tmp)
            raise

    def read(self, name: str, most: int) -> Optional[tuple[bytes, os.stat_result]]:
        """The bytes of the file `name` and its status, if it is a file of this user's that nobody
        else may write (`_own_file`) and holds at most `most` bytes; else None."""
        try:
            fd = self.open(name, os.O_RDONLY)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(fd)
            data = f.read(most + 1)
        return (data, st) if _own_file(st) and len(data) <= most else None


def _owner() -> str:
    """This machine (a hash of its name) and process, as half-made things are named."""
    host = hashlib.sha256(platform.node().encode("utf-8", "replace")).hexdigest()[:8]
    return f"{host}-{os.getpid()}"


def _own_file(st: os.stat_result) -> bool:
    """A regular file of this user's that neither its group nor others may write."""
    if not stat.S_ISREG(st.st_mode):
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or (st.st_uid == getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _trusted(st: os.stat_result, last: bool) -> bool:
    """Whether a folder on the way to the cache is safe: nobody but this user (and root) can
    rename, replace or add what it holds.  The cache folder itself is this user's own and nobody
    else's to write; a folder above it belongs to this user or root, and neither its group nor
    others may write it, unless it is root's and sticky, like /tmp (there others may add names,
    but may not rename or remove what they do not own).  A folder writable by a group is refused
    even when the group is the user's alone: nothing here can tell."""
    uid = os.getuid()
    writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if last:
        return st.st_uid == uid and not writable and st.st_mode & stat.S_IRWXU == stat.S_IRWXU
    if st.st_uid not in (uid, 0):
        return False
    return not writable or bool(st.st_mode & stat.S_ISVTX and st.st_uid == 0)


def _cache_path() -> str:
    base = os.environ.get("FISHRULES_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = os.path.join(xdg if xdg else os.path.join(os.path.expanduser("~"), ".cache"), "fishrules")
    # The links on the way (a home reached through one, /tmp on macOS) are resolved once, here;
    # what they lead to is then checked folder by folder, and no link is followed after.
    return os.path.join(os.path.realpath(base), "kernels")


def _open_cache() -> Optional[_Folder]:
    """The cache folder, made if missing, checked from the root down and opened; or None (no
    safe place: see `_trusted`)."""
    try:
        path = _cache_path()
    except (OSError, ValueError, RuntimeError):
        return None
    if not _BY_FD:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError:
            return None
        return _Folder(None, path) if os.access(path, os.W_OK) else None
    try:
        fd = os.open("/", os.O_RDONLY | _O_DIR | _O_CLOEXEC)
    except OSError:
        return None
    try:
        parts = [p for p in path.split(os.sep) if p]
        for name in parts:
            if not _trusted(os.fstat(fd), last=False):
                raise OSError("not a safe place")
            flags = os.O_RDONLY | _O_DIR | _O_NOFOLLOW | _O_CLOEXEC
            try:
                inner = os.open(name, flags, dir_fd=fd)
            except FileNotFoundError:
                try:
                    os.mkdir(name, 0o700, dir_fd=fd)
                except FileExistsError:  # made by another process meanwhile: checked like any other
                    pass
                inner = os.open(name, flags, dir_fd=fd)
            os.close(fd)
            fd = inner
        if not _trusted(os.fstat(fd), last=True):
            raise OSError("not a safe place")
    except OSError:
        os.close(fd)
        return None
    return _Folder(fd, path)


def cache_dir() -> Optional[Path]:
    """Where compiled kernels are kept, or None if there is no safe place (see `_trusted`): then
    each process builds its kernels in a private temporary folder, removed once they are loaded."""
    folder = _open_cache()
    if folder is None:
        return None
    with folder:
        return Path(folder.path)


def cache_size() -> int:
    """The bound of the kernel cache in bytes: `$FISHRULES_CACHE_SIZE` (a number of bytes, or of
    K, M or G: KiB, MiB, GiB), else CACHE_SIZE."""
    got = re.fullmatch(r"\s*([0-9]{1,15})\s*([kmg]?)(?:i?b)?\s*", os.environ.get("FISHRULES_CACHE_SIZE", ""), re.I)
    if got is None:
        return CACHE_SIZE
    return int(got[1]) << {"": 0, "k": 10, "m": 20, "g": 30}[got[2].lower()]


def _flags(sanitize: bool) -> list[str]:
    f = ["-shared", "-fPIC", "-std=gnu11", "-fvisibility=hidden", "-w"]
    if sanitize:  # for the tests: -O0 builds in a third of the time, and finds as much
        return f + ["-O0", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
    return f + ["-O2"]


def _entry(source: str, who: str, sanitize: bool) -> str:
    """A cache entry's file name: rules (as C), emitter, compiler, flags and platform."""
    key = hashlib.sha256("\0".join([source, EMITTER_VERSION, who, " ".join(_flags(sanitize)), platform.platform(),
                                    platform.machine(), sys.implementation.cache_tag or ""]).encode()).hexdigest()[:32]
    return f"k{key}{_SUFFIX}"


# A library is found by the hash of its C, which takes lowering the rules to know.  The API asks
# at a game's first `start` whether the kernel is ready, and lowering rules there (strangers' rules
# too, at every table) is work nobody asked for: a note by the rules' own hash, written when the
# library is built, answers without it.  A stale note (another version of the lowering) costs one
# compile at that start, never a wrong library: the library is always found by its C.


def _note(rules: str, who: str) -> str:
    from .. import __version__

    key = hashlib.sha256("\0".join([rules, EMITTER_VERSION, __version__, who, platform.platform(), platform.machine(),
                                    sys.implementation.cache_tag or ""]).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"r{key}"  # (a title may hold any code point a file held, lone surrogates included)


class _Library:
    """A compiled library, opened and checked: `fd` is the very file whose bytes hash to `digest`;
    `path` names it (for people, and for loading where a descriptor cannot be loaded from);
    `name` is its cache entry's; `cached`: it is in the cache; `cleanup`: a temporary folder to
    remove once it is loaded."""

    def __init__(self, fd: int, digest: str, path: str, name: str, cached: bool, cleanup: Optional[str] = None):
        self.fd, self.digest, self.path, self.name, self.cached, self.cleanup = fd, digest, path, name, cached, cleanup


def remember(rules: str, lib: _Library) -> None:
    """Note that the rules hashed `rules` have the library `lib` (if it is in the cache)."""
    if not lib.cached:
        return
    folder = _open_cache()
    if folder is None:
        return
    with folder:
        try:
            note = _note(rules, compiler()[1])
            got = folder.read(note, 64)
            if got is not None and got[0] == lib.name.encode():
                _touch(folder, note)
                return
            folder.write(note, lib.name.encode())
            _tidy(folder, keep={note, lib.name, lib.name + ".sha256"})
        except (OSError, NativeError):
            pass


def is_known(rules: str) -> bool:
    """Whether the rules hashed `rules` have a whole library in the cache, by the note that
    `remember` wrote (nothing is lowered, nothing compiled)."""
    folder = _open_cache()
    if folder is None:
        return False
    with folder:
        try:
            got = folder.read(_note(rules, compiler()[1]), 64)
        except NativeError:
            return False
        if got is None:
            return False
        name = got[0].decode("ascii", "replace")
        if _LIB_NAME.fullmatch(name) is None:
            return False
        lib = _open_library(folder, name)
        if lib is None:
            return False
        os.close(lib.fd)
        return True


def _hash(fd: int) -> str:
    h = hashlib.sha256()
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 20):
        h.update(chunk)
    return h.hexdigest()


def _open_library(folder: _Folder, name: str) -> Optional[_Library]:
    """The cached library `name`, opened, if it is whole: a file of this user's that nobody else
    may write, whose bytes, read through the descriptor that will load them, match the checksum
    written beside it after it (truncated, corrupted, half-written: None, and it is built again)."""
    got = folder.read(name + ".sha256", 128)
    if got is None:
        return None
    want = got[0].decode("ascii", "replace").strip()
    try:
        fd = folder.open(name, os.O_RDONLY)
    except OSError:
        return None
    try:
        if _own_file(os.fstat(fd)) and _hash(fd) == want:
            return _Library(fd, want, os.path.join(folder.path, name), name, cached=True)
    except OSError:
        pass
    os.close(fd)
    return None


def _touch(folder: _Folder, name: str, fd: Optional[int] = None) -> None:
    """Mark an entry used now (the cache evicts what was used least recently)."""
    now = time.time_ns()
    try:
        if fd is not None and os.utime in os.supports_fd:
            os.utime(fd, ns=(now, now))
        else:
            os.utime(folder.at(name), ns=(now, now), dir_fd=folder.fd, follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass


# ---- failures, half-made things, the size bound ----------------------------------------------

_failed: dict[str, tuple[float, str]] = {}  # entry -> (time.monotonic() of the failure, message)


def _failure_name(entry: str) -> str:
    return "f" + entry[1:33]


def _check_failed(folder: Optional[_Folder], entry: str) -> None:
    """NativeError if the compiler failed on this entry's text less than FAILURE_MEMORY seconds ago,
    in this process or (by the note `_remember_failure` left in the cache) in another."""
    got = _failed.get(entry)
    if got is not None and time.monotonic() - got[0] < FAILURE_MEMORY:
        raise _Failed(got[1])
    if folder is None:
        return
    read = folder.read(_failure_name(entry), 1024)
    if read is not None and 0 <= time.time() - read[1].st_mtime < FAILURE_MEMORY:
        raise _Failed(read[0].decode("utf-8", "replace"))


def _remember_failure(folder: Optional[_Folder], entry: str, message: str) -> None:
    if len(_failed) >= 1024:
        try:
            _failed.pop(next(iter(_failed)))
        except (KeyError, RuntimeError, StopIteration):  # (another thread's, meanwhile)
            pass
    _failed[entry] = (time.monotonic(), message)
    if folder is not None:
        try:
            folder.write(_failure_name(entry), message.encode("utf-8", "replace")[:1024])
        except OSError:
            pass


def _alive(host: str, pid: int) -> bool:
    """Whether the process that made a half-made thing may still be making it."""
    here, _, me = _owner().partition("-")
    if host != here:
        return True  # another machine's: only its age tells
    if str(pid) == me:
        return True  # this process's (another thread's build)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def _sweep_parts(folder: _Folder, names: list[str]) -> None:
    """Remove what builds cut short left behind (the process was killed): half-made entries of this
    user's whose process is gone, or that are older than STALE_AFTER."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    for name in names:
        m = _PART.fullmatch(name)
        if m is None:
            continue
        try:
            st = folder.stat(name)
        except OSError:
            continue
        if uid is not None and st.st_uid != uid:
            continue  # (in a shared folder such as /tmp: somebody else's)
        if not _alive(m[1], int(m[2][:12])) or time.time() - st.st_mtime > STALE_AFTER:
            folder.remove(name)


def _tidy(folder: _Folder, keep: set) -> None:
    """Keep the cache under its bound (`cache_size`): remove what builds cut short left behind,
    then the entries used least recently (by the time `_touch` left on them) until what is left
    fits; the entries in `keep` (just built or used) stay whatever they weigh."""
    try:
        names = folder.names()
    except OSError:
        return
    _sweep_parts(folder, names)
    for name in names:  # locks left by builds killed midway (a live build's is minutes old at most)
        if name.startswith(".lock-"):
            try:
                if time.time() - folder.stat(name).st_mtime > STALE_AFTER:
                    folder.remove(name)
            except OSError:
                pass
    groups: dict[str, list] = {}  # an entry (a library with its checksum, a note) -> [bytes, last use, names]
    for name in names:
        m = _ENTRY.fullmatch(name)
        if m is None:
            continue
        try:
            st = folder.stat(name)
        except OSError:
            continue
        g = groups.setdefault(m[1] or m[2], [0, 0, []])
        g[0] += max(getattr(st, "st_blocks", 0) * 512, st.st_size)
        g[1] = max(g[1], st.st_mtime_ns)
        g[2].append(name)
    total, bound = sum(g[0] for g in groups.values()), cache_size()
    for key, (size, _, members) in sorted(groups.items(), key=lambda kv: (kv[1][1], kv[0])):
        if total <= bound:
            break
        if keep.intersection(members):
            continue
        for name in sorted(members):  # the library before its checksum: never a checksum alone
            folder.remove(name)
        total -= size


# ---- building ----------------------------------------------------------------------------------


def build(kp: KernelProgram, sanitize: bool = False) -> _Library:
    """The shared library of a program, compiled now or found in the cache, opened and checked."""
    try:
        source = emit_c(kp)
    except RecursionError:  # (a chain of a thousand `otherwise if`s: one nested C `if` a link)
        raise NativeError("the rules nest deeper than the kernel writes as C") from None
    if len(source) > MAX_C_SOURCE:
        raise NativeError(f"the rules make {len(source) >> 20} MiB of C, more than the {MAX_C_SOURCE >> 20} MiB "
                          "the kernel compiles")
    cmd, who = compiler()
    entry = _entry(source, who, sanitize)
    folder = _open_cache()
    if folder is None:
        return _build_privately(source, cmd, sanitize, entry)
    with folder:
        lib = _open_library(folder, entry)
        if lib is not None:
            _touch(folder, entry, lib.fd)
            return lib
        _check_failed(folder, entry)
        with _building(folder, entry):
            lib = _open_library(folder, entry)  # built by another process while this one waited
            if lib is not None:
                _touch(folder, entry, lib.fd)
                return lib
            _check_failed(folder, entry)
            return _build_in(folder, entry, source, cmd, sanitize)


def _build_in(folder: _Folder, entry: str, source: str, cmd: list[str], sanitize: bool) -> _Library:
    """Compile `source` into the cache `folder` as `entry`."""
    part = f".build-{_owner()}-{secrets.token_hex(6)}"
    try:
        os.mkdir(folder.at(part), 0o700, dir_fd=folder.fd)
        with folder.sub(part) as inside:
            fd, digest = _compile(inside, source, cmd, sanitize)
            try:
                inside.move(f"kernel{_SUFFIX}", folder, entry)  # whole or not at all
                inside.write("sum", digest.encode())
                inside.move("sum", folder, entry + ".sha256")  # after the library: never a checksum alone
                _touch(folder, entry, fd)
            except BaseException:
                os.close(fd)
                raise
    except _Failed as exc:
        _remember_failure(folder, entry, str(exc))
        raise
    except OSError as exc:
        raise NativeError(f"the compiled kernel could not be stored ({exc.strerror or exc})") from None
    finally:
        folder.remove(part)
    _tidy(folder, keep={entry, entry + ".sha256"})
    return _Library(fd, digest, os.path.join(folder.path, entry), entry, cached=True)


@contextlib.contextmanager
def _building(folder: _Folder, entry: str) -> Iterator[None]:
    """While this process builds `entry`: the others that need the same library wait for it (a
    lock on the file `.lock-ENTRY` beside it) and then find it built, rather than each compiling
    it too (the processes of a test run, or of a server's workers, start at once and need the
    same rules).  A process that holds the lock longer than LOCK_WAIT (stopped, say) is not
    waited for: the library is then built twice, as without the lock.  The lock file goes once
    the build is over (a process killed meanwhile leaves it: `_tidy` removes it later)."""
    name, fd, held = f".lock-{entry}", None, False
    if fcntl is not None:
        try:
            fd = folder.open(name, os.O_RDWR | os.O_CREAT)
        except OSError:
            fd = None
    if fd is not None:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            except OSError:
                break
    try:
        yield
    finally:
        if fd is not None:
            if held:  # (removed while locked: a process waiting on it finds the library once it has it)
                folder.remove(name)
            os.close(fd)


def _build_privately(source: str, cmd: list[str], sanitize: bool, entry: str) -> _Library:
    """With no safe cache: build in a private temporary folder, removed at once where the library
    is loaded from its descriptor, else as soon as it is loaded (`_Library.cleanup`)."""
    _check_failed(None, entry)
    tmp = tempfile.gettempdir()
    if _BY_FD:  # what builds cut short left there (their process was killed)
        try:
            with _Folder(os.open(tmp, os.O_RDONLY | _O_DIR | _O_CLOEXEC), tmp) as shared:
                _sweep_parts(shared, [n for n in shared.names() if n.startswith("fishrules-kernel-")])
        except OSError:
            pass
    try:
        path = tempfile.mkdtemp(prefix=f"fishrules-kernel-{_owner()}-")
    except OSError as exc:
        raise NativeError(f"there is nowhere to build the kernel ({exc.strerror or exc})") from None
    try:
        with (_Folder(os.open(path, os.O_RDONLY | _O_DIR | _O_NOFOLLOW | _O_CLOEXEC), path) if _BY_FD
              else _Folder(None, path)) as inside:
            try:
                fd, digest = _compile(inside, source, cmd, sanitize)
            except _Failed as exc:
                _remember_failure(None, entry, str(exc))
                raise
    except OSError as exc:
        shutil.rmtree(path, ignore_errors=True)
        raise NativeError(f"the kernel could not be built ({exc.strerror or exc})") from None
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    if _proc_fd():
        shutil.rmtree(path, ignore_errors=True)
        return _Library(fd, digest, os.path.join(path, f"kernel{_SUFFIX}"), entry, cached=False)
    return _Library(fd, digest, os.path.join(path, f"kernel{_SUFFIX}"), entry, cached=False, cleanup=path)


def _compile(inside: _Folder, source: str, cmd: list[str], sanitize: bool) -> tuple[int, str]:
    """Compile `source` in the folder `inside`: (the library, opened, and its checksum)."""
    fd = inside.open("kernel.c", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(source)
    # The compiler works in the opened folder itself (Linux: the child's own view of the
    # descriptor), with names relative to it: nothing it reads or writes goes by a path that
    # could be changed under it.
    here = inside.path
    if inside.fd is not None and _proc_fd():
        here = f"/proc/self/fd/{inside.fd}"
    _run_compiler(cmd + _flags(sanitize) + ["-o", f"kernel{_SUFFIX}", "kernel.c"], here,
                  () if inside.fd is None else (inside.fd,))
    try:
        out = inside.open(f"kernel{_SUFFIX}", os.O_RDONLY)
    except OSError:
        raise _Failed("the C compiler wrote no library") from None
    try:
        if not _own_file(os.fstat(out)) and hasattr(os, "fchmod"):
            os.fchmod(out, 0o600)  # (a umask that lets others write: not in the cache)
        if not _own_file(os.fstat(out)):
            raise NativeError("the compiled kernel is not a file of this user's")
        return out, _hash(out)
    except BaseException:
        os.close(out)
        raise


def _run_compiler(args: list[str], cwd: str, pass_fds: tuple) -> None:
    """Run the compiler in a process group of its own, killed whole at COMPILE_TIMEOUT or when this
    process is interrupted: the driver's children (cc1, as, ld) go with it, none runs on orphaned.
    Each is also limited to about COMPILE_TIMEOUT seconds of CPU, which holds even if this
    process is killed first (Linux)."""
    # An interrupt (Ctrl-C) between starting the compiler and waiting for it must take the
    # compiler along too: it is held back until the wait's `try` can kill the group.
    mask = getattr(signal, "pthread_sigmask", None)
    held = mask(signal.SIG_BLOCK, {signal.SIGINT}) if mask is not None else None
    try:
        try:
            p = subprocess.Popen(args, cwd=cwd, pass_fds=pass_fds, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
        except (OSError, ValueError) as exc:
            raise NativeError(f"the C compiler could not be run ({exc})") from None
        try:
            try:
                import resource

                limit = int(COMPILE_TIMEOUT) + 5
                resource.prlimit(p.pid, resource.RLIMIT_CPU, (limit, limit))
            except (ImportError, AttributeError, OSError, ValueError):
                pass
            if mask is not None:
                mask(signal.SIG_SETMASK, held)  # a held interrupt is raised here, inside this try
                mask = None
            out, err = p.communicate(timeout=COMPILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill_group(p)
            raise _Failed(f"the C compiler took more than {COMPILE_TIMEOUT} s (these rules are not compiled again "
                          f"for {FAILURE_MEMORY // 60} minutes)") from None
        except BaseException:
            _kill_group(p)
            raise
    finally:
        if mask is not None:
            mask(signal.SIG_SETMASK, held)
    if p.returncode != 0:
        first = [line[:200] for line in (err or out).strip().splitlines()[:3]]
        raise _Failed("the C compiler failed: " + " / ".join(first))


def _kill_group(p: subprocess.Popen) -> None:
    """Kill the compiler and every process it started (its group: the driver is not waited for
    yet, so the group's number is still its own), then reap the driver."""
    try:
        killpg = getattr(os, "killpg", None)
        if killpg is not None:
            killpg(p.pid, signal.SIGKILL)
        else:
            p.kill()
    except OSError:
        pass
    p.wait()
    for pipe in (p.stdout, p.stderr):
        if pipe is not None:
            pipe.close()


# ---- loading -----------------------------------------------------------------------------------

_loaded: dict[str, tuple[int, ctypes.CDLL]] = {}  # checksum -> (its descriptor, kept open; the library)
_loading = threading.Lock()


def _proc_fd() -> bool:
    """Whether a library can be loaded from a descriptor (Linux, with /proc)."""
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self/fd")


def _load(lib: _Library) -> ctypes.CDLL:
    """Load a checked library from its descriptor.  The dynamic loader knows a library by the name
    it was loaded by, and never unloads one that ctypes loaded, so `/proc/self/fd/N` names the first
    library loaded by it for as long as the process lives: its descriptor stays open (one per
    library a process loads, like the library's own memory), and a library already loaded (by its
    checksum) is not loaded again."""
    with _loading:
        got = _loaded.get(lib.digest)
        if got is not None:
            os.close(lib.fd)
            return got[1]
        try:
            dll = ctypes.CDLL(f"/proc/self/fd/{lib.fd}" if _proc_fd() else lib.path)
        except OSError as exc:
            os.close(lib.fd)
            raise NativeError(f"the compiled kernel could not be loaded ({exc})") from None
        _loaded[lib.digest] = (lib.fd, dll)
        return dll


# ---- the backend -------------------------------------------------------------------------------

_P = ctypes.c_void_p
_I = ctypes.c_int64


class NativeBackend:
    """The kernel as native code: a state is an `array('q')`; the same calls as `PyBackend`."""

    name = "native"

    def __init__(self, kp: KernelProgram, sanitize: bool = False, rules: Optional[str] = None):
        self.kp = kp
        got = build(kp, sanitize)
        self.path = Path(got.path)
        try:
            lib = self.lib = _load(got)
        finally:
            if got.cleanup:
                shutil.rmtree(got.cleanup, ignore_errors=True)
        for name, res, args in (
            ("fk_size", _I, []), ("fk_move_width", _I, []), ("fk_context", _P, [_I, _I, _I]), ("fk_free", None, [_P]),
            ("fk_new", ctypes.c_int, [_P, _P]), ("fk_run", ctypes.c_int, [_P, _P, ctypes.c_int, ctypes.c_int]),
            ("fk_moves", _I, [_P, _P, _I, _P, _I]), ("fk_scores", ctypes.c_int, [_P, _P, _P]),
            ("fk_winners", _I, [_P, _P, _P]), ("fk_looks", None, [_P, _P, _P, _P]),
            ("fk_simulate", None, [_P, _P, _P, _I, _P, _P, _P, _P, _P, _P, _P]),
("fk_step", _I, [_P, _P, _P, _P, _I]), ("fk_choose", ctypes.c_int, [_P, _P, _P, ctypes.c_int]),
            ("fk_score_parts", ctypes.c_int, [_P, _P, _P]),
            ("fk_record", None, [_P, ctypes.c_int]), ("fk_trace", _I, [_P, _P, _I]),
            ("fk_domain", _I, [_P, _P, _I, _I, _P, _P, _I]), ("fk_why", ctypes.c_int, [_P, _P, _I, _P, _P]),
        ):
            try:
                f = getattr(lib, name)
            except AttributeError:  # a library that is not a kernel of this version's
                raise NativeError(f"the compiled kernel has no entry point {name}") from None
            f.restype = res
            f.argtypes = args
        lay = kp.layout
        if lib.fk_size() != lay.size or lib.fk_move_width() != lay.move_width:
            raise NativeError("the compiled kernel does not match its rules")  # pragma: no cover
        if rules is not None and not sanitize:
            remember(rules, got)
        # lists of moves bounded in bytes: as many moves as MOVE_BYTES holds at first (every move
        # a decision may list, MOVES_CAP, for moves up to 64 numbers wide), grown by the kernel up
        # to MOVE_BYTES_MAX for wider ones
        self.moves_max = max(1, min(MOVES_CAP, MOVE_BYTES_MAX // (8 * lay.move_width)))
        self.ctx = lib.fk_context(ARENA, max(1, min(MOVES_CAP, MOVE_BYTES // (8 * lay.move_width))), self.moves_max)
        if not self.ctx:
            raise NativeError("no memory for the kernel's scratch space")
        self._free = lib.fk_free
        self._templates: dict = {}  # (players, limit, options) -> a template state (`template`)
        self._step = lib.fk_step
        self._fk_looks = lib.fk_looks
        self._looks = (array("q", bytes(8 * len(kp.looks))), array("q", bytes(8 * len(kp.looks))))
        self.size = lay.size
        self.tail = max(lay.nrules + 2 * len(lay.zones), 1)  # what `simulate` gives of a game after its outcome
        self.width = lay.move_width
        self._moves = array("q", bytes(8 * 256 * lay.move_width))
        self.term = 0  # the score line `score_parts` was working out last (where it went wrong, after a fault)
        self._waits: dict = {}  # (block, site) -> where its `who` and `chosen` are in the frame
        self._asks: dict = {}  # (block, site, "who" or "chosen") -> where its list is in the frame  # grown when a decision lists more
        self._out = array("q", bytes(8 * max(lay.seats, 1)))
        self._layouts = {f.name: frame_layout_c(kp, f) for f in kp.functions if f.kind == "block"}
        self._sizes = {f.name: kp.frame_cap[f.name] for f in kp.functions if f.kind == "block"}
        self._nseen = sum(1 for key, _ in kp.looks if key[0] == "seen by")
        #: block -> where each parameter is in a move's record, and whether it is `some` (a count,
        #: then the things): the action's offsets (`Layout.params_at`), as its block loads them
        self._params: dict[int, tuple[tuple[int, bool], ...]] = {}
        for f in kp.functions:
            if f.kind == "block" and f.loads:
                self._params[f.block] = tuple((1 + at, is_buf) for _, at, is_buf in f.loads[1:])

    def __del__(self):
        ctx, free = getattr(self, "ctx", None), getattr(self, "_free", None)
        if ctx and free is not None:
            free(ctx)
            self.ctx = None

    @staticmethod
    def _ptr(S: array) -> int:
        return S.buffer_info()[0]

    def _check(self, fault: int) -> None:
        if fault:
            raise KFault(fault)

    # ---- games -------------------------------------------------------------------------------

    def template(self, players: int, options: dict, limit: int = MAX_PLAYOUT_DECISIONS) -> array:
        """A state with the header and options of a game, not yet set up."""
        from .machine import encode_option

        kp = self.kp
        S = array("q", bytes(8 * self.size))
        S[A.H_N] = players
        S[A.H_LIMIT] = limit
        S[A.H_CUR] = A.CUR_RUN
        for o in kp.model.options:
            S[kp.layout.g_index[o.slot]] = encode_option(kp, options[o.name])
        return S

    def new(self, players: int, options: dict, seed: int, dseed: Optional[int] = None,
            limit: int = MAX_PLAYOUT_DECISIONS) -> array:
        try:
            key = (players, limit, tuple(options.items()))
            T = self._templates.get(key)
        except TypeError:  # an option's value that is not hashable: no template kept
            key, T = None, None
        if T is None:
            T = self.template(players, options, limit)
            if key is not None and len(self._templates) < 64:
                self._templates[key] = T
        S = array("q", T)  # a copy of the template (a game starts with what its set-up wrote)
        S[A.H_SEED] = _signed(seed)
        S[A.H_DSEED] = _signed(decision_seed(seed) if dseed is None else dseed)
        self._check(self.lib.fk_new(self.ctx, self._ptr(S)))
        return S

    def start(self, S: array, playout: bool) -> None:
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 0, 1 if playout else 0))

    def playout(self, S: array) -> None:
        from .machine import pick_waiting

        cur = S[A.H_CUR]
        if cur == A.CUR_OVER:
            return
        if cur == A.CUR_RUN:
            self.start(S, True)
            return
        if cur == A.CUR_CHANCE:  # (no playout goes on from an outcome the caller is to give, yet)
            raise KFault(FAULT_CAPACITY)
        move = pick_waiting(self, S)
        if cur == A.CUR_SIMUL:
            for m in move:  # (the last one runs on)
                self.choose(S, m, playout=True)
        else:
            self.play(S, move, playout=True)

    def moves(self, S: array, player: int) -> list:
        n = self._list(S, player)
        w, raw = self.width, self._moves
        return [self._decode(raw[i * w:(i + 1) * w]) for i in range(n)]

    def _list(self, S: array, player: int) -> int:
        """The legal moves of `player` into `self._moves`: how many.  A listing longer than the
        buffer holds is made again into one 16 times larger, up to the kernel's own most
        (`moves_max`: a buffer of that many records is not kept for every game of wide moves)."""
        while True:
            cap = len(self._moves) // self.width
            n = self.lib.fk_moves(self.ctx, self._ptr(S), player, self._ptr(self._moves), cap)
            if n != -FAULT_CAPACITY or cap >= self.moves_max:
                break
            self._moves = array("q", bytes(8 * min(self.moves_max, 16 * cap) * self.width))
        if n < 0:
            raise KFault(-n)
        return n

    def _decode(self, rec) -> tuple:
        """A C move record as the Python backend's move (a `some` parameter: a tuple)."""
        out = [rec[0], rec[1]]
        for at, is_buf in self._params.get(rec[0], ()):
            if is_buf:
                out.append(tuple(rec[at + 1:at + 1 + rec[at]]))
            else:
                out.append(None if rec[at] == NIL else rec[at])
        return tuple(out)

    def _encode(self, move: tuple) -> list:
        rec = [0] * self.width
        rec[0], rec[1] = move[0], move[1]
        for (at, _), v in zip(self._params.get(move[0], ()), move[2:]):
            if isinstance(v, tuple):
                rec[at] = len(v)
                rec[at + 1:at + 1 + len(v)] = v
            else:
                rec[at] = NIL if v is None else v
        return rec

    def moves_raw(self, S: array, player: int) -> tuple:
        """(how many moves, their records as the kernel writes them, `width` numbers each): what
        the API's fast path keeps; `decode(records, i)` gives one as `moves` would."""
        n = self._list(S, player)
        return n, self._moves[:n * self.width]

    def decode(self, records: array, i: int) -> tuple:
        w = self.width
        return self._decode(records[i * w:(i + 1) * w])

    @staticmethod
    def records_key(records: array) -> bytes:
        """What a listing is known by (equal listings, equal keys): its records' bytes."""
        return records.tobytes()

    def record_key(self, records: array, i: int) -> bytes:
        """What move `i` of a listing is known by (the same move, the same key): its record's bytes."""
        w = self.width
        return records[i * w:(i + 1) * w].tobytes()

    def step_raw(self, S: array, records: array, i: int) -> tuple:
        """Play move `i` of `moves_raw`'s records, run to the next decision and list the moves of
        the player to choose there, in one call into the kernel (the API's loop crosses into native
        code once a decision): (n, records) as `moves_raw` gives them, or (0, None) when no single
        player is to choose (the game is over, or players choose together)."""
        w, moves = self.width, self._moves
        n = self._step(self.ctx, S.buffer_info()[0], records.buffer_info()[0] + 8 * w * i,
                       moves.buffer_info()[0], len(moves) // w)
        if S[A.H_CUR] < 0:
            if n < 0:
                raise KFault(-n)
            return 0, None
        if n == -FAULT_CAPACITY and len(moves) // w < self.moves_max:  # the move is played: list again, wider
            return self.moves_raw(S, S[A.H_CUR])
        if n < 0:
            raise KFault(-n)
        return n, moves[:n * w]

    def play(self, S: array, move: tuple, playout: bool = False) -> None:
        S[A.H_MOVE:A.H_MOVE + self.width] = array("q", self._encode(move))
        S[A.H_CUR] = A.CUR_RUN
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 1, 1 if playout else 0))

    def play_chance(self, S: array, outcome: int) -> None:
        """Give the chance outcome the game waits for (`machine.give_outcome`); run on to the next wait."""
        give_outcome(S, outcome)
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 1, 0))

    # ---- reading an action's text (see PyBackend) -------------------------------------------------

    def domain(self, S: array, action: int, param: int, move: tuple) -> list:
        """What parameter `param` of `action` may be at S, given the actor and earlier values of
        `move` (a move as `moves` gives them; later values are not read).  S's move slots and work
        count are written: give a copy of the position."""
        doms = self.kp.action_domains
        if not (0 <= action < len(doms) and 0 <= param < len(doms[action])):
            raise KFault(FAULT_RULE)
        cap = max(doms[action][param][1], 1)
        out = array("q", bytes(8 * cap))
        rec = array("q", self._encode(move))
        n = self.lib.fk_domain(self.ctx, self._ptr(S), action, param, self._ptr(rec), self._ptr(out), cap)
        if n < 0:
            raise KFault(-n)
        return [None if v == NIL else v for v in out[:n]]

    def why(self, S: array, action: int, move: tuple) -> int:
        """Which rule of `action` the move breaks at S (`BlockLowering.why`; S as for `domain`)."""
        if not (0 <= action < len(self.kp.action_why)):
            raise KFault(FAULT_RULE)
        rec = array("q", self._encode(move))
        out = array("q", [0])
        self._check(self.lib.fk_why(self.ctx, self._ptr(S), action, self._ptr(rec), self._ptr(out)))
        return out[0]

    def top_frame(self, S: array) -> int:
        fp = self.kp.layout.frames
        for _ in range(S[A.H_DEPTH] - 1):
            fp += self._sizes[self.kp.block_fn[S[fp]]]
        return fp

    def frame_blocks(self, S: array) -> list:
        """The blocks running where the game waits (a frame each), outermost first."""
        fp, out = self.kp.layout.frames, []
        for _ in range(S[A.H_DEPTH]):
            b = S[fp]
            out.append(b)
            fp += self._sizes[self.kp.block_fn[b]]
        return out

    def _together(self, S: array, what: str) -> tuple[int, int]:
        top = self.top_frame(S)
        key = (S[top], S[A.H_SITE], what)
        got = self._asks.get(key)
        if got is None:
            name = self.kp.block_fn[S[top]]
            got = self._asks[key] = self._layouts[name][getattr(_ask_all(self.kp, name, S[A.H_SITE]), what)]
        return top + got[0], got[1]

    def who_together(self, S: array) -> tuple:
        at, _ = self._together(S, "who")
        return tuple(S[at + 1:at + 1 + S[at]])

    def choose(self, S: array, move: tuple, playout: bool = False) -> None:
        """One player's move at the simultaneous choice the game waits at, kept in the position;
        once everybody has chosen the game runs on (fk_choose; `PyBackend.choose`)."""
        rec = array("q", self._encode(move))
        self._check(self.lib.fk_choose(self.ctx, self._ptr(S), self._ptr(rec), 1 if playout else 0))

    def choose_raw(self, S: array, records: array, i: int) -> None:
        """`choose` of move `i` of `moves_raw`'s records (no decoding on the way)."""
        self._check(self.lib.fk_choose(self.ctx, S.buffer_info()[0], records.buffer_info()[0] + 8 * self.width * i, 0))

    def rechoose(self, S: array, k: int, move: tuple) -> None:
        """`PyBackend.rechoose`: the waiting frame's `chosen` holds the records end to end."""
        at, _ = self._together(S, "chosen")
        w = self.width
        if not 0 <= k < S[at] // w:  # (a move chosen so far)
            raise KFault(FAULT_RULE)
        S[at + 1 + k * w:at + 1 + (k + 1) * w] = array("q", self._encode(move))

    def waiting_together(self, S: array) -> list:
        """The players still to choose at the simultaneous choice the game waits at, in order."""
        top = self.top_frame(S)
        key = (S[top], S[A.H_SITE])
        got = self._waits.get(key)
        if got is None:
            name = self.kp.block_fn[S[top]]
            ask = _ask_all(self.kp, name, S[A.H_SITE])
            got = self._waits[key] = (self._layouts[name][ask.who][0], self._layouts[name][ask.chosen][0])
        wo, co = top + got[0], top + got[1]
        done = S[co + 2:co + 1 + S[co]:self.width]  # (each record's actor)
        return [p for p in S[wo + 1:wo + 1 + S[wo]] if p not in done]

    def chosen_together(self, S: array) -> tuple:
        """The moves chosen so far at the simultaneous choice the game waits at, in the order
        they were chosen."""
        at, _ = self._together(S, "chosen")
        w = self.width
        return tuple(self._decode(S[at + 1 + k * w:at + 1 + (k + 1) * w]) for k in range(S[at] // w))

    def play_together(self, S: array, chosen: tuple, playout: bool = False) -> None:
        at, cap = self._together(S, "chosen")
        flat: list = []
        for m in chosen:
            flat += self._encode(m)
        if len(flat) > cap:
            raise KFault(FAULT_CAPACITY)
        S[at] = len(flat)
        S[at + 1:at + 1 + len(flat)] = array("q", flat)
        S[A.H_CUR] = A.CUR_RUN
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 1, 1 if playout else 0))

    # ---- the record (kernel/record.py) --------------------------------------------------------

    def trace_on(self) -> None:
        """Keep a trace of what happens from the next call on, until `trace_off`."""
        self.lib.fk_record(self.ctx, 1)

    def trace_off(self) -> list:
        """Stop keeping the trace; its records since `trace_on`, as the Python kernel's tuples."""
        n = self.lib.fk_trace(self.ctx, None, 0)
        flat = array("q", bytes(8 * n))
        if n:
            self.lib.fk_trace(self.ctx, flat.buffer_info()[0], n)
        self.lib.fk_record(self.ctx, 0)
        return _records(flat, self._nseen)

    def scores(self, S: array) -> list:
        out = self._out
        self._check(self.lib.fk_scores(self.ctx, self._ptr(S), self._ptr(out)))
        return list(out[:S[A.H_N]])

    def score_parts(self, S: array) -> list:
        """Each player's score in its parts (`PyBackend.score_parts`); after a fault, `term` is
        the line that went wrong."""
        n, terms = S[A.H_N], len(self.kp.model.scores)
        out = array("q", bytes(8 * (max(self.kp.layout.seats, n, 0) * terms + 1)))
        fault = self.lib.fk_score_parts(self.ctx, self._ptr(S), self._ptr(out))
        if fault:
            self.term = out[n * terms] % terms if terms else 0
            raise KFault(fault)
        return [[None if v == NIL else v for v in out[p * terms:(p + 1) * terms]] for p in range(n)]

    def winners(self, S: array) -> list:
        out = self._out
        n = self.lib.fk_winners(self.ctx, self._ptr(S), self._ptr(out))
        if n < 0:
            raise KFault(-n)
        return list(out[:n])

    def looks(self, S: array) -> tuple[list, list]:
        """(values, faults) of the program's `looks` at this position: each value (None for
        nothing), and 0 or the fault that stopped working it out."""
        out, faults = self._looks
        self._fk_looks(self.ctx, S.buffer_info()[0], out.buffer_info()[0], faults.buffer_info()[0])
        return [None if v == NIL else v for v in out], faults.tolist()

    def simulate(self, players: int, options: dict, seeds: list, limit: int = MAX_PLAYOUT_DECISIONS) -> tuple:
        """Whole games, one per seed, in one call: (scores per game, winner masks, decisions,
        chances, faults, what each game leaves after them: the rules fired then the empty draws of
        each zone, as in the state, `tail` numbers a game, one after the other) (a game with a
        fault: its entries mean nothing).  The decisions' seeds are worked out in native code: in
        Python they cost a short game half as much again as playing it."""
        g = len(seeds)
        S0 = self.template(players, options, limit)
        S = array("q", bytes(8 * self.size))
        try:
            sd = array("q", array("Q", seeds).tobytes())  # the seeds' 64 bits, as the state holds them
        except OverflowError:  # a seed beyond 64 bits, or negative: its low 64 bits
            sd = array("q", [_signed(s) for s in seeds])
        scores = array("q", bytes(8 * g * players))
        wins, dec, ch, faults = (array("q", bytes(8 * g)) for _ in range(4))
        extra = array("q", bytes(8 * g * self.tail))
        p = self._ptr
        self.lib.fk_simulate(self.ctx, p(S0), p(S), g, p(sd), p(scores), p(wins), p(dec), p(ch), p(faults), p(extra))
        return scores, wins, dec, ch, faults, extra


def _nil(v: int):
    return None if v == NIL else v


def _records(f: array, nseen: int) -> list:
    """The native kernel's flat trace (kernel_state.h: `k_note_*`) as the records of
    fishrules.kernel.record, as the Python kernel writes them."""
    try:
        return _read_records(f, nseen)
    except IndexError:  # pragma: no cover - a record cut short: never (a call that fails leaves no trace)
        raise KFault(FAULT_CAPACITY) from None


def _read_records(f: array, nseen: int) -> list:
    out: list = []
    i, n = 0, len(f)
    while i < n:
        kind = f[i]
        if kind == 1:
            out.append((1, f[i + 1], f[i + 2]))
            i += 3
        elif kind == 2:
            out.append((2, f[i + 1]))
            i += 2
        elif kind == 3:
            seen = tuple(_nil(v) for v in f[i + 3:i + 3 + nseen])
            j = i + 3 + nseen
            m = f[j]
            trip = f[j + 1:j + 1 + 3 * m]
            out.append((3, f[i + 1], f[i + 2], seen, tuple(trip[0::3]), tuple(trip[1::3]), tuple(trip[2::3])))
            i = j + 1 + 3 * m
        elif kind == 4:
            m = f[i + 1]
            out.append((4, tuple(f[i + 2:i + 2 + m]), tuple(f[i + 2 + m:i + 2 + 2 * m])))
            i += 2 + 2 * m
        elif kind == 5:
            v, at, m = f[i + 1], f[i + 2], f[i + 3]
            old = tuple(_nil(x) for x in f[i + 4:i + 4 + m])
            j = i + 4 + m
            k = f[j]
            new = tuple(_nil(x) for x in f[j + 1:j + 1 + k])
            j += 1 + k
            out.append((5, v, at, old, new, tuple(_nil(x) for x in f[j:j + nseen])))
            i = j + nseen
        elif kind in (7, 8):
            out.append((kind,))
            i += 1
        else:  # pragma: no cover - the kernel writes no other kind
            raise KFault(FAULT_CAPACITY)
    return out

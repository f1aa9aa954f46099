"""The native backend: the kernel program as C, compiled on first use, cached, loaded with ctypes.

`compiler()` finds a C compiler: `$FISHRULES_CC`, else `cc`, `gcc` or `clang` on PATH, else the
`ziglang` package (the extra `fishrules[native]`) as `python -m ziglang cc`.  `build(kp)` writes the
C (`emit_c`), compiles it into a shared library and caches it in the user's cache directory
(`$FISHRULES_CACHE`, else `$XDG_CACHE_HOME/fishrules`, else `~/.cache/fishrules`), keyed by a hash
of the C source (which holds the rules' layout and the emitter's version), the compiler and the
platform.  A library is written under a temporary name and renamed into place only once the
compiler has finished, with a checksum beside it; a cache entry whose checksum does not match
(truncated, corrupted, written by somebody else) is never loaded: it is built again.  A cache
directory that is not the user's own, or that others may write, is not used at all (the library
is built in a private temporary directory instead): a library is code, and is only ever loaded
from a place only its user can write.

`NativeError` says why native code cannot be had (no compiler, a compiler that failed, nowhere
to write); the caller (fishrules.kernel.Kernel) then uses the Python backend, with one warning.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Optional

from . import layout as L
from .emit_c import EMITTER_VERSION, emit_c, frame_layout_c
from ..limits import MAX_PLAYOUT_DECISIONS
from .lower import KernelProgram
from .lower_blocks import FAULT_CAPACITY
from .machine import _ask_all
from .pyruntime import KFault, decision_seed

__all__ = ["NativeError", "NativeBackend", "compiler", "build", "is_known", "remember", "cache_dir"]

_M64 = (1 << 64) - 1
#: The scratch memory of a context (collections worked out in a step), in 8-byte integers.
ARENA = 1 << 21
#: The most legal moves one decision may list in the native kernel (more: the engine lists them).
MOVES_CAP = 1 << 16
#: Seconds a compile may take.
COMPILE_TIMEOUT = 120
#: The most C a build hands the compiler (the bundled rulesets write about 100 KiB): thousands of
#: phases make megabytes that take the compiler minutes and gigabytes, so they run as Python.
MAX_C_SOURCE = 4 << 20


class NativeError(Exception):
    """Native code cannot be built or loaded here; the message says why, for people."""


def _signed(v: int) -> int:
    v &= _M64
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


def cache_dir() -> Optional[Path]:
    """Where compiled kernels are kept, or None if there is no safe place (see the module's text)."""
    base = os.environ.get("FISHRULES_CACHE")
    if base:
        root = Path(base)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = (Path(xdg) if xdg else Path.home() / ".cache") / "fishrules"
    path = root / "kernels"
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = path.stat()
    except OSError:
        return None
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
        return None
    if not os.access(path, os.W_OK):
        return None
    return path


def _flags(sanitize: bool) -> list[str]:
    f = ["-shared", "-fPIC", "-std=gnu11", "-fvisibility=hidden", "-w"]
    if sanitize:  # for the tests: -O0 builds in a third of the time, and finds as much
        return f + ["-O0", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
    return f + ["-O2"]


def _entry(source: str, who: str, sanitize: bool) -> str:
    """A cache entry's file name: rules (as C), emitter, compiler, flags and platform."""
    key = hashlib.sha256("\0".join([source, EMITTER_VERSION, who, " ".join(_flags(sanitize)), platform.platform(),
                                    platform.machine(), sys.implementation.cache_tag or ""]).encode()).hexdigest()[:32]
    return f"k{key}" + (".dll" if sys.platform == "win32" else (".dylib" if sys.platform == "darwin" else ".so"))


# A library is found by the hash of its C, which takes lowering the rules to know.  The API asks
# at a game's first `start` whether the kernel is ready, and lowering rules there (strangers' rules
# too, at every table) is work nobody asked for: a note by the rules' own hash, written when the
# library is built, answers without it.  A stale note (another version of the lowering) costs one
# compile at that start, never a wrong library: the library is always found by its C.

_LIB_NAME = re.compile(r"k[0-9a-f]{32}\.(?:so|dylib|dll)")


def _note(rules: str, who: str) -> str:
    from .. import __version__

    key = hashlib.sha256("\0".join([rules, EMITTER_VERSION, __version__, who, platform.platform(), platform.machine(),
                                    sys.implementation.cache_tag or ""]).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"r{key}"  # (a title may hold any code point a file held, lone surrogates included)


def remember(rules: str, lib: Path) -> None:
    """Note that the rules hashed `rules` have their library `lib` (in the cache)."""
    where = cache_dir()
    if where is None or lib.parent != where:
        return
    try:
        note = where / _note(rules, compiler()[1])
        fd, tmp = tempfile.mkstemp(prefix=".note-", dir=where)
        with os.fdopen(fd, "w") as f:
            f.write(lib.name)
        os.replace(tmp, note)  # whole or not at all
    except (OSError, NativeError):
        pass


def is_known(rules: str) -> bool:
    """Whether the rules hashed `rules` have a whole library in the cache, by the note that
    `remember` wrote (nothing is lowered, nothing compiled)."""
    where = cache_dir()
    if where is None:
        return False
    try:
        with open(where / _note(rules, compiler()[1]), "rb") as f:
            name = f.read(64).decode("ascii")
    except (OSError, UnicodeDecodeError, NativeError):
        return False
    return _LIB_NAME.fullmatch(name) is not None and _intact(where / name)


def build(kp: KernelProgram, sanitize: bool = False) -> Path:
    """The shared library of a program, compiled now or found in the cache."""
    source = emit_c(kp)
    if len(source) > MAX_C_SOURCE:
        raise NativeError(f"the rules make {len(source) >> 20} MiB of C, more than the {MAX_C_SOURCE >> 20} MiB "
                          "the kernel compiles")
    cmd, who = compiler()
    suffix = ".dll" if sys.platform == "win32" else (".dylib" if sys.platform == "darwin" else ".so")
    where = cache_dir()
    if where is None:
        where = Path(tempfile.mkdtemp(prefix="fishrules-kernel-"))
    lib = where / _entry(source, who, sanitize)
    if _intact(lib):
        return lib
    tmp_dir = Path(tempfile.mkdtemp(prefix=".build-", dir=where))
    try:
        src = tmp_dir / "kernel.c"
        src.write_text(source)
        out = tmp_dir / f"kernel{suffix}"
        try:
            done = subprocess.run(cmd + _flags(sanitize) + ["-o", str(out), str(src)], capture_output=True, text=True,
                                  timeout=COMPILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise NativeError(f"the C compiler took more than {COMPILE_TIMEOUT} s") from None
        except OSError as exc:
            raise NativeError(f"the C compiler could not be run ({exc})") from None
        if done.returncode != 0 or not out.exists():
            first = (done.stderr or done.stdout).strip().splitlines()[:3]
            raise NativeError("the C compiler failed: " + " / ".join(first))
        digest = hashlib.sha256(out.read_bytes()).hexdigest()
        os.replace(out, lib)  # atomic: the library appears whole or not at all
        tmp_sum = tmp_dir / "sum"
        tmp_sum.write_text(digest)
        os.replace(tmp_sum, lib.with_name(lib.name + ".sha256"))
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    if not _intact(lib):
        raise NativeError("the compiled kernel could not be stored intact")
    return lib


def _intact(lib: Path) -> bool:
    """Whether a cached library is whole: its checksum, written after it, matches."""
    try:
        want = lib.with_name(lib.name + ".sha256").read_text().strip()
        return hashlib.sha256(lib.read_bytes()).hexdigest() == want
    except (OSError, UnicodeDecodeError):
        return False


# ---- the backend -------------------------------------------------------------------------------

_P = ctypes.c_void_p
_I = ctypes.c_int64


class NativeBackend:
    """The kernel as native code: a state is an `array('q')`; the same calls as `PyBackend`."""

    name = "native"

    def __init__(self, kp: KernelProgram, sanitize: bool = False, rules: Optional[str] = None):
        self.kp = kp
        self.path = build(kp, sanitize)
        if rules is not None and not sanitize:
            remember(rules, self.path)
        try:
            lib = self.lib = ctypes.CDLL(str(self.path))
        except OSError as exc:
            raise NativeError(f"the compiled kernel could not be loaded ({exc})") from None
        for name, res, args in (
            ("fk_size", _I, []), ("fk_move_width", _I, []), ("fk_context", _P, [_I, _I]), ("fk_free", None, [_P]),
            ("fk_new", ctypes.c_int, [_P, _P]), ("fk_run", ctypes.c_int, [_P, _P, ctypes.c_int, ctypes.c_int]),
            ("fk_moves", _I, [_P, _P, _I, _P, _I]), ("fk_scores", ctypes.c_int, [_P, _P, _P]),
            ("fk_winners", _I, [_P, _P, _P]),
            ("fk_simulate", None, [_P, _P, _P, _I, _P, _P, _P, _P, _P, _P, _P]),
            ("fk_script", ctypes.c_int, [_P, _P, _I]), ("fk_step", _I, [_P, _P, _P, _P, _I]),
        ):
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = args
        lay = kp.layout
        if lib.fk_size() != lay.size or lib.fk_move_width() != lay.move_width:
            raise NativeError("the compiled kernel does not match its rules")  # pragma: no cover
        self.ctx = lib.fk_context(ARENA, MOVES_CAP)
        if not self.ctx:
            raise NativeError("no memory for the kernel's scratch space")
        self._free = lib.fk_free
        self._templates: dict = {}  # (players, limit, options) -> a template state (`template`)
        self._step = lib.fk_step
        self.size = lay.size
        self.tail = max(lay.nrules + 2 * len(lay.zones), 1)  # what `simulate` gives of a game after its outcome
        self.width = lay.move_width
        self._moves = array("q", bytes(8 * 256 * lay.move_width))
        self._asks: dict = {}  # (block, site, "who" or "chosen") -> where its list is in the frame  # grown when a decision lists more
        self._out = array("q", bytes(8 * max(lay.seats, 1)))
        self._layouts = {f.name: frame_layout_c(kp, f) for f in kp.functions if f.kind == "block"}
        self._sizes = {f.name: kp.frame_cap[f.name] for f in kp.functions if f.kind == "block"}
        self._some = {}  # block -> which parameters are `some` (they take 1 + MAX_SUBSET slots)
        for f in kp.functions:
            if f.kind == "block" and f.loads:
                self._some[f.block] = tuple(is_buf for _, _, is_buf in f.loads[1:])

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
        S[L.H_N] = players
        S[L.H_LIMIT] = limit
        S[L.H_SCRIPT] = -1
        S[L.H_CUR] = L.CUR_RUN
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
        S[L.H_SEED] = _signed(seed)
        S[L.H_DSEED] = _signed(decision_seed(seed) if dseed is None else dseed)
        self._check(self.lib.fk_new(self.ctx, self._ptr(S)))
        return S

    def start(self, S: array, playout: bool) -> None:
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 0, 1 if playout else 0))

    def playout(self, S: array) -> None:
        from .machine import pick_waiting

        cur = S[L.H_CUR]
        if cur == L.CUR_OVER:
            return
        if cur == L.CUR_RUN:
            self.start(S, True)
            return
        move = pick_waiting(self, S)
        if cur == L.CUR_SIMUL:
            self.play_together(S, move, playout=True)
        else:
            self.play(S, move, playout=True)

    def moves(self, S: array, player: int) -> list:
        cap = len(self._moves) // self.width
        n = self.lib.fk_moves(self.ctx, self._ptr(S), player, self._ptr(self._moves), cap)
        if n == -FAULT_CAPACITY and cap < MOVES_CAP:  # more moves than the buffer holds: a bigger one, once
            self._moves = array("q", bytes(8 * MOVES_CAP * self.width))
            n = self.lib.fk_moves(self.ctx, self._ptr(S), player, self._ptr(self._moves), MOVES_CAP)
        if n < 0:
            raise KFault(-n)
        w, raw = self.width, self._moves
        return [self._decode(raw[i * w:(i + 1) * w]) for i in range(n)]

    def _decode(self, rec) -> tuple:
        """A C move record as the Python backend's move (a `some` parameter: a tuple)."""
        block = rec[0]
        some = self._some.get(block, ())
        out = [block, rec[1]]
        at = 2
        for is_buf in some:
            if is_buf:
                n = rec[at]
                out.append(tuple(rec[at + 1:at + 1 + n]))
                at += 1 + self.kp.layout.max_subset
            else:
                out.append(None if rec[at] == -(1 << 63) else rec[at])
                at += 1
        return tuple(out)

    def _encode(self, move: tuple) -> list:
        rec = [0] * self.width
        rec[0], rec[1] = move[0], move[1]
        at = 2
        for v in move[2:]:
            if isinstance(v, tuple):
                rec[at] = len(v)
                rec[at + 1:at + 1 + len(v)] = v
                at += 1 + self.kp.layout.max_subset
            else:
                rec[at] = -(1 << 63) if v is None else v
                at += 1
        return rec

    def moves_raw(self, S: array, player: int) -> tuple:
        """(how many moves, their records as the kernel writes them, `width` numbers each): what
        the API's fast path keeps; `decode(records, i)` gives one as `moves` would."""
        cap = len(self._moves) // self.width
        n = self.lib.fk_moves(self.ctx, self._ptr(S), player, self._ptr(self._moves), cap)
        if n == -FAULT_CAPACITY and cap < MOVES_CAP:
            self._moves = array("q", bytes(8 * MOVES_CAP * self.width))
            n = self.lib.fk_moves(self.ctx, self._ptr(S), player, self._ptr(self._moves), MOVES_CAP)
        if n < 0:
            raise KFault(-n)
        return n, self._moves[:n * self.width]

    def decode(self, records: array, i: int) -> tuple:
        w = self.width
        return self._decode(records[i * w:(i + 1) * w])

    def play_raw(self, S: array, records: array, i: int) -> None:
        """Play move `i` of `moves_raw`'s records, and run to the next decision."""
        w = self.width
        S[L.H_MOVE:L.H_MOVE + w] = records[i * w:(i + 1) * w]
        S[L.H_CUR] = L.CUR_RUN
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 1, 0))

    def step_raw(self, S: array, records: array, i: int) -> tuple:
        """Play move `i` of `moves_raw`'s records, run to the next decision and list the moves of
        the player to choose there, in one call into the kernel (the API's loop crosses into native
        code once a decision): (n, records) as `moves_raw` gives them, or (0, None) when no single
        player is to choose (the game is over, or players choose together)."""
        w, moves = self.width, self._moves
        n = self._step(self.ctx, S.buffer_info()[0], records.buffer_info()[0] + 8 * w * i,
                       moves.buffer_info()[0], len(moves) // w)
        if S[L.H_CUR] < 0:
            if n < 0:
                raise KFault(-n)
            return 0, None
        if n == -FAULT_CAPACITY and len(moves) // w < MOVES_CAP:  # the move is played: list again, wider
            return self.moves_raw(S, S[L.H_CUR])
        if n < 0:
            raise KFault(-n)
        return n, moves[:n * w]

    def play(self, S: array, move: tuple, playout: bool = False) -> None:
        S[L.H_MOVE:L.H_MOVE + self.width] = array("q", self._encode(move))
        S[L.H_CUR] = L.CUR_RUN
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 1, 1 if playout else 0))

    def top_frame(self, S: array) -> int:
        fp = self.kp.layout.frames
        for _ in range(S[L.H_DEPTH] - 1):
            fp += self._sizes[self.kp.block_fn[S[fp]]]
        return fp

    def _together(self, S: array, what: str) -> tuple[int, int]:
        top = self.top_frame(S)
        key = (S[top], S[L.H_SITE], what)
        got = self._asks.get(key)
        if got is None:
            name = self.kp.block_fn[S[top]]
            got = self._asks[key] = self._layouts[name][getattr(_ask_all(self.kp, name, S[L.H_SITE]), what)]
        return top + got[0], got[1]

    def who_together(self, S: array) -> tuple:
        at, _ = self._together(S, "who")
        return tuple(S[at + 1:at + 1 + S[at]])

    def play_together(self, S: array, chosen: tuple, playout: bool = False) -> None:
        at, cap = self._together(S, "chosen")
        flat: list = []
        for m in chosen:
            flat += self._encode(m)
        if len(flat) > cap:
            raise KFault(3)
        S[at] = len(flat)
        S[at + 1:at + 1 + len(flat)] = array("q", flat)
        S[L.H_CUR] = L.CUR_RUN
        self._check(self.lib.fk_run(self.ctx, self._ptr(S), 1, 1 if playout else 0))

    def script(self, items: list) -> None:
        flat = array("q", [x for item in items for x in item])
        self._check(self.lib.fk_script(self.ctx, self._ptr(flat), len(items)))

    def scores(self, S: array) -> list:
        out = self._out
        self._check(self.lib.fk_scores(self.ctx, self._ptr(S), self._ptr(out)))
        return list(out[:S[L.H_N]])

    def winners(self, S: array) -> list:
        out = self._out
        n = self.lib.fk_winners(self.ctx, self._ptr(S), self._ptr(out))
        if n < 0:
            raise KFault(-n)
        return list(out[:n])

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

#!/usr/bin/env python3
"""The hand-written C baseline of Fisherman (fisherman.c): built, loaded and timed.

    python -m benchmarks.baselines.cbaseline                    # games/s at 3 and 4 players
    python benchmarks/baselines/cbaseline.py --seconds 0.5 --windows 5

fisherman.c plays Fisherman under the kernel's rules of chance and choice
(fishrules.kernel.reference): game seed `s` is the engine's game `reference_playout(game, players,
s)`, decision for decision (tests/test_baseline_c.py holds it to that).  It is compiled with the
platform's C compiler (`$CC`, else `cc`, `gcc` or `clang` on PATH) at -O2 into a shared library
in the user cache directory (`$XDG_CACHE_HOME` or ~/.cache, else the temp directory), under
`fishrules-benchmarks/`, named by a hash of the source, the compiler and the flags; the library is
written to a temporary name and renamed into place, so that two processes building at once never
load a half-written file.  With no compiler, `CompilerMissing` says so.

- `play(players, seed) -> (scores, winners, decisions)`: one game.
- `play_many(players, seed0, games) -> (total_score, total_decisions)`: games seeded seed0,
  seed0 + 1, ... in one call (timing is not ctypes' call overhead).
- `history(players, seed) -> [text]`: the game's history as the engine's `state.history` writes it.
- `measure(players, seconds, windows)`: games/s, the best of `windows` windows, as run.py's.
- `build(sanitize=True)`: an executable built with -fsanitize=address,undefined (for the tests).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

SOURCE = Path(__file__).with_name("fisherman.c")
CFLAGS = ["-std=c99", "-O2", "-fPIC", "-shared"]
SANITIZE_FLAGS = ["-std=c99", "-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
                  "-fno-sanitize-recover=all", "-DFISHERMAN_MAIN"]
SEED = 20240601  # as run.py's and bench.py's games
SUITS = ("horse_mackerel", "puffer_fish", "sea_bream", "goby", "squid")

__all__ = ["CompilerMissing", "BuildFailed", "compiler", "build", "library", "play", "play_many", "history",
           "measure", "main"]


class CompilerMissing(RuntimeError):
    """No C compiler to build the baseline with."""


class BuildFailed(RuntimeError):
    """The compiler ran and failed; the message holds its output."""


def compiler() -> str:
    """The C compiler's path: `$CC`, else the first of cc, gcc, clang on PATH."""
    cc = os.environ.get("CC")
    for name in [cc] if cc else ["cc", "gcc", "clang"]:
        found = shutil.which(name)
        if found:
            return found
    if cc:
        raise CompilerMissing(f"no C compiler for the C baseline of Fisherman: $CC is {cc!r}, which is not found")
    raise CompilerMissing("no C compiler for the C baseline of Fisherman: none of cc, gcc, clang is on PATH "
                          "(install one, or set $CC)")


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for d in (Path(base) / "fishrules-benchmarks", Path(tempfile.gettempdir()) / f"fishrules-benchmarks-{getattr(os, 'getuid', lambda: 'user')()}"):
        try:
            d.mkdir(parents=True, exist_ok=True)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            continue
    raise BuildFailed("no writable cache directory for the C baseline (tried ~/.cache and the temp directory)")


def _version(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60)
        return out.stdout.splitlines()[0] if out.stdout else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def build(sanitize: bool = False) -> Path:
    """Compile fisherman.c (once: the output is cached by source, compiler and flags) and return
    its path: a shared library, or with `sanitize` an executable `fisherman PLAYERS SEED0 GAMES`
    built with the address and undefined-behaviour sanitizers.  Raises `CompilerMissing`, or
    `BuildFailed` with the compiler's messages (a missing sanitizer runtime fails so, at link)."""
    cc = compiler()
    flags = SANITIZE_FLAGS if sanitize else CFLAGS
    source = SOURCE.read_bytes()
    key = hashlib.sha256(b"\0".join([source, cc.encode(), _version(cc).encode(), " ".join(flags).encode(),
                                     sys.platform.encode()])).hexdigest()[:16]
    suffix = "" if sanitize else (".dylib" if sys.platform == "darwin" else ".so")
    out = _cache_dir() / f"fisherman-{'asan-' if sanitize else ''}{key}{suffix}"
    if out.exists():
        return out
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    os.close(fd)
    try:
        r = subprocess.run([cc, *flags, "-o", tmp, str(SOURCE)], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise BuildFailed(f"{cc} {' '.join(flags)} failed on {SOURCE.name}:\n{(r.stderr or r.stdout).strip()}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)  # whole, or not there at all
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


_lib: Optional[ctypes.CDLL] = None


def library() -> ctypes.CDLL:
    """The built library, loaded (once per process)."""
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(str(build()))
        i64p, ip, i32p = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int32)
        lib.fisherman_play.argtypes = [ctypes.c_int, ctypes.c_uint64, i64p, ip, i64p]
        lib.fisherman_play.restype = ctypes.c_int
        lib.fisherman_play_many.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_int64, i64p, i64p]
        lib.fisherman_play_many.restype = ctypes.c_int
        lib.fisherman_record.argtypes = [ctypes.c_int, ctypes.c_uint64, i32p, ctypes.c_int]
        lib.fisherman_record.restype = ctypes.c_int
        _lib = lib
    return _lib


def _check_players(players: int) -> None:
    if players not in (3, 4):
        raise ValueError(f"Fisherman is for 3 or 4 players, not {players!r}")


def play(players: int, seed: int) -> tuple[list[int], list[int], int]:
    """One game seeded `seed` (any int; taken mod 2^64, as the engine's generator takes it):
    (scores, winners, decisions)."""
    _check_players(players)
    scores = (ctypes.c_int64 * 4)()
    mask, decisions = ctypes.c_int(), ctypes.c_int64()
    if library().fisherman_play(players, seed & (2**64 - 1), scores, ctypes.byref(mask), ctypes.byref(decisions)):
        raise ValueError(f"fisherman_play({players}, {seed}) failed")
    return list(scores[:players]), [p for p in range(players) if mask.value >> p & 1], decisions.value


def play_many(players: int, seed0: int, games: int) -> tuple[int, int]:
    """Games seeded seed0, seed0 + 1, ... (mod 2^64): (sum of every score, sum of the decisions)."""
    _check_players(players)
    score, decisions = ctypes.c_int64(), ctypes.c_int64()
    if library().fisherman_play_many(players, seed0 & (2**64 - 1), games, ctypes.byref(score), ctypes.byref(decisions)):
        raise ValueError(f"fisherman_play_many({players}, {seed0}, {games}) failed")
    return score.value, decisions.value


def history(players: int, seed: int) -> list[str]:
    """The game's history (deal included) in the engine's texts: `draw goby-7`, `play_card ...`."""
    _check_players(players)
    cap = 2 * 512
    rec = (ctypes.c_int32 * cap)()
    n = library().fisherman_record(players, seed & (2**64 - 1), rec, cap)
    if n < 0:
        raise ValueError(f"fisherman_record({players}, {seed}) failed: {n}")

    def card(c: int) -> str:
        return f"{SUITS[c >> 4]}-{c & 15}"

    texts = []
    for i in range(n):
        kind, v = rec[2 * i], rec[2 * i + 1]
        if kind == 0:
            texts.append(f"draw {card(v)}")
        elif kind == 1:
            texts.append(f"choose_target {SUITS[v]}")
        elif kind == 2:
            texts.append(f"choose_valuation {('large', 'small')[v]}")
        elif kind == 3:
            texts.append(f"choose_size {v}")
        elif kind == 4:
            texts.append(f"choose_valuation_and_size {('large', 'small')[v >> 4]} {v & 15}")
        elif kind == 5:
            texts.append(f"choose_not_target {SUITS[v]}")
        else:
            texts.append(f"play_card {card(v)}")
    return texts


def measure(players: int, seconds: float = 0.5, windows: int = 3, batch_seconds: float = 0.002) -> dict:
    """The best of `windows` windows of `seconds` (as run.py's `measure`): games/s by wall clock
    and by CPU time, decisions/game.  Games seeded SEED + players + i; the clock is read once per
    batch of about `batch_seconds` of games, played in one call."""
    _check_players(players)
    seed = SEED + players
    play_many(players, seed, 100)  # warm up, and load the library
    batch = 64
    while True:  # a batch of about batch_seconds
        t = time.perf_counter()
        play_many(players, seed, batch)
        if time.perf_counter() - t >= batch_seconds or batch >= 1 << 24:
            break
        batch *= 2
    best = cpu_best = 0.0
    games = decisions = 0
    for _ in range(windows):
        k = d = 0
        w0, c0 = time.perf_counter(), time.process_time()
        while True:
            d += play_many(players, seed, batch)[1]
            seed += batch
            k += batch
            wall = time.perf_counter() - w0
            if wall >= seconds:
                break
        cpu = time.process_time() - c0
        best = max(best, k / wall)
        cpu_best = max(cpu_best, k / cpu if cpu > 0 else 0.0)
        games += k
        decisions += d
    return {"players": players, "games_per_s": best, "cpu_games_per_s": cpu_best,
            "decisions_per_game": decisions / games, "batch": batch}


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m benchmarks.baselines.cbaseline",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="length of one timing window (default 0.5)")
    ap.add_argument("--windows", type=int, default=3, help="windows per figure, the best is kept (default 3)")
    args = ap.parse_args(argv)
    try:
        path = build()
    except (CompilerMissing, BuildFailed) as e:
        print(f"C baseline not built: {e}", file=sys.stderr)
        return 1
    print(f"built {path} with {compiler()} {' '.join(CFLAGS)}", file=sys.stderr)
    print(f"{'game':<22} {'players':>7} {'games/s':>12} {'cpu games/s':>12} {'decisions/game':>15}")
    for players in (3, 4):
        r = measure(players, args.seconds, args.windows)
        print(f"{'fisherman (C)':<22} {players:>7} {r['games_per_s']:>12,.0f} {r['cpu_games_per_s']:>12,.0f} "
              f"{r['decisions_per_game']:>15.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

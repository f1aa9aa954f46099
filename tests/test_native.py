"""The native kernel as a user meets it: built from untrusted rules, cached, and never a crash.

- The C and the kernel's Python hold no name or text of the rules: a ruleset whose names are
  Python's and C's dangerous words and whose strings try to escape a literal compiles to code
  where none of it appears, and plays exactly the engine's game.
- No compiler, a compiler that fails, a cache that cannot be written, a cache others may write, a
  corrupted or truncated cache entry, two processes building at once: each gives a working game
  (the same games), with one clear warning where native code cannot be had.
- Every bundled ruleset and every hostile rule file that loads, built with
  `-fsanitize=address,undefined`, plays thousands of random games with no report.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fishrules
from fishrules.kernel import Kernel
from fishrules.kernel.emit_c import emit_c
from fishrules.kernel.emit_python import emit_python
from fishrules.kernel.lower import lower
from fishrules.kernel.native import NativeError, compiler
from fishrules.kernel.reference import reference_playout

from .test_generated_source import DANGEROUS, hostile_fishfry

ROOT = Path(__file__).resolve().parent.parent

try:
    compiler()
    NATIVE = True
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    NATIVE = False

needs_cc = pytest.mark.skipif(not NATIVE, reason="no C compiler here")


def _without_comments_c(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def test_kernel_sources_hold_no_rule_text():
    text, strings = hostile_fishfry()
    g = fishrules.loads(text, name="hostile.fish", backend="python")
    kp = lower(g.model)
    c = _without_comments_c(emit_c(kp))
    py = emit_python(kp)
    for word in DANGEROUS:
        assert not re.search(rf"\b{re.escape(word)}\b", c), word
        assert not re.search(rf"\b{re.escape(word)}\b", py), word
    for s in strings:
        assert s not in c and s not in py
    # and it is still Fishfry: the kernel plays the engine's games
    k = Kernel(g, "python")
    for seed in range(5):
        assert tuple(k.playout(3, g._options(None), seed).outcome) == tuple(reference_playout(g, 3, seed))


def _run(code: str, env: dict, timeout: int = 300) -> subprocess.CompletedProcess:
    """`code` in a fresh Python with `env` added; it prints one JSON line."""
    full = {**os.environ, **env, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, capture_output=True, text=True,
                          timeout=timeout)


PLAY = """
    import json, warnings
    warnings.simplefilter("always")
    import fishrules
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = fishrules.load("fishfry")
        games = [list(p) for p in g.simulate(40, players=3, seed=9)]
        g2 = fishrules.load("fishfry-keeper")
        g2.simulate(2, players=2)
    print(json.dumps({"backend": g.backend, "games": games, "repr": repr(g),
                      "warnings": [str(w.message) for w in caught if w.category.__name__ == "NativeUnavailable"]}))
"""


def _native_games() -> list:
    g = fishrules.load("fishfry")
    return [list(p) for p in g.simulate(40, players=3, seed=9)]


def _result(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("cc,why", [("/nonexistent/cc", "does not run"), ("false", "does not run"),
                                    (f"{sys.executable} -c import\\ sys;sys.exit(1)", "does not run")])
def test_without_a_working_compiler_one_warning_and_the_same_games(tmp_path, cc, why):
    out = _result(_run(PLAY, {"FISHRULES_CC": cc, "FISHRULES_CACHE": str(tmp_path)}))
    assert out["backend"] == "python" and "backend python" in out["repr"]
    assert len(out["warnings"]) == 1 and "as Python" in out["warnings"][0] and why in out["warnings"][0]
    assert out["games"] == _native_games()


@needs_cc
def test_a_compiler_that_fails_on_the_code_is_a_warning(tmp_path):
    fake = tmp_path / "cc"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo fake 1.0; exit 0; fi\necho 'kernel.c:1: error: no' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    out = _result(_run(PLAY, {"FISHRULES_CC": str(fake), "FISHRULES_CACHE": str(tmp_path / "cache")}))
    assert out["backend"] == "python"
    assert len(out["warnings"]) == 1 and "the C compiler failed" in out["warnings"][0]
    assert out["games"] == _native_games()


@needs_cc
def test_a_cache_that_cannot_be_made_is_not_needed(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache would be")
    out = _result(_run(PLAY, {"FISHRULES_CACHE": str(blocker)}))
    assert out["backend"] == "native" and not out["warnings"]
    assert out["games"] == _native_games()


@needs_cc
def test_a_cache_others_may_write_is_not_used(tmp_path):
    cache = tmp_path / "shared"
    (cache / "kernels").mkdir(parents=True)
    (cache / "kernels").chmod(0o777)
    out = _result(_run(PLAY, {"FISHRULES_CACHE": str(cache)}))
    assert out["backend"] == "native"
    assert not any((cache / "kernels").iterdir()), "a library was written where others may write"


@pytest.fixture(scope="module")
def built_cache(tmp_path_factory):
    """A cache the games of PLAY were built into, and what they were: built once, for the tests
    that damage a copy of it."""
    cache = tmp_path_factory.mktemp("built") / "cache"
    return cache, _result(_run(PLAY, {"FISHRULES_CACHE": str(cache)}))


@needs_cc
@pytest.mark.parametrize("damage", ["truncate", "flip", "checksum"])
def test_a_damaged_cache_entry_is_built_again(tmp_path, built_cache, damage):
    import shutil

    shutil.copytree(built_cache[0], tmp_path, dirs_exist_ok=True)  # a cache PLAY was built into, each its own
    env, first = {"FISHRULES_CACHE": str(tmp_path)}, built_cache[1]
    libs = sorted((tmp_path / "kernels").glob("k*.so"))
    assert libs
    for lib in libs:
        data = lib.read_bytes()
        if damage == "truncate":
            lib.write_bytes(data[: len(data) // 3])
        elif damage == "flip":
            lib.write_bytes(data[:100] + bytes([data[100] ^ 0xFF]) + data[101:])
        else:
            lib.with_name(lib.name + ".sha256").write_text("0" * 64)
    again = _result(_run(PLAY, env))
    assert again["backend"] == "native" and again["games"] == first["games"] == _native_games()


@needs_cc
def test_two_processes_building_at_once(tmp_path):
    env = {**os.environ, "FISHRULES_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT / "src")}
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(PLAY)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, stderr
        outs.append(json.loads(stdout.strip().splitlines()[-1]))
    assert all(o["backend"] == "native" and o["games"] == _native_games() for o in outs)
    names = sorted(p.name for p in (tmp_path / "kernels").iterdir())
    assert not [n for n in names if n.startswith((".build", ".note"))], names  # no half-written leftovers
    # libraries with their checksums, and the notes by the rules' hash that name them
    assert all(n.endswith((".so", ".so.sha256")) or re.fullmatch("r[0-9a-f]{32}", n) for n in names), names
    notes = [tmp_path / "kernels" / n for n in names if n.startswith("r")]
    assert notes and all((n.parent / n.read_text()).exists() for n in notes)


@needs_cc
def test_backend_native_insists_and_python_never_compiles(tmp_path):
    out = _result(_run("""
        import json, fishrules
        from fishrules.kernel import NativeError
        try:
            fishrules.load("fishfry", backend="native").backend
            said = None
        except NativeError as e:
            said = str(e)
        print(json.dumps({"said": said}))
    """, {"FISHRULES_CC": "/nonexistent/cc", "FISHRULES_CACHE": str(tmp_path)}))
    assert "does not run" in out["said"]
    g = fishrules.load("fishfry", backend="python")
    assert g.backend == "python" and "backend python" in repr(g)
    with pytest.raises(fishrules.OptionError):
        fishrules.load("fishfry", backend="fast")


# ---- AddressSanitizer and UndefinedBehaviorSanitizer ------------------------------------------------

SANITIZED = """
    import json, sys
    from array import array
    from pathlib import Path
    import fishrules
    from fishrules.errors import FishrulesError
    from fishrules.kernel import abi as A
    from fishrules.kernel.lower import lower
    from fishrules.kernel.native import NativeBackend
    from fishrules.kernel.pyruntime import KFault
    played = drawn = 0
    for ref in sys.argv[1:]:
        try:
            g = fishrules.load(ref)
        except FishrulesError:
            continue
        be = NativeBackend(lower(g.model), sanitize=True)
        for n in sorted({g.min_players, g.max_players}):
            out = be.simulate(n, g._options(None), list(range(GAMES)), 2000)
            played += len(out[0]) // n
            # and step by step: every decision's moves listed, one played, the record's trace kept
            S = be.new(n, g._options(None), 7, limit=2000)
            be.trace_on()
            try:
                be.start(S, False)
                for _ in range(200):
                    if S[0] == -1:
                        break
                    if S[0] == -3:
                        lists = [be.moves(S, p) for p in be.who_together(S)]
                        if not all(lists):
                            break  # a player who must choose may do nothing: the engine says so
                        be.play_together(S, tuple(m[0] for m in lists))
                    else:
                        moves = be.moves(S, S[0])
                        if not moves:
                            break
                        # what an action's text is read against: each parameter's domain and the
                        # rule a move breaks, of legal moves and of moves no list holds (values out
                        # of every range, nothing, too many things)
                        odd = [moves[0][:2] + tuple((bad if isinstance(v, tuple) else num) for v in moves[0][2:])
                               for bad, num in (((-1, 1 << 40), 1 << 40), ((3,) * 40, -(1 << 62)), ((), None))]
                        for m in moves[:2] + odd:
                            name = be.kp.move_blocks[m[0]][0]
                            a = be.kp.action_names.index(name)
                            for i in range(len(m) - 1):
                                try:
                                    if i < len(m) - 2:
                                        be.domain(array("q", S), a, i, m)
                                    else:
                                        be.why(array("q", S), a, m)
                                except KFault:
                                    pass
                        be.play(S, moves[len(moves) // 2])
            except KFault:
                pass
            finally:
                be.trace_off()
            # chance left to the caller: the game waits at each die and each card drawn from a
            # shuffled zone; hostile faces and cards (of no zone, of another zone) are refused
            S = be.new(n, g._options(None), 7, limit=2000)
            S[A.H_MANUAL] = 1
            be.trace_on()
            try:
                be.start(S, False)
                for step in range(300):
                    if S[0] == A.CUR_OVER:
                        break
                    if S[0] == A.CUR_CHANCE:
                        for bad in (-1, 1 << 40, A.NIL, 10 ** 6, 2, be.kp.layout.ncards, *range(8)):
                            try:
                                be.play_chance(array("q", S), bad)
                            except KFault:
                                pass
                        if S[A.H_CHANCE] == A.CHANCE_DRAW:  # a card of the zone drawn from
                            at = be.kp.layout.zones[S[A.H_CHANCE_A]][0]
                            be.play_chance(S, S[at + 1 + step % S[at]])
                            drawn += 1
                        else:
                            be.play_chance(S, 0)
                    elif S[0] == A.CUR_SIMUL:
                        lists = [be.moves(S, p) for p in be.who_together(S)]
                        if not all(lists):
                            break
                        be.play_together(S, tuple(m[-1] for m in lists))
                    else:
                        moves = be.moves(S, S[0])
                        if not moves:
                            break
                        try:
                            be.play_chance(array("q", S), 0)  # no chance is waited for here
                        except KFault:
                            pass
                        be.play(S, moves[step % len(moves)])
            except KFault:
                pass
            finally:
                be.trace_off()
    print(json.dumps({"played": played, "drawn": drawn}))
"""


def _sanitizer_env() -> dict:
    libs = []
    for name in ("libasan.so", "libubsan.so"):
        try:
            path = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        except OSError:
            return {}
        if not path or not os.path.isabs(path) or not os.path.exists(path):
            return {}
        libs.append(path)
    return {"LD_PRELOAD": ":".join(libs), "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}


@needs_cc
def test_every_ruleset_and_hostile_file_under_the_sanitizers(tmp_path):
    env = _sanitizer_env()
    if not env or sys.platform != "linux":
        pytest.skip("gcc's AddressSanitizer and UndefinedBehaviorSanitizer runtimes are not installed here")
    files = list(fishrules.bundled()) + [str(p) for p in sorted((ROOT / "tests" / "hostile" / "corpus" / "rules").glob("*.fish"))
                                         if not p.name.startswith("billion")] + [str(p) for p in sorted((ROOT / "tests" / "games").glob("*.fish"))]
    code = textwrap.dedent(SANITIZED).replace("GAMES", "150")
    halves = [files[0::2], files[1::2]]  # two processes: this machine has two cores
    full = {**os.environ, **env, "FISHRULES_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT / "src")}
    procs = [subprocess.Popen([sys.executable, "-c", code, *h], env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for h in halves]
    played = drawn = 0
    for p in procs:
        stdout, stderr = p.communicate(timeout=900)
        assert "ERROR: AddressSanitizer" not in stderr and "runtime error" not in stderr, stderr[-3000:]
        assert p.returncode == 0, stderr[-3000:]
        got = json.loads(stdout.strip().splitlines()[-1])
        played += got["played"]
        drawn += got["drawn"]
    assert played >= 3000 and drawn >= 100  # (cards drawn by hand from shuffled zones, step by step)

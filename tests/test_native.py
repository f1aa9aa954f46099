"""The native kernel as a user meets it: built from untrusted rules, cached, and never a crash.

- The C and the kernel's Python hold no name or text of the rules: a ruleset whose names are
  Python's and C's dangerous words and whose strings try to escape a literal compiles to code
  where none of it appears, and plays exactly the engine's game.
- No compiler, a compiler that fails, a cache that cannot be written, a cache others may write, a
  corrupted or truncated cache entry, two processes building at once: each gives a working game
  (the same games), with one clear warning where native code cannot be had.
- Every bundled ruleset and every hostile rule file that loads, built with
  `-fsanitize=address,undefined`, plays thousands of random games with no report
  (tests/test_native_sanitizers_1.py and _2.py, half of the files each: tests/_sanitizers.py).
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

from ._frozen import frozen, plain
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
    # and it is still Fishfry: the kernel plays the engine's games (frozen by `freeze`)
    k = Kernel(g, "python")
    want = frozen("test_native")["hostile fishfry"]
    assert [plain(list(k.playout(3, g._options(None), seed).outcome)) for seed in range(5)] == want


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
# The tests of the cache play one ruleset: a second one (there for the single warning where no
# compiler works) would only be built again at -O2 in each of them (1.5 s of CPU each time).
PLAY_ONE = PLAY.replace("""        g2 = fishrules.load("fishfry-keeper")
        g2.simulate(2, players=2)
""", "")
assert PLAY_ONE != PLAY


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
    out = _result(_run(PLAY_ONE, {"FISHRULES_CACHE": str(blocker)}))
    assert out["backend"] == "native" and not out["warnings"]
    assert out["games"] == _native_games()


@needs_cc
def test_a_cache_others_may_write_is_not_used(tmp_path):
    cache = tmp_path / "shared"
    (cache / "kernels").mkdir(parents=True)
    (cache / "kernels").chmod(0o777)
    out = _result(_run(PLAY_ONE, {"FISHRULES_CACHE": str(cache)}))
    assert out["backend"] == "native"
    assert not any((cache / "kernels").iterdir()), "a library was written where others may write"


@pytest.fixture(scope="module")
def built_cache(tmp_path_factory):
    """A cache the games of PLAY were built into, and what they were: built once, for the tests
    that damage a copy of it."""
    cache = tmp_path_factory.mktemp("built") / "cache"
    return cache, _result(_run(PLAY_ONE, {"FISHRULES_CACHE": str(cache)}))


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
    again = _result(_run(PLAY_ONE, env))
    assert again["backend"] == "native" and again["games"] == first["games"] == _native_games()


@needs_cc
def test_two_processes_building_at_once(tmp_path):
    env = {**os.environ, "FISHRULES_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT / "src")}
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(PLAY_ONE)], env=env, stdout=subprocess.PIPE,
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


def freeze(engine) -> dict:
    """The engine's games of the hostile Fishfry above (run by tests/tools/freeze_engine.py while it lived)."""
    text, _ = hostile_fishfry()
    g = fishrules.loads(text, name="hostile.fish", backend="python")
    return {"hostile fishfry": [list(engine.playout(g, 3, seed)) for seed in range(5)]}

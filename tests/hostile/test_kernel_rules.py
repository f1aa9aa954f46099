"""The game kernel on hostile rules: every rule file of the corpus that loads (and the test games)
plays the engine's game on both backends, or fails with the engine's own error (the kernel hands a
game it cannot finish to the engine's machine).  Each file runs in a hostile worker (harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import harness, kernel_agreement
from fishrules.kernel.native import NativeError, compiler

HERE = Path(__file__).resolve().parent
FILES = sorted((HERE / "corpus" / "rules").glob("*.fish")) + sorted((HERE.parent / "games").glob("*.fish"))

try:
    compiler()
    BACKENDS = ("python", "native")
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    BACKENDS = ("python",)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_kernel_plays_the_engines_game_or_fails_as_it_does(path):
    out = harness.run(kernel_agreement.agree, str(path), BACKENDS, timeout=120)
    assert out.status == "ok", out
    if out.value is None:
        pytest.skip("these rules do not load")
    for key, row in out.value.items():
        for backend in BACKENDS:
            assert row[backend] == row["engine"], (key, backend)

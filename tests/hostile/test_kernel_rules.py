"""The game kernel on hostile rules: every rule file of the corpus that loads (and the test games)
plays the engine's game on both backends, or fails with the engine's own error.  The engine's
outcomes are frozen in tests/golden/engine/corpus.json (tests/tools/freeze_engine.py); each file
runs in a hostile worker (harness.py)."""

from __future__ import annotations

import pytest

from . import harness, kernel_agreement
from .._frozen import frozen
from fishrules.kernel.native import NativeError, compiler


try:
    compiler()
    BACKENDS = ("python", "native")
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    BACKENDS = ("python",)


def test_every_rule_file_has_the_engines_outcomes():
    assert sorted(frozen("corpus")) == sorted(p.name for p in kernel_agreement.FILES)


@pytest.mark.parametrize("path", kernel_agreement.FILES, ids=lambda p: p.name)
def test_the_kernel_plays_the_engines_game_or_fails_as_it_does(path):
    # (from the checkout, as the engine was played: an error names its file relative to it)
    out = harness.run(kernel_agreement.outcomes, str(path), BACKENDS, timeout=120, cwd=harness.ROOT)
    assert out.status == "ok", out
    engine = frozen("corpus")[path.name]
    assert (out.value is None) == (engine is None), "the rules load on one machine only"
    if out.value is None:
        pytest.skip("these rules do not load")
    assert sorted(out.value) == sorted(engine)
    for key, row in out.value.items():
        for backend in BACKENDS:
            assert row[backend] == engine[key], (key, backend)

"""The engine's answers, frozen as data while it lived (tests/golden/engine/<part>.json, written by
tests/tools/freeze_engine.py from the engine's own machine): what the kernel's tests hold it to now
that the kernel is the one machine (issue 32, step 6)."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

FROZEN = Path(__file__).resolve().parent / "golden" / "engine"


@functools.lru_cache(maxsize=None)
def frozen(part: str) -> Any:
    """The engine's answers of `part` (read once)."""
    return json.loads((FROZEN / f"{part}.json").read_text())


def plain(value: Any) -> Any:
    """`value` as the golden files hold it (JSON's: tuples become lists)."""
    return json.loads(json.dumps(value))


def digest(value: Any) -> str:
    """A short fingerprint of `value`, where the golden file keeps the fingerprint, not the whole."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]

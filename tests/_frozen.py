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


# ---- a game frozen step by step ---------------------------------------------------------------------
# What a test reads of a state at a step is a dict of parts; the golden file keeps, for every step, a
# digest of each part (in the order of their names), and the whole of the first step (to show, when
# the first step differs, where; a later difference is named by its step and part).


def digests(seen: dict) -> list:
    """What the golden file keeps of a step: a digest of each part of `seen`, by name."""
    return [digest(seen[part]) for part in sorted(seen)]


def freeze_game(state: Any, look: Any, choose: Any) -> dict:
    """(for tests/tools/freeze_engine.py) A game on the engine, `look(state, step)` at every step,
    `choose(state)` the next state, to its end: {"steps", "whole", "winners"}."""
    steps: list = []
    whole: dict = {}
    while True:
        seen = plain(look(state, len(steps)))
        if not steps:
            whole[str(len(steps))] = seen
        steps.append(digests(seen))
        if state.is_over:
            return {"steps": steps, "whole": whole, "winners": state.winners()}
        state = choose(state)


def first_difference(k: Any, e: Any, at: str = "") -> str:
    """Where the kernel's `k` and the engine's `e` first differ."""
    if isinstance(k, dict) and isinstance(e, dict):
        for key in sorted(set(k) | set(e)):
            if k.get(key, "<missing>") != e.get(key, "<missing>"):
                return first_difference(k.get(key, "<missing>"), e.get(key, "<missing>"), f"{at}.{key}")
    if isinstance(k, list) and isinstance(e, list) and len(k) == len(e):
        for i, (x, y) in enumerate(zip(k, e)):
            if x != y:
                return first_difference(x, y, f"{at}[{i}]")
    return f"{at}: kernel {k!r}, engine {e!r}"


def same_step(seen: dict, want: dict, step: int, where: str) -> None:
    """What the kernel shows at `step` (`seen`, parts by name) is what the engine showed there."""
    seen = plain(seen)
    whole = want["whole"].get(str(step))
    if whole is not None:
        assert seen == whole, f"{where}: {first_difference(seen, whole)}"
    assert step < len(want["steps"]), f"{where}: the engine's game had ended"
    engine = want["steps"][step]
    assert len(engine) == len(seen), f"{where}: the engine's step has parts of other names"
    for part, got, was in zip(sorted(seen), digests(seen), engine):
        assert got == was, f"{where}: the {part} are not the engine's"


def same_length(step: int, want: dict, where: str) -> None:
    """The kernel's game ended at `step`, as the engine's did."""
    assert step == len(want["steps"]) - 1, f"{where}: the engine's game went on to step {len(want['steps']) - 1}"

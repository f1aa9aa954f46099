"""The engine's answers frozen as data (tests/golden/engine, written by tests/tools/freeze_engine.py
while the engine lived; issue 32, step 6): every file is a part the script writes (none orphaned,
none missing), and together they stay small."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ._frozen import FROZEN

TOOL = Path(__file__).resolve().parent / "tools" / "freeze_engine.py"


def _tool():
    spec = importlib.util.spec_from_file_location("freeze_engine", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_frozen_file_is_a_part_the_script_writes():
    tool = _tool()
    parts = set(tool.PARTS) | set(tool.MODULES)
    assert {p.stem for p in FROZEN.glob("*.json")} == parts
    for module in tool.MODULES:  # (a module's part: its own `freeze(engine)`)
        assert (TOOL.parent.parent / f"{module}.py").read_text().count("\ndef freeze(engine)") == 1, module


def test_the_frozen_files_stay_small():
    total = sum(p.stat().st_size for p in FROZEN.glob("*.json"))
    assert total < 5_000_000, f"{total:,} bytes: keep digests, not wholes"

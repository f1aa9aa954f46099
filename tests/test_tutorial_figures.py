"""The house-rule tutorial's pictures are drawn by the command the tutorial shows (issue 23):
`make figures` (tools/tutorial_figures.py) runs the page's own `fishrules compare … --report`
line on the page's own `our-fishfry.fish`, and the pictures in the repository are what it draws."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "house-rules.md"


def tool():
    spec = importlib.util.spec_from_file_location("tutorial_figures", ROOT / "tools" / "tutorial_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_shows_the_pictures_its_command_draws():
    shown = re.findall(r"!\[[^\]]*\]\((images/[^)]+)\)", PAGE.read_text(encoding="utf-8"))
    assert shown and all(p.startswith("images/our-fishfry/") for p in shown)
    for p in shown:
        assert (ROOT / "docs" / p).is_file(), p
    argv = tool().tutorial_command()
    assert argv[0] == "compare" and "--report" in argv and "our-fishfry.fish" in argv


def test_the_pictures_are_what_the_command_draws_now(tmp_path):
    pytest.importorskip("matplotlib")
    drawn = tool().draw(tmp_path)
    names = sorted(p.name for p in drawn)
    assert names == sorted(p.name for p in (ROOT / "docs" / "images" / "our-fishfry").glob("*.png"))
    for p in drawn:
        committed = ROOT / "docs" / "images" / "our-fishfry" / p.name
        assert p.read_bytes() == committed.read_bytes(), f"{p.name} is out of date: run `make figures`"

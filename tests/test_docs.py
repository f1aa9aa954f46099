"""Every ```fish snippet in the README and the docs is a rule file that loads and plays, so the
documentation cannot drift from the language."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import fishrules

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SNIPPETS = [
    pytest.param(text, id=f"{page.relative_to(ROOT)}#{i}")
    for page in PAGES
    for i, text in enumerate(re.findall(r"```fish\n(.*?)```", page.read_text(encoding="utf-8"), re.S))
]


def test_there_are_snippets():
    assert len(SNIPPETS) >= 3


@pytest.mark.parametrize("text", SNIPPETS)
def test_snippet_loads_and_plays(text):
    game = fishrules.loads(text, "snippet.fish", base_dir=str(ROOT / "rulesets"))
    state = game.start(players=game.min_players, seed=1)
    rng = random.Random(1)
    for _ in range(10_000):
        if state.is_over:
            break
        state.apply(rng.choice(state.legal_actions()))
    assert state.is_over


def test_house_rule_examples_check_and_play():
    for path in sorted((ROOT / "examples" / "house-rules").glob("*.fish")):
        game = fishrules.load(path)
        state = game.start(players=3, seed=2)
        rng = random.Random(2)
        while not state.is_over:
            state.apply(rng.choice(state.legal_actions()))
        assert state.winners()

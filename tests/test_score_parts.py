"""`State.score_parts()`: each player's score in the parts the rules name, adding up to `scores()`;
the browser's score sheet takes its numbers from it (the web package compiles no rules)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import attrs
import pytest

import fishrules
from fishrules.errors import RuleError

from ._positions import player_counts, positions

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", fishrules.bundled())
def test_the_parts_add_up_to_the_score_at_every_position(name):
    game = fishrules.load(name)
    names = [t.name for t in game.model.scores]
    assert names == game.describe()["scores"]
    seen_over = 0
    for n in player_counts(game)[-2:]:
        for seed in (1, 2):
            state = game.start(players=n, seed=seed)
            for s in positions(state, random.Random(seed), every=17, most=6):
                parts = s.score_parts()
                scores = s.scores()
                assert len(parts) == n
                for p, row in enumerate(parts):
                    assert [x for x, _ in row] == names
                    assert all(type(v) is int for _, v in row)
                    assert sum(v for _, v in row) == scores[p], (name, p, row, scores)
            # and at the end, where the sheet is drawn
            rng = random.Random(seed)
            from ._positions import step

            while not state.is_over:
                step(state, rng)
            assert [sum(v for _, v in row) for row in state.score_parts()] == state.scores()
            seen_over += 1
    assert seen_over


@pytest.mark.parametrize("name", ["fatfish-licenses", "fisherman", "fishfish"])
def test_each_part_is_that_terms_own_value(name):
    """Each part is what its term alone makes (the rules with that one `score` line, compiled here:
    what the score sheet used to compile for itself)."""
    from fishrules.compiler import compile_model

    game = fishrules.load(name)
    model = game.model
    alone = [compile_model(attrs.evolve(model, scores=(t,))).score for t in model.scores]
    state = game.start(players=3, seed=5)
    rng = random.Random(5)
    from ._positions import step

    while not state.is_over:
        step(state, rng)
    for p, row in enumerate(state.score_parts()):
        assert [v for _, v in row] == [f(state, p) for f in alone]


def test_a_part_that_goes_wrong_is_the_rules_error_at_its_line():
    game = fishrules.loads('game "Broken"\nplayers 2 to 2\nthe game has who: player\neach player has n: number\n'
                           'score "fine": 1\nscore "bad": who\'s n\nphase game:\n  nothing\n')
    state = game.start(players=2, seed=1)
    with pytest.raises(RuleError) as e:
        state.score_parts()
    assert "a rule used `nobody` where a player is needed" in str(e.value)
    assert "<rules>:6:" in str(e.value) and "while working out the scores" in str(e.value)


def test_rules_with_one_score_line_or_none():
    one = fishrules.loads('game "One"\nplayers 2 to 2\neach player has n: number\nscore: your n + 2\n'
                          'phase game:\n  nothing\n')
    s = one.start(players=2, seed=1)
    assert [[v for _, v in row] for row in s.score_parts()] == [[2], [2]] and s.scores() == [2, 2]
    none = fishrules.loads('game "None"\nplayers 2 to 2\nphase game:\n  nothing\n')
    s = none.start(players=2, seed=1)
    assert s.score_parts() == [[], []] and s.scores() == [0, 0]


def test_the_web_package_compiles_no_rules():
    """The score sheet reads `State.score_parts()`: nothing in fishrules.web imports the compiler
    (which is to retire, issue 32)."""
    found = []
    for path in sorted((ROOT / "src" / "fishrules" / "web").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = ("." * node.level) + (node.module or "")
                if "compiler" in module or any(a.name == "compiler" for a in node.names):
                    found.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Import) and any("compiler" in a.name for a in node.names):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, found

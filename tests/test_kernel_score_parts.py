"""`score_parts()` on the kernel: the score lines (`t{i}`) run for each seat, on both spellings.

Compared with the engine's on every bundled ruleset at its fewest and most players, at the
start, mid-game and at the end; and a score line that goes wrong is the engine's error, at that
line, with the state still on the kernel.  The engine's answers are frozen in
tests/golden/engine/test_kernel_score_parts.json (`freeze`, tests/tools/freeze_engine.py).
"""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import SIMULTANEOUS, RuleError
from fishrules.kernel import Kernel
from fishrules.kernel.apistate import KState

from ._frozen import frozen, plain
from ._twins import bundled_game, played_texts


def _positions(s, seed: int) -> list:
    """(a state, the texts applied to it) at the start, mid-game and at the end of one random game
    from `s`."""
    rng = random.Random(seed)
    texts: list = []
    seen = [(s.clone(), [])]
    while not s.is_over and len(texts) < 3000:
        p = s.waiting[0] if s.current == SIMULTANEOUS else None
        texts.append(rng.choice(s.legal_actions(p)).text)
        s.apply(texts[-1])
        if len(texts) in (7, 40):
            seen.append((s.clone(), list(texts)))
    seen.append((s, texts))
    return seen


@pytest.mark.parametrize("name", fishrules.bundled())
def test_score_parts_are_the_engines(name):
    g = bundled_game(name)
    py = Kernel(g, "python")
    for players in sorted({g.min_players, g.max_players}):
        positions = _positions(g.start(players, seed=players), players)
        want = frozen("test_kernel_score_parts")["parts"][f"{name}/{players}"]
        assert len(positions) == len(want)
        for (k, texts), parts in zip(positions, want):
            assert plain(k.score_parts()) == parts and type(k) is KState
            assert [sum(v for _, v in row) for row in parts] == k.scores()
            # the Python spelling of the same lines
            S = played_texts(py, players, players, texts)
            assert py.backend.score_parts(S) == [[v for _, v in row] for row in parts]


RULES = """\
game "Parts"
players 2 to 3
the game has x: number
each player has points: number
score "points": your points
score "ratio": divide(10, x)
winners: players with the highest score

phase game:
  repeat:
    for each player:
      player chooses safe or spoil

action safe:
  add 1 to your points
  set x to 2

action spoil:
  set x to 0
"""


def _parts(s) -> list:
    try:
        return plain(["ok", s.score_parts()])
    except RuleError as error:
        return ["error", error.render()]


#: the moves played, one more before each look at the scores
MOVES = (None, "safe", "spoil", "safe")


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_score_line_that_goes_wrong_is_the_engines_error(backend):
    # the second line divides by zero: the engine's error names that line, not the first
    g = fishrules.loads(RULES, "parts.fish", backend=backend)
    k = g.start(2, seed=1)
    kernel = g.kernel if backend == "native" else Kernel(g, "python")
    texts: list = []
    for text, want in zip(MOVES, frozen("test_kernel_score_parts")["goes wrong"], strict=True):
        if text is not None:
            k.apply(text)
            texts.append(text)
        if backend == "native":
            assert _parts(k) == want and type(k) is KState
        S = played_texts(kernel, 2, 1, texts)
        try:
            parts = ("ok", kernel.backend.score_parts(S))
        except Exception:  # (the spelling's fault: its line is `term`)
            parts = ("error", kernel.backend.term)
        if want[0] == "ok":
            assert parts == ("ok", [[v for _, v in row] for row in want[1]])
        else:
            assert parts == ("error", 1) and "while working out the scores" in want[1]
            assert "divide(10, x)" in want[1]


def freeze(engine) -> dict:
    """The engine's score parts at the positions above (run by tests/tools/freeze_engine.py while it lived)."""
    out: dict = {"parts": {}}
    for name in fishrules.bundled():
        g = bundled_game(name)
        for players in sorted({g.min_players, g.max_players}):
            out["parts"][f"{name}/{players}"] = [
                e.score_parts() for e, _ in _positions(engine.start(g, players, players), players)]
    e = engine.start(fishrules.loads(RULES, "parts.fish", backend="native"), 2, 1)
    out["goes wrong"] = []
    for text in MOVES:
        if text is not None:
            e.apply(text)
        out["goes wrong"].append(_parts(e))
    return out

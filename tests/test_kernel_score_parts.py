"""`score_parts()` on the kernel: the score lines (`t{i}`) run for each seat, on both spellings.

Compared with the engine twin on every bundled ruleset at its fewest and most players, at the
start, mid-game and at the end; and a score line that goes wrong is the engine's error, at that
line, with the state still on the kernel.
"""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import SIMULTANEOUS, RuleError
from fishrules.kernel import Kernel
from fishrules.kernel.apistate import KState
from fishrules.runtime import State

from ._twins import bundled_game


def _positions(g, players: int, seed: int) -> list:
    """(KState, engine twin) at the start, mid-game and at the end of one random game."""
    k = g.start(players, seed=seed)
    e = State._new(g, players, g._options(None), seed, False)
    rng = random.Random(seed)
    seen = [(k.clone(), e.clone())]
    steps = 0
    while not e.is_over and steps < 3000:
        p = e.waiting[0] if e.current == SIMULTANEOUS else None
        text = rng.choice(e.legal_actions(p)).text
        k.apply(text)
        e.apply(text)
        steps += 1
        if steps in (7, 40):
            seen.append((k.clone(), e.clone()))
    seen.append((k, e))
    return seen


@pytest.mark.parametrize("name", fishrules.bundled())
def test_score_parts_are_the_engines(name):
    g = bundled_game(name)
    py = Kernel(g, "python")
    for players in sorted({g.min_players, g.max_players}):
        for k, e in _positions(g, players, players):
            want = e.score_parts()
            assert k.score_parts() == want and type(k) is KState
            assert [sum(v for _, v in row) for row in want] == k.scores()
            # the Python spelling of the same lines
            assert py.backend.score_parts(py.state_of(e)) == [[v for _, v in row] for row in want]


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


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_score_line_that_goes_wrong_is_the_engines_error(backend):
    # the second line divides by zero: the engine's error names that line, not the first
    g = fishrules.loads(RULES, "parts.fish", backend=backend)
    k = g.start(2, seed=1)
    e = State._new(g, 2, g._options(None), 1, False)
    kernel = g.kernel if backend == "native" else Kernel(g, "python")
    for text in (None, "safe", "spoil", "safe"):
        if text is not None:
            k.apply(text)
            e.apply(text)
        try:
            want = ("ok", e.score_parts())
        except RuleError as error:
            want = ("error", error.render())
        if backend == "native":
            try:
                got = ("ok", k.score_parts())
            except RuleError as error:
                got = ("error", error.render())
            assert got == want and type(k) is KState
        S = kernel.state_of(e)
        try:
            parts = ("ok", kernel.backend.score_parts(S))
        except Exception:  # (the spelling's fault: its line is `term`)
            parts = ("error", kernel.backend.term)
        if want[0] == "ok":
            assert parts == ("ok", [[v for _, v in row] for row in want[1]])
        else:
            assert parts == ("error", 1) and "while working out the scores" in want[1]
            assert "divide(10, x)" in want[1]

"""`unavailable "…"` reached on the kernel: the rules cannot be played as asked.

A state deciding on the kernel (`KState`) raises the engine's own `OptionError` for it (the
title and the statement's words: fishrules.reasons.unavailable; the position says which of the
rules' `unavailable` statements stopped the step, `S[H_WHY]`) without becoming the engine's
`State`, and the call that got there is undone as the engine undoes it.  When the game is set up,
after a player's move, and after a choice made together."""

from __future__ import annotations

import pytest

import fishrules
from fishrules.errors import OptionError
from fishrules.kernel.apistate import KState

from ._frozen import frozen, plain
from ._twins import no_engine_start, outcome, skip_without_compiler

skip_without_compiler()

RULES = """\
game "Sometimes unavailable"
players 2 to 3
option at_once: yes or no = no, "stop when the game is set up"
each player has n: number

phase game:
  if at_once:
    unavailable "the set-up of this variant is lost"
  repeat 4 times:
    each of players secretly chooses grow or hold
    for each player:
      player chooses grow or hold

action grow:
  add 1 to your n
  if your n > 2:
    unavailable "nobody knows what a third growth does"

action hold:
  if your n = 1:
    play lost for you

phase lost for who:
  unavailable "the chapter on holding is missing"
"""


def _steps(s, hold_from: int) -> list:
    """Grow (and hold from step `hold_from` on) to the step that stops: [[its text, what it ended
    in], ...]."""
    steps = []
    for step in range(40):
        a = s.legal_actions(s.waiting[0])[0 if step < hold_from else 1]
        steps.append([a.text, plain(outcome(lambda: s.apply(a.text), OptionError))])
        if steps[-1][1][0] == "error":
            break
    return steps


@pytest.mark.parametrize("hold_from", [99, 2])  # always grow (stopped in an action), or grow then hold (in a phase)
def test_unavailable_is_the_engines_error_on_the_kernel(hold_from):
    g = fishrules.loads(RULES, "unavailable.fish", backend="native")
    for players in (2, 3):
        want = frozen("test_kernel_unavailable")[f"{hold_from}/{players}"]
        k = g.start(players, seed=1)
        assert type(k) is KState
        stopped = False
        for step, (text, result) in enumerate(want["steps"]):
            pick = 0 if step < hold_from else 1
            p = k.waiting[0]
            kk = k.legal_actions(p)[pick]
            assert kk.text == text
            before = ([a.text for a in k.legal_actions(p)], k.waiting, k.history)
            assert plain(outcome(lambda: k.apply(kk.text), OptionError)) == result, players
            assert type(k) is KState and k._ks is not None, "`unavailable` made the state the engine's"
            if result[0] == "error":
                assert result[1].startswith("Sometimes unavailable: ")
                assert ([a.text for a in k.legal_actions(p)], k.waiting, k.history) == before
                assert plain(outcome(lambda: k.apply(k.legal_actions(p)[pick]), OptionError)) == result
                assert type(k) is KState and k.to_json() == want["json"]
                stopped = True
        assert stopped


def test_unavailable_when_the_game_is_set_up(monkeypatch):
    g = fishrules.loads(RULES, "unavailable.fish", backend="native")
    want = frozen("test_kernel_unavailable")["at once"]
    assert want == ["error", "Sometimes unavailable: the set-up of this variant is lost"]
    no_engine_start(monkeypatch)  # the kernel says it alone
    assert plain(outcome(lambda: g.start(2, seed=1, options={"at_once": True}), OptionError)) == want


def freeze(engine) -> dict:
    """What the engine answered (run by tests/tools/freeze_engine.py while it lived)."""
    g = fishrules.loads(RULES, "unavailable.fish", backend="native")
    out: dict = {}
    for hold_from in (99, 2):
        for players in (2, 3):
            e = engine.start(g, players, 1)
            out[f"{hold_from}/{players}"] = {"steps": _steps(e, hold_from), "json": e.to_json()}
    out["at once"] = plain(outcome(lambda: engine.start(g, 2, 1, options={"at_once": True}), OptionError))
    return out

"""A game stuck on the kernel: a player who must choose may do none of the actions offered.

A state deciding on the kernel (`KState`) raises the engine's own `RuleError` for it (the
decision's line, its actions, the phase being played: fishrules.reasons.stuck) without becoming
the engine's `State`, and the call that got there is undone as the engine undoes it: the state is
where it was (the same legal actions, the same record), and stays a `KState`.  At a player's
decision, at a choice made together, and when the game is set up."""

from __future__ import annotations

import pytest

import fishrules
from fishrules.kernel.apistate import KState

from ._frozen import frozen, plain
from ._twins import no_engine_start, outcome, skip_without_compiler

skip_without_compiler()

_ACTIONS = """
action grow:
  require "small": your n < 2
  add 1 to your n

action hold:
  require "never": your n > 5
  add 1 to your n
"""

RULES = {
    # stuck at a player's decision inside a phase played for the player
    "turns": """\
game "Stuck in turns"
players 2 to 3
each player has n: number

phase game:
  repeat 4 times:
    for each player:
      play turn for player

phase turn for mover:
  mover chooses grow or hold
""" + _ACTIONS,
    # stuck at a choice made together (the first player still to choose is named)
    "together": """\
game "Stuck together"
players 2 to 3
each player has n: number

phase game:
  repeat 4 times:
    each of players secretly chooses grow or hold
""" + _ACTIONS,
    # stuck after a choice made together, at one player's decision
    "after": """\
game "Stuck after"
players 2 to 3
each player has n: number

phase game:
  repeat 4 times:
    each of players secretly chooses grow or hold
    for each player:
      player chooses grow or hold
""" + _ACTIONS,
}


def _steps(s, by_text: bool) -> list:
    """The first action of the first waiting player (as an object, or its text), to the step the
    game is stuck at: [[its text, what it ended in], ...] (`outcome`)."""
    steps = []
    for _ in range(40):
        a = s.legal_actions(s.waiting[0])[0]
        steps.append([a.text, plain(outcome(lambda: s.apply(a.text if by_text else a)))])
        if steps[-1][1][0] == "error":
            break
    return steps


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("by_text", [False, True])
def test_a_stuck_game_is_the_engines_error_on_the_kernel(name, by_text):
    g = fishrules.loads(RULES[name], f"{name}.fish", backend="native")
    for players in (2, 3):
        want = frozen("test_kernel_stuck")[f"{name}/{players}/{by_text}"]
        k = g.start(players, seed=1)
        assert type(k) is KState
        stuck = False
        for text, result in want["steps"]:
            p = k.waiting[0]
            kk = k.legal_actions(p)[0]
            assert kk.text == text
            before = ([a.text for a in k.legal_actions(p)], k.waiting, k.history)
            got = plain(outcome(lambda: k.apply(kk.text if by_text else kk)))
            assert got == result, (name, players)
            assert type(k) is KState and k._ks is not None, f"{name}: the stuck game left the kernel"
            if result[0] == "error":
                assert "the game is stuck" in result[2]
                # undone: the state is where it was, and plays on from there as the engine's does
                assert ([a.text for a in k.legal_actions(p)], k.waiting, k.history) == before
                assert plain(outcome(lambda: k.apply(k.legal_actions(p)[0]))) == result
                assert type(k) is KState and k.to_json() == want["json"]
                stuck = True
        assert stuck, name


def _at_once():
    rules = RULES["turns"].replace('require "small": your n < 2', 'require "small": your n < 0')
    return fishrules.loads(rules, "stuck-at-once.fish", backend="native")


def test_a_game_stuck_when_it_is_set_up_is_the_engines_error(monkeypatch):
    g = _at_once()
    want = frozen("test_kernel_stuck")["at once"]
    assert want[0] == "error" and "the game is stuck" in want[2]
    no_engine_start(monkeypatch)  # the kernel says it alone
    assert plain(outcome(lambda: g.start(2, seed=1))) == want


def freeze(engine) -> dict:
    """What the engine answered (run by tests/tools/freeze_engine.py while it lived)."""
    out: dict = {}
    for name in sorted(RULES):
        g = fishrules.loads(RULES[name], f"{name}.fish", backend="native")
        for players in (2, 3):
            for by_text in (False, True):
                e = engine.start(g, players, 1)
                out[f"{name}/{players}/{by_text}"] = {"steps": _steps(e, by_text), "json": e.to_json()}
    out["at once"] = plain(outcome(lambda: engine.start(_at_once(), 2, 1)))
    return out

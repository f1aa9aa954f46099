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
from fishrules.runtime import State

from ._twins import outcome, skip_without_compiler

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


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("by_text", [False, True])
def test_a_stuck_game_is_the_engines_error_on_the_kernel(name, by_text):
    g = fishrules.loads(RULES[name], f"{name}.fish", backend="native")
    for players in (2, 3):
        k = g.start(players, seed=1)
        e = State._new(g, players, g._options(None), 1, False)
        assert type(k) is KState
        stuck = False
        for _ in range(40):
            p = e.waiting[0]
            ek, kk = e.legal_actions(p)[0], k.legal_actions(p)[0]
            before = ([a.text for a in k.legal_actions(p)], k.waiting, k.history)
            want = outcome(lambda: e.apply(ek.text if by_text else ek))
            got = outcome(lambda: k.apply(kk.text if by_text else kk))
            assert got == want, (name, players)
            assert type(k) is KState and k._ks is not None, f"{name}: the stuck game left the kernel"
            if want[0] == "error":
                assert "the game is stuck" in want[2]
                # undone: the state is where it was, and plays on from there as the engine's does
                assert ([a.text for a in k.legal_actions(p)], k.waiting, k.history) == before
                assert outcome(lambda: k.apply(k.legal_actions(p)[0])) == want
                assert type(k) is KState and k.to_json() == e.to_json()
                stuck = True
                break
        assert stuck, name


def test_a_game_stuck_when_it_is_set_up_is_the_engines_error(monkeypatch):
    rules = RULES["turns"].replace('require "small": your n < 2', 'require "small": your n < 0')
    g = fishrules.loads(rules, "stuck-at-once.fish", backend="native")
    want = outcome(lambda: State._new(g, 2, g._options(None), 1, False))
    assert want[0] == "error" and "the game is stuck" in want[2]

    def engine(*args, **kw):
        raise AssertionError("the engine's machine set the game up")

    monkeypatch.setattr(State, "_new", engine)  # the kernel says it alone
    assert outcome(lambda: g.start(2, seed=1)) == want

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
from fishrules.runtime import State

from ._twins import outcome, skip_without_compiler

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


@pytest.mark.parametrize("hold_from", [99, 2])  # always grow (stopped in an action), or grow then hold (in a phase)
def test_unavailable_is_the_engines_error_on_the_kernel(hold_from):
    g = fishrules.loads(RULES, "unavailable.fish", backend="native")
    for players in (2, 3):
        k = g.start(players, seed=1)
        e = State._new(g, players, g._options(None), 1, False)
        assert type(k) is KState
        stopped = False
        for step in range(40):
            pick = 0 if step < hold_from else 1
            p = e.waiting[0]
            ek, kk = e.legal_actions(p)[pick], k.legal_actions(p)[pick]
            before = ([a.text for a in k.legal_actions(p)], k.waiting, k.history)
            want, got = outcome(lambda: e.apply(ek.text), OptionError), outcome(lambda: k.apply(kk.text), OptionError)
            assert got == want, players
            assert type(k) is KState and k._ks is not None, "`unavailable` made the state the engine's"
            if want[0] == "error":
                assert want[1].startswith("Sometimes unavailable: ")
                assert ([a.text for a in k.legal_actions(p)], k.waiting, k.history) == before
                assert outcome(lambda: k.apply(k.legal_actions(p)[pick]), OptionError) == want
                assert type(k) is KState and k.to_json() == e.to_json()
                stopped = True
                break
        assert stopped


def test_unavailable_when_the_game_is_set_up(monkeypatch):
    g = fishrules.loads(RULES, "unavailable.fish", backend="native")
    want = outcome(lambda: State._new(g, 2, g._options({"at_once": True}), 1, False), OptionError)
    assert want == ("error", "Sometimes unavailable: the set-up of this variant is lost")

    def engine(*args, **kw):
        raise AssertionError("the engine's machine set the game up")

    monkeypatch.setattr(State, "_new", engine)  # the kernel says it alone
    assert outcome(lambda: g.start(2, seed=1, options={"at_once": True}), OptionError) == want

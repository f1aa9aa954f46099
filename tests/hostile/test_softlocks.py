"""Softlocks (issue 11, section 2): a position that is not over where nobody can act.

The rules may reach a position where a player must choose but no action is legal (every `require`
fails, a parameter has nothing to choose from, `nobody` chooses), or a chance node with no outcome.
The contract: the checker refuses it when it can prove it; otherwise the `start()` or `apply()` that
reaches it raises a RuleError naming the phase (and `apply()` leaves the state as it was).  Never an
empty `legal_actions()` for a player who must act, never a hang.  (A checker warning alone is not
enough: a game that still starts into the softlock fails here.)
"""

from __future__ import annotations

import pytest

from . import scenarios as sc
from .contract import FAST, assert_exc, assert_rule_error, run

PHASE = "dancing"  # a name no message says by accident

SOFTLOCKS = {
    "every require fails": """\
game "Stuck"
players 2 to 3
phase game:
  play dancing
phase dancing:
  repeat:
    for each player:
      player chooses poke
action poke:
  require "never": 1 > 2
  nothing
""",
    "nothing to choose from": """\
game "Stuck"
players 2 to 3
cards c: v from 1 to 3
each player has hand: zone of c
phase game:
  play dancing
phase dancing:
  for each player:
    player chooses play_card
action play_card(card: one of your hand):
  nothing
""",
    "some of nothing": """\
game "Stuck"
players 2 to 3
dice: 2 with faces A, B
define none_of_them: dice where 1 > 2
phase game:
  play dancing
phase dancing:
  roll all dice
  for each player:
    player chooses reroll
action reroll(chosen: some none_of_them):
  roll chosen
""",
    "an empty number range": """\
game "Stuck"
players 2 to 3
phase game:
  play dancing
phase dancing:
  for each player:
    player chooses bet
action bet(n: a number from 5 to 1):
  nothing
""",
    "nobody chooses": """\
game "Stuck"
players 2 to 3
the game has chooser: player
phase game:
  play dancing
phase dancing:
  chooser chooses poke
action poke:
  nothing
""",
    "one player of a simultaneous choice cannot": """\
game "Stuck"
players 2 to 3
phase game:
  play dancing
phase dancing:
  each of players secretly chooses pick
action pick:
  require "the first seat only": your seat = 0
  nothing
""",
}


def _start_and_look(text: str, chance: str = "seeded") -> dict:
    """Start (a RuleError escapes); if that works, say whether each player who must act has anything
    to do (a RuleError found only then is reported, not raised: start() should have raised it)."""
    import fishrules

    game = fishrules.loads(text, name="x.fish")
    state = game.start(players=2, seed=0, chance=chance)
    if state.is_over:
        return {"over": True}
    if sc.must_act(state) is None:
        return {"chance": [str(a) for a, _ in state.chance_outcomes()], "phase": state.phase}
    out = {"phase": state.phase, "legal": {}}
    for p in state.waiting:
        try:
            out["legal"][p] = [str(a) for a in state.legal_actions(p)]
        except fishrules.RuleError as e:
            out["legal"][p] = "RuleError from legal_actions(): " + str(e).splitlines()[0]
    return out


@pytest.mark.parametrize("name", sorted(SOFTLOCKS))
def test_softlock_at_start(name):
    text = SOFTLOCKS[name]
    out = run(_start_and_look, text, timeout=FAST)
    if out.status == "ok":
        raise AssertionError(f"start() returned into a softlock (or went on): {out.value}")
    assert_rule_error(out)
    if out.diagnostics and any(d.message.startswith("there is no") for d in out.errors):
        return  # refused by the checker (an empty range, say)
    said = out.message + "".join(d.hint or "" for d in out.diagnostics)
    assert PHASE in said, f"the error does not name the phase `{PHASE}`: {said}"


def test_softlock_after_some_moves_rolls_back():
    text = """\
game "Stuck"
players 2 to 2
the game has turns: number
phase game:
  play dancing
phase dancing:
  repeat:
    for each player:
      player chooses poke
action poke:
  require "three pokes in all": turns < 3
  add 1 to turns
"""
    out = run(sc.call_and_rollback, text, ("apply", "poke"), script=("poke", "poke"),
              then=(("legal_actions",), ("to_json",)), timeout=FAST)
    assert out.status == "ok", out
    info = assert_exc(out.value["raised"], "RuleError")
    said = info["message"] + "".join(d.hint or "" for d in info["diagnostics"])
    assert PHASE in said, f"the error does not name the phase: {said}"
    assert out.value["unchanged"], "the apply() that reached the softlock changed the state"
    assert out.value["then"][0] == ("ok", ["poke"]), out.value["then"]


def test_a_draw_from_an_empty_zone_is_no_chance_node():
    """A draw takes at most what the zone holds: from an empty shuffled zone there is nothing to
    choose, so no chance node is made (never one without outcomes), and the rules go on."""
    text = """\
game "Stuck"
players 2 to 2
cards c: v from 1 to 3
the game has deck: zone of c
each player has hand: zone of c
phase game:
  play dancing
phase dancing:
  shuffle deck
  draw 1 from deck to first(players)'s hand
  for each player:
    player chooses pass
action pass:
  nothing
"""
    out = run(_start_and_look, text, "manual", timeout=FAST)
    assert out.status == "ok", out
    assert out.value.get("chance") is None and out.value["legal"] == {0: ["pass"]}, out.value


def test_a_softlock_never_hangs_a_random_player():
    # the bundled random loop of the docs, over a softlocking game: ends with a RuleError
    out = run(sc.exercise_text, SOFTLOCKS["every require fails"], actions=5, timeout=FAST)
    if out.status == "raised":
        assert_rule_error(out)
        return
    assert out.value["runtime_error"] is not None, out

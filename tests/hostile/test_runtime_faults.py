"""Run-time faults of checked rules, and rollback (issue 11, section 2: run-time faults).

A ruleset that passes the checker can still go wrong while playing: a division by zero, `left of
nobody`, a draw or `top` from an empty zone, a phase played for nobody, a zone of a family that does
not exist.  Each raises a RuleError that names the rule and its line, from whichever call met it —
`start()`, `apply()`, `legal_actions()`, `scores()`, `view()`, `winners()` — and that call leaves the
state exactly as it was before (`to_json()` and `==`), however much of the action had already run.
The state stays usable: another action can be played.
"""

from __future__ import annotations

import pytest

from . import scenarios as sc
from .contract import FAST, assert_exc, assert_loads, assert_rule_error, line_no, run

GAME = """\
game "Faults"
players 2 to 3
the game has x: number
the game has y: number
the game has holder: player
the game has xs: list of numbers
each player has points: number
{extra}
phase game:
  repeat:
    for each player:
      player chooses safe or boom

action safe:
  add 1 to your points

action boom:
  add 5 to your points
  set y to 7
  add 3 to xs
  rule "explode":
    {fault}

score "points": your points
"""

DECK = """\
cards c: v from 1 to 4
the game has deck: zone of c
the game has spare: zone of c
each player has hand: zone of c
"""
PILES = """\
tokens chip: colour in red x 3
the game has pile: zones from 1 to 3 of chip
"""
TURN = ""
FAULTS = {
    "divide by zero": ("set x to divide(10, x)", ""),
    "left of nobody": ("set holder to left of holder", ""),
    "right of nobody": ("set holder to right of holder", ""),
    "a value of nobody": ("add holder's points to your points", ""),
    "the seat of nobody": ("set x to holder's seat", ""),
    "play a phase for nobody": ("play turn for holder", ""),
    "pile 0": ("set x to count(pile(x))", PILES),
    "pile past the end": ("set x to count(pile(x + 4))", PILES),
    "pile below zero": ("set x to count(pile(x - 1))", PILES),
    "move to pile 0": ("move top(1, pile(1)) to pile(x)", PILES),
}
# a phase for a player, so that `play turn for holder` checks
EXTRA_PHASE = "phase turn for roller:\n  add 1 to roller's points\n"


def game_with(fault: str, extra: str) -> str:
    return GAME.format(fault=fault, extra=extra + EXTRA_PHASE)


def assert_names_the_rule(info: dict, text: str, fault: str) -> None:
    diags = info["diagnostics"]
    assert diags and all(d.positioned for d in diags if d.severity == "error"), info
    want = line_no(text, fault.strip())
    assert any(d.line == want for d in diags), f"the error is not at line {want}: {info['message']}"
    said = info["message"] + "".join(d.hint or "" for d in diags)
    assert "explode" in said or "boom" in said, f"the error does not name the rule: {said}"


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_fault_in_apply_rolls_back(name):
    fault, extra = FAULTS[name]
    text = game_with(fault, extra)
    loaded = run(sc.load_text, text, timeout=FAST)
    if loaded.status != "ok":  # the checker proved it: fine, if it says where
        assert_rule_error(loaded, lines=line_no(text, fault))
        return
    out = run(sc.call_and_rollback, text, ("apply", "boom"),
              then=(("apply", "safe"), ("legal_actions",), ("scores",), ("view", 0), ("to_json",)), timeout=FAST)
    assert out.status == "ok", out
    v = out.value
    info = assert_exc(v["raised"], "RuleError")
    assert_names_the_rule(info, text, fault)
    assert v["unchanged"], "apply() raised a RuleError but left the state changed (points, y, xs, or history)"
    for i, (status, got) in enumerate(v["then"]):
        assert status == "ok", f"the state is not usable after the RuleError: call {i} raised {got}"


def test_fault_after_a_dice_roll_in_manual_chance():
    text = """\
game "Faults"
players 2 to 2
dice: 1 with faces A, B
the game has x: number
phase game:
  repeat:
    roll all dice
    for each player:
      player chooses safe
    set x to divide(10, x)

action safe:
  nothing
"""
    out = run(sc.call_and_rollback, text, ("apply", "safe"), chance="manual",
              script=("die 1 rolls A", "safe"), then=(("to_json",), ("scores",)), timeout=FAST)
    assert out.status == "ok", out
    info = assert_exc(out.value["raised"], "RuleError")
    assert any(d.line == line_no(text, "divide") for d in info["diagnostics"]), info
    assert out.value["unchanged"]
    assert all(s == "ok" for s, _ in out.value["then"]), out.value["then"]


def test_fault_at_a_simultaneous_choice_rolls_back_the_last_choice():
    text = """\
game "Faults"
players 2 to 2
the game has x: number
each player has shown: number
phase game:
  repeat:
    each of players secretly chooses show

action show(secret n: a number from 0 to 2):
  set your shown to n
  set x to divide(10, n)
"""
    out = run(sc.call_and_rollback, text, ("apply", "p1: show 0"), script=("p0: show 1",),
              then=(("apply", "p1: show 2"),), timeout=FAST)
    assert out.status == "ok", out
    assert_exc(out.value["raised"], "RuleError")
    assert out.value["unchanged"], "the failed choice (or the effects before the fault) stayed"
    assert out.value["then"][0][0] == "ok", out.value["then"]


def test_fault_at_start():
    text = game_with("nothing", "").replace("phase game:\n", "phase game:\n  set x to divide(1, x)\n", 1)
    out = run(sc.start_only, text, timeout=FAST)
    assert_rule_error(out, lines=line_no(text, "divide(1, x)"))


def test_fault_in_legal_actions():
    text = game_with("nothing", "").replace("action boom:\n", 'action boom:\n  require "sane": divide(10, x) > 0\n')
    out = run(sc.call_and_rollback, text, ("legal_actions",), then=(("scores",), ("to_json",), ("clone",)),
              timeout=FAST)
    if out.status == "raised":  # listed eagerly, at start
        assert_rule_error(out, lines=line_no(text, "divide(10, x)"))
        return
    info = assert_exc(out.value["raised"], "RuleError")
    assert any(d.line == line_no(text, "divide(10, x)") for d in info["diagnostics"]), info
    assert out.value["unchanged"]
    assert all(s == "ok" for s, _ in out.value["then"]), out.value["then"]


def test_fault_in_a_parameter_domain():
    text = game_with("nothing", "").replace("action boom:\n", "action boom(n: a number from 0 to divide(10, x)):\n")
    loaded = run(sc.load_text, text, timeout=FAST)
    assert_loads(loaded)
    out = run(sc.call_and_rollback, text, ("apply", "boom 3"), then=(("to_json",),), timeout=FAST)
    if out.status == "raised":
        assert_rule_error(out, lines=line_no(text, "divide(10, x)"))
        return
    info = assert_exc(out.value["raised"], "RuleError")
    assert any(d.line == line_no(text, "divide(10, x)") for d in info["diagnostics"]), info
    assert out.value["unchanged"]


def test_fault_in_scores():
    text = game_with("nothing", "") + 'score "ratio": divide(10, x)\n'
    out = run(sc.call_and_rollback, text, ("scores",), then=(("apply", "safe"), ("to_json",)), timeout=FAST)
    assert out.status == "ok", out
    info = assert_exc(out.value["raised"], "RuleError")
    assert any(d.line == line_no(text, 'score "ratio"') for d in info["diagnostics"]), info
    assert out.value["unchanged"]
    assert out.value["then"][0][0] == "ok", out.value["then"]


def test_fault_in_view():
    text = game_with("nothing", "") + 'score "ratio": divide(10, x)\n'
    out = run(sc.call_and_rollback, text, ("view", 1), then=(("apply", "safe"),), timeout=FAST)
    assert out.status == "ok", out
    assert_exc(out.value["raised"], "RuleError")
    assert out.value["unchanged"]
    assert out.value["then"][0][0] == "ok", out.value["then"]


def test_fault_in_visibility():
    text = game_with("nothing", "").replace("the game has y: number", "the game has y: number seen by left of holder")
    loaded = run(sc.load_text, text, timeout=FAST)
    if loaded.status != "ok":
        assert_rule_error(loaded)
        return
    out = run(sc.call_and_rollback, text, ("view", 0), then=(("apply", "safe"),), timeout=FAST)
    assert out.status == "ok", out
    assert_exc(out.value["raised"], "RuleError")
    assert out.value["unchanged"]


def test_fault_in_winners():
    text = """\
game "Faults"
players 2 to 2
the game has x: number
phase game:
  nothing
winners: players where divide(10, x) > 0
"""
    out = run(sc.call_and_rollback, text, ("winners",), then=(("scores",), ("to_json",)), timeout=FAST)
    if out.status == "raised":  # worked out when the game ended, at start
        assert_rule_error(out, lines=line_no(text, "winners:"))
        return
    info = assert_exc(out.value["raised"], "RuleError")
    assert any(d.line == line_no(text, "winners:") for d in info["diagnostics"]), info
    assert out.value["unchanged"]


def test_board_line_to_an_unknown_circle_is_refused_by_the_checker():
    text = """\
game "Board"
players 2 to 2
board: circles from 1 to 25
  line 1, 2, 99
  line 0, 1
each player has at: number = 1
phase game:
  repeat:
    for each player:
      player chooses hop

action hop(to: one of adjacent(your at)):
  set your at to to
"""
    out = run(sc.load_text, text, timeout=FAST)
    assert_rule_error(out, lines=line_no(text, "line 1, 2, 99"))
    assert any(d.line == line_no(text, "line 0, 1") for d in out.errors), out.message


def test_board_line_with_a_repeated_circle():
    text = """\
game "Board"
players 2 to 2
board: circles from 1 to 5
  line 1, 2, 1
each player has at: number = 1
the game has none: list of numbers
phase game:
  repeat:
    for each player:
      player chooses hop

action hop(to: one of slide(your at, none)):
  set your at to to
"""
    out = run(sc.exercise_text, text, timeout=FAST)
    if out.status != "ok":
        assert_rule_error(out)
    else:
        assert out.value["runtime_error"] is None or out.value["runtime_error"]["diagnostics"], out


def _replay_after_fault(text: str) -> bool:
    import fishrules

    game = fishrules.loads(text, name="x.fish")
    s = game.start(players=2, seed=1)
    s.apply("safe")
    try:
        s.apply("boom")
    except fishrules.RuleError:
        pass
    s.apply("safe")
    return game.replay(s.history, players=2) == s


def test_after_a_fault_the_game_goes_on_and_replays():
    fault, extra = FAULTS["divide by zero"]
    out = run(_replay_after_fault, game_with(fault, extra), timeout=FAST)
    assert out.status == "ok" and out.value is True, out


@pytest.mark.parametrize("draw", ["draw 1 from deck to your hand", "draw 2 from deck to spare face up",
                                  "move top(1, deck) to your hand"])
def test_drawing_from_an_empty_zone_draws_what_there_is(draw):
    """Not a fault: rules run out of cards (Fat Fish's reserve), and say what then happens.  A
    draw takes at most what the zone holds; from an empty zone it takes nothing, and changes
    nothing: the action applies and the state stays usable."""
    text = game_with(draw, DECK)
    out = run(sc.call_and_rollback, text, ("apply", "boom"), then=(("legal_actions",), ("to_json",)), timeout=FAST)
    assert out.status == "ok", out
    assert out.value["raised"] is None, out.value
    assert all(status == "ok" for status, _ in out.value["then"]), out.value["then"]

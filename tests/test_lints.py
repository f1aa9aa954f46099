"""Lints: warnings that never block a load, each with a hint, each silenced by a comment."""

from __future__ import annotations

import pytest

import fishrules

BASE = """\
game "G"
players 2 to 4
dice: 2 with faces A, B 5
each player has points: number
the game has done: yes or no

define heads: count(dice showing A)
"""

PLAY = """
phase game:
  for each player:
    player chooses go

action go:
  roll all dice
  add heads to your points
"""


def warnings_of(text: str, **kw):
    game = fishrules.loads(text, name="x.fish", **kw)  # loads: warnings never block
    return game.warnings


def codes(text: str, **kw):
    return [(w.code, w.span.line) for w in warnings_of(text, **kw)]


def test_no_warning_on_a_clean_file():
    assert codes(BASE + PLAY) == []


def test_unused_define():
    (w,) = warnings_of(BASE + "define tails: count(dice showing B)\n" + PLAY)
    assert (w.code, w.span.line, w.severity) == ("unused-define", 8, "warning")
    assert w.message == "define `tails` is never used" and "remove it" in w.hint
    assert "x.fish:8:1: warning: define `tails` is never used" in w.render()


def test_where_and_trap():
    text = BASE + PLAY + "  if any p in players where p's points > 9 and done:\n    end game\n"
    (w,) = warnings_of(text)
    assert w.code == "where-and" and w.span.line == 16
    assert "(any p in … where …) and …" in w.hint
    # about the quantified thing, bare or named: no warning
    ok = BASE + PLAY + "  if any p in players where p's points > 9 and points < 20:\n    end game\n"
    assert codes(ok) == []
    ok = BASE + PLAY + "  if (any p in players where p's points > 9) and done:\n    end game\n"
    assert codes(ok) == []


def test_empty_range():
    text = BASE + PLAY.replace("action go:", "action go(n: a number from 5 to 1):")
    (w,) = warnings_of(text)
    assert w.code == "empty-range" and "never legal" in w.message


def test_unreachable_phase_has_a_code():
    (w,) = warnings_of(BASE + PLAY + "\nphase lonely:\n  nothing\n")
    assert w.code == "unreachable"


def test_same_replace(tmp_path):
    (tmp_path / "base.fish").write_text(BASE + PLAY, encoding="utf-8")
    text = 'extends "base"\nreplace define heads: count(dice showing A)\nreplace define heads: count(dice showing B)\n'
    ws = warnings_of(text, base_dir=str(tmp_path))
    assert [(w.code, w.span.line) for w in ws] == [("same-replace", 2)]


@pytest.mark.parametrize("comment, silenced", [
    ("# fishrules: ignore", True),
    ("# kept for later  fishrules: ignore[unused-define]", True),
    ("# fishrules: ignore[where-and, unused-define]", True),
    ("# fishrules: ignore[where-and]", False),
])
def test_silencing_a_line(comment, silenced):
    text = BASE + f"define tails: count(dice showing B)   {comment}\n" + PLAY
    assert (codes(text) == []) is silenced


def test_check_prints_warnings_and_succeeds(tmp_path, capsys):
    from fishrules.cli import main

    f = tmp_path / "w.fish"
    f.write_text(BASE + "define tails: count(dice showing B)\n" + PLAY, encoding="utf-8")
    assert main(["check", str(f)]) == 0
    out = capsys.readouterr()
    assert "warning: define `tails` is never used" in out.err and "ok" in out.out  # warnings on stderr


TOGETHER = """\
game "Fingers"
players 2 to 3
each player has fingers: number
each player has fouls: number

action show(secret count: a number from 1 to 3):
  require "small": count <= 2
  when "small" is broken:
    add 1 to your fouls
  set your fingers to count

action pass:
  nothing

action inside(count: a number from 1 to 3):
  require "one": count = 1
  rule "fouls":
    when "one" is broken:
      add 1 to your fouls
  set your fingers to count

phase game:
  {choice}
  end game

score "points": your fingers
"""


@pytest.mark.parametrize("choice, expected", [
    ("each of players secretly chooses show or pass", [("broken-together", "the choice")]),
    ("each of players secretly chooses pass or show   # fishrules: ignore[broken-together]", []),
    ("each of players secretly chooses pass", []),  # (`show` is then unreachable: that warning only)
    ("for each player:\n    player chooses show or pass", []),
    ("each of players secretly chooses inside", [("broken-together", "the choice")]),  # (in a `rule` block)
])
def test_a_handler_at_a_choice_made_together(choice, expected):
    found = [c for c in codes(TOGETHER.format(choice=choice)) if c[0] != "unreachable"]
    line = TOGETHER.split("\n").index("phase game:") + 2
    assert found == [(code, line) for code, _ in expected]


@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_choice_made_together_that_breaks_a_rule_is_refused_handler_or_not(backend):
    """What the warning says: the handler does not run, the choice is refused, nothing changes."""
    game = fishrules.loads(TOGETHER.format(choice="each of players secretly chooses show or pass"),
                           name="x.fish", backend=backend)
    s = game.start(2, seed=1)
    with pytest.raises(fishrules.IllegalAction, match="a broken rule cannot be accepted at a simultaneous choice"):
        s.apply("p0: show 3")
    assert s.waiting == [0, 1] and s.history == []
    assert type(s) is type(game.start(2, seed=1))  # a state on the kernel refuses it itself, and stays one
    s.apply("p0: show 2")
    s.apply("p1: pass")
    assert s.is_over and s.scores() == [2, 0]

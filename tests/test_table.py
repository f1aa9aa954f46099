"""The terminal table of `fishrules play`, as a hobbyist meets it (issue 23, group 4): scripted
sessions, typed line by line, and what the screen must and must not show.

Each session runs the command in this process (`cli.main`, standard input replaced), 100 columns
wide and without colours, as a terminal of that size shows it."""

from __future__ import annotations

import io
import re
import sys

import pytest

import fishrules
from fishrules import cli

PROMPT = "your choice>"


def session(monkeypatch, capsys, args: list, typed: list[str], columns: int = 100) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(t + "\n" for t in typed)))
    assert cli.main(["play", *args]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err
    return out


def screens(out: str) -> list[str]:
    """What was printed before each prompt."""
    return out.split(PROMPT + " ")


# ---- hidden draws are summed up ------------------------------------------------------------------


def test_a_deal_is_one_line_a_player_and_the_header_stays_on_a_40_row_terminal(monkeypatch, capsys):
    out = session(monkeypatch, capsys, ["fisherman", "--players", "3", "--seed", "3"], ["q"])
    first = screens(out)[0]
    assert "draw ?" not in first and "draw " not in first
    assert re.search(r"^  · you get 13 cards in hand: goby-2, goby-10, horse_mackerel-3, ", first, re.M)
    assert re.search(r"^  · p1 gets 13 cards in hand$", first, re.M)
    assert re.search(r"^  · p2 gets 13 cards in hand$", first, re.M)
    lines = first.splitlines()
    assert lines[0].startswith("Fisherman — 3 players, you are p0")
    assert len(lines) <= 40, "the first screen pushes the game's header off a 40-row terminal"


@pytest.mark.parametrize("game", ["fatfish", "fatfish-licenses", "fisherman"])
def test_no_hidden_draw_is_listed_one_by_one(monkeypatch, capsys, game):
    out = session(monkeypatch, capsys, [game, "--seed", "4", "--players", "3"], ["1"] * 30 + ["q"])
    assert "draw ?" not in out
    assert len(re.findall(r"^  · (you get|p\d gets) \d+ cards? in ", out, re.M)) >= 2


# ---- the hand, tricks and rounds ------------------------------------------------------------------


def test_your_own_hand_is_sorted(monkeypatch, capsys):
    out = session(monkeypatch, capsys, ["fisherman", "--players", "3", "--seed", "3"], ["q"])
    row = re.search(r"│ p0 \(you\) │ (.*?)│", out).group(1)
    first_screen = screens(out)[0]
    hand = re.search(r"you get 13 cards in hand: (.*)\n((?:[^ ].*\n)*)", first_screen)
    cards = re.split(r",\s*", (hand.group(1) + " " + hand.group(2)).replace("\n", " ").strip())
    key = fishrules.terminal.natural_key
    assert cards == sorted(cards, key=key) and cards.index("goby-2") < cards.index("goby-10")
    assert row.strip().startswith("goby-2, goby-10")


def test_who_takes_each_trick_and_who_got_what_at_the_end_of_a_round(monkeypatch, capsys):
    out = session(monkeypatch, capsys, ["fisherman", "--players", "3", "--seed", "3"], ["1"] * 20 + ["q"], columns=200)
    takes = re.findall(r"^  · (you take|p\d takes) (\S+, \S+, \S+) from the played of you, p1 and p2, into (your|p\d's) catch",
                       out, re.M)
    assert len(takes) >= 10, "every trick says who takes it"
    # the end of the first round: each player's points and shield, then the scores
    end = re.search(r"^  · you: round points 0 → -?\d+ \([+-]\d+\); vp 0 → \d+ \(\+\d+\)\n"
                    r"  · p1: round points .*\n  · p2: round points .*\nscores: you \d+ \(\+\d+\), p1 \d+", out, re.M)
    assert end, out[-3000:]


def test_values_no_rule_has_changed_yet_are_not_shown_as_zero(monkeypatch, capsys):
    out = session(monkeypatch, capsys, ["fisherman", "--players", "3", "--seed", "3"], ["q"])
    header = re.search(r"┃ player +┃ hand +┃ played +┃ catch +┃ round points ┃ vp ┃ score ┃", out)
    assert header
    row = re.search(r"│ p1 +│ 13 cards, face down +│ empty +│ empty +│ +(\S+) │ +(\S+) │ +(\S+) │", out)
    assert row.groups() == ("–", "–", "0")  # round points and vp: not yet; the score is 0


# ---- a wrong lay that the rules accept --------------------------------------------------------------


def test_choices_that_break_a_rule_are_marked_with_the_rule_and_the_cost(monkeypatch, capsys):
    out = session(monkeypatch, capsys, ["fatfish", "--seed", "3"], ["1", "q"])
    second = screens(out)[1]
    assert "Your choices (✗: the rules accept it, but it breaks a rule):" in second
    marked = re.findall(r"^ +\d+  (lay \d \S+)  ✗ breaks \"([^\"]+)\": play fiasco_card for you; your score 0 → -5$",
                        second, re.M)
    assert ("lay 2 red-1", "one row a turn") in marked and ("lay 1 yellow-6", "a matching colour") in marked
    plain = re.findall(r"^ +\d+  (lay \d \S+|stop)$", second, re.M)
    assert "lay 1 red-1" in plain and "stop" in plain
    state = fishrules.load("fatfish").start(players=2, seed=3)
    state.apply("lay 1 red-2")
    assert len(marked) == sum(1 for a in state.legal_actions() if a.breaks)


def test_a_fiasco_is_announced_when_it_happens(monkeypatch, capsys):
    out = session(monkeypatch, capsys, ["fatfish", "--seed", "3"], ["1", "5", "q"])
    third = screens(out)[2]
    assert re.search(r'^  ✗ you broke the rule "one row a turn" with lay 2 red-1: play fiasco_card for you$', third, re.M)
    assert re.search(r"^  · fiasco holder nobody → p0$", third, re.M)
    assert re.search(r"^scores: you -5 \(-5\), p1 0$", third, re.M)
    out = session(monkeypatch, capsys, ["fatfish", "--seed", "5"], ["1"] * 12 + ["q"])
    assert re.search(r'^  ✗ p1 broke the rule "[^"]+" with lay \d \S+: play fiasco_card for you$', out, re.M)


# ---- words and rows ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", fishrules.bundled())
def test_views_are_words_and_rows(monkeypatch, capsys, game):
    players = fishrules.load(game).min_players
    out = session(monkeypatch, capsys, [game, "--seed", "2", "--players", str(players)], ["1"] * 25 + ["q"])
    for bad in ("{'", "['", "[None", "None", "-, -", "True", "False"):
        assert bad not in out, (game, bad)
    assert not re.search(r"\[[-\d, ]*\]", out), "a list printed as Python writes it"


def test_a_family_of_zones_is_a_row_each(monkeypatch, capsys):
    out = session(monkeypatch, capsys, ["fatfish", "--seed", "3"], ["q"])
    for k, card in ((1, "yellow-1"), (2, "yellow-3"), (3, "yellow-6")):
        assert re.search(rf"(^|  )rows {k} +{card}( |$)", out, re.M)
    assert re.search(r"(^|  )out of game +70 cards, face down( |$)", out, re.M)


# ---- what can be typed ------------------------------------------------------------------------------


def test_help_lists_what_can_be_typed_and_is_no_action(monkeypatch, capsys):
    for word in ("?", "help"):
        out = session(monkeypatch, capsys, ["fishfry", "--seed", "11"], [word, "q"])
        assert "At `your choice>` you can type:" in out
        for what in ("a number", "an action's text", "t, table", "?, help", "q, quit, exit"):
            assert what in out
        assert "is not allowed" not in out
    out = session(monkeypatch, capsys, ["fishfry", "--seed", "11"], ["t", "q"])
    assert out.count("┃ player ") == 2  # the table again
    out = session(monkeypatch, capsys, ["fishfry", "--seed", "11"], ["dance", "q"])
    assert "is not allowed" in out and "? lists what you can type" in out
    assert "? for help" in out.splitlines()[0]

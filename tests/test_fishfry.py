"""Fishfry, the single game: every worked example and rule of the rulebook, scripted with manual
chance (shared/rulebooks/fishfry.txt)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import fishrules
from fishrules import CHANCE

from .conftest import roll


def one_turn(game, faces, players=2):
    """p0 rolls `faces` and stays; returns the state and p0's score."""
    s = game.start(players=players, chance="manual")
    roll(s, *faces)
    if s.current == 0:
        s.apply("stay")
    return s, s.scores()[0]


# ---- Scoring: the rulebook's examples ------------------------------------------------------------


def test_simple_fish_is_ten(fishfry):
    # "A simple fish (a HEAD and a TAIL) is worth 10 points."  Extra HEADs are incomplete parts.
    assert one_turn(fishfry, ["HEAD", "TAIL", "HEAD", "HEAD", "HEAD"])[1] == 10


def test_bodies_20_and_5_score_35(fishfry):
    # "Example: a fish with BODIES of 20 and 5 scores 10 + 20 + 5 = 35 points."
    assert one_turn(fishfry, ["HEAD", "BODY 20", "TAIL", "BODY 5", "HEAD"])[1] == 35


def test_body_5_and_two_panfish_score_17(fishfry):
    # "Example: a fish with BODIES of 5, plus two PANFISH, scores 15 + 2 = 17 points."
    assert one_turn(fishfry, ["PANFISH", "HEAD", "BODY 5", "PANFISH", "TAIL"])[1] == 17


def test_three_bodies_in_one_fish(fishfry):
    # "One fish may have 0, 1, 2, or 3 BODIES in it."
    assert one_turn(fishfry, ["HEAD", "TAIL", "BODY 20", "BODY 20", "BODY 10"])[1] == 60


def test_two_fish_in_one_turn(fishfry):
    # "A player may catch and score 2 complete fish in one turn."
    assert one_turn(fishfry, ["HEAD", "TAIL", "HEAD", "TAIL", "BODY 10"])[1] == 30


def test_incomplete_fish_score_nothing_but_panfish_do(fishfry):
    # "Incomplete fish (extra parts) do not count in scoring." / "PANFISH add ONE point EACH"
    assert one_turn(fishfry, ["HEAD", "HEAD", "BODY 20", "BODY 10", "PANFISH"])[1] == 1
    assert one_turn(fishfry, ["TAIL", "BODY 5", "BODY 5", "TAIL", "TAIL"])[1] == 0


# ---- How to Play --------------------------------------------------------------------------------


def test_first_roll_rolls_all_five_dice_with_exact_probabilities(fishfry):
    s = fishfry.start(players=2, chance="manual")
    for die in range(1, 6):
        assert s.current == CHANCE
        outcomes = s.chance_outcomes()
        assert [str(a) for a, _ in outcomes] == [
            f"die {die} rolls {f}" for f in ("HEAD", "TAIL", "PANFISH", "BODY 5", "BODY 10", "BODY 20")
        ]
        assert all(p == Fraction(1, 6) for _, p in outcomes)
        assert sum(p for _, p in outcomes) == 1
        s.apply(outcomes[die % 6][0])
    assert s.current == 0


def test_panfish_cannot_be_rerolled_and_state_is_unchanged(fishfry):
    s = fishfry.start(players=2, chance="manual")
    roll(s, "PANFISH", "HEAD", "TAIL", "BODY 5", "BODY 5")
    legal = [str(a) for a in s.legal_actions()]
    assert "reroll 2 3" in legal and "stay" in legal
    assert not any(a.startswith("reroll") and " 1" in a.split("reroll")[1] for a in legal)
    before = s.to_json()
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply("reroll 1 4")
    assert e.value.rule == "PANFISH are set aside"
    assert e.value.span.file.endswith("fishfry.fish") and e.value.span.line > 0
    assert "PANFISH are set aside" in str(e.value)
    assert s.to_json() == before


def test_dice_may_be_rerolled_in_any_order_of_writing(fishfry):
    s = fishfry.start(players=2, chance="manual")
    roll(s, "HEAD", "HEAD", "TAIL", "BODY 5", "BODY 5")
    s.apply("reroll 5 2")
    assert s.history[-1] == "reroll 2 5"
    assert [str(a) for a, _ in s.chance_outcomes()][0] == "die 2 rolls HEAD"


def test_three_rolls_then_the_turn_ends(fishfry):
    # "Each turn a player has THREE ROLLS."  A die kept on the second roll may be re-rolled on the
    # third (only PANFISH are locked).
    s = fishfry.start(players=2, chance="manual")
    roll(s, "HEAD", "HEAD", "HEAD", "HEAD", "HEAD")
    s.apply("reroll 2 3 4 5")
    roll(s, "TAIL", "BODY 5", "BODY 5", "BODY 5")
    s.apply("reroll 3")
    roll(s, "BODY 20")
    # No fourth roll: it is p1's turn, their first die rolling.
    assert s.current == CHANCE and s.chance_outcomes()[0][0].text.startswith("die 1 ")
    assert s.scores() == [10 + 20 + 5 + 5, 0]


def test_stay_at_any_time(fishfry):
    s = fishfry.start(players=2, chance="manual")
    roll(s, "HEAD", "TAIL", "BODY 10", "PANFISH", "HEAD")
    s.apply("stay")
    assert s.scores() == [21, 0]
    assert s.current == CHANCE


def test_keeping_only_panfish_leaves_nothing_to_reroll(fishfry):
    s = fishfry.start(players=2, chance="manual")
    roll(s, "PANFISH", "PANFISH", "PANFISH", "PANFISH", "HEAD")
    assert [str(a) for a in s.legal_actions()] == ["reroll 5", "stay"]


# ---- The FISHFRY ----------------------------------------------------------------------------------


def test_fishfry_wins_at_once_and_others_lose_their_fish(fishfry):
    s = fishfry.start(players=3, chance="manual")
    roll(s, "HEAD", "TAIL", "BODY 20", "BODY 20", "BODY 20")  # p0: 70
    s.apply("stay")
    # p1: three PANFISH, then the other two on the second roll: "within the 3 rolls".
    roll(s, "PANFISH", "HEAD", "PANFISH", "PANFISH", "TAIL")
    s.apply("reroll 2 5")
    roll(s, "PANFISH", "PANFISH")
    assert s.is_over  # p2 never rolls: "This player instantly WINS"
    assert s.winners() == [1]
    assert s.scores() == [0, 0, 0]  # p0 fried up; the FISHFRY itself records nothing
    assert s.view(None)["values"]["fryer"] == 1


# ---- Winning --------------------------------------------------------------------------------------


def test_most_points_wins_after_everyone_has_rolled(fishfry):
    s = fishfry.start(players=3, chance="manual")
    roll(s, "HEAD", "TAIL", "BODY 5", "TAIL", "TAIL")
    s.apply("stay")
    roll(s, "HEAD", "TAIL", "BODY 20", "TAIL", "TAIL")
    s.apply("stay")
    assert not s.is_over and s.winners() == []
    roll(s, "PANFISH", "TAIL", "TAIL", "TAIL", "TAIL")
    s.apply("stay")
    assert s.is_over and s.scores() == [15, 30, 1] and s.winners() == [1]


def test_one_tie_all_tie_replays_the_whole_game(fishfry):
    s = fishfry.start(players=3, chance="manual")
    for _ in range(2):
        roll(s, "HEAD", "TAIL", "BODY 10", "TAIL", "TAIL")
        s.apply("stay")
    roll(s, "TAIL", "TAIL", "TAIL", "TAIL", "TAIL")
    s.apply("stay")
    # p0 and p1 tie on 20: "ALL players play again" — a fresh game, p0 first.
    assert not s.is_over
    assert s.scores() == [0, 0, 0]
    assert s.current == CHANCE and s.chance_outcomes()[0][0].text == "die 1 rolls HEAD"
    assert s.phase[:3] == ["game", "round", "turn"]
    for faces in (["HEAD", "TAIL", "TAIL", "TAIL", "TAIL"], ["TAIL"] * 5, ["TAIL"] * 5):
        roll(s, *faces)
        s.apply("stay")
    assert s.is_over and s.winners() == [0] and s.scores() == [10, 0, 0]
    assert len([h for h in s.history if h == "stay"]) == 6  # both games are in the history


def test_scripted_game_views_and_scores_at_every_turn(fishfry):
    """A whole 2-player game: each step's view and scores, as a golden transcript."""
    s = fishfry.start(players=2, chance="manual")
    s1 = s.clone()
    roll(s1, "HEAD", "BODY 5", "PANFISH", "TAIL", "HEAD")
    v = s1.view(0)
    assert v["current"] == 0 and v["dice"] == ["HEAD", "BODY 5", "PANFISH", "TAIL", "HEAD"]
    assert v["derived"]["turn_points"] == 16 and v["legal_actions"][-1] == "stay"
    assert "legal_actions" not in s1.view(1)
    s1.apply("reroll 2")
    roll(s1, "TAIL")
    assert s1.view(0)["derived"]["fish_caught"] == 2
    s1.apply("stay")
    assert s1.scores() == [21, 0]
    assert s1.view(None)["seats"][0]["catch"] == [21]
    # p1: B20 B20 H P P, re-rolls dice 1 2 into T B10 (22 points), then gambles die 1 away
    roll(s1, "BODY 20", "BODY 20", "HEAD", "PANFISH", "PANFISH")
    s1.apply("reroll 1 2")
    roll(s1, "TAIL", "BODY 10")
    assert s1.view(1)["derived"]["turn_points"] == 10 + 10 + 2
    s1.apply("reroll 1")
    roll(s1, "BODY 20")  # the TAIL is re-rolled away: no fish, two PANFISH
    assert s1.is_over
    assert s1.scores() == [21, 2] and s1.winners() == [0]
    assert s1.view(1)["winners"] == [0] and s1.view(1)["over"] is True
    assert s1.history[:6] == ["die 1 rolls HEAD", "die 2 rolls BODY 5", "die 3 rolls PANFISH",
                              "die 4 rolls TAIL", "die 5 rolls HEAD", "reroll 2"]

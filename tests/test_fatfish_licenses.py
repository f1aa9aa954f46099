"""The Fat Fish fishing licenses (rulesets/fatfish-licenses.fish, an overlay of fatfish.fish)."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import CHANCE

FILL = ["purple-1", "purple-2", "purple-3", "purple-4", "purple-5", "purple-6", "purple-1", "purple-2"]


@pytest.fixture(scope="module")
def game():
    return fishrules.load("fatfish-licenses")


def setup(game, license, hands, rows, stacks=None):
    n = len(hands)
    s = game.start(players=n, chance="manual")
    # "Shuffle the fishing license cards marked with the letters А, Б and В, draw one at random"
    assert sorted(str(a) for a, _ in s.chance_outcomes()) == ["draw A", "draw B", "draw V"]
    s.apply(f"draw {license}")
    for p in range(n):
        for c in list((stacks or {}).get(p, FILL)) + list(reversed(hands[p])):
            s.apply(f"draw {c}")
    for c in rows:
        s.apply(f"draw {c}")
    for c in ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6"][: 3 * (n - 1)]:
        s.apply(f"draw {c}")
    assert s.current == 0
    return s


def run_of_red(game, license):
    """p0 lays red 2, 3, 4 on the red 1 of row I; p1 completes it with the red 5: a row of one
    colour with the run 1-2-3-4 (and 2-3-4-5)."""
    s = setup(game, license, [["red-2", "red-3", "red-4", "green-6"], ["red-5", "green-5", "green-4", "green-3"]],
              ["red-1", "blue-6", "purple-6"])
    for c in ("red-2", "red-3", "red-4"):
        s.apply(f"lay 1 {c}")
    s.apply("stop")
    s.apply("lay 1 red-5")
    s.apply("keep red-1 red-5")  # five of one colour: two go to the victory pile, the 1 among them
    return s


def test_the_shown_license_is_public(game):
    s = setup(game, "B", [["green-1", "green-2", "green-3", "green-4"], ["blue-1", "blue-2", "blue-3", "blue-4"]],
              ["red-1", "blue-6", "purple-6"])
    for p in (None, 0, 1):
        assert s.view(p)["values"]["shown_license"] == ["B"]
    assert s.view(0)["values"]["license_pile"] == [None, None]  # "Set aside the remaining 2 cards"


def test_meeting_A_and_G_at_once_the_player_takes_only_one(game):
    s = run_of_red(game, "A")
    # "if you meet the conditions of several available fishing license cards at once, you may choose
    #  only one"
    assert s.current == 1 and [str(a) for a in s.legal_actions()] == ["take_license_A", "take_license_G"]
    s.apply("take_license_G")
    v = s.view(None)["values"]
    assert v["license_G_holder"] == 1 and v["license_A_holder"] is None
    assert s.scores()[1] == 1 + 5 - (2 + 3 + 4) + 10


def test_license_A_is_received_and_passes_on(game):
    s = run_of_red(game, "A")
    s.apply("take_license_A")
    assert s.view(None)["values"]["license_A_holder"] == 1
    assert s.scores()[1] == (1 + 5) - (2 + 3 + 4) + 10
    # "If later a card with value 1 also appears in another player's victory points pile, this
    #  license passes to that player."  p0 drew purple 2, purple 1 and purple 6 back from the stack:
    assert sorted(s.view(0)["seats"][0]["hand"]) == ["green-6", "purple-1", "purple-2", "purple-6"]
    for c in ("purple-2", "purple-1", "purple-6", "green-6"):  # green: no row ends with green
        s.apply(f"lay 3 {c}")
    s.apply("keep purple-1 green-6")
    assert s.view(None)["values"]["license_A_holder"] == 0
    assert s.scores() == [(1 + 6) - (6 + 2 + 6) + 10, (1 + 5) - (2 + 3 + 4)]


def test_license_G_goes_to_the_first_only(game):
    s = run_of_red(game, "B")  # with Б shown, only Г can be met during the game
    v = s.view(None)["values"]
    assert v["license_G_holder"] == 1  # met alone: no choice to make
    assert [str(a) for a in s.legal_actions()][0].startswith("lay")
    assert s.scores()[1] == (1 + 5) - (2 + 3 + 4) + 10


def test_licenses_D_to_I_are_refused_clearly(game):
    with pytest.raises(fishrules.OptionError, match="cut off"):
        game.start(players=3, options={"licenses_D_to_I": True})
    assert "licenses_D_to_I" in game.options and game.options["licenses_D_to_I"].default is False


def reference_end_scores(s, ended=True):
    """Independent reference of the scores with the licenses: А and Г as held, Б and В at the end."""
    views = [s.view(p)["seats"][p] for p in range(s.n)]
    v = s.view(None)["values"]
    shown = v["shown_license"][0]
    ones = [sum(1 for c in r["victory"] if c.endswith("-1")) for r in views]
    sizes = [len(r["victory"]) for r in views]
    out = []
    for p, r in enumerate(views):
        value = lambda cards: sum(int(c.split("-")[1]) for c in cards)  # noqa: E731
        score = value(r["victory"]) - value(r["penalty"]) - (5 if v["fiasco_holder"] == p else 0)
        if shown == "A" and v["license_A_holder"] == p:
            score += 10
        if ended and shown == "B" and sizes[p] == min(sizes):
            score += 10 if sizes.count(min(sizes)) == 1 else 5
        if ended and shown == "V" and max(ones) > 0 and ones[p] == max(ones):
            score += 10 if ones.count(max(ones)) == 1 else 5
        if v["license_G_holder"] == p:
            score += 10
        out.append(score)
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_end_of_game_awards_match_the_reference(game, players):
    seen = set()
    for seed in range(12):
        rng = random.Random(seed)
        s = game.start(players=players, seed=seed)
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
        seen.add(s.view(None)["values"]["shown_license"][0])
        assert s.scores() == reference_end_scores(s)
    assert seen == {"A", "B", "V"}


def test_B_and_V_count_only_at_the_end(game):
    """A deterministic game (first legal action, first chance outcome) with each of Б and В shown."""
    for license in ("B", "V"):
        s = game.start(players=3, chance="manual")
        s.apply(f"draw {license}")
        while not s.is_over:
            if s.current == CHANCE:
                s.apply(s.chance_outcomes()[0][0])
            else:
                last = s.clone()
                s.apply(s.legal_actions()[0])
        assert s.scores() == reference_end_scores(s)
        assert s.view(None)["values"]["game_ended"] is True
        # one action before the end, neither was counted yet: "issued to players only at the end"
        assert last.view(None)["values"]["game_ended"] is False
        assert last.scores() == reference_end_scores(last, ended=False)
        assert s.scores() != reference_end_scores(s, ended=False)  # and at the end it was

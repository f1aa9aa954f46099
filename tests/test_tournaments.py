"""The Fishfry tournaments (overlay files): scripted games with manual chance, scores at each turn."""

from __future__ import annotations

import pytest

import fishrules
from fishrules import CHANCE

from .conftest import roll

FISH_10 = ["HEAD", "TAIL", "TAIL", "TAIL", "TAIL"]  # one simple fish
NOTHING = ["TAIL"] * 5
FISHFRY = ["PANFISH"] * 5


def turn(s, faces, then="stay"):
    roll(s, *faces)
    if then and s.current not in (CHANCE, None) and then in [str(a) for a in s.legal_actions()]:
        s.apply(then)
    return s


# ---- Total Points -----------------------------------------------------------------------------


def test_total_points_five_rounds_summed(modes):
    g = modes["fishfry-total-points"]
    assert g.options["rounds"].default == 5
    s = g.start(players=2, chance="manual")
    expected = [0, 0]
    plays = [
        (["HEAD", "TAIL", "BODY 20", "PANFISH", "TAIL"], 31),
        (FISH_10, 10),
        (NOTHING, 0),
        (["PANFISH", "PANFISH", "TAIL", "TAIL", "TAIL"], 2),
    ]
    for i in range(10):
        faces, pts = plays[i % len(plays)]
        turn(s, faces)
        expected[i % 2] += pts
        assert s.scores() == expected, f"after turn {i + 1}"
    assert s.is_over
    assert s.view(None)["seats"][0]["catch"] == [31, 0, 31, 0, 31]
    assert s.winners() == [0]


def test_tournament_ties_share_the_victory_without_replay(modes):
    g = modes["fishfry-total-points"]
    s = g.start(players=3, chance="manual", options={"rounds": 1})
    turn(s, FISH_10)
    turn(s, FISH_10)
    turn(s, NOTHING)
    assert s.is_over
    assert s.winners() == [0, 1]
    assert s.ranking() == [1, 1, 3]  # two tied for first: nobody is second


def test_rounds_option_is_checked(modes):
    g = modes["fishfry-total-points"]
    with pytest.raises(fishrules.OptionError, match="from 1 to 100"):
        g.start(players=2, options={"rounds": 0})
    with pytest.raises(fishrules.OptionError, match="did you mean"):
        g.start(players=2, options={"round": 3})


# ---- the special FISHFRY --------------------------------------------------------------------------


def test_special_fishfry_eats_a_fish_then_a_free_turn(modes):
    g = modes["fishfry-total-points"]
    s = g.start(players=3, chance="manual", options={"rounds": 2})
    turn(s, ["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"])  # p0: 30
    turn(s, FISH_10)  # p1: 10
    turn(s, FISH_10)  # p2: 10
    turn(s, ["HEAD", "TAIL", "BODY 5", "TAIL", "TAIL"])  # p0: 15 -> [30, 15]
    roll(s, *FISHFRY)  # p1: FISHFRY — "It is NOT an instant winner."
    assert not s.is_over and s.current == 1
    legal = [str(a) for a in s.legal_actions()]
    # any fish of any one other player: p0's 30 or 15, p2's 10 — or none ("may select")
    assert legal == ["eat p0 30", "eat p0 15", "eat p2 10", "decline"]
    with pytest.raises(fishrules.IllegalAction):
        s.apply("eat p1 10")  # not your own fish
    s.apply("eat p0 30")
    assert s.scores() == [15, 10, 10]  # "That fish is subtracted from the other player's score."
    # "The player then rolls again in a free turn": p1 rolls again before p2.
    assert s.current == CHANCE
    turn(s, ["HEAD", "TAIL", "BODY 10", "TAIL", "TAIL"])
    assert s.scores() == [15, 30, 10]  # the FISHFRY roll itself recorded nothing
    assert s.view(None)["seats"][1]["catch"] == [10, 20]
    turn(s, NOTHING)  # p2
    assert s.is_over and s.winners() == [1]


def test_special_fishfry_with_nothing_to_eat_goes_straight_to_the_free_turn(modes):
    g = modes["fishfry-total-points"]
    s = g.start(players=2, chance="manual", options={"rounds": 1})
    roll(s, *FISHFRY)
    assert s.current == CHANCE and s.chance_outcomes()[0][0].text.startswith("die 1")
    turn(s, FISH_10)
    assert s.scores() == [10, 0]


def test_everyone_fries_one_of_their_own(modes):
    # "Some gamers prefer that ALL other players "fry-up" one fish (their choice)"
    g = modes["fishfry-total-points"]
    s = g.start(players=3, chance="manual", options={"rounds": 2, "fry_up": "everyone_fries"})
    turn(s, FISH_10)  # p0 10
    turn(s, NOTHING)  # p1 0
    turn(s, ["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"])  # p2 30
    turn(s, ["HEAD", "TAIL", "BODY 5", "TAIL", "TAIL"])  # p0 15 -> p0 [10, 15]
    roll(s, *FISHFRY)  # p1
    # p2 is left of p1 and fries first, then p0 (in turn order from the roller's left).
    assert s.current == 2 and [str(a) for a in s.legal_actions()] == ["fry 30"]
    s.apply("fry 30")
    assert s.current == 0 and [str(a) for a in s.legal_actions()] == ["fry 10", "fry 15"]
    s.apply("fry 10")
    assert s.scores() == [15, 0, 0]
    assert s.current == CHANCE  # p1's free turn


# ---- FIRST-TO -------------------------------------------------------------------------------------


def test_first_to_the_target_wins_at_once(modes):
    g = modes["fishfry-first-to"]
    assert "rounds" not in g.options and g.options["target"].default == 200
    s = g.start(players=3, chance="manual", options={"target": 50})
    big = ["HEAD", "TAIL", "BODY 20", "BODY 20", "TAIL"]  # 50
    turn(s, ["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"])  # p0 30
    turn(s, ["HEAD", "TAIL", "BODY 20", "BODY 5", "TAIL"])  # p1 35
    turn(s, FISH_10)  # p2 10
    assert not s.is_over  # no round limit
    turn(s, NOTHING)  # p0 30
    turn(s, ["HEAD", "TAIL", "BODY 5", "TAIL", "TAIL"])  # p1 50: the first to reach the target
    assert s.is_over and s.winners() == [1] and s.scores() == [30, 50, 10]
    assert big  # (a 50-point roll for a fresh game would win on the first turn)


# ---- Keeper -----------------------------------------------------------------------------------


def test_keeper_keeps_one_fish_per_turn_with_its_panfish(modes):
    g = modes["fishfry-keeper"]
    assert g.options["rounds"].default == 7 and g.options["fish_limit"].default == 3
    s = g.start(players=2, chance="manual")
    # Two fish and a PANFISH: only one fish may be kept; the PANFISH adds to it.
    roll(s, "HEAD", "TAIL", "HEAD", "TAIL", "PANFISH")
    s.apply("stay")
    assert [str(a) for a in s.legal_actions()] == ["keep", "let_go"]
    s.apply("keep")
    assert s.scores() == [11, 0]
    # PANFISH alone can not be kept: no choice is offered.
    roll(s, "PANFISH", "PANFISH", "TAIL", "TAIL", "TAIL")
    s.apply("stay")
    assert s.scores() == [11, 0] and s.current == CHANCE
    # A fish with three bodies keeps all three.
    turn(s, ["HEAD", "TAIL", "BODY 20", "BODY 10", "BODY 5"], then="stay")
    s.apply("let_go")
    assert s.scores() == [11, 0]


def test_keeper_done_after_the_limit_until_a_fish_is_fried(modes):
    g = modes["fishfry-keeper"]
    s = g.start(players=2, chance="manual", options={"rounds": 4, "fish_limit": 2})
    for r in range(2):
        turn(s, FISH_10)
        s.apply("keep")  # p0 keeps a fish
        turn(s, ["HEAD", "TAIL", "BODY 5", "TAIL", "TAIL"])
        s.apply("keep") if r == 0 else s.apply("let_go")  # p1: one fish of 15
    assert s.scores() == [20, 15]
    # Round 3: p0 has 2 fish and is done fishing — the dice go straight to p1.
    roll(s, *FISHFRY)  # this is p1's FISHFRY
    assert s.current == 1 and [str(a) for a in s.legal_actions()] == ["eat p0 10", "decline"]
    s.apply("eat p0 10")
    # p1's free turn
    turn(s, FISH_10)
    s.apply("keep")
    assert s.scores() == [10, 25]
    # Round 4: p0 lost a fish, so fishes again.
    turn(s, ["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"])
    s.apply("keep")
    assert s.scores() == [40, 25]
    # p1 is done (2 fish), so takes no turn: the tournament is over.
    assert s.is_over and s.winners() == [0]


# ---- a turn worth nothing is no fish ------------------------------------------------------------
# "The player who rolled the FISHFRY may select any fish currently caught by any one player": a turn
# that scored 0 is on the paper, but nobody caught a fish in it.


def eats(s):
    return [str(a) for a in s.legal_actions() if a.name == "eat"]


def test_a_fishfry_cannot_eat_a_turn_worth_nothing(modes):
    g = modes["fishfry-total-points"]
    s = g.start(players=3, chance="manual", options={"rounds": 2})
    turn(s, NOTHING)  # p0: 0
    turn(s, NOTHING)  # p1: 0
    turn(s, FISH_10)  # p2: 10
    assert s.view(None)["seats"][1]["catch"] == [0]  # the turn is on the paper ...
    roll(s, *FISHFRY)  # p0
    assert eats(s) == ["eat p2 10"]  # ... but it is no fish
    with pytest.raises(fishrules.IllegalAction):
        s.apply("eat p1 0")


@pytest.mark.parametrize("first, p0_score", [(NOTHING, 10), (FISH_10, 20)])
def test_a_fishfry_with_only_empty_turns_on_the_paper_has_nothing_to_eat(modes, first, p0_score):
    g = modes["fishfry-total-points"]
    s = g.start(players=2, chance="manual", options={"rounds": 2})
    turn(s, first)  # p0: 0 or 10 (the roller's own fish are not to be eaten)
    turn(s, NOTHING)  # p1: 0
    roll(s, *FISHFRY)  # p0: nothing to eat, straight to the free turn
    assert s.current == CHANCE
    turn(s, FISH_10)
    assert s.scores() == [p0_score, 0] and s.view(None)["seats"][1]["catch"] == [0]


def test_everyone_fries_a_fish_not_a_turn_worth_nothing(modes):
    g = modes["fishfry-total-points"]
    s = g.start(players=3, chance="manual", options={"rounds": 3, "fry_up": "everyone_fries"})
    turn(s, FISH_10)  # p0: 10
    turn(s, NOTHING)  # p1: 0
    turn(s, NOTHING)  # p2: 0
    turn(s, NOTHING)  # p0: 0
    turn(s, NOTHING)  # p1: 0
    turn(s, ["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"])  # p2: 30 -> p2 [0, 30]
    roll(s, *FISHFRY)  # p0: p1 has caught nothing and fries nothing; p2 must fry the 30
    assert s.current == 2 and [str(a) for a in s.legal_actions()] == ["fry 30"]
    s.apply("fry 30")
    assert s.current == CHANCE  # p0's free turn: p1 had no fish to fry
    assert s.scores() == [10, 0, 0]


# ---- "may select": the roller may decline the meal ---------------------------------------------


def test_keeper_roller_may_decline_so_a_done_player_stays_done(modes):
    """In Keeper eating can cost the roller: the player who loses a fish may fish again.  "The
    player who rolled the FISHFRY may select any fish": the roller may leave every fish where it is."""
    g = modes["fishfry-keeper"]
    s = g.start(players=2, chance="manual", options={"rounds": 3, "fish_limit": 1})
    turn(s, ["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"])
    s.apply("keep")  # p0: one fish of 30, the limit: done fishing
    turn(s, NOTHING)  # p1: no fish
    roll(s, *FISHFRY)  # round 2: p0 is done, p1 rolls a FISHFRY
    assert s.current == 1 and [str(a) for a in s.legal_actions()] == ["eat p0 30", "decline"]
    s.apply("decline")
    assert s.scores() == [30, 0] and s.current == CHANCE  # p1's free turn
    turn(s, ["HEAD", "TAIL", "BODY 10", "TAIL", "TAIL"])
    s.apply("keep")  # p1: 20
    # round 3: p0 is still done, p1 has reached the limit too: nobody fishes, the tournament ends
    assert s.is_over and s.scores() == [30, 20] and s.winners() == [0]


def test_keeper_eating_lets_the_victim_fish_again(modes):
    g = modes["fishfry-keeper"]
    s = g.start(players=2, chance="manual", options={"rounds": 3, "fish_limit": 1})
    turn(s, ["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"])
    s.apply("keep")  # p0: 30, done
    turn(s, NOTHING)  # p1
    roll(s, *FISHFRY)  # round 2: p1
    s.apply("eat p0 30")
    turn(s, ["HEAD", "TAIL", "BODY 10", "TAIL", "TAIL"])
    s.apply("keep")  # p1: 20, done
    # round 3: p0 lost its fish and fishes again
    assert s.current == CHANCE and not s.is_over
    turn(s, FISH_10)
    s.apply("keep")
    assert s.is_over and s.scores() == [10, 20] and s.winners() == [1]


@pytest.mark.parametrize("mode", ["fishfry-total-points", "fishfry-first-to"])
def test_every_tournament_roller_may_decline(modes, mode):
    g = modes[mode]
    s = g.start(players=2, chance="manual")
    turn(s, FISH_10)  # p0: 10
    roll(s, *FISHFRY)  # p1
    assert [str(a) for a in s.legal_actions()] == ["eat p0 10", "decline"]
    s.apply("decline")
    assert s.scores() == [10, 0] and s.current == CHANCE

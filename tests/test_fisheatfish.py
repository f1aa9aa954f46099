"""Fish Eat Fish (shared/rulebooks/fish-eat-fish.es.txt): battles, movement, placement, the
simultaneous secret challenge as a property of the engine, elimination, the end and the tie-break.

The board (rulesets/fisheatfish.fish) is 5 x 5, lines along its rows and columns:

     1  2  3  4  5
     6  7  8  9 10
    11 12 13 14 15
    16 17 18 19 20
    21 22 23 24 25
"""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.random_play import random_step

RED_AT = [1, 3, 5, 11, 15]
YELLOW_AT = [2, 4, 12, 14, 22]


@pytest.fixture(scope="module")
def game():
    return fishrules.load("fisheatfish")


def two_player_board(game):
    """p0 red on 1 3 5 11 15, p1 yellow on 2 4 12 14 22, neutral fish everywhere else."""
    s = game.start(players=2)
    s.apply("pick_colour red")
    s.apply("pick_colour yellow")
    for r, y in zip(RED_AT, YELLOW_AT):
        s.apply(f"place {r}")
        s.apply(f"place {y}")
    assert s.current == 0  # "El jugador con la ficha de Estrella de mar ahora toma el primer turno."
    return s


def stacks(s):
    return s.view(None)["values"]["stack"]


def battle(s, attack, a_card, d_card):
    s.apply(attack)
    assert s.current == SIMULTANEOUS
    s.apply(f"p0: challenge_card {a_card}")
    s.apply(f"p1: challenge_card {d_card}")
    return s


def test_placement_fills_the_board_with_neutral_fish(game):
    s = two_player_board(game)
    st = stacks(s)
    assert all(len(st[str(c)]) == 1 for c in range(1, 26))
    assert [st[str(c)][0] for c in RED_AT] == ["red"] * 5 and [st[str(c)][0] for c in YELLOW_AT] == ["yellow"] * 5
    # "el pez morado se considera neutral": purple first, then the other colours nobody plays
    neutral = [st[str(c)][0] for c in range(1, 26) if c not in RED_AT + YELLOW_AT]
    assert neutral.count("purple") == 7 and set(neutral) <= {"purple", "green", "blue"}


def test_placing_next_to_your_own_colour_is_refused_when_there_is_another_circle(game):
    s = game.start(players=2)
    s.apply("pick_colour red")
    with pytest.raises(fishrules.IllegalAction, match="purple only with 5 players"):
        s.apply("pick_colour purple")
    s.apply("pick_colour yellow")
    s.apply("place 1")
    s.apply("place 25")
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply("place 2")  # next to the red fish on 1
    assert e.value.rule == "not next to your own colour unless there is no other circle"
    assert "place 2" not in [str(a) for a in s.legal_actions()] and "place 3" in [str(a) for a in s.legal_actions()]


STAR = '''extends "fisheatfish"
game "Fish Eat Fish on a star"
replace board: circles from 1 to 25
''' + "".join(f"  line 1, {k}\n" for k in range(2, 26))


def test_placing_next_to_your_own_colour_when_there_is_no_alternative(tmp_path):
    # On a star every circle touches circle 1: once red is there, red has no other choice.
    g = fishrules.loads(STAR, "star.fish", base_dir=str(fishrules.api.rulesets_dir()))
    s = g.start(players=2)
    s.apply("pick_colour red")
    s.apply("pick_colour yellow")
    s.apply("place 1")
    s.apply("place 2")
    assert len(s.legal_actions()) == 23  # every empty circle is next to red, so all are allowed
    s.apply("place 3")


def test_attacking_a_neutral_or_own_fish_uses_no_cards(game):
    s = two_player_board(game)
    legal = [str(a) for a in s.legal_actions()]
    assert "attack 1 2" in legal and "attack 1 6" in legal
    assert not any(a.startswith("drift") for a in legal)  # only when no attack is possible
    s.apply("attack 1 6")  # 6 is neutral: "coloca peces atacantes encima de otros peces"
    assert s.current == 1 and stacks(s)["6"][-1] == "red" and len(stacks(s)["6"]) == 2 and stacks(s)["1"] == []
    assert len(s.view(0)["seats"][0]["hand"]) == 11


def test_fish_against_fish_the_higher_total_wins(game):
    s = battle(two_player_board(game), "attack 1 2", "red-5", "yellow-3")
    # 5 + 1 against 3 + 1: the attacker's stack goes on top of the defender's
    assert stacks(s)["1"] == [] and stacks(s)["2"] == ["yellow", "red"]
    assert s.view(None)["values"]["discard"] == ["red-5", "yellow-3"]
    s2 = battle(two_player_board(game), "attack 1 2", "red-2", "yellow-7")
    assert stacks(s2)["2"] == [] and stacks(s2)["1"] == ["red", "yellow"]


def test_the_stack_size_is_added_to_the_card(game):
    s = two_player_board(game)
    s.apply("attack 1 6")  # red stack of 2 on circle 6
    s.apply("attack 2 7")  # yellow stack of 2 on circle 7
    battle(s, "attack 6 7", "red-4", "yellow-3")  # 4 + 2 against 3 + 2
    assert stacks(s)["7"] == ["purple", "yellow", "purple", "red"] and stacks(s)["6"] == []


def test_a_tie_removes_both_stacks(game):
    s = battle(two_player_board(game), "attack 1 2", "red-4", "yellow-4")
    assert stacks(s)["1"] == [] and stacks(s)["2"] == []
    assert sorted(s.view(None)["values"]["removed"]) == ["red", "yellow"]


def test_shark_beats_fish_and_two_sharks_tie(game):
    s = battle(two_player_board(game), "attack 1 2", "red-shark", "yellow-9")
    assert stacks(s)["2"] == ["yellow", "red"]
    s = battle(two_player_board(game), "attack 1 2", "red-9", "yellow-shark")
    assert stacks(s)["1"] == ["red", "yellow"]
    s = battle(two_player_board(game), "attack 1 2", "red-shark", "yellow-shark")
    assert stacks(s)["1"] == [] and stacks(s)["2"] == []


@pytest.mark.parametrize("cards", [("red-octopus", "yellow-9"), ("red-9", "yellow-octopus"),
                                   ("red-octopus", "yellow-octopus"), ("red-shark", "yellow-octopus")])
def test_an_octopus_cancels_the_attack(game, cards):
    s = battle(two_player_board(game), "attack 1 2", *cards)
    assert stacks(s)["1"] == ["red"] and stacks(s)["2"] == ["yellow"]
    assert sorted(s.view(None)["values"]["discard"]) == sorted(cards)  # "descarta las cartas"
    assert s.current == 1


def test_moving_in_a_straight_line_without_jumping_next_to_a_fish(game):
    s = battle(two_player_board(game), "attack 1 2", "red-4", "yellow-4")  # 1 and 2 are now empty
    # p1's turn: attack something so that it is p0's again
    s.apply("attack 4 9")
    legal = [str(a) for a in s.legal_actions()]
    assert "move_and_attack 3 2 7" in legal  # one step along the top row, then attack below
    assert "move_and_attack 3 1 6" in legal  # two steps, through the empty 2
    with pytest.raises(fishrules.IllegalAction):
        s.apply("move_and_attack 5 1 6")  # 4 is in the way: no jumping
    with pytest.raises(fishrules.IllegalAction):
        s.apply("move_and_attack 3 7 8")  # 7 is not empty, and not on a straight run from 3
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply("move_and_attack 3 1 2")  # it must end next to a fish, and attack it
    assert e.value.rule == "a fish to attack"
    s.apply("move_and_attack 3 1 6")  # 6 is neutral: no cards
    assert stacks(s)["3"] == [] and stacks(s)["1"] == [] and stacks(s)["6"][-1] == "red"


# ---- the simultaneous secret challenge, as a property of the engine ----------------------------


def test_each_sees_only_their_own_choice_until_both_have_chosen(game):
    s = two_player_board(game)
    s.apply("attack 1 2")
    assert s.current == SIMULTANEOUS and s.waiting == [0, 1]
    with pytest.raises(ValueError):
        s.legal_actions()
    assert len(s.legal_actions(0)) == 11 and str(s.legal_actions(1)[0]).startswith("p1: challenge_card yellow")
    with pytest.raises(fishrules.IllegalAction, match="say who"):
        s.apply("challenge_card red-5")
    a, b = s.clone(), s.clone()
    a.apply("p0: challenge_card red-5")
    b.apply("p0: challenge_card red-shark")
    assert a.waiting == [1]
    assert a.view(1) == b.view(1) and a.history_for(1) == b.history_for(1)  # p1 learns nothing
    assert a.view(None) == b.view(None)
    assert a.history_for(1)[-1] == "p0: ?" and a.history_for(0)[-1] == "p0: challenge_card red-5"
    assert a.view(0) != b.view(0)
    with pytest.raises(fishrules.IllegalAction, match="chosen already"):
        a.apply("p0: challenge_card red-6")
    assert "legal_actions" in a.view(1) and "legal_actions" not in a.view(0)


def test_the_order_of_choosing_cannot_change_the_outcome(game):
    for a_card, d_card in [("red-5", "yellow-3"), ("red-2", "yellow-7"), ("red-shark", "yellow-octopus")]:
        s = two_player_board(game)
        s.apply("attack 1 2")
        first, second = s.clone(), s.clone()
        first.apply(f"p0: challenge_card {a_card}")
        first.apply(f"p1: challenge_card {d_card}")
        second.apply(f"p1: challenge_card {d_card}")
        second.apply(f"p0: challenge_card {a_card}")
        va, vb = first.view(None), second.view(None)
        del va["history"], vb["history"]
        assert va == vb and first.scores() == second.scores() and first.current == second.current


# ---- whole games ---------------------------------------------------------------------------------


def reference_winners(s):
    v = s.view(None)
    catch = [len(r["catch"]) for r in v["seats"]]
    best = [p for p in range(s.n) if catch[p] == max(catch)]
    if len(best) == 1:
        return best
    if v["values"]["starfish_holder"] in best:
        return [v["values"]["starfish_holder"]]
    hands = {p: len(s.view(p)["seats"][p]["hand"]) for p in best}
    return sorted(p for p in best if hands[p] == max(hands.values()))


def tokens(s):
    v = s.view(None)
    n = sum(len(z) for z in v["values"]["stack"].values())
    n += len(v["values"]["removed"]) + len(v["values"]["neutral_supply"])
    n += sum(len(r["catch"]) + len(r["supply"]) for r in v["seats"])
    return n


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_playouts_conserve_the_fish(game, players):
    for seed in range(25):
        rng = random.Random(seed)
        s = game.start(players=players, seed=seed)
        while not s.is_over:
            if "colours" in s.phase:  # the tokens are still in the box
                random_step(s, rng)
                continue
            assert tokens(s) == 35
            v = s.view(None)
            for p in range(players):
                # "Ese jugador no puede participar en más batallas": out of cards, off the board
                if len(s.view(p)["seats"][p]["hand"]) == 0:
                    colour = v["seats"][p]["colour"]
                    assert all(not z or z[-1] != colour for z in v["values"]["stack"].values())
            random_step(s, rng)
        assert tokens(s) == 35
        v = s.view(None)
        picked = {r["colour"] for r in v["seats"]}
        # the end: no player's fish is left on the board (the last player's joined their catch)
        assert all(not z or z[-1] not in picked for z in v["values"]["stack"].values())
        assert s.winners() == reference_winners(s)
        assert game.replay(s.history, players=players) == s


# The real ruleset's `winners`, judged on end positions made to order: p0 holds the Starfish; p0
# catches SEAT0 fish, the others 7; p1 has thrown away 3 challenge cards.
ENDING = '''extends "fisheatfish"
game "Fish Eat Fish, an ending"
replace phase game:
  set starfish_holder to first(players)
  play colours
  for each player:
    if player's seat = 0:
      move top(SEAT0, player's supply) to player's catch
    otherwise:
      move player's supply to player's catch
    if player's seat = 1:
      move top(3, player's hand) to discard
'''


@pytest.mark.parametrize("seat0, winners", [(7, [0]), (6, [2])])
def test_the_tie_break(seat0, winners):
    # "Desempate: el poseedor de la ficha Estrella de mar gana si está involucrado; de lo
    #  contrario, el jugador con más cartas de Desafío en la mano gana."
    g = fishrules.loads(ENDING.replace("SEAT0", str(seat0)), "ending.fish", base_dir=str(fishrules.api.rulesets_dir()))
    assert any("no longer used" in w.message for w in g.warnings)  # the phases this ending skips
    s = g.start(players=3)
    for colour in ("red", "yellow", "green"):
        s.apply(f"pick_colour {colour}")
    assert s.is_over and s.scores() == [seat0, 7, 7]
    assert s.winners() == winners

"""Fish Fish (shared/rulebooks/fish-fish.txt): the rulebook's examples as scripted games, each way
a round can end, and hidden information as a property of the engine."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fishrules

LOUISA, NINON, MICKAEL, ARTHUR = 0, 1, 2, 3


@pytest.fixture(scope="module")
def game():
    return fishrules.load("fishfish")


def seat(view, p):
    return view["seats"][p]


def play(s, *actions):
    for a in actions:
        s.apply(a)
    return s


def test_the_fisherman_sets_a_secret_line(game):
    s = game.start(players=4)
    assert s.current == LOUISA  # the first seat is the first Fisherman
    assert [str(a) for a in s.legal_actions()][:2] == ["set_line Catch bait-2", "set_line Catch bait-3"]
    assert len(s.legal_actions()) == 8  # 2 kinds of Fishing card x 4 different Bait values
    play(s, "set_line Catch bait-3")
    fish_view = s.view(NINON)
    assert fish_view["values"]["line_fishing"] == [None]  # "The nature of the Fishing card ... is not revealed"
    assert fish_view["values"]["line_bait"] == ["bait-3"]  # "only the value of the Bait card ... is visible"
    assert fish_view["values"]["fishing_hand"] == [None] * 4
    assert fish_view["history"] == ["set_line ? bait-3"]
    assert s.view(None)["history"] == ["set_line ? bait-3"]
    assert s.view(LOUISA)["values"]["line_fishing"] == ["Catch"]
    assert s.view(LOUISA)["history"] == ["set_line Catch bait-3"]


def test_louisa_reveals_empty_handed_and_ninon_scores_seven(game):
    """The rulebook's example: Ninon and Mickael bet a tile each, Arthur does not; Louisa reveals
    "Empty-handed" with Bait 3: they each place their tile in slot 3.  Then Ninon ends with one tile
    in slot 3 and two in slot 2: 1 x 3 + 2 x 2 = 7 points."""
    s = game.start(players=4)
    play(s, "set_line Empty_handed bait-3", "bet 1", "bet 1", "bet 0")
    v = s.view(ARTHUR)
    assert seat(v, NINON)["loot"] == [3] and seat(v, MICKAEL)["loot"] == [3] and seat(v, ARTHUR)["loot"] == []
    assert [seat(v, p)["tiles"] for p in (NINON, MICKAEL, ARTHUR)] == [3, 3, 4]
    # "After checking, the two cards of the Fisherman's line are discarded face down."
    assert v["values"]["line_fishing"] == [] and v["values"]["discard"] == [None, None]
    play(s, "set_line Empty_handed bait-2", "bet 2", "bet 0", "bet 0")
    assert seat(s.view(None), NINON)["loot"] == [3, 2, 2]
    # a Catch takes every bet tile; once all tiles are bet the round ends
    play(s, "set_line Catch bait-4", "bet 1", "bet 3", "bet 4")
    assert s.scores() == [4 * 8, 7, 3, 0]
    assert s.current == NINON  # "The player to the left of the Fisherman becomes the new Fisherman"
    assert s.view(None)["values"]["direction"] == "counterclockwise"


def test_bets_are_from_zero_to_four_of_the_tiles_left(game):
    s = game.start(players=3)
    play(s, "set_line Empty_handed bait-5")
    assert [str(a) for a in s.legal_actions()] == [f"bet {k}" for k in range(5)]
    play(s, "bet 3")
    assert s.current == 2
    play(s, "bet 0", "set_line Empty_handed bait-4")
    assert [str(a) for a in s.legal_actions()] == ["bet 0", "bet 1"]  # p1 has one tile left
    with pytest.raises(fishrules.IllegalAction):
        s.apply("bet 2")


def test_the_round_ends_after_five_lines_and_every_tile_must_be_bet(game):
    s = game.start(players=2)
    for card, bait in (("Empty_handed", "bait-2"), ("Empty_handed", "bait-3"), ("Empty_handed", "bait-3"), ("Catch", "bait-4")):
        play(s, f"set_line {card} {bait}", "bet 0")
    play(s, "set_line Catch bait-5")
    # "they must have bet all of their Fish tiles by the end of the round"
    assert [str(a) for a in s.legal_actions()] == ["bet 4"]
    before = s.to_json()
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply("bet 3")
    assert e.value.rule == "all tiles bet by the end of the round"
    assert s.to_json() == before
    play(s, "bet 4")
    assert s.scores() == [16, 0]
    assert s.current == 1 and s.view(None)["values"]["fisherman"] == 1


def test_the_round_ends_when_every_tile_is_bet(game):
    s = game.start(players=3)
    play(s, "set_line Empty_handed bait-5", "bet 4", "bet 4")
    assert s.scores() == [0, 20, 20]
    assert s.view(None)["values"]["fisherman"] == 1
    assert s.current == 1  # round 2 began: the new Fisherman sets a line


def test_both_catches_revealed_end_the_round_at_once(game):
    s = game.start(players=3)
    play(s, "set_line Catch bait-2", "bet 1", "bet 0")
    assert s.view(None)["values"]["catches_revealed"] == 1
    play(s, "set_line Catch bait-3", "bet 0", "bet 1")
    # "The Fish players who still have Fish tiles place them on their Loot tile, in the slot
    #  corresponding to the largest Bait value the Fisherman still holds" — 5 (3, 4, 5 are left).
    assert s.scores() == [8, 15, 15]
    assert s.current == 1


def test_a_catch_discarded_unrevealed_is_not_used(game):
    s = game.start(players=3)
    play(s, "set_line Catch bait-2", "bet 0", "bet 0")  # no bet: discarded without being revealed
    assert s.view(1)["values"]["catches_revealed"] == 0
    assert s.view(1)["values"]["discard"] == [None, None]
    play(s, "set_line Catch bait-3", "bet 1", "bet 0")
    assert s.view(None)["values"]["catches_revealed"] == 1
    assert s.current == 0 and s.view(None)["values"]["line_number"] == 3  # the round goes on


def test_the_game_length_and_the_turning_direction(game):
    # "With 2 or 3 players, the game ends when each player has been the Fisherman twice."
    s = game.start(players=3)
    fishermen, firsts = [], []
    while not s.is_over:
        v = s.view(None)
        if s.legal_actions()[0].name == "set_line" and v["values"]["line_number"] == 1:
            fishermen.append(s.current)
        s.apply(s.legal_actions()[-1])  # everybody bets everything: one line a round
        if not s.is_over and s.legal_actions()[0].name == "bet" and len(firsts) < len(fishermen):
            firsts.append(s.current)
    assert fishermen == [0, 1, 2, 0, 1, 2]
    # round 1: left of the Fisherman first; round 2: right of the Fisherman; and so on
    # (Fishermen 0, 1, 2, 0, 1, 2; directions clockwise, counter-clockwise, ...)
    assert firsts == [1, 0, 0, 2, 2, 1]


def test_four_to_eight_players_are_each_fisherman_once(game):
    for n in (4, 8):
        s = game.start(players=n)
        lines = 0
        while not s.is_over:
            a = s.legal_actions()[-1]
            lines += a.name == "set_line"
            s.apply(a)
        assert lines == n


# ---- hidden information as a property of the engine ---------------------------------------------


def _branches(game, players, seed):
    """Two games alike in everything but the Fishing card of one line, on which no Fish bets."""
    rng = random.Random(seed)
    s = game.start(players=players)
    for _ in range(rng.randrange(0, 12)):
        if s.is_over:  # a game of two players can be over in 8 actions
            break
        s.apply(rng.choice(s.legal_actions()))
    while s.is_over or s.legal_actions()[0].name != "set_line":
        if s.is_over:
            s = game.start(players=players)
        else:
            s.apply(rng.choice(s.legal_actions()))
    kinds = {str(a).split()[1] for a in s.legal_actions()}
    if kinds != {"Catch", "Empty_handed"}:
        return None
    bait = str(s.legal_actions()[0]).split()[2]
    a, b = s.clone(), s.clone()
    a.apply(f"set_line Catch {bait}")
    b.apply(f"set_line Empty_handed {bait}")
    return a, b


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(players=st.integers(2, 8), seed=st.integers(0, 10_000))
def test_fish_views_do_not_depend_on_the_hidden_card(game, players, seed):
    pair = _branches(game, players, seed)
    if pair is None:
        return
    a, b = pair
    fisherman = a.view(None)["values"]["fisherman"]
    fish = [p for p in range(players) if p != fisherman]

    def same_for_fish():
        for p in fish + [None]:
            assert a.view(p) == b.view(p)
            assert a.history_for(p) == b.history_for(p)
        assert a.view(fisherman) != b.view(fisherman)

    same_for_fish()
    # every Fish bets nothing: the cards are discarded face down, never revealed
    while a.legal_actions() and a.legal_actions()[0].name == "bet":
        assert [str(x) for x in a.legal_actions()] == [str(x) for x in b.legal_actions()]
        a.apply("bet 0")
        b.apply("bet 0")
        same_for_fish()
    if a.legal_actions() and "bet 0" not in [str(x) for x in a.legal_actions()]:
        return  # (never happens: a Fish may always bet 0 before the fifth line)
    # ... and still after the line was checked and discarded
    same_for_fish()
    # the full history (for replays) does differ
    assert a.history != b.history


@pytest.mark.parametrize("players", range(2, 9))
def test_random_playouts_conserve_tiles_and_hide_cards(game, players):
    for seed in range(6):
        rng = random.Random(seed)
        s = game.start(players=players, seed=seed)
        total_points = 0
        while not s.is_over:
            v = s.view(None)
            fisherman = v["values"]["fisherman"]
            tiles = sum(r["tiles"] + r["bet"] + len(r["loot"]) for r in v["seats"] if r["player"] != fisherman)
            captured = v["seats"][fisherman]["captured"]
            assert tiles + captured == 4 * (players - 1)
            assert all(r["tiles"] == 0 and r["loot"] == [] for r in v["seats"] if r["player"] == fisherman)
            for p in [None] + [q for q in range(players) if q != fisherman]:
                w = s.view(p)["values"]
                assert w["fishing_hand"] == [None] * len(w["fishing_hand"])
                assert all(c is None for c in w["discard"])
            s.apply(rng.choice(s.legal_actions()))
        assert s.winners() and set(s.winners()) == {p for p, x in enumerate(s.scores()) if x == max(s.scores())}
        assert game.replay(s.history, players=players) == s
        assert game.state_from_json(s.to_json()) == s
        total_points += sum(s.scores())
        assert total_points > 0

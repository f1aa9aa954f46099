"""What happened is observable: `events_for(p)` tells each player what they saw happen, in order,
filtered by the rules' declared visibility; views show no stale or made-up values."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import CHANCE, SIMULTANEOUS
from fishrules.random_play import random_step

from .conftest import roll


def play_until(s, rng, done, limit=5000):
    for _ in range(limit):
        if done(s) or s.is_over:
            return s
        random_step(s, rng)
    return s


def seats(s):
    return [None, *range(s.n)]


# ---- a revealed card is in every seat's record, in every game that shows cards -------------------


def revealed(s, p):
    """Labels this seat saw turned or put face up, by the events."""
    out = []
    for e in s.events_for(p):
        if e["event"] == "reveal" or (e["event"] == "move" and e.get("face") == "up"):
            out += e["cards"]
    return out


@pytest.mark.parametrize("name, players", [("fishfish", 3), ("fatfish", 2), ("fisherman", 3), ("fisheatfish", 2)])
def test_a_card_shown_to_the_table_is_in_every_seats_record(name, players):
    game = fishrules.load(name)
    s = game.start(players=players, seed=3)
    play_until(s, random.Random(3), lambda s: len(s.history) > 80)
    records = {p: revealed(s, p) for p in seats(s)}
    assert records[None], "the game showed no card face up in 80 actions"
    # whatever was shown face up, everybody saw, by name
    assert all(None not in r for r in records.values())
    assert all(r == records[None] for r in records.values())


def test_fish_fish_a_checked_line_is_seen_though_it_is_turned_down_in_the_same_action():
    """The Fishing card of a checked line is revealed and discarded face down within one apply(),
    so no view ever shows it; every seat's events do."""
    game = fishrules.load("fishfish")
    s = game.start(players=3, seed=4)
    play_until(s, random.Random(1), lambda s: any(e["event"] == "reveal" for e in s.events_for(None)))
    reveal = next(e for e in s.events_for(None) if e["event"] == "reveal")
    card = reveal["cards"][0]
    assert reveal["in"] == ["line_fishing"]
    for p in seats(s):
        mine = next(e for e in s.events_for(p) if e["event"] == "reveal")
        assert mine == reveal
        # then it goes to the discard face down, in the same action
        turned = [e for e in s.events_for(p) if e["event"] == "move" and e["after"] == reveal["after"]
                  and e["from"] == "line_fishing"]
        assert turned and turned[0]["to"] == "discard" and turned[0]["face"] == "down"
        assert turned[0]["cards"] == [card]  # they saw it face up a moment before
    assert card not in str(s.view(1)["values"].get("discard"))  # the view alone would not tell


def test_a_card_into_a_secret_hand_is_named_only_to_its_owner():
    game = fishrules.load("fisherman")
    s = game.start(players=3, seed=2)
    deals = {p: [e for e in s.events_for(p) if e["event"] == "move" and e["to"] == "hand of p1"] for p in seats(s)}
    assert deals[1] and all(c is not None for e in deals[1] for c in e["cards"])
    for p in (None, 0, 2):
        assert deals[p] and all(c is None for e in deals[p] for c in e["cards"])
        assert len(deals[p]) == len(deals[1])


RULES = """
game "Moods"
players 2 to 3
each player has secret mood: number
each player has shown: number
the game has internal steps: number
phase game:
  for each player:
    set player's mood to 7
    set player's shown to 3
    add 1 to steps
"""


def test_a_changed_value_is_an_event_for_those_who_may_see_it():
    s = fishrules.loads(RULES, "moods.fish").start(players=2, seed=1)
    assert s.is_over

    def changes(p):
        return [(e["value"], e.get("player"), e["to"]) for e in s.events_for(p) if e["event"] == "set"]

    assert changes(0) == [("mood", 0, 7), ("shown", 0, 3), ("shown", 1, 3)]
    assert changes(1) == [("shown", 0, 3), ("mood", 1, 7), ("shown", 1, 3)]
    assert changes(None) == [("shown", 0, 3), ("shown", 1, 3)]
    # the rules' internal bookkeeping is in no event and no view
    assert all("steps" not in str(s.events_for(p)) and "steps" not in s.view(p)["values"] for p in seats(s))
    assert s.events_for(0)[-1]["event"] == "over"


def test_events_since_a_point_and_a_failed_action_leaves_none():
    game = fishrules.load("fatfish")
    s = game.start(players=2, seed=5)
    before = len(s.events_for(0))
    n = len(s.history)
    with pytest.raises(fishrules.IllegalAction):
        s.apply("lay 9 nonsense")
    assert len(s.events_for(0)) == before
    s.apply(s.legal_actions()[0])
    new = s.events_for(0, since=n)
    assert new and all(e["after"] >= n for e in new)
    assert new == s.events_for(0)[before:]


def test_restart_and_the_end_are_events(fishfry):
    s = fishfry.start(players=2, chance="manual")
    # both catch nothing: a tie for the win, so "one tie, all tie" plays the game again
    for _ in range(2):
        roll(s, "PANFISH", "BODY 5", "BODY 5", "BODY 5", "BODY 5")
        s.apply("stay")
    kinds = [e["event"] for e in s.events_for(None)]
    assert "restart" in kinds and "over" not in kinds
    restart = s.events_for(None)[kinds.index("restart")]
    # after it, the new game's setting up, caused by the same action
    assert all(e["after"] == restart["after"] for e in s.events_for(None)[kinds.index("restart"):])
    assert s.view(None)["values"]["roll"] == 1 and s.scores() == [0, 0]
    roll(s, "HEAD", "TAIL", "BODY 5", "BODY 5", "BODY 5")
    s.apply("stay")
    roll(s, "PANFISH", "BODY 5", "BODY 5", "BODY 5", "BODY 5")
    s.apply("stay")
    last = s.events_for(1)[-1]
    assert last == {"event": "over", "after": len(s.history), "winners": [0], "scores": [25, 1]}


# ---- views show no stale or made-up values -------------------------------------------------------


def test_dice_in_the_air_show_no_face(fishfry):
    s = fishfry.start(players=2, chance="manual")
    roll(s, "HEAD", "TAIL", "PANFISH", "BODY 5", "BODY 10")
    assert s.view(None)["values"]["roll"] == 1
    s.apply("reroll 1 2")
    assert s.current == CHANCE
    # the re-rolled dice are picked up: they show nothing until they land
    assert s.view(None)["dice"] == [None, None, "PANFISH", "BODY 5", "BODY 10"]
    assert s.view(None)["values"]["roll"] == 2
    roll(s, "TAIL")
    assert s.view(None)["dice"] == ["TAIL", None, "PANFISH", "BODY 5", "BODY 10"]


def test_a_choice_not_made_yet_has_no_value():
    game = fishrules.load("fisheatfish")
    s = game.start(players=2, seed=1)
    assert [row["colour"] for row in s.view(None)["seats"]] == [None, None]
    s.apply("pick_colour red")
    assert [row["colour"] for row in s.view(None)["seats"]] == ["red", None]


def test_fisherman_rule_mat_is_empty_until_chosen_and_the_last_round_stays_on_the_table():
    game = fishrules.load("fisherman")
    s = game.start(players=3, seed=8)
    values = s.view(None)["values"]
    assert (values["target"], values["valuation"], values["not_target"]) == (None, None, None)
    play_until(s, random.Random(8), lambda s: False, limit=20_000)
    assert s.is_over
    seat_catches = [row["catch"] for row in s.view(None)["seats"]]
    assert sum(len(c) for c in seat_catches) > 0  # the last round's catches are still there
    assert s.view(None)["values"]["target"] is not None


def test_simultaneous_choices_are_in_every_record_once_all_have_chosen():
    game = fishrules.load("fisheatfish")
    s = game.start(players=2, seed=1)
    rng = random.Random(1)
    play_until(s, rng, lambda s: s.current == SIMULTANEOUS)
    first = s.legal_actions(0)[0]
    s.apply(first)
    assert s.history_for(1)[-1] == "p0: ?"
    s.apply(s.legal_actions(1)[0])
    assert str(first) in s.history_for(1)

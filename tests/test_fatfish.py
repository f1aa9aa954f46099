"""Fat Fish (shared/rulebooks/fat-fish.txt): the rulebook's examples as scripted games, legality
after each card, the fiasco both ways, and random playouts that conserve every card."""

from __future__ import annotations

import random

import pytest

import fishrules

FILL = ["purple-1", "purple-2", "purple-3", "purple-4", "purple-5", "purple-6", "purple-1", "purple-2"]


@pytest.fixture(scope="module")
def game():
    return fishrules.load("fatfish")


def setup(game, hands, rows, stacks=None, options=None, reserve=None):
    """A scripted deal.  hands[p]: the 4 cards p starts with; stacks[p]: the 8 below them;
    rows: the first card of rows I, II and III; reserve: its cards (the reserve is drawn at random
    later, so only what is in it matters)."""
    n = len(hands)
    s = game.start(players=n, chance="manual", options=options or {})
    for p in range(n):
        below = (stacks or {}).get(p, FILL)
        # the hand is the top 4 of the 12 dealt to the stack: the last 4 drawn
        for c in list(below) + list(reversed(hands[p])):
            s.apply(f"draw {c}")
    for c in rows:
        s.apply(f"draw {c}")
    for c in reserve or ["red-1", "red-1", "red-1", "red-2", "red-2", "red-2", "red-3", "red-3", "red-3",
                         "red-4", "red-4", "red-4", "red-5", "red-5", "red-5"][: 3 * (n - 1)]:
        s.apply(f"draw {c}")
    assert s.current == 0
    return s


def legal(s):
    """The lays that keep every rule (the rulebook's examples list these)."""
    return sorted(str(a) for a in s.legal_actions() if a.breaks is None)


def fiascos(s):
    """The lays the rules accept as a fiasco, with the rule each breaks."""
    return sorted((str(a), a.breaks) for a in s.legal_actions() if a.breaks is not None)


def ends(s):
    rows = s.view(None)["values"]["rows"]
    return [rows[r][-1] if rows[r] else None for r in ("1", "2", "3")]


def test_setup_deals_stacks_hands_rows_and_reserve(game):
    for n in range(2, 7):
        s = game.start(players=n, seed=n)
        v = s.view(0)
        assert [len(r["hand"]) for r in v["seats"]] == [4] * n
        assert [len(r["stack"]) for r in v["seats"]] == [8] * n
        assert all(len(v["values"]["rows"][r]) == 1 for r in "123")
        assert len(v["values"]["reserve"]) == 3 * (n - 1)  # 3, 6, 9, 12, 15
        assert len(v["values"]["out_of_game"]) == 100 - 12 * n - 3 - 3 * (n - 1)
        # the personal stack is face down: nobody sees it, not even its owner
        assert v["seats"][0]["stack"] == [None] * 8 and v["seats"][1]["hand"] == [None] * 4
        assert None not in v["seats"][0]["hand"]


def test_kata_colours_are_looked_at_again_after_each_card(game):
    """Example 1: rows I, II, III end yellow, blue, red.  Kata lays her yellow in row I, then her
    green (no row ends with green); blue and red are the colours rows II and III end with."""
    s = setup(game, [["yellow-4", "green-5", "blue-6", "red-6"], ["green-1", "green-2", "green-3", "green-4"]],
              ["yellow-1", "blue-2", "red-3"])
    assert legal(s) == sorted(["lay 1 yellow-4", "lay 1 green-5", "lay 2 green-5", "lay 3 green-5",
                               "lay 2 blue-6", "lay 3 red-6"])
    s.apply("lay 1 yellow-4")
    assert legal(s) == ["lay 1 green-5", "stop"]
    s.apply("lay 1 green-5")
    assert legal(s) == ["stop"]  # "Kata cannot lay a blue or a red card"
    s.apply("stop")
    assert ends(s) == ["green-5", "blue-2", "red-3"]
    assert s.current == 1 and len(s.view(0)["seats"][0]["hand"]) == 4  # drawn back to 4


def test_katya_takes_a_row_plus_12_minus_5(game):
    """Example: Katya lays the fourth and fifth cards in row I (yellow 6 and green 1): red 5, yellow 6
    and green 1 go to her victory pile (+12), red 2 and yellow 3 to her penalty pile (-5)."""
    s = setup(game, [["red-2", "yellow-6", "green-1", "purple-6"], ["yellow-3", "blue-1", "blue-1", "blue-1"]],
              ["red-5", "blue-3", "purple-4"])
    s.apply("lay 1 red-2")  # p0: red on red
    s.apply("stop")
    s.apply("lay 1 yellow-3")  # p1: no row ends with yellow
    s.apply("stop")
    s.apply("lay 1 yellow-6")  # Katya: the fourth card ...
    s.apply("lay 1 green-1")  # ... and the fifth: the row is complete
    assert s.view(None)["values"]["taken"] == ["red-5", "red-2", "yellow-3", "yellow-6", "green-1"]
    assert "keep red-5 yellow-6 green-1" in legal(s) and "keep red-2 yellow-6 green-1" in legal(s)
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply("keep red-5 red-2 yellow-6 green-1")
    assert e.value.rule == "one card of each colour"
    s.apply("keep red-5 yellow-6 green-1")
    v = s.view(0)["seats"][0]
    assert sorted(v["victory"]) == ["green-1", "red-5", "yellow-6"] and sorted(v["penalty"]) == ["red-2", "yellow-3"]
    assert s.scores()[0] == 12 - 5
    assert s.view(1)["seats"][0]["penalty"] == [None, None]  # face down for the others
    # the row is replaced by the top card of the reserve at the end of the turn, face up (the
    # reserve's order was dealt at random; turning its top card over is no new chance)
    assert s.view(None)["values"]["rows"]["1"] == ["red-1"] and s.current == 1
    assert len(s.view(None)["values"]["reserve"]) == 2


def test_karl_five_of_one_colour_keeps_two_plus_9_minus_7(game):
    """Example 2: Karl lays three cards, forming a row of 5 blue cards: 5 and 4 go to his victory
    pile, 4, 2 and 1 to his penalty pile: plus 9 and minus 7."""
    s = setup(game, [["blue-5", "blue-4", "blue-1", "purple-6"], ["blue-2", "yellow-2", "yellow-3", "yellow-4"]],
              ["yellow-1", "blue-4", "green-1"])
    s.apply("lay 3 purple-6")  # p0 lays elsewhere
    s.apply("stop")
    s.apply("lay 2 blue-2")  # p1: blue on blue
    s.apply("stop")
    for c in ("blue-5", "blue-4", "blue-1"):
        s.apply(f"lay 2 {c}")
    assert sorted(s.view(None)["values"]["taken"]) == ["blue-1", "blue-2", "blue-4", "blue-4", "blue-5"]
    # "if you take 5 cards of one color, you may place 2 cards, not 1"; identical cards are one choice
    assert len([a for a in legal(s) if a.startswith("keep")]) == 7  # pairs of {1, 2, 4, 4, 5}
    s.apply("keep blue-5 blue-4")
    v = s.view(0)["seats"][0]
    assert sum(int(c.split("-")[1]) for c in v["victory"]) == 9
    assert sum(int(c.split("-")[1]) for c in v["penalty"]) == 7
    assert s.scores()[0] == 2


def sonya_table(game, fiasco):
    # rows I, II, III end yellow, red, blue
    return setup(game, [["blue-4", "red-5", "green-6", "purple-6"], ["red-2", "green-2", "green-3", "green-4"]],
                 ["yellow-1", "red-3", "blue-2"], options={"fiasco": fiasco})


def test_sonya_fiasco_takes_the_card_and_plays_again(game):
    """Sonya lays a blue 4 at the end of row I: forbidden (blue only in row III).  She receives the
    fiasco card, takes her card back into her hand, and plays again into the correct row."""
    s = sonya_table(game, "penalty")
    assert "lay 1 blue-4" not in legal(s)  # never offered as a legal action
    s.apply("lay 1 blue-4")
    v = s.view(None)["values"]
    assert v["fiasco_holder"] == 0 and ends(s) == ["yellow-1", "red-3", "blue-2"]
    assert s.current == 0 and "blue-4" in s.view(0)["seats"][0]["hand"]
    assert s.history[-1] == "lay 1 blue-4"
    s.apply("lay 3 blue-4")
    s.apply("stop")
    assert s.scores()[0] == -5  # "The player who has the fiasco card at the end ... 5 penalty points"
    # "Misha lays a red 5 in row III. ... a red card can now be laid only in row II."
    s.apply("lay 3 red-2")
    assert s.view(None)["values"]["fiasco_holder"] == 1  # the card passes to the next offender
    assert s.scores()[:2] == [0, -5]


def test_fiasco_takes_back_every_card_laid_this_turn(game):
    s = sonya_table(game, "penalty")
    s.apply("lay 2 red-5")  # legal: red on red
    assert ends(s)[1] == "red-5"
    s.apply("lay 2 blue-4")  # wrong: blue only in row III
    assert ends(s) == ["yellow-1", "red-3", "blue-2"]
    assert sorted(s.view(0)["seats"][0]["hand"]) == ["blue-4", "green-6", "purple-6", "red-5"]
    # the turn is taken again from the start: nothing laid yet, so stopping is not allowed
    assert s.current == 0 and "stop" not in [str(a) for a in s.legal_actions()]
    assert "laid" not in s.view(None)["values"]  # the rules' own bookkeeping is in no view
    s.apply("lay 1 green-6")  # a fresh turn: any row is open again
    with pytest.raises(fishrules.IllegalAction):
        s.apply("stop please")
    s.apply("stop")
    assert s.current == 1


def test_a_strict_table_refuses_the_wrong_lay(game):
    s = sonya_table(game, "refusal")
    before = s.to_json()
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply("lay 1 blue-4")
    assert e.value.rule == "a matching colour" and "fatfish.fish" in str(e.value)
    assert s.to_json() == before
    s.apply("lay 2 red-5")
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply("lay 1 purple-6")
    assert e.value.rule == "one row a turn"


def count_cards(s):
    v = s.view(None)
    total = sum(len(v["values"][z]) for z in ("deck", "out_of_game", "reserve", "taken"))
    total += sum(len(cards) for cards in v["values"]["rows"].values())
    total += sum(len(r[z]) for r in v["seats"] for z in ("stack", "hand", "victory", "penalty"))
    assert all(r["penalty"] == [None] * len(r["penalty"]) for r in v["seats"])  # unseen by spectators
    return total


@pytest.mark.parametrize("players", range(2, 7))
@pytest.mark.parametrize("fiasco", ["penalty", "refusal"])
def test_random_playouts_conserve_the_cards(game, players, fiasco):
    for seed in range(4):
        rng = random.Random(seed)
        s = game.start(players=players, seed=seed, options={"fiasco": fiasco})
        fiascos = 0
        while not s.is_over:
            assert count_cards(s) == 100
            acts = s.legal_actions()
            if acts[0].name == "lay" and rng.random() < 0.1:
                # now and then, try a lay that is not listed: apply() refuses exactly those (with the
                # fiasco card, a wrong lay is listed, but not in the turn taken again after one)
                wrong = f"lay {rng.randint(1, 3)} {rng.choice(s.view(s.current)['seats'][s.current]['hand'])}"
                if wrong not in {str(a) for a in acts}:
                    with pytest.raises(fishrules.IllegalAction):
                        s.apply(wrong)
            act = rng.choice(acts)
            fiascos += act.breaks is not None
            s.apply(act)
            if act.breaks is not None:
                assert s.view(None)["values"]["fiasco_holder"] == act.player
        assert count_cards(s) == 100
        v = s.view(None)
        # everybody ran out of cards; scores are victory - penalty - 5 for the last fiasco holder
        assert all(r["hand"] == [] and r["stack"] == [] for r in v["seats"])
        for r in v["seats"]:
            value = lambda cards: sum(int(c.split("-")[1]) for c in cards)  # noqa: E731
            fiasco_pts = 5 if v["values"]["fiasco_holder"] == r["player"] else 0
            own = s.view(r["player"])["seats"][r["player"]]  # the penalty pile is face down to others
            assert r["score"] == value(r["victory"]) - value(own["penalty"]) - fiasco_pts
        assert game.replay(s.history, players=players, options={"fiasco": fiasco}) == s
        if fiasco == "refusal":
            assert fiascos == 0


def test_cards_taken_back_after_a_fiasco_go_back_into_the_secret_hand_face_down(game):
    """"must take back all the cards laid out on that turn": back into the hand, which only its owner
    sees.  Laid face up, they must be turned face down again: otherwise, with two yellow 6 in hand,
    laying one after the fiasco left the other on show."""
    s = setup(game, [["yellow-6", "yellow-6", "blue-4", "green-6"], ["red-2", "green-2", "green-3", "green-4"]],
              ["yellow-1", "red-3", "blue-2"])
    s.apply("lay 1 yellow-6")
    s.apply("lay 1 blue-4")  # a fiasco: blue only in row III
    assert s.view(None)["values"]["fiasco_holder"] == 0
    for p in (None, 1):
        assert s.view(p)["seats"][0]["hand"] == [None] * 4
    s.apply("lay 1 yellow-6")
    for p in (None, 1):
        assert s.view(p)["seats"][0]["hand"] == [None] * 3, f"p0's hand shown to {p}"
    assert sorted(s.view(0)["seats"][0]["hand"]) == ["blue-4", "green-6", "yellow-6"]


@pytest.mark.parametrize("fiasco", ["penalty", "refusal"])
def test_a_fiasco_is_a_legal_action_marked_with_the_rule_it_breaks(game, fiasco):
    """apply() takes exactly what legal_actions() lists: with the fiasco card (the rulebook), a
    wrong lay is listed, marked with the rule it breaks, so a bot can choose it or leave it; at a
    strict table it is not listed, and refused."""
    s = setup(game, [["yellow-4", "green-5", "blue-6", "red-6"], ["green-1", "green-2", "green-3", "green-4"]],
              ["yellow-1", "blue-2", "red-3"], options={"fiasco": fiasco})
    listed = {str(a) for a in s.legal_actions()}
    every_lay = {f"lay {r} {c}" for r in (1, 2, 3) for c in ("yellow-4", "green-5", "blue-6", "red-6")}
    if fiasco == "penalty":
        assert listed == every_lay
        assert ("lay 1 red-6", "a matching colour") in fiascos(s)
        wrong = next(a for a in s.legal_actions() if a.breaks == "a matching colour")
        s.apply(wrong)
        assert s.view(None)["values"]["fiasco_holder"] == 0 and s.current == 0
    else:
        assert listed == set(legal(s)) and not fiascos(s)
        with pytest.raises(fishrules.IllegalAction, match="a matching colour"):
            s.apply("lay 1 red-6")
    # whatever is listed is accepted; whatever is not is refused
    for text in every_lay - listed:
        with pytest.raises(fishrules.IllegalAction):
            s.clone().apply(text)

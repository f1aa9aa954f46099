"""Fisherman (shared/rulebooks/fisherman.txt): scripted deals played trick by trick, follow-suit
legality, points and shields, and random playouts checked against an independent reference of the
trick and scoring rules written here in plain Python."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import CHANCE

HM, PF, SB, GO, SQ = "horse_mackerel", "puffer_fish", "sea_bream", "goby", "squid"


@pytest.fixture(scope="module")
def game():
    return fishrules.load("fisherman")


def card(suit, number):
    return f"{suit}-{number}"


def deal(s, hands: dict[int, list[str]]):
    """Deal with manual chance: every player's cards, in dealing order (left of the dealer first)."""
    dealer = s.view(None)["values"]["dealer"]
    order = [(dealer + k) % s.n for k in range(1, s.n + 1)]
    for p in order:
        for c in hands[p]:
            assert s.current == CHANCE
            s.apply(f"draw {c}")
    return s


def split(label):
    suit, number = label.rsplit("-", 1)
    return suit, int(number)


# ---- a reference of the rules, written independently of the ruleset -----------------------------


def trick_winner(plays: list[tuple[int, str]], valuation: str, not_target: str) -> int:
    """plays: (player, card) in play order.  "The player who played the strongest ... of the Not
    Target suit wins the trick. If no cards of the Not Target suit were played, the strongest card of
    the lead suit wins the trick." """
    lead = split(plays[0][1])[0]
    strength = (lambda n: n) if valuation == "large" else (lambda n: -n)
    trumps = [(strength(split(c)[1]), p) for p, c in plays if split(c)[0] == not_target]
    if trumps:
        return max(trumps)[1]
    return max((strength(split(c)[1]), p) for p, c in plays if split(c)[0] == lead)[1]


def points(catch: list[str], target: str, not_target: str, size_low: int) -> int:
    total = 0
    for c in catch:
        suit, n = split(c)
        total += (suit == target) - (suit == not_target)
        if n in (size_low, size_low + 1):
            total += -1 if suit == not_target else 1
    return total


def shields(round_points: list[int]) -> list[int]:
    vp = {1: 5, 2: 3, 3: 1}
    return [vp.get(1 + sum(o > x for o in round_points), 0) for x in round_points]


# ---- a scripted 3-player round --------------------------------------------------------------------

THREE = {
    # p1, left of the dealer, is dealt first
    1: [card(HM, n) for n in range(1, 11)] + [card(PF, n) for n in (1, 2, 3)],
    2: [card(PF, n) for n in range(4, 11)] + [card(SB, n) for n in range(1, 6)] + [card(GO, 10)],
    0: [card(SB, n) for n in range(7, 11)] + [card(GO, n) for n in range(1, 10)],
}  # sea_bream-6 is the extra card, back in the box unseen


def three_player_round(game, valuation):
    s = deal(game.start(players=3, chance="manual"), THREE)
    assert s.current == 1
    # "the first player to select will always choose the Target"; squid is not in a 3 player game
    assert [str(a) for a in s.legal_actions()] == [f"choose_target {x}" for x in (HM, PF, SB, GO)]
    s.apply(f"choose_target {HM}")
    # "In a 3P game, the second player to decide will decide both the Valuation and Size"
    assert s.current == 2 and s.legal_actions()[0].name == "choose_valuation_and_size"
    s.apply(f"choose_valuation_and_size {valuation} 3")
    assert s.current == 0
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply(f"choose_not_target {HM}")
    assert e.value.rule == "Not Target differs from Target"
    s.apply(f"choose_not_target {GO}")
    v = s.view(None)["values"]
    assert (v["target"], v["valuation"], v["size_low"], v["not_target"]) == (HM, valuation, 3, GO)
    return s


def test_three_players_large_trick_by_trick(game):
    s = three_player_round(game, "large")
    # trick 1: "The dealer is the lead player for the first trick"
    assert s.current == 0
    s.apply(f"play_card {card(SB, 10)}")
    s.apply(f"play_card {card(HM, 1)}")  # p1 has no sea bream: any card
    before = s.to_json()
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply(f"play_card {card(PF, 4)}")  # p2 has sea bream and must follow
    assert e.value.rule == "follow the lead suit" and s.to_json() == before
    assert {str(a) for a in s.legal_actions()} == {f"play_card {card(SB, n)}" for n in range(1, 6)}
    s.apply(f"play_card {card(SB, 5)}")
    assert sorted(s.view(None)["seats"][0]["catch"]) == sorted([card(SB, 10), card(HM, 1), card(SB, 5)])
    # trick 2: the goby lead; p2 must follow with the goby 10, the strongest Not Target card
    assert s.current == 0
    s.apply(f"play_card {card(GO, 1)}")
    s.apply(f"play_card {card(HM, 10)}")
    assert [str(a) for a in s.legal_actions()] == [f"play_card {card(GO, 10)}"]
    s.apply(f"play_card {card(GO, 10)}")
    assert s.current == 2  # "The winner ... [leads] the next trick"
    # trick 3: puffer fish led; the dealer, void, trumps with a goby
    s.apply(f"play_card {card(PF, 10)}")
    s.apply(f"play_card {card(GO, 2)}")
    s.apply(f"play_card {card(PF, 1)}")
    assert s.current == 0
    # the hidden hands: others see how many cards, not which
    assert s.view(1)["seats"][0]["hand"] == [None] * 10
    assert None not in s.view(0)["seats"][0]["hand"]


def test_three_players_small_numbers_are_stronger(game):
    s = three_player_round(game, "small")
    for c in (card(SB, 10), card(HM, 1), card(SB, 5)):
        s.apply(f"play_card {c}")
    assert s.current == 2  # the sea bream 5 beats the 10 when small numbers are stronger
    assert sorted(s.view(None)["seats"][2]["catch"]) == sorted([card(SB, 10), card(HM, 1), card(SB, 5)])


def play_round_with_reference(s, rng, check_tricks=True):
    """Play one whole fishing phase randomly, checking every trick against the reference; returns
    the round's catches."""
    v = s.view(None)["values"]
    valuation, not_target = v["valuation"], v["not_target"]
    hand_sizes = {len(r["hand"]) for r in s.view(None)["seats"]}
    assert len(hand_sizes) == 1
    tricks = hand_sizes.pop()
    for t in range(tricks):
        plays = []
        for _ in range(s.n):
            p = s.current
            a = rng.choice(s.legal_actions())
            plays.append((p, str(a).split()[1]))
            s.apply(a)
        # "The winner of one trick will acquire all cards played to the trick and lead to the next"
        winner = trick_winner(plays, valuation, not_target)
        if t < tricks - 1 and check_tricks:
            assert s.current == winner, plays
            sizes = {len(r["hand"]) for r in s.view(None)["seats"]}
            assert sizes == {tricks - t - 1}  # hands stay equal
    return winner


@pytest.mark.parametrize("players", [3, 4])
def test_random_rounds_match_the_reference(game, players):
    for seed in range(8):
        rng = random.Random(seed)
        s = game.start(players=players, seed=seed)
        vp = [0] * players
        for rnd in range(players):
            # the rule decisions, at random
            dealer = s.view(None)["values"]["dealer"]
            assert dealer == rnd % players  # "pass the big catch card to the left"
            while s.legal_actions()[0].name.startswith("choose"):
                s.apply(rng.choice(s.legal_actions()))
            v = s.view(None)["values"]
            assert v["target"] != v["not_target"]
            assert s.current == dealer  # the dealer leads the first trick
            # every card in play is dealt, equally; the extras (2 of 50, 1 of 40) are unseen
            hands = [len(r["hand"]) for r in s.view(None)["seats"]]
            assert hands == ([12] * 4 if players == 4 else [13] * 3)
            assert len(s.view(None)["values"]["box"]) == (2 if players == 4 else 11)
            play_round_with_reference(s, rng)
            # shields from the round's points (test_round_points_follow_the_reference checks those)
            rp = [r["round_points"] for r in s.view(None)["seats"]]
            vp = [a + b for a, b in zip(vp, shields(rp))]
            assert s.scores() == vp, rp
        assert s.is_over
        assert set(s.winners()) == {p for p in range(players) if vp[p] == max(vp)}


def test_round_points_follow_the_reference(game):
    for seed in range(10):
        rng = random.Random(100 + seed)
        s = game.start(players=4, seed=seed)
        while s.legal_actions()[0].name.startswith("choose"):
            s.apply(rng.choice(s.legal_actions()))
        v = s.view(None)["values"]
        # play all but the last card of the round, then read the catches before they are cleared
        tricks = len(s.view(None)["seats"][0]["hand"])
        for _ in range(tricks * 4 - 1):
            s.apply(rng.choice(s.legal_actions()))
        last = s.legal_actions()[0]
        seats = s.view(None)["seats"]
        plays = [(p, seats[p]["played"][0]) for p in range(4) if seats[p]["played"]] + [(s.current, str(last).split()[1])]
        order_start = s.view(None)["values"]["leader"]
        plays.sort(key=lambda x: (x[0] - order_start) % 4)
        catches = [list(r["catch"]) for r in seats]
        catches[trick_winner(plays, v["valuation"], v["not_target"])] += [c for _, c in plays]
        s.apply(last)
        got = [r["round_points"] for r in s.view(None)["seats"]]
        want = [points(c, v["target"], v["not_target"], v["size_low"]) for c in catches]
        assert got == want
        assert s.scores() == shields(want)


def test_two_tied_for_second_take_silver_and_nobody_is_third(game):
    """Search the seeded games for a round with a tie for second, then check its shields."""
    for seed in range(300):
        rng = random.Random(seed)
        s = game.start(players=4, seed=seed)
        while s.legal_actions()[0].name.startswith("choose"):
            s.apply(rng.choice(s.legal_actions()))
        while s.view(None)["values"]["dealer"] == 0:  # play the first round to its end
            s.apply(rng.choice(s.legal_actions()))
        rp = [r["round_points"] for r in s.view(None)["seats"]]
        best = max(rp)
        rest = sorted((x for x in rp if x != best), reverse=True)
        if rp.count(best) == 1 and len(rest) == 3 and rest[0] == rest[1] > rest[2]:
            vp = s.scores()
            gold, silver = rp.index(best), [p for p in range(4) if rp[p] == rest[0]]
            fourth = next(p for p in range(4) if rp[p] == rest[2])
            assert vp[gold] == 5 and all(vp[p] == 3 for p in silver) and vp[fourth] == 0
            return
    pytest.fail("no round with a tie for second in 300 games")


def test_four_players_use_all_five_suits(game):
    s = game.start(players=4, seed=3)
    assert [str(a) for a in s.legal_actions()][-1] == f"choose_target {SQ}"
    hands = [r["hand"] for r in s.view(0)["seats"]]
    assert None not in hands[0] and hands[1] == [None] * 12
    # p1 is dealt first: only p1 sees those cards
    assert s.view(2)["history"][0] == "draw ?" and s.view(1)["history"][0] == s.history[0] != "draw ?"
    assert game.replay(s.history, players=4) == s


def scripted_hands(players):
    """A fixed deal: the cards in a fixed order, dealt 13 (3 players) or 12 (4) to each player in
    dealing order, left of the dealer first; the rest stay in the box."""
    suits = [HM, PF, SB, GO] + ([SQ] if players == 4 else [])
    deck = [card(s, n) for n in range(1, 11) for s in suits]  # interleaved suits: mixed hands
    size = len(deck) // players
    order = [(k % players) for k in range(1, players + 1)]  # dealer is seat 0
    return {p: deck[i * size:(i + 1) * size] for i, p in enumerate(order)}


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("valuation", ["large", "small"])
def test_scripted_round_trick_by_trick_with_points_and_shields(game, players, valuation):
    s = deal(game.start(players=players, chance="manual"), scripted_hands(players))
    decisions = [f"choose_target {SB}"]
    decisions += [f"choose_valuation {valuation}", "choose_size 4"] if players == 4 else [f"choose_valuation_and_size {valuation} 4"]
    decisions += [f"choose_not_target {GO}"]
    for d in decisions:
        s.apply(d)
    target, not_target, size_low = SB, GO, 4
    catches = {p: [] for p in range(players)}
    tricks = 40 // 3 if players == 3 else 12
    leader = 0  # the dealer leads the first trick
    for t in range(tricks):
        assert s.current == leader
        plays = []
        for _ in range(players):
            p = s.current
            a = s.legal_actions()[0]  # the first card allowed: the lowest of the lead suit if held
            plays.append((p, str(a).split()[1]))
            s.apply(a)
        leader = trick_winner(plays, valuation, not_target)
        catches[leader] += [c for _, c in plays]
        if t < tricks - 1:
            assert s.current == leader, f"trick {t + 1}: {plays}"
            assert sorted(s.view(None)["seats"][leader]["catch"]) == sorted(catches[leader])
    round_points = [points(catches[p], target, not_target, size_low) for p in range(players)]
    assert [r["round_points"] for r in s.view(None)["seats"]] == round_points
    assert s.scores() == shields(round_points)
    # every card in play was won by somebody
    assert sum(len(c) for c in catches.values()) == tricks * players

"""Every documented end of every bundled game, forced by a small house rule (tests/overlays/*.fish).

Random playouts reach the common ends; these overlays make each end happen at once, on purpose —
including ends the bundled boards and decks make rare or unreachable — and check that the game ends
as its docs page (docs/games/*.md) says.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import fishrules
from fishrules import CHANCE, SIMULTANEOUS

OVERLAYS = Path(__file__).resolve().parent / "overlays"


def overlay(name: str) -> fishrules.Game:
    return fishrules.load(OVERLAYS / f"{name}.fish")


def test_every_overlay_loads_and_names_itself():
    for path in sorted(OVERLAYS.glob("*.fish")):
        game = fishrules.load(path)
        assert game.title and path.read_text().startswith("#")


# ---- Fish Eat Fish ------------------------------------------------------------------------------


def fef_start(game, players, colours=("red", "yellow", "green", "blue", "purple")):
    s = game.start(players=players)
    for c in colours[:players]:
        s.apply(f"pick_colour {c}")
    return s


def catches(s):
    return [len(r["catch"]) for r in s.view(None)["seats"]]


def test_fisheatfish_a_whole_round_with_nobody_able_to_act_ends_the_game():
    """docs/games/fisheatfish.md, 8: "When for a whole round nobody can do anything, the game ends
    and the fish on the board join their owners' catches."  On a board of twelve circles with a
    single line 1-2, fish placed on 3 to 12 can never attack, move or drift."""
    s = fef_start(overlay("fisheatfish-deadlock"), 2)
    for c in range(3, 13):
        s.apply(f"place {c}")  # the last one used to run 200,000 steps and raise RuleError
    assert s.is_over
    assert catches(s) == [5, 5]
    assert not any(z and z[-1] in ("red", "yellow") for z in s.view(None)["values"]["stack"].values())
    # the Starfish stays with its holder (it goes with the fish only to the last player on the
    # board); it breaks the tie
    assert s.view(None)["values"]["starfish_holder"] == 0
    assert s.winners() == [0]
    assert s.ranking()[0] == 1


@pytest.mark.parametrize("cards, scores, last", [
    (("red-shark", "yellow-3"), [2, 0], 0),  # the attacker's stack on top: only p0's fish remain
    (("red-3", "yellow-shark"), [0, 2], 1),  # the defender's: only p1's remain
    (("red-9", "yellow-1"), [2, 0], 0),  # 9 + 1 against 1 + 1
])
def test_fisheatfish_only_one_players_fish_left_ends_the_game(cards, scores, last):
    """docs 9 / rulebook: "El juego termina cuando solo queda pescado en el tablero a 1 jugador. Estos
    peces ahora se agregan a la captura de los jugadores, junto con la ficha de Estrella de mar."
    Two circles, one fish each: the first fight decides."""
    s = fef_start(overlay("fisheatfish-duel"), 2)
    s.apply("place 1")
    s.apply("place 2")
    s.apply("attack 1 2")
    s.apply(f"p0: challenge_card {cards[0]}")
    s.apply(f"p1: challenge_card {cards[1]}")
    assert s.is_over and catches(s) == scores
    assert s.view(None)["values"]["starfish_holder"] == last  # with the fish
    assert s.winners() == [last]


def test_fisheatfish_no_fish_left_at_all_ends_the_game():
    """A tie removes both stacks: nobody's fish remain, the game is over, the Starfish stays and
    breaks the 0-0 tie."""
    s = fef_start(overlay("fisheatfish-duel"), 2)
    s.apply("place 1")
    s.apply("place 2")
    s.apply("attack 1 2")
    s.apply("p1: challenge_card yellow-4")
    s.apply("p0: challenge_card red-4")
    assert s.is_over and catches(s) == [0, 0] and s.winners() == [0]


def test_fisheatfish_an_octopus_does_not_end_the_duel():
    s = fef_start(overlay("fisheatfish-duel"), 2)
    s.apply("place 1")
    s.apply("place 2")
    s.apply("attack 1 2")
    s.apply("p0: challenge_card red-octopus")
    s.apply("p1: challenge_card yellow-9")
    assert not s.is_over and s.current == 1 and [str(a) for a in s.legal_actions()] == ["attack 2 1"]


RED_AT = [1, 3, 5, 11, 15]
YELLOW_AT = [2, 4, 12, 14, 22]
GREEN_AT = [7, 9, 17, 19, 25]


@pytest.mark.parametrize("players", [2, 3])
def test_fisheatfish_out_of_challenge_cards(players):
    """docs 10: a player with no challenge card left takes their stacks off the board into their
    catch.  With one card each, the first challenge empties both hands."""
    s = fef_start(overlay("fisheatfish-one-card"), players)
    spots = [RED_AT, YELLOW_AT, GREEN_AT][:players]
    for i in range(5):
        for p in range(players):
            s.apply(f"place {spots[p][i]}")
    assert [len(s.view(p)["seats"][p]["hand"]) for p in range(players)] == [1] * players
    s.apply("attack 1 2")
    s.apply("p0: challenge_card red-1")
    s.apply("p1: challenge_card yellow-1")  # 1 + 1 against 1 + 1: both stacks removed
    assert s.is_over
    if players == 2:
        # no player's fish remain: the game ends, the Starfish stays and breaks the 4-4 tie
        assert catches(s) == [4, 4] and s.view(None)["values"]["starfish_holder"] == 0
        assert s.winners() == [0]
    else:
        # only p2's fish remain: they join p2's catch, with the Starfish
        assert catches(s) == [4, 4, 5] and s.view(None)["values"]["starfish_holder"] == 2
        assert s.winners() == [2]


# ---- Fishfry and its tournaments ----------------------------------------------------------------


def play_out(s, choose, limit=100_000):
    """Play on to the end: chance at random (seeded games resolve it themselves), decisions by
    `choose(state, legal action texts)`."""
    for _ in range(limit):
        if s.is_over:
            return s
        s.apply(choose(s, [str(a) for a in s.legal_actions()]))
    raise AssertionError("the game did not end")


def stay(s, actions):
    return "stay" if "stay" in actions else actions[0]


def turns(s):
    """The turns played: each starts by rolling the first die."""
    return sum(1 for h in s.history if h.startswith("die 1 rolls"))


@pytest.mark.parametrize("players", range(2, 9))
def test_fishfry_after_all_players_have_rolled_the_most_points_wins(players):
    """docs/games/fishfry.md: "the single game: one turn each" — "After all players have rolled, the
    player who has the most points is the WINNER"."""
    s = play_out(overlay("fishfry-seat-scores").start(players=players, seed=players), stay)
    assert turns(s) == players
    assert s.scores() == [10 * (p + 1) for p in range(players)]
    assert s.winners() == [players - 1] and s.ranking()[players - 1] == 1


def test_fishfry_a_fishfry_wins_at_once():
    """docs 7: the game ends with the roller as the sole winner, and the others' fish are gone."""
    s = overlay("fishfry-always-fishfry").start(players=4, seed=1)
    assert s.is_over and turns(s) == 1  # nobody else rolled
    assert s.winners() == [0] and s.view(None)["values"]["fryer"] == 0
    assert s.scores() == [0, 0, 0, 0]


def test_fishfry_a_tie_for_the_win_plays_again_as_long_as_it_takes():
    """docs 8: ONE TIE - ALL TIE — a whole new game in the same state, scores wiped, the same player
    first, the history keeping every game.  With no points at all, every game is a tie."""
    s = overlay("fishfry-no-points").start(players=3, seed=1)
    deciders = []
    while len(deciders) < 3 * 4:  # four games of three turns
        assert not s.is_over and s.scores() == [0, 0, 0]
        deciders.append(s.current)
        s.apply("stay")
    assert deciders == [0, 1, 2] * 4
    assert turns(s) == 13 and not s.is_over  # the fifth game has begun: p0 has rolled


def test_tournament_ends_after_its_rounds_without_a_second_chance_game():
    s = play_out(overlay("fishfry-total-points-seat-scores").start(players=3, seed=1, options={"rounds": 2}), stay)
    assert turns(s) == 6
    assert s.scores() == [20, 40, 60] and s.winners() == [2]


def test_first_to_ends_the_moment_the_target_is_reached():
    """docs 13: the target counts the moment a turn's points are recorded, and the game ends there."""
    s = play_out(overlay("fishfry-first-to-seat-scores").start(players=3, seed=1, options={"target": 40}), stay)
    # round 1: 10, 20, 30; round 2: p0 20, p1 40 — p2 does not play round 2
    assert turns(s) == 5
    assert s.scores() == [20, 40, 30] and s.winners() == [1]


def test_keeper_players_done_fishing_take_no_more_turns():
    """docs 16: the fish limit is checked at the start of each turn; once everybody is done, the
    rounds left pass with no turn, and the tournament ends."""
    def keep(s, actions):
        return "keep" if "keep" in actions else stay(s, actions)

    s = overlay("fishfry-keeper-always-a-fish").start(players=2, seed=1, options={"rounds": 5, "fish_limit": 2})
    s = play_out(s, keep)
    assert turns(s) == 4 and s.history.count("keep") == 4
    assert s.scores() == [20, 20] and s.winners() == [0, 1]  # tournament ties share the victory


# ---- Fish Fish ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 9))
def test_fishfish_the_game_ends_when_each_player_has_been_the_fisherman(players):
    """docs/games/fishfish.md: "With 4 to 8 players, the game ends when each player has been the
    Fisherman once. With 2 or 3 players ... twice."  Every Fish bets all its tiles on the first line,
    so every round is one line; the Fisherman sets it."""
    rounds = 2 * players if players <= 3 else players
    s = overlay("fishfish-all-in").start(players=players)
    rng = random.Random(players)
    setters = []
    while not s.is_over:
        actions = [str(a) for a in s.legal_actions()]
        if actions[0].startswith("set_line"):
            setters.append(s.current)
        s.apply(rng.choice(actions))
    assert setters == [r % players for r in range(rounds)]  # to the left each round
    v = s.view(None)
    # the last Fisherman keeps the role, and his unplayed Fishing cards are seen by him alone
    assert v["values"]["fisherman"] == (rounds - 1) % players
    for p in [None, *range(players)]:
        if p != v["values"]["fisherman"]:
            assert s.view(p)["values"]["fishing_hand"] == [None] * 4
    assert s.winners() == [p for p, x in enumerate(s.scores()) if x == max(s.scores())]


@pytest.mark.parametrize("players, each", [(2, 2 * 8 + 2 * 10), (3, 2 * 16 + 4 * 10)])
def test_fishfish_both_catch_cards_revealed_end_every_round(players, each):
    """"If both "Catch" Fishing cards have been revealed, the round ends immediately. The Fish players
    who still have Fish tiles place them on their Loot tile, in the slot corresponding to the largest
    Bait value the Fisherman still holds."  Catch first, bait 2 then 3, one tile a line: each round
    the Fisherman captures 2 tiles of each Fish (4 points a tile); each Fish places its 2 other tiles
    in slot 5."""
    rounds = 2 * players
    s = overlay("fishfish-catch-first").start(players=players)
    lines = 0
    while not s.is_over:
        action = s.legal_actions()[0]  # set_line Catch bait-2, then Catch bait-3; bet 1
        lines += action.name == "set_line"
        s.apply(action)
    assert lines == 2 * rounds
    assert s.scores() == [each] * players and s.winners() == list(range(players))


# ---- Fat Fish -----------------------------------------------------------------------------------


def fatfish_reference(s):
    """"the sum of their victory points and subtracts from it all their penalty points. The player
    who received the fiasco card last subtracts 5 additional points" — from what each player sees of
    their own piles."""
    v = s.view(None)["values"]
    value = lambda cards: sum(int(c.split("-")[1]) for c in cards)  # noqa: E731
    return [value(s.view(p)["seats"][p]["victory"]) - value(s.view(p)["seats"][p]["penalty"])
            - (5 if v["fiasco_holder"] == p else 0) for p in range(s.n)]


@pytest.mark.parametrize("name", ["fatfish-short-stacks", "fatfish-licenses-short-stacks"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_fatfish_players_leave_one_by_one_and_the_game_ends_when_all_have(name, players):
    """"After a player has run out of cards in their personal stack and in their hand, they leave
    the game. The other players continue playing until all players have run out of cards in their
    stacks and hands."  The first seat holds 4 cards, the second 8, the others 12, so they run out
    at different times."""
    from .test_fatfish_licenses import reference_end_scores

    for seed in range(3):
        rng = random.Random(seed)
        s = overlay(name).start(players=players, seed=seed)
        left_at = {}
        while not s.is_over:
            seats = s.view(None)["seats"]
            for p, row in enumerate(seats):
                if row["left_the_game"]:
                    left_at.setdefault(p, len(s.history))
                    assert s.current != p  # a player who left takes no more turns
                    assert row["hand"] == [] and row["stack"] == []
            s.apply(rng.choice(s.legal_actions()))
        seats = s.view(None)["seats"]
        assert all(r["left_the_game"] and r["hand"] == [] and r["stack"] == [] for r in seats)
        for p in range(players):
            left_at.setdefault(p, len(s.history))  # the last to leave ended the game
        # they left one by one, the others playing on
        assert len(set(left_at.values())) == players
        if "licenses" in name:
            assert s.view(None)["values"]["game_ended"] is True
            assert s.scores() == reference_end_scores(s)  # Б and В awarded at the end
        else:
            assert s.scores() == fatfish_reference(s)  # the cards left in the rows count for nobody
        assert s.winners() == [p for p, x in enumerate(s.scores()) if x == max(s.scores())]


# ---- Fisherman ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_fisherman_the_game_lasts_one_round_a_dealer(players):
    """"The game lasts a number of rounds equal to the number of players; each player will be the
    dealer once."  The player left of the dealer chooses the Target first."""
    for seed in range(3):
        rng = random.Random(seed)
        s = overlay("fisherman-small-deck").start(players=players, seed=seed)
        targets, shields = [], []
        while not s.is_over:
            if s.current not in (CHANCE, None) and s.legal_actions()[0].name == "choose_target":
                targets.append(s.current)
            before = [r["vp"] for r in s.view(None)["seats"]]
            s.apply(rng.choice(s.legal_actions()))
            after = [r["vp"] for r in s.view(None)["seats"]]
            if after != before:
                shields.append(sorted(a - b for a, b in zip(after, before)))
        assert targets == [(d + 1) % players for d in range(players)]  # dealers 0, 1, 2 (, 3)
        assert len(shields) == players  # one award a round
        assert s.winners() == [p for p, x in enumerate(s.scores()) if x == max(s.scores())]

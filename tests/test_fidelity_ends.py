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

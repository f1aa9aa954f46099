"""The `short-deal` warning (fishrules.checker.deals): a set-up that deals more cards than there
are, at the most players the rules allow, found on paper before anything is played; and nothing
said of what the paper game cannot know for certain."""

from __future__ import annotations

from pathlib import Path

import pytest

import fishrules

ROOT = Path(__file__).resolve().parent.parent

DEAL = """\
game "Deal"
players 2 to {most}
cards c: n from 1 to 10
the game has hidden deck: zone of c
each player has secret hand: zone of c
phase game:
  move c to deck
  shuffle deck
  for each player:
    draw 3 from deck to player's hand
{after}
  for each player:
    player chooses pass
action pass:
  nothing
"""


def warnings(text: str) -> list:
    return [w for w in fishrules.loads(text, "deal.fish").warnings if w.code == "short-deal"]


def test_a_deal_larger_than_the_cards_is_a_warning_at_the_draw():
    (w,) = warnings(DEAL.format(most=5, after=""))
    assert (w.span.line, w.span.column) == (10, 5)
    assert w.message == ("with 5 players the cards run out during this deal: `deck` has 1 left when p3 should get 3 "
                         "(p3 gets 1; p4 gets none)")
    assert w.hint == "the set-up fits 2 to 3 players: allow at most 3 (`players 2 to 3`), or deal fewer cards"


def test_a_deal_that_fits_says_nothing():
    assert warnings(DEAL.format(most=3, after="")) == []


def test_what_cannot_be_known_for_certain_is_not_guessed():
    # after a choice, or in a loop until something happens, the paper game stops
    after_choice = "  for each player:\n    player chooses pass\n  for each player:\n    draw 9 from deck to player's hand"
    assert warnings(DEAL.format(most=3, after=after_choice)) == []
    until = "  repeat until count(deck) = 0:\n    for each player:\n      draw 5 from deck to player's hand"
    assert warnings(DEAL.format(most=3, after=until)) == []


def test_ifs_on_the_player_count_and_options_are_followed():
    text = DEAL.replace('cards c: n from 1 to 10', 'option big: yes or no = yes\ncards c: n from 1 to 10').format(
        most=3, after="  if big and count(players) = 3:\n    draw 2 from deck to first(players)'s hand")
    (w,) = warnings(text)
    assert "with 3 players the cards run out" in w.message


@pytest.mark.parametrize("path", sorted((ROOT / "rulesets").glob("*.fish")) + sorted((ROOT / "examples").rglob("*.fish")),
                         ids=lambda p: p.name)
def test_no_bundled_ruleset_or_example_runs_out(path):
    assert [w for w in fishrules.load(path).warnings if w.code == "short-deal"] == []

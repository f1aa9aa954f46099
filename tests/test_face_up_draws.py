"""A card lying face up in a shuffled zone is another chance outcome than a face-down card of its
label: `draw red (face up)` (docs/language.md).  Before, both were `draw red`: an outcome given by
hand could never draw the face-up card, a seeded game that drew it did not replay from its
history, and OpenSpiel merged the two outcomes into one id."""

from fractions import Fraction

import pytest

import fishrules
from fishrules.spaces import ActionSpace, chance_probabilities

from ._twins import BACKENDS, NATIVE

# One of two reds is drawn face up, put back into the deck face up, and the deck shuffled again:
# the deck then holds a face-up red, a face-down red and two face-down blues.
RULES = """
game "Face up in the deck"
players 2 to 2

cards gem: colour in red x 2, blue x 2

the game has hidden deck: zone of gem
each player has table: zone of gem

phase game:
  move gem to deck face down
  shuffle deck
  draw 1 from deck to first(players)'s table face up
  move first(players)'s table to deck
  shuffle deck
  draw 1 from deck to last(players)'s table
  first(players) chooses done

action done:
  nothing
"""


def _game(backend):
    return fishrules.loads(RULES, "faceup.fish", backend=backend)


def _shown_in_deck(state):
    return [c for c in state.view(None)["values"]["deck"] if c is not None]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_face_up_card_is_an_outcome_of_its_own(backend):
    game = _game(backend)
    s = game.start(players=2, chance="manual")
    s.apply("draw red")
    outcomes = {a.text: p for a, p in s.chance_outcomes()}
    assert outcomes == {"draw red": Fraction(1, 4), "draw blue": Fraction(1, 2),
                        "draw red (face up)": Fraction(1, 4)}
    assert [a.text for a in s.legal_actions()] == [a.text for a, _ in s.chance_outcomes()]
    up, down = s.clone(), s.clone()
    up.apply("draw red (face up)")
    down.apply("draw red")
    assert _shown_in_deck(up) == [] and _shown_in_deck(down) == ["red"]
    assert up != down
    assert up.history[-1] == "draw red (face up)"
    for t in (up, down):
        assert game.replay(t.history, players=2) == t
        assert game.state_from_json(t.to_json()) == t


@pytest.mark.parametrize("backend", BACKENDS)
def test_seeded_games_that_draw_the_face_up_card_replay_from_their_history(backend):
    game = _game(backend)
    drew_it = 0
    for seed in range(40):
        s = game.start(players=2, seed=seed)
        drew_it += s.history[-1] == "draw red (face up)"
        assert game.replay(s.history, players=2) == s, seed
        assert game.state_from_json(s.to_json()) == s, seed
    assert drew_it  # (a quarter of the seeds draw it)


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
def test_both_machines_write_and_read_the_same_games():
    python, native = _game("python"), _game("native")
    for seed in range(12):
        a, b = python.start(players=2, seed=seed), native.start(players=2, seed=seed)
        assert a.history == b.history
        assert native.state_from_json(a.to_json()).history == a.history
        assert python.state_from_json(b.to_json()).history == b.history


def test_openspiel_ids_tell_the_face_up_card_apart():
    game = _game("python")
    space = ActionSpace(game, 2, {})
    assert space.chance_size == 4  # red, blue, then each face up
    s = game.start(players=2, chance="manual")
    s.apply("draw red")
    got = chance_probabilities(space, s)
    assert sorted(p for _, p in got) == [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]
    texts = {space.chance_text(i) for i, _ in got}
    assert texts == {"red", "blue", "red (face up)"}


def test_rules_that_never_leave_a_card_face_up_in_a_shuffled_zone_keep_their_ids():
    game = fishrules.loads(RULES.replace("to first(players)'s table face up", "to first(players)'s table"),
                           "facedown.fish", backend="python")
    assert ActionSpace(game, 2, {}).chance_size == 2

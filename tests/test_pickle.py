"""Copying and pickling games and states: `copy.copy`/`copy.deepcopy` of a state are independent
copies (as `clone()`), and pickle saves a game by its rules and a state as `to_json` does."""

import copy
import pickle

import pytest

import fishrules
from fishrules import FishrulesError

from ._twins import bundled_game

RULESETS = fishrules.bundled()


def _played(game, n, steps, seed=7):
    s = game.start(n, seed=seed)
    for i in range(steps):
        if s.is_over:
            break
        legal = s.legal_actions()
        s.apply(legal[(i * 7) % len(legal)])
    return s


def _seen(s):
    return ([s.view(p) for p in range(len(s.seats))], list(s.history), s.is_over,
            None if s.is_over else [a.text for a in s.legal_actions()])


@pytest.mark.parametrize("backend", ["auto", "python"])
@pytest.mark.parametrize("name", RULESETS)
def test_a_copy_of_a_state_is_independent_of_it(name, backend):
    game = bundled_game(name, backend)
    n = game.min_players
    for make in (copy.copy, copy.deepcopy):
        s = _played(game, n, 6)
        before, kind = _seen(s), type(s)
        c = make(s)
        assert c == s and _seen(c) == before
        for _ in range(4):
            if c.is_over:
                break
            c.apply(c.legal_actions()[-1])
        # Playing on the copy left the original as it was (the default copy shared its lists).
        assert _seen(s) == before and type(s) is kind
        assert type(c) is kind  # (a copy does not move a state to another machine)


@pytest.mark.parametrize("name", RULESETS)
def test_a_pickled_game_and_state_come_back_and_play_on_alike(name):
    game = bundled_game(name, "auto")
    back = pickle.loads(pickle.dumps(game))
    assert back is game  # (in the process that loaded it: the game `load` gives)
    n = game.max_players
    s = _played(game, n, 9)
    kind = type(s)
    saved = pickle.dumps(s)
    assert type(s) is kind  # (pickling a state does not move it to another machine)
    t = pickle.loads(saved)
    assert t == s and _seen(t) == _seen(s)
    for i in range(12):  # the generator came along: the same chance from here on
        if s.is_over:
            break
        a = s.legal_actions()[i % len(s.legal_actions())].text
        s.apply(a)
        t.apply(a)
        assert _seen(t) == _seen(s)
    # A game pickled and read back where it was never loaded starts the same games.
    fresh = fishrules.api._unpickled_game(*game.__reduce__()[1][:4], "python")
    assert fresh is not game and fresh.title == game.title and fresh._identity == game._identity
    assert _seen(_played(fresh, n, 9)) == _seen(_played(game, n, 9))


def test_a_manual_state_pickles_and_a_played_out_one_says_why_not():
    game = bundled_game("fatfish", "auto")
    m = game.start(2, chance="manual")
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.manual and back.current == fishrules.CHANCE
    out = game.start(2, seed=3)
    out.playout()
    with pytest.raises(FishrulesError, match="played out"):
        pickle.dumps(out)

"""The API's kernel state (`KState`) on the kernel's Python spelling (`PyBackend`), where no C
compiler is: the same state class as on native code, through the same calls (`moves_raw`,
`step_raw`, `choose_raw`, `decode`, `records_key`, `record_key`), played beside the engine's
`State` on every bundled ruleset at its fewest and most players: the same legal actions, views,
histories, events, scores, equality and saved JSON at every step, and the state never leaves the
kernel (issue 32, step 6: one State over a kernel position on either backend)."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import CHANCE, SIMULTANEOUS
from fishrules.kernel.apistate import start as kernel_start

from ._twins import engine_start


def _pair(name: str, players: int, seed: int, manual: bool = False):
    """The engine's State and a kernel state on the kernel's Python spelling, from the same seed
    (the one `backend="python"` starts)."""
    game = fishrules.load(name, backend="python")
    assert game.kernel.name == "python"
    chance = "manual" if manual else "seeded"
    b = kernel_start(game, players, game._options(None), seed, False, manual)
    return engine_start(game, players, seed, chance), b


def _same(a, b, players: int, whole: bool = False) -> None:
    """`whole`: every seat's view and events (else a spectator's view and the next seat's)."""
    assert type(b).__name__ == "KState" and type(a).__name__ == "State"
    assert (a.current, a.is_over, a.waiting) == (b.current, b.is_over, b.waiting)
    assert a.history == b.history
    seats = [None, *range(players)] if whole else [None, len(a.history) % players]
    for p in seats:
        assert a.view(p) == b.view(p)
        if whole:
            assert a.events_for(p) == b.events_for(p)
    assert a.scores() == b.scores()


CASES = [(name, players) for name in fishrules.bundled()
         for players in sorted({fishrules.load(name).min_players, fishrules.load(name).max_players})]


@pytest.mark.parametrize("name, players", CASES)
def test_a_kernel_state_on_the_python_spelling_plays_as_the_engine(name, players):
    for seed in (1,):
        a, b = _pair(name, players, seed)
        rng = random.Random(seed)
        while not a.is_over:
            _same(a, b, players)
            who = a.waiting[0] if a.current == SIMULTANEOUS else None
            texts = [x.text for x in a.legal_actions(who)]
            assert texts == [x.text for x in b.legal_actions(who)]
            pick = rng.randrange(len(texts))
            if rng.random() < 0.5:  # the listed Action, or its text
                b.apply(b.legal_actions(who)[pick])
            else:
                b.apply(texts[pick])
            a.apply(texts[pick])
        _same(a, b, players, whole=True)
        assert a.winners() == b.winners() and a == b and b == a
        assert b.to_json() == a.to_json()
        back = b.game.state_from_json(b.to_json())
        assert back == b


@pytest.mark.parametrize("name", ["fishfry", "fatfish", "fishfish"])
def test_manual_chance_clones_and_refusals_on_the_python_spelling(name):
    game = fishrules.load(name)
    players = game.min_players
    a, b = _pair(name, players, 7, manual=True)
    rng = random.Random(7)
    for _ in range(60):
        if a.is_over:
            break
        _same(a, b, players)
        if a.current == CHANCE:
            outcomes = [(x.text, p) for x, p in a.chance_outcomes()]
            assert outcomes == [(x.text, p) for x, p in b.chance_outcomes()]
            text = outcomes[rng.randrange(len(outcomes))][0]
        else:
            who = a.waiting[0] if a.current == SIMULTANEOUS else None
            texts = [x.text for x in a.legal_actions(who)]
            text = texts[rng.randrange(len(texts))]
        with pytest.raises(fishrules.IllegalAction) as ea:
            a.apply(text + " 99")
        with pytest.raises(fishrules.IllegalAction) as eb:
            b.apply(text + " 99")
        assert ea.value.reason == eb.value.reason
        c = b.clone()
        a.apply(text)
        b.apply(text)
        assert c != b and type(c).__name__ == "KState"
        c.apply(text)
        assert c == b

"""What the runtime leaves to the cycle collector: nothing a game makes at every decision.

An object in a reference cycle is freed only when the cycle collector runs, and a collection stops
everything while it works: a server listing thousands of actions a second paused for hundreds of
milliseconds when each list of legal actions was a cycle (each action named the list holding it).
So the lists a state makes at every decision, and the states themselves, are freed as soon as
nobody holds them."""

from __future__ import annotations

import gc
import random

import pytest

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.runtime.decisions import Legal

from ._positions import positions


@pytest.fixture
def no_collector():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _legal(state):
    return state.legal_actions(state.waiting[0]) if state.current == SIMULTANEOUS else state.legal_actions()


@pytest.mark.parametrize("name", fishrules.bundled())
def test_a_list_of_legal_actions_is_freed_without_the_cycle_collector(name, no_collector):
    game = fishrules.load(name)
    state = game.start(players=game.min_players, seed=3)
    found = [s.clone() for s in positions(state, random.Random(3), every=1, most=40) if not s.is_over][:12]
    for s in found:
        s.view(None)  # the engine's own states (a kernel's state becomes one here, once)
        _legal(s)
    gc.collect()
    lists = 0
    for s in found:
        made = s._legal  # None where a simultaneous choice lists each player's actions apart
        if made is None:
            continue
        fresh = Legal(made.moves, made.actor, made.prefix, made.prog)
        actions = fresh.actions()
        assert actions and [a.text for a in actions] == [a.text for a in made.actions()]
        del fresh, actions
        lists += 1
    assert lists >= 3
    assert gc.collect() == 0, "a list of legal actions was left to the cycle collector"


@pytest.mark.parametrize("name", fishrules.bundled())
def test_states_played_and_dropped_leave_nothing_to_the_cycle_collector(name, no_collector):
    game = fishrules.load(name)
    state = game.start(players=game.min_players, seed=5)
    state.view(None)  # the engine's own state (a kernel's state becomes one here, once)
    gc.collect()
    rng = random.Random(5)
    for _ in range(40):
        if state.is_over:
            break
        trial = state.clone()
        trial.apply(rng.choice(_legal(trial)))
        trial.view(None)
        state = trial
    del state, trial
    assert gc.collect() == 0, "playing left garbage in reference cycles"

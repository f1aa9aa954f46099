"""The OpenSpiel adapter on every bundled ruleset, with OpenSpiel's own checks (few games each:
the adapter is thin, the engine is tested elsewhere).  Skipped, saying why, where OpenSpiel is not
installed."""

from __future__ import annotations

import random

import pytest

import fishrules

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'fishrules[openspiel]')")
from fishrules.adapters import openspiel as fo  # noqa: E402

NAMES = fishrules.bundled()


def _counts(name):
    g = fishrules.load(name)
    return sorted({g.min_players, g.max_players})


@pytest.mark.parametrize("name", NAMES)
def test_openspiel_random_sim_test(name):
    for n in _counts(name):
        game = fo.make_game(name, players=n)
        pyspiel.random_sim_test(game, num_sims=1, serialize=n == _counts(name)[0], verbose=False)


def test_openspiel_game_type_follows_the_rules():
    fo.register()
    game = pyspiel.load_game("fishrules_fishfry_keeper", {"players": 3, "rounds": 2})
    assert game.num_players() == 3 and "rounds=2" in str(game)
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    eat = pyspiel.load_game("fishrules_fisheatfish", {"players": 2}).get_type()
    assert eat.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert eat.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 6 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    with pytest.raises(fishrules.OptionError):
        fo.make_game("fishfry", players=9)


def test_openspiel_information_state_hides_the_hidden():
    game = fo.make_game("fishfish", players=3)
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    fisherman = state.current_player()
    other = (fisherman + 1) % 3
    fs = state.fishrules_state
    assert state.observation_tensor(other) == pytest.approx(fs.observation(other))
    assert state.information_state_string(other) != state.information_state_string(fisherman)
    hand = fs.view(fisherman)["values"]["fishing_hand"]
    assert all(card not in state.observation_string(other) for card in hand)


def test_openspiel_algorithms_run_unchanged():
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots, mcts
    from open_spiel.python.bots import uniform_random

    game = fo.make_game("examples/house-rules/fishfry-six-dice.fish", players=2)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2, 10, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, uniform_random.UniformRandomBot(1, rng)], rng)
    assert len(returns) == 2 and sum(returns) == pytest.approx(0)

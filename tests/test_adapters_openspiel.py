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


def test_openspiel_ismcts_searches_determinizations():
    """OpenSpiel's own ISMCTS bot plays an imperfect-information ruleset, sampling its worlds with
    `resample_from_infostate`; every sample looks to the searching player like the real state."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    game = fo.make_game("fishfish", players=2)
    state = game.new_initial_state()
    rng = np.random.RandomState(1)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    me = state.current_player()
    real = state.fishrules_state
    for _ in range(5):
        sample = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert sample.fishrules_state.view(me) == real.view(me)
        assert sample.current_player() == me and sorted(sample.legal_actions()) == sorted(state.legal_actions())
    # A sample knows only the searching player's record, so an opponent's information state in
    # two samples can read the same while their hands (and so their choices) differ.
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=8,
                           random_state=rng, allow_inconsistent_action_sets=True)
    state = game.new_initial_state()  # (ISMCTSBot cannot restart_at, which evaluate_bots needs)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert sum(state.returns()) == pytest.approx(0)


def test_openspiel_cfr_solves_a_tiny_ruleset():
    """CFR on a three-card game written in .fish (tests/games/high-card.fish): OpenSpiel enumerates
    every information state through the adapter, and the average policy's exploitability falls
    from the uniform policy's towards 0 (an equilibrium)."""
    from open_spiel.python import policy as pol
    from open_spiel.python.algorithms import cfr, exploitability

    game = fo.make_game("tests/games/high-card.fish", players=2)
    uniform = exploitability.exploitability(game, pol.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    solved = exploitability.exploitability(game, solver.average_policy())
    assert uniform > 0.1 and solved < uniform / 10


@pytest.mark.parametrize("name", NAMES)
def test_openspiel_serialization_round_trips_without_pickle(name):
    """`state.serialize()` is OpenSpiel's `history=` and `move_number=` lines (no pickle), and
    `game.deserialize_state` replays them to the same state; `pyspiel.deserialize_game_and_state`
    reads OpenSpiel's own text of a fishrules game the same way (its pickled `__dict__` unread)."""
    n = _counts(name)[-1]
    game = fo.make_game(name, players=n)
    state = game.new_initial_state()
    rng = random.Random(5)
    for step in range(120):
        if state.is_terminal():
            break
        if step % 7 == 0:
            text = state.serialize()
            assert text.startswith("history=") and "__dict__" not in text and text.count("\n") == 1
            again = game.deserialize_state(text)
            _, both = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
            for s in (again, both):
                assert s.fishrules_state == state.fishrules_state
                # read back on the machine the game plays on (the kernel's, where it decides there)
                assert type(s.fishrules_state) is type(state.fishrules_state)
                assert s.history() == state.history() and s.move_number() == state.move_number()
                assert s.serialize() == text
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) if state.legal_actions(p) else 0 for p in range(n)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_a_resampled_state_is_not_serialized_as_another_position():
    """A state drawn by `resample_from_infostate` is built from a determinization, not by OpenSpiel
    moves: OpenSpiel's history of it is empty, so writing that history would read back as another
    position.  It raises StateError instead, and so do states played on from it."""
    game = fo.make_game("fishfish", players=3)
    state = game.new_initial_state()
    rng = random.Random(2)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    sample = state.resample_from_infostate(state.current_player(), rng.random)
    later = sample.clone()
    later.apply_action(later.legal_actions()[0])
    for s in (sample, later):
        with pytest.raises(fishrules.StateError, match="resample_from_infostate"):
            s.serialize()
    assert game.deserialize_state(state.serialize()).fishrules_state == state.fishrules_state


@pytest.mark.parametrize("name", ["fisherman", "fatfish", "fisheatfish"])
def test_information_state_strings_are_what_the_player_saw_at_every_step(name):
    """The adapter renders each player's events once and keeps them with the state: at every step
    of a random game (clones taken and played on apart, a refused joint move undone), every
    player's information state string and each chance outcome's text are exactly what the state
    says afresh."""
    import json

    rng = random.Random(7)
    game = fo.make_game(name, players=_counts(name)[0])
    state, kept, seen = game.new_initial_state(), [], set()
    for _ in range(400):  # (each step renders every player's whole record afresh to compare)
        if state.is_terminal():
            break
        s = state.fishrules_state
        for p in range(game.num_players()):
            fresh = f"p{p} " + json.dumps([s.history_for(p), s.events_for(p)], separators=(",", ":"))
            assert state.information_state_string(p) == fresh
        if state.is_chance_node():
            seen.add("chance")
            outcomes = state.chance_outcomes()
            texts = {a.text for a in s.legal_actions()}
            assert {state.action_to_string(pyspiel.PlayerId.CHANCE, i) for i, _ in outcomes} == texts
            state.apply_action(rng.choice(outcomes)[0])
        elif state.is_simultaneous_node():
            seen.add("together")
            joint = [rng.choice(state.legal_actions(p) or [0]) for p in range(game.num_players())]
            refused = list(joint)
            waiting = [p for p in range(game.num_players()) if state.legal_actions(p)]
            refused[waiting[-1]] = 10 ** 9  # no such action: the whole joint move is refused
            with pytest.raises(Exception):
                state.apply_actions(refused)
            state.apply_actions(joint)
        else:
            seen.add("turn")
            state.apply_action(rng.choice(state.legal_actions()))
        if rng.random() < 0.2:
            kept.append(state.clone())
            if len(kept) > 1 and rng.random() < 0.2:
                seen.add("earlier copy")
                state = kept.pop(0)  # an earlier copy, played on from where it was
    assert seen >= ({"together"} if name == "fisheatfish" else {"chance", "turn", "earlier copy"}), seen

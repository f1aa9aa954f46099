"""The playout fast path (`State.playout`, `Game.simulate`) plays the very game the API loop plays.

With manual chance both take every random decision from one stream in the same way (an action
uniformly among the legal ones, a chance outcome by its probability), so a playout and an API loop
fed the same stream must reach the same final scores, with as many decisions and chance outcomes as
the API loop's history holds.  Seeded chance draws from the playout's generator instead of the
state's, so there the check is on the distribution: mean game lengths agree."""

from __future__ import annotations

import random
import statistics

import pytest

import fishrules
from fishrules import SIMULTANEOUS

RULESETS = sorted(fishrules.bundled())


def api_loop(state, rnd) -> tuple[int, int]:
    """Play to the end through legal_actions/apply, each choice made as `State.playout` makes it."""
    decisions = chances = 0
    while not state.is_over:
        if state.current == fishrules.CHANCE:
            x, acc = rnd(), 0
            for action, prob in state.chance_outcomes():
                acc += prob
                if x < acc:
                    break
            state.apply(action)
            chances += 1
        elif state.current == SIMULTANEOUS:
            chosen = []
            for p in state.waiting:
                acts = state.legal_actions(p)
                chosen.append(acts[int(rnd() * len(acts))])
            for a in chosen:
                state.apply(a)
            decisions += len(chosen)
        else:
            acts = state.legal_actions()
            state.apply(acts[int(rnd() * len(acts))])
            decisions += 1
    return decisions, chances


def player_counts(game):
    return sorted({game.min_players, min(game.max_players, game.min_players + 2), game.max_players})


@pytest.mark.parametrize("name", RULESETS)
def test_playout_plays_the_api_game(name):
    game = fishrules.load(name)
    for players in player_counts(game):
        for seed in range(4):
            a = game.start(players, seed=seed, chance="manual")
            b = a.clone()
            decisions, chances = api_loop(a, random.Random(seed).random)
            result = b.playout(random.Random(seed))
            assert result.scores == a.scores(), (players, seed)
            assert result.winners == a.winners(), (players, seed)
            assert (result.decisions, result.chances) == (decisions, chances), (players, seed)
            assert result.decisions + result.chances == len(a.history)
            assert b.is_over
    with pytest.raises(fishrules.OptionError, match="keeps no history"):
        b.history


@pytest.mark.parametrize("name", ["fishfry", "fishfish", "fisherman", "fatfish", "fisheatfish"])
def test_simulate_has_the_api_loops_game_lengths(name):
    """Seeded chance: the playouts' mean length is the API loop's, within a few standard errors."""
    game = fishrules.load(name)
    players = game.min_players + 1 if game.max_players > game.min_players else game.min_players
    fast = [r.decisions + r.chances for r in game.simulate(120, players, seed=7)]
    slow = []
    for i in range(120):
        s = game.start(players, seed=1000 + i)
        api_loop(s, random.Random(i).random)
        slow.append(len(s.history))
    error = (statistics.pvariance(fast) / len(fast) + statistics.pvariance(slow) / len(slow)) ** 0.5
    assert abs(statistics.fmean(fast) - statistics.fmean(slow)) <= 4 * error + 0.5


def test_simulate_is_seeded_per_game():
    game = fishrules.load("fishfry")
    ten = game.simulate(10, 3, seed=5)
    assert game.simulate(10, 3, seed=5) == ten
    assert game.simulate(4, 3, seed=5) == ten[:4]  # game i does not depend on how many are played
    assert game.simulate(10, 3, seed=6) != ten
    for r in ten:
        assert r.winners and all(0 <= p < 3 for p in r.winners)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_simulate_refuses_bad_counts(bad):
    with pytest.raises(fishrules.OptionError):
        fishrules.load("fishfry").simulate(bad, 2)


ENDLESS = """game "Round and round"
players 2 to 2
each player has n: number
phase game:
  repeat:
    for each player:
      player chooses up or pass
action up:
  add 1 to your n
action pass:
  nothing
score "n": your n
"""


@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_playout_of_a_game_that_never_ends_stops_with_the_rules_error(backend, monkeypatch):
    """As `Game.simulate` says it: after MAX_PLAYOUT_DECISIONS random decisions (made small here),
    a RuleError at the game's phase, not a loop for ever."""
    import fishrules.runtime.playout as playout

    monkeypatch.setattr(playout, "MAX_PLAYOUT_DECISIONS", 500)
    game = fishrules.loads(ENDLESS, "endless.fish", backend="python")  # the rules are good
    if backend == "native":
        try:
            game = fishrules.loads(ENDLESS, "endless.fish", backend=backend)
        except fishrules.FishrulesError:
            pytest.skip("no C compiler here")
    with pytest.raises(fishrules.RuleError, match="did not end within 500 random decisions") as e:
        game.start(players=2, seed=1).playout(random.Random(1))
    assert "endless.fish:4:" in e.value.render()


@pytest.mark.parametrize("rng", [1, "seed", random, object(), [random.Random(1)]])
def test_a_playout_takes_a_random_generator_or_none(rng):
    s = fishrules.load("fishfry").start(players=2, seed=1)
    with pytest.raises(fishrules.OptionError, match=r"playout\(rng\) takes a random.Random"):
        s.playout(rng)
    assert s.playout(None).winners  # and the state is as it was: it plays out still


GOES_WRONG = """game "Third time"
players 2 to 2
the game has x: number
phase game:
  repeat:
    for each player:
      player chooses go
action go:
  add 1 to x
  if x = 3:
    set x to divide(1, 0)
"""


@pytest.mark.parametrize("rules", ["goes wrong", "never ends"])
@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_playout_that_fails_leaves_the_state_as_it_was(backend, rules, monkeypatch):
    """As every call that fails: the position, the history and what may be done next are as
    before the playout, and the game plays on (the engine left a half-played game with no
    history; the kernel, the state as it was)."""
    import fishrules.runtime.playout as playout

    monkeypatch.setattr(playout, "MAX_PLAYOUT_DECISIONS", 300)
    text = GOES_WRONG if rules == "goes wrong" else ENDLESS
    game = fishrules.loads(text, "p.fish", backend=backend)
    s = game.start(players=2, seed=1)
    s.apply(s.legal_actions()[0])
    before = (s.current, s.history, [a.text for a in s.legal_actions()], s.to_json())
    for _ in range(2):
        with pytest.raises(fishrules.RuleError):
            s.playout(random.Random(5))
        assert (s.current, s.history, [a.text for a in s.legal_actions()], s.to_json()) == before
    s.apply(s.legal_actions()[0])
    assert len(s.history) == 2

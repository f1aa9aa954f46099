"""Every bundled ruleset, at every player count it allows: random playouts end, never raise, give
JSON-able views, round-trip through JSON at any point, and replay identically from their history."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.random_play import random_step

RULESETS = fishrules.bundled()
MAX_ACTIONS = 20_000


def test_every_ruleset_is_bundled():
    assert {"fishfry", "fishfish", "fisherman", "fatfish", "fatfish-licenses", "fisheatfish"} <= set(RULESETS)


@pytest.mark.parametrize("name", RULESETS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_playout(name, data):
    game = fishrules.load(name)
    players = data.draw(st.integers(game.min_players, game.max_players), label="players")
    seed = data.draw(st.integers(0, 2**31), label="seed")
    rng = random.Random(seed)
    s = game.start(players=players, seed=seed)
    check_at = rng.randrange(1, 60)
    for n in range(MAX_ACTIONS):
        if s.is_over:
            break
        if n == check_at:
            back = game.state_from_json(s.to_json())
            assert back == s
            for p in [None, *range(players)]:
                json.dumps(s.view(p))
            # memoised legal lists are what a fresh enumeration gives
            if s.current not in (fishrules.CHANCE, None):
                who = s.waiting[0]
                fr, info = s._pause()
                fresh = s._enumerate_fresh(info, who).actions()
                have = s.legal_actions(who) if s.current == SIMULTANEOUS else s.legal_actions()
                assert [str(a) for a in have] == [str(a) for a in fresh]
                # values of defines are remembered until the state changes; forgetting them must
                # change nothing (a remembered value that outlived a change would show here)
                seen = s.view(who)
                s._dmemo.clear()
                assert s.view(who) == seen
                assert [str(a) for a in s._enumerate_fresh(info, who).actions()] == [str(a) for a in fresh]
        random_step(s, rng)
    assert s.is_over, f"{name} did not end within {MAX_ACTIONS} actions"
    assert s.winners() and all(0 <= p < players for p in s.winners())
    assert len(s.scores()) == players
    # the places agree with the rules' own winners, tie-breaks included
    ranking = s.ranking()
    assert {p for p in range(players) if ranking[p] == 1} == set(s.winners())
    assert all(ranking[p] > len(s.winners()) for p in range(players) if p not in s.winners())
    assert game.replay(s.history, players=players) == s
    assert game.state_from_json(s.to_json()) == s


@pytest.mark.parametrize("name", RULESETS)
def test_explain_prints_rules_that_parse_back_to_the_same(name):
    from fishrules.syntax import parse

    game = fishrules.load(name)
    module = parse(game.explain(), "explained.fish")
    assert tuple(module.items) == tuple(game._resolved.items)

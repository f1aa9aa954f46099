"""The PettingZoo adapter on every bundled ruleset, with PettingZoo's own checks (few cycles
each: the adapter is thin, the engine is tested elsewhere).  Skipped, saying why, where
PettingZoo is not installed."""

from __future__ import annotations

import pytest

import fishrules

pz_test = pytest.importorskip("pettingzoo.test", reason="PettingZoo is not installed (pip install 'fishrules[pettingzoo]')")
from fishrules.adapters import pettingzoo as fz  # noqa: E402

NAMES = fishrules.bundled()
pytestmark = [
    # PettingZoo's checks say so of every environment with a dict observation, its classic ones too
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
]


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_api_and_seed_tests(name):
    n = fishrules.load(name).min_players
    pz_test.api_test(fz.env(name, players=n), num_cycles=60)
    pz_test.seed_test(lambda **kw: fz.env(name, players=n, **kw), num_cycles=20)
    pz_test.parallel_api_test(fz.parallel_env(name, players=n), num_cycles=60)


def test_pettingzoo_plays_to_the_end_and_renders_the_players_view():
    env = fz.env("fishfish", players=3, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "Fish Fish" in text and "(p" in text
    total = {}
    for agent in env.agent_iter():
        obs, reward, done, truncated, info = env.last()
        total[agent] = total.get(agent, 0) + reward
        env.step(None if done or truncated else env.action_space(agent).sample(obs["action_mask"]))
    assert sum(total.values()) == pytest.approx(0) and max(total.values()) > 0
    with pytest.raises(fishrules.OptionError):
        fz.env("fishfry", render_mode="human")

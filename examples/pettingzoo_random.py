"""A PettingZoo random-agent loop on any ruleset: masked random actions, rewards at the end.

    python examples/pettingzoo_random.py fisheatfish --players 3 --games 3
"""

from __future__ import annotations

import argparse

from fishrules.adapters import pettingzoo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rules", nargs="?", default="fisheatfish")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=3)
    args = ap.parse_args()

    env = pettingzoo.env(args.rules, players=args.players)
    for game in range(args.games):
        env.reset(seed=game)
        totals = dict.fromkeys(env.agents, 0.0)
        steps = 0
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                action = None
            else:  # any learning agent goes here: it sees obs["observation"] only
                action = env.action_space(agent).sample(obs["action_mask"])
                steps += 1
            env.step(action)
        winners = [a for a, r in totals.items() if r > 0]
        print(f"game {game}: {steps} decisions, winners {winners}")
    print(f"observation: {env.observation_space('player_0')['observation'].shape[0]} floats, "
          f"actions: {env.action_space('player_0').n}")


if __name__ == "__main__":
    main()

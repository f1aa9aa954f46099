"""An OpenSpiel MCTS bot against a random player, on a house rule (a .fish file): no game code.

    python examples/openspiel_mcts.py --games 10 --simulations 30
"""

from __future__ import annotations

import argparse

import numpy as np
from open_spiel.python.algorithms import evaluate_bots, mcts
from open_spiel.python.bots import uniform_random

from fishrules.adapters import openspiel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="examples/house-rules/fishfry-six-dice.fish")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--simulations", type=int, default=30)
    args = ap.parse_args()

    game = openspiel.make_game(args.rules, players=2)  # a pyspiel.Game
    rng = np.random.RandomState(1)
    searcher = mcts.MCTSBot(game, 2, args.simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    wins = 0.0
    for i in range(args.games):
        seat = i % 2  # MCTS plays both seats in turn
        seats = [searcher, uniform_random.UniformRandomBot(1 - seat, rng)][:: 1 if seat == 0 else -1]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), seats, rng)
        wins += returns[seat] + 0.5  # zero-sum returns: +0.5 a win, -0.5 a loss, 0 a tie
    print(f"{game}: {game.num_distinct_actions()} actions")
    print(f"MCTS ({args.simulations} simulations) vs random: {wins:.1f} wins of {args.games}")


if __name__ == "__main__":
    main()

"""Bot strength: each bot of fishrules.bots against random players, in every base game.

    python benchmarks/bots.py [--games N] [--iterations K]

One bot sits at seat g mod n of game g (so every seat is played), the others are RandomBots; the
table gives the bot's win rate (a tie shares the win) with its 95% Wilson interval, what a random
player wins (1/n), and the time per game.  Seeds are fixed: the same command prints the same win
rates.  docs/bots.md shows the table.
"""

from __future__ import annotations

import argparse
import sys
import time

import fishrules
from fishrules.bots import RandomBot, make_bot
from fishrules.comparison import wilson

GAMES = ["fishfry", "fishfish", "fatfish", "fisherman", "fisheatfish"]


def play(game, n: int, bots: list, seed: int) -> list[int]:
    s = game.start(players=n, seed=seed)
    while not s.is_over:
        for p in s.waiting:
            s.apply(bots[p].choose(s, p))
    return s.winners()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--bots", default="greedy,mcts,ismcts")
    ap.add_argument("--rulesets", default=",".join(GAMES))
    args = ap.parse_args(argv)
    print(f"| game (players) | bot | wins | win rate [95% interval] | random's share | s/game |")
    print("|---|---|---:|---|---:|---:|")
    for name in args.rulesets.split(","):
        game = fishrules.load(name)
        n = game.min_players
        for kind in args.bots.split(","):
            t0 = time.perf_counter()
            won = 0.0
            for g in range(args.games):
                seat = g % n
                bots = [RandomBot(seed=1000 * g + p) for p in range(n)]
                bots[seat] = make_bot(kind, seed=g, iterations=args.iterations)
                w = play(game, n, bots, seed=g)
                if seat in w:
                    won += 1 / len(w)
            lo, hi = wilson(won, args.games)
            per = (time.perf_counter() - t0) / args.games
            budget = "" if kind in ("random", "greedy") else f" ({args.iterations} iterations)"
            print(f"| {name} ({n}) | {kind}{budget} | {won:g} / {args.games} | {won / args.games:.0%} "
                  f"[{lo:.0%}, {hi:.0%}] | {1 / n:.0%} | {per:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

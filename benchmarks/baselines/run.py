#!/usr/bin/env python3
"""Games per second of the hand-written baselines, per game and player count.

    python -m benchmarks.baselines                # every game, every player count
    python benchmarks/baselines/run.py fatfish    # one game
    python -m benchmarks.baselines --seconds 0.5 --windows 3

Each figure is the best of `--windows` timing windows of `--seconds` each (half a second by
default; the machines are shared, and a neighbour's load only ever slows a window down), after a
warm-up game, with seeded `random.Random` generators.  "cpu games/s" divides by the process's CPU
time instead of the wall clock: less disturbed by other processes on a busy machine.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: python benchmarks/baselines/run.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.baselines import GAMES
else:
    from . import GAMES

SEED = 20240601


def measure(play, players: int, seconds: float, windows: int, **options) -> dict:
    """The best of `windows` windows of `seconds`: games/s (wall and CPU), decisions/game."""
    rng = random.Random(SEED + players)
    play(players, rng, **options)  # warm up
    best = cpu_best = 0.0
    games = decisions = 0
    for _ in range(windows):
        k = d = 0
        w0, c0 = time.perf_counter(), time.process_time()
        while True:
            d += play(players, rng, **options)[2]
            k += 1
            wall = time.perf_counter() - w0
            if wall >= seconds:
                break
        cpu = time.process_time() - c0
        best = max(best, k / wall)
        cpu_best = max(cpu_best, k / cpu if cpu > 0 else 0.0)
        games += k
        decisions += d
    return {"players": players, "games_per_s": best, "cpu_games_per_s": cpu_best,
            "decisions_per_game": decisions / games}


def runs(names):
    """(label, module, options) for each figure to measure."""
    for name in names:
        mod = GAMES[name]
        if name == "fatfish":
            yield "fatfish (fiasco plays listed, as the engine)", mod, {"fiasco_plays_legal": True}
            yield "fatfish (only lays that keep the rules)", mod, {"fiasco_plays_legal": False}
        else:
            yield name, mod, {}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.baselines", description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", metavar="GAME", help=f"games to measure: {', '.join(GAMES)} (default: all)")
    ap.add_argument("--seconds", type=float, default=0.5, help="length of one timing window (default 0.5)")
    ap.add_argument("--windows", type=int, default=3, help="windows per figure, the best is kept (default 3)")
    args = ap.parse_args(argv)
    for name in args.games:
        if name not in GAMES:
            ap.error(f"no game {name!r}: the games are {', '.join(GAMES)}")
    names = args.games or list(GAMES)
    print(f"{'game':<50} {'players':>7} {'games/s':>10} {'cpu games/s':>12} {'decisions/game':>15}")
    for label, mod, options in runs(names):
        rows = []
        for players in range(mod.MIN_PLAYERS, mod.MAX_PLAYERS + 1):
            r = measure(mod.play, players, args.seconds, args.windows, **options)
            rows.append(r)
            print(f"{label:<50} {players:>7} {r['games_per_s']:>10,.0f} {r['cpu_games_per_s']:>12,.0f} "
                  f"{r['decisions_per_game']:>15.1f}", flush=True)
        mean = sum(r["games_per_s"] for r in rows) / len(rows)
        cpu_mean = sum(r["cpu_games_per_s"] for r in rows) / len(rows)
        print(f"{label:<50} {'mean':>7} {mean:>10,.0f} {cpu_mean:>12,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

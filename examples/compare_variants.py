"""Compare two versions of a game by simulating random play of each.

For each version: the win rate of every seat, the mean and spread (standard deviation) of every
seat's score, and the mean and spread of the game's length in actions, side by side.  A version is
a bundled ruleset (`fishfry`), a path to a .fish file (a house rule), optionally with options:

    .venv/bin/python examples/compare_variants.py                     # fishfry vs six dice
    .venv/bin/python examples/compare_variants.py fishfish examples/house-rules/fishfish-three-catch.fish
    .venv/bin/python examples/compare_variants.py fishfry-keeper fishfry-keeper --option-b rounds=3
    .venv/bin/python examples/compare_variants.py A B --games 1000 --players 4 --seed 7

Both versions play the same seeds.  Random players measure the rules, not skill: a rule that only
changes what happens after a wrong move (Fat Fish's fiasco) looks the same under random legal play.
"""

import argparse
import sys
from pathlib import Path

import fishrules
from fishrules.cli import simulate

HERE = Path(__file__).resolve().parent
DEFAULT_A = "fishfry"
DEFAULT_B = str(HERE / "house-rules" / "fishfry-six-dice.fish")


def parse_options(game: fishrules.Game, pairs: list[str]) -> dict:
    """NAME=VALUE pairs, read with the type each option of `game` has."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        info = game.options.get(name.strip())
        if not sep or info is None:
            raise SystemExit(f"{game.title} has no option {name!r} (its options: {', '.join(game.options) or 'none'})")
        if info.kind == "number":
            out[info.name] = int(value)
        elif info.kind == "yes or no":
            out[info.name] = value.strip().lower() in ("yes", "true")
        else:
            out[info.name] = value.strip()
    return out


def label(ref: str, options: dict) -> str:
    name = Path(ref).stem if ref.endswith(".fish") else ref
    return name + "".join(f" {k}={v}" for k, v in options.items())


def main() -> int:
    parser = argparse.ArgumentParser(description="compare two versions of a game by simulation")
    parser.add_argument("a", nargs="?", default=DEFAULT_A, help=f"first ruleset (default {DEFAULT_A})")
    parser.add_argument("b", nargs="?", default=DEFAULT_B, help="second ruleset (default the six-dice house rule)")
    parser.add_argument("--games", type=int, default=2000, help="games of each (default 2000)")
    parser.add_argument("--players", type=int, help="players (default: the fewest both allow, at least 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--option-a", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--option-b", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()

    ga, gb = fishrules.load(args.a), fishrules.load(args.b)
    low, high = max(ga.min_players, gb.min_players), min(ga.max_players, gb.max_players)
    players = args.players or min(max(low, 3), high)
    if not low <= players <= high:
        print(f"the two versions have no player count in common with {players}: {low} to {high}", file=sys.stderr)
        return 2
    oa, ob = parse_options(ga, args.option_a), parse_options(gb, args.option_b)
    ra = simulate(ga, players, args.games, args.seed, oa)
    rb = simulate(gb, players, args.games, args.seed, ob)

    na, nb = label(args.a, oa), label(args.b, ob)
    print(f"A = {na} ({ga.title})")
    print(f"B = {nb} ({gb.title})")
    print(f"{args.games} random games of each, {players} players, seeds {args.seed} to {args.seed + args.games - 1}")
    print()
    head = f"{'':<14}{'A':>16}{'B':>16}"
    print(head)
    print("-" * len(head))
    for p in range(players):
        sa, sb = ra["seats"][p], rb["seats"][p]
        print(f"{f'seat {p} wins':<14}{sa['win_rate']:>16.1%}{sb['win_rate']:>16.1%}")
    for p in range(players):
        sa, sb = ra["seats"][p], rb["seats"][p]
        cell_a = f"{sa['mean_score']:.1f} ± {sa['score_spread']:.1f}"
        cell_b = f"{sb['mean_score']:.1f} ± {sb['score_spread']:.1f}"
        print(f"{f'seat {p} score':<14}{cell_a:>16}{cell_b:>16}")
    la, lb = ra["length"], rb["length"]
    cell_a = f"{la['mean_actions']:.1f} ± {la['spread_actions']:.1f}"
    cell_b = f"{lb['mean_actions']:.1f} ± {lb['spread_actions']:.1f}"
    print(f"{'length':<14}{cell_a:>16}{cell_b:>16}")
    print(f"{'decisions':<14}{la['mean_decisions']:>16.1f}{lb['mean_decisions']:>16.1f}")
    print(f"{'games/s':<14}{ra['timing']['games_per_second']:>16.0f}{rb['timing']['games_per_second']:>16.0f}")
    print()
    print("score: mean ± spread (standard deviation); length: actions per game, chance included;")
    print("decisions: the choices players made per game (seeded chance decides itself)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

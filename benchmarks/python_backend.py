#!/usr/bin/env python3
"""The Python backend's gate (issue 32, step 6): the engine against the Python kernel, side by side.

    python benchmarks/python_backend.py              # a few minutes, prints the table
    python benchmarks/python_backend.py --quick      # about a minute, noisier
    python benchmarks/python_backend.py --profile fishfry 8   # where each API loop spends its time (cProfile)
    python benchmarks/python_backend.py --profile fishfry 8 --labels engine_playout kernel_playout
    python benchmarks/bench.py --python-backend      # the same, from make bench's script

At step 6 `backend="python"` (before, the engine's own machine: `compiler/` + `runtime/`) became the
kernel's Python spelling (`kernel/emit_python.py` + `kernel/pyruntime.py`), behind the issue's gate,
"playouts and the API loop no slower than today's engine".  For each bundled game at its fewest and
most players, five contestants play whole random games in alternating slices of one process (as
bench.py's, whose `Contestant` they are):

- engine API: the engine's own `State` started as `start` started it (`State._new`), then
  `legal_actions()` and `apply()` of a random one until the game ends;
- kernel API: the same loop on the Python kernel, through the API's own kernel state (`KState`,
  the class a native game's `start` gives, on the kernel's Python spelling);
- kernel bare: the Python kernel's entry points alone (`moves`, `play`), the chosen move decoded
  into the typed `Move` the record keeps (`Boundary.move`) and nothing else: the floor of any API;
- engine playouts: `State._new(..., quiet=rng).playout(rng)`, what `Game.simulate` ran before the
  kernel (no history, no Action objects);
- kernel playouts: `Kernel(game, "python").playout(...)`, what `Game.simulate` runs today on a
  machine with no C compiler.

Ratios are kernel ÷ engine (above 1: the kernel is faster).  What the columns mean and the latest
figures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import itertools
import json
import pstats
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.bench import SEED, Contestant, loadavg, machine  # noqa: E402 (imports fishrules)

import fishrules  # noqa: E402
from fishrules.kernel import Kernel  # noqa: E402
from fishrules.kernel import abi as A  # noqa: E402
from fishrules.kernel.apistate import start as kernel_start  # noqa: E402

GAMES = ["fishfry", "fishfish", "fisherman", "fatfish", "fisheatfish"]
H_CUR, CUR_OVER, CUR_SIMUL = A.H_CUR, A.CUR_OVER, A.CUR_SIMUL


def contestants(name: str, players: int) -> list[Contestant]:
    from fishrules.runtime import State

    SIM = fishrules.SIMULTANEOUS
    # each a game of its own, loaded afresh (`loads` keeps no cache): the engine's memos start empty
    engine_game = fishrules.loads(_text(name), name=name, base_dir=str(_path(name).parent), backend="python")
    game = fishrules.loads(_text(name), name=name, base_dir=str(_path(name).parent), backend="python")
    kernel = Kernel(game, "python")
    be, bd = kernel.backend, kernel.boundary
    gopts = game._options(None)

    def api(start):
        rnd = random.Random(SEED + players).random
        seeds = itertools.count(SEED)

        def loop() -> int:
            s = start(next(seeds))
            n = 0
            while not s.is_over:
                if s.current == SIM:  # a secret choice: the first player still choosing goes next
                    acts = s.legal_actions(s.waiting[0])
                else:
                    acts = s.legal_actions()
                s.apply(acts[int(rnd() * len(acts))])
                n += 1
            return n
        return loop

    eopts0 = engine_game._options(None)
    # the engine's own State, started as `start` started it before step 6 (`backend="python"` now
    # gives the kernel's state on its Python spelling)
    engine_api = api(lambda seed: State._new(engine_game, players, dict(eopts0), seed, False))
    kernel_api = api(lambda seed: kernel_start(game, players, dict(gopts), seed, False, kernel=kernel))

    rnd_b = random.Random(SEED + players).random
    seeds_b = itertools.count(SEED)
    moves_of, play, play_together, who_together, move_of, new, start = (
        be.moves, be.play, be.play_together, be.who_together, bd.move, be.new, be.start)

    def kernel_bare() -> int:
        S = new(players, gopts, next(seeds_b))
        start(S, False)
        n = 0
        while True:
            cur = S[H_CUR]
            if cur >= 0:
                moves = moves_of(S, cur)
                m = moves[int(rnd_b() * len(moves))]
                move_of(m)
                play(S, m)
                n += 1
            elif cur == CUR_SIMUL:
                chosen = []
                for p in who_together(S):
                    moves = moves_of(S, p)
                    m = moves[int(rnd_b() * len(moves))]
                    move_of(m, True)
                    chosen.append(m)
                play_together(S, tuple(chosen))
                n += len(chosen)
            else:
                return n

    seeds_p = itertools.count(SEED)
    eopts = engine_game._options(None)

    def engine_playout() -> int:
        seed = next(seeds_p)
        rng = random.Random(seed)
        return State._new(engine_game, players, eopts, seed, False, quiet=rng).playout(rng).decisions

    seeds_k = itertools.count(SEED)
    kplay = kernel.playout

    def kernel_playout() -> int:
        return kplay(players, gopts, next(seeds_k)).outcome.decisions

    return [Contestant("engine_api", engine_api), Contestant("kernel_api", kernel_api),
            Contestant("kernel_bare", kernel_bare), Contestant("engine_playout", engine_playout),
            Contestant("kernel_playout", kernel_playout)]


def _path(name: str) -> Path:
    from fishrules.variants import find_ruleset

    return find_ruleset(name)


def _text(name: str) -> str:
    return _path(name).read_text(encoding="utf-8")


RATIOS = {"api": ("kernel_api", "engine_api"), "bare": ("kernel_bare", "engine_api"),
          "playout": ("kernel_playout", "engine_playout")}


def side_by_side(name: str, players: int, slice_s: float, rounds: int) -> dict:
    cs = contestants(name, players)
    gc.collect()
    for c in cs:
        c.warm_up()
    k = len(cs)
    for r in range(rounds):
        for c in cs[r % k:] + cs[:r % k]:
            c.run(slice_s)
    by = {c.label: c for c in cs}
    out: dict = {c.label: c.summary() for c in cs}
    for key, (a, b) in RATIOS.items():
        out[f"{key}_ratio"] = by[a].rate / by[b].rate
        out[f"{key}_ratio_cpu"] = (by[a].games / by[a].cpu) / (by[b].games / by[b].cpu)
        out[f"{key}_ratio_by_round"] = [x / y for x, y in zip(by[a].rounds, by[b].rounds)]
    return out


def profile(name: str, players: int, labels: list, seconds: float = 3.0, top: int = 25) -> None:
    """cProfile of each contestant of `labels` (kernel_api, engine_api, kernel_playout, ...) for
    about `seconds`: its functions by their own time."""
    import time

    cs = {c.label: c for c in contestants(name, players)}
    for label in labels:
        loop = cs[label].one
        loop()
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        games = 0
        while time.perf_counter() - t0 < seconds:
            loop()
            games += 1
        prof.disable()
        print(f"\n{name}, {players} players: {games} games of {label} under cProfile")
        pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def ratio(s: dict, key: str) -> str:
    """A ratio by wall clock, then by CPU time and the range of the slices' ratios (the noise)."""
    by_round = s[f"{key}_ratio_by_round"]
    return f"{s[f'{key}_ratio']:.2f} ({s[f'{key}_ratio_cpu']:.2f}; {min(by_round):.2f}–{max(by_round):.2f})"


def gps(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


HEADERS = ["game", "players", "engine API games/s", "kernel API games/s", "kernel ÷ engine (API)",
           "kernel bare games/s", "bare ÷ engine (API)", "engine playouts games/s", "kernel playouts games/s",
           "kernel ÷ engine (playouts)", "decisions/game (engine, kernel)"]


def rows(res: dict) -> list[list[str]]:
    out = []
    for r in res["rows"]:
        s = r.get("speed")
        line = [r["name"], str(r["players"])]
        if not s:
            out.append(line + ["failed"] + [""] * (len(HEADERS) - 3))
            continue
        line += [gps(s["engine_api"]["games_per_s"]), gps(s["kernel_api"]["games_per_s"]), ratio(s, "api"),
                 gps(s["kernel_bare"]["games_per_s"]), ratio(s, "bare"),
                 gps(s["engine_playout"]["games_per_s"]), gps(s["kernel_playout"]["games_per_s"]),
                 ratio(s, "playout"),
                 f"{s['engine_api']['decisions_per_game']:.0f}, {s['kernel_api']['decisions_per_game']:.0f}"]
        out.append(line)
    return out


def markdown_table(res: dict) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(HEADERS))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows(res)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="shorter slices, fewer rounds")
    ap.add_argument("--games", nargs="+", choices=GAMES, default=GAMES, metavar="GAME")
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    ap.add_argument("--profile", nargs=2, metavar=("GAME", "PLAYERS"),
                    help="profile contestants (--labels) of one game and player count instead of the table")
    ap.add_argument("--labels", nargs="+", default=["kernel_api", "engine_api"],
                    choices=["engine_api", "kernel_api", "kernel_bare", "engine_playout", "kernel_playout"],
                    help="which contestants --profile profiles (default: the two API loops)")
    ap.add_argument("--rounds", type=int, help="rounds of slices (default 4, --quick 2)")
    args = ap.parse_args(argv)
    if args.profile:
        profile(args.profile[0], int(args.profile[1]), args.labels)
        return 0
    slice_s, rounds = (0.2, 2) if args.quick else (0.5, 4)
    rounds = args.rounds or rounds
    info = machine()
    res: dict = {"machine": info, "quick": args.quick, "seed": SEED, "slice": slice_s, "rounds": rounds,
                 "load_average": [loadavg()], "rows": [], "errors": []}
    print(f"fishrules {info['fishrules']} ({info['revision']}) on {info['python']}, load average {loadavg()}",
          file=sys.stderr)
    for name in args.games:
        probe = fishrules.load(name)
        for players in sorted({probe.min_players, probe.max_players}):
            print(f"  {name}, {players} players", file=sys.stderr, flush=True)
            row = {"name": name, "players": players}
            try:
                row["speed"] = side_by_side(name, players, slice_s, rounds)
            except Exception as exc:  # noqa: BLE001 - one broken measurement must not hide the others
                res["errors"].append(f"{name}, {players}: {type(exc).__name__}: {exc}")
            res["rows"].append(row)
    res["load_average"].append(loadavg())
    print(f"Python backend: the engine against the Python kernel ({info['revision']}, {info['python']}; "
          f"load average {res['load_average'][0]:.1f} at the start, {res['load_average'][1]:.1f} at the end"
          + (", --quick" if args.quick else "") + ")")
    print(markdown_table(res))
    for e in res["errors"]:
        print("failed:", e)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

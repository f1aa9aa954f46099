#!/usr/bin/env python3
"""The engine against hand-written Python (and C), and its start-up, for the five bundled games.

    python benchmarks/bench.py                 # a few minutes, prints the table
    python benchmarks/bench.py --quick         # about a minute: shorter slices, noisier figures
    python benchmarks/bench.py --json out.json --markdown benchmarks/results.md
    python benchmarks/bench.py --python-backend  # the engine against the Python kernel (python_backend.py)

For each game, at the fewest and the most players its rules allow, whole random games in
alternating slices of the same process: the hand-written baseline of benchmarks/baselines
(`play()`), the game kernel as native code and as Python (`Game.simulate`'s playouts), and the
engine's API loop (`legal_actions()` + `apply()`); each engine figure is given as a ratio to the
baseline (for Fisherman also to the hand-written C baseline, benchmarks/baselines/fisherman.c).
Then: a copy of a kernel state, the kernel's first compile and a cached load per ruleset, 1,000
ISMCTS iterations in Fisherman, parse + check + compile, and the start-up of `import fishrules`
and `fishrules check`.  Each figure is shown beside its target in issue 21 (issue 13 for
start-up).  This is a script, not a test: it asserts nothing about speed.  What each column means,
and how it is measured: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks.baselines, when run as a script
try:
    import fishrules
except ImportError:  # run from a checkout without installing
    sys.path.insert(1, str(ROOT / "src"))
    import fishrules

from benchmarks.baselines import GAMES

SEED = 20240601
perf = time.perf_counter

# Issue 21's targets (the game kernel).
TARGET_NATIVE = 10.0      # native kernel playout games/s / hand-written Python games/s, at least
TARGET_C = 0.3            # native kernel / hand-written C (Fisherman), at least
TARGET_PY = 0.5           # Python kernel playout / hand-written Python, at least
TARGET_API = 0.3          # API loop games/s / hand-written Python, at least
TARGET_ISMCTS_S = 0.1     # seconds for 1,000 ISMCTS iterations (Fisherman, 3 players), at most
TARGET_COMPILE_S = 3.0    # first compile of a bundled ruleset, seconds, at most
TARGET_LOAD_MS = 20.0     # a cached load of its kernel, ms, at most
TARGET_COPY_US = 1.0      # a copy of a kernel state, µs, at most
# Issue 13's start-up targets.  "A few milliseconds" for a second load() is read as at most 3 ms.
TARGET_IMPORT = 6.0       # `python -c "import fishrules"` / `python -c pass`, at most
TARGET_CHECK = 10.0       # `fishrules check rulesets/fishfry.fish` / `python -c pass`, at most
TARGET_RELOAD_MS = 3.0    # a second load() of an unchanged file, ms, at most
EARLY, LATE = 10, 100     # the history lengths at which a kernel state is copied

# Fat Fish: the engine's legal_actions() lists the fiasco plays (lays that break a rule, marked with
# `Action.breaks`), so the baseline is measured in the mode that lists them too.
BASELINE_OPTIONS = {"fatfish": {"fiasco_plays_legal": True}}


class Settings:
    def __init__(self, quick: bool):
        self.quick = quick
        self.slice = 0.2 if quick else 0.5       # seconds per contestant per round
        self.rounds = 2 if quick else 4           # rounds of (baseline, native, Python kernel, API loop)
        self.search = 0.2 if quick else 1.0       # seconds to look for a game reaching move 100
        self.clone_repeats = 15 if quick else 50  # batches of about 2 ms of clone() calls
        self.load_seconds = 0.1 if quick else 0.3  # per ruleset, parse + check + compile
        self.startup_runs = 3 if quick else 9     # subprocess runs of each start-up command


# ---- games per second, side by side -------------------------------------------------------------


class Contestant:
    """Plays whole games for a slice of time.  `one()` plays one game and returns its number of
    decisions.  The clock is read once per batch of games (about 2 ms of work), not per game, so
    that reading it costs the fastest baseline no more than the slowest engine loop."""

    def __init__(self, label: str, one, per_call: int = 1):
        self.label = label
        self.one = one
        self.per_call = per_call  # games one call of `one` plays (a native batch: ctypes is not timed)
        self.games = self.decisions = 0
        self.wall = self.cpu = 0.0
        self.rounds: list[float] = []  # games/s of each slice
        self.full_gcs = 0  # full (generation 2) collections of the cyclic GC during the slices
        self.batch = 1

    def warm_up(self, seconds: float = 0.05) -> None:
        n, t0 = 0, perf()
        while True:
            self.one()
            n += 1
            if perf() - t0 >= seconds:
                break
        self.batch = max(1, round(0.002 / ((perf() - t0) / n)))
        self.cold = False

    def run(self, seconds: float) -> None:
        one, batch = self.one, self.batch
        games = decisions = 0
        gc.collect(1)  # the young garbage of the slice before (a full collection: once per row)
        g0 = gc.get_stats()[2]["collections"]
        c0, t0 = time.process_time(), perf()
        while True:
            for _ in range(batch):
                decisions += one()
            games += batch * self.per_call
            wall = perf() - t0
            if wall >= seconds:
                break
        self.cpu += time.process_time() - c0
        self.full_gcs += gc.get_stats()[2]["collections"] - g0
        self.wall += wall
        self.games += games
        self.decisions += decisions
        self.rounds.append(games / wall)

    @property
    def rate(self) -> float:
        return self.games / self.wall

    def summary(self) -> dict:
        return {"games_per_s": self.rate, "cpu_games_per_s": self.games / self.cpu if self.cpu else None,
                "games": self.games, "seconds": self.wall, "decisions_per_game": self.decisions / self.games,
                "full_gc_collections": self.full_gcs,
                "games_per_s_by_round": self.rounds}


def contestants(name: str, game, players: int) -> list[Contestant]:
    mod = GAMES[name]
    opts = BASELINE_OPTIONS.get(name, {})
    SIM = fishrules.SIMULTANEOUS

    rng_b = random.Random(SEED + players)
    play = mod.play
    if opts:
        def baseline() -> int:
            return play(players, rng_b, **opts)[2]
    else:
        def baseline() -> int:
            return play(players, rng_b)[2]

    from fishrules.kernel import Kernel

    gopts = game._options(None)
    native = Kernel(game, "native").backend
    seeds_n = itertools.count(SEED)
    BATCH = 64

    def native_playouts() -> int:  # 64 whole games in one call into native code
        part = list(itertools.islice(seeds_n, BATCH))
        return sum(native.simulate(players, gopts, part)[2])

    py = Kernel(game, "python")
    seeds_k = itertools.count(SEED)

    def python_playout() -> int:
        return py.playout(players, gopts, next(seeds_k)).outcome.decisions

    rnd_a = random.Random(SEED + players).random
    seeds_a = itertools.count(SEED)
    start = game.start

    def api_loop() -> int:
        s = start(players, seed=next(seeds_a))
        n = 0
        while not s.is_over:
            if s.current == SIM:  # a secret choice: the first player still choosing goes next
                acts = s.legal_actions(s.waiting[0])
            else:
                acts = s.legal_actions()
            s.apply(acts[int(rnd_a() * len(acts))])
            n += 1
        return n

    out = [Contestant("baseline", baseline), Contestant("native", native_playouts, BATCH),
           Contestant("python", python_playout), Contestant("api", api_loop)]
    if name == "fisherman":
        from benchmarks.baselines import cbaseline

        seeds_c = itertools.count(SEED, 64)

        def c_baseline() -> int:  # 64 games in one call
            return cbaseline.play_many(players, next(seeds_c), 64)[1]

        out.append(Contestant("c", c_baseline, 64))
    return out


def fresh_game(name: str):
    """The bundled ruleset `name` as a Game of its own (`loads`, which keeps no cache), for each
    row, so that each row starts alike whatever was measured before it in the process."""
    from fishrules.variants import find_ruleset

    path = find_ruleset(name)
    return fishrules.loads(path.read_text(encoding="utf-8"), name=path.stem, base_dir=str(path.parent))


def side_by_side(name: str, game, players: int, cfg: Settings) -> dict:
    """The contestants in alternating slices (the order rotating every round), so that whatever
    else the machine does slows them alike."""
    cs = contestants(name, game, players)
    gc.collect()
    for c in cs:
        c.warm_up()
    k = len(cs)
    for r in range(cfg.rounds):
        for c in cs[r % k:] + cs[:r % k]:
            c.run(cfg.slice)
    by = {c.label: c for c in cs}
    base = by["baseline"]
    out = {c.label: c.summary() for c in cs}
    for label in ("native", "python", "api"):
        out[f"{label}_ratio"] = by[label].rate / base.rate
        out[f"{label}_ratio_by_round"] = [a / b for a, b in zip(by[label].rounds, base.rounds)]
    if "c" in by:
        out["native_c_ratio"] = by["native"].rate / by["c"].rate
    d = [out[k]["decisions_per_game"] for k in ("baseline", "native", "python", "api")]
    if max(d) > 1.25 * min(d):  # they should play the same games on average
        print(f"    note: decisions/game differ: {d}", file=sys.stderr)
    return out


# ---- clone() early and late in a game -----------------------------------------------------------


def states_at(game, players: int, seconds: float):
    """Seeded random API games: the first state at a decision with a history of at least EARLY
    entries, and one with at least LATE (chance included), looking through games for up to
    `seconds`; if no game gets that long, the deepest decision seen.  Returns
    (early, early length, late, late length)."""
    SIM = fishrules.SIMULTANEOUS
    rnd = random.Random(SEED).random
    early = late = None
    deepest = (-1, None)
    t0 = perf()
    for seed in itertools.count(SEED):
        s = game.start(players, seed=seed)
        while not s.is_over:
            n = len(s.history)
            if early is None and n >= EARLY:
                early = (s.clone(), n)
            if n >= LATE:
                late = (s.clone(), n)
                break
            if n > deepest[0]:
                deepest = (n, s.clone())
            acts = s.legal_actions(s.waiting[0]) if s.current == SIM else s.legal_actions()
            s.apply(acts[int(rnd() * len(acts))])
        if late is not None or (early is not None and perf() - t0 >= seconds):
            break
    if late is None:
        late = (deepest[1], deepest[0])
    return early[0], early[1], late[0], late[1]


def batch_size(fn, seconds: float = 0.002) -> int:
    """How many calls of `fn` take about `seconds`."""
    n, t0 = 0, perf()
    while perf() - t0 < seconds:
        fn()
        n += 1
    return n


def copy_figures(game, players: int, cfg: Settings) -> dict:
    """µs per copy of a native kernel state (what a search copies for every iteration), of the
    early and the late position: batches of about 2 ms of copies, the fastest batch of each."""
    from array import array

    from fishrules.kernel import Kernel, KFault

    kernel = Kernel(game, "native")
    early, n_early, late, n_late = states_at(game, players, cfg.search)
    states = []
    for st in (early, late):
        while True:
            try:
                states.append(kernel.state_of(st))
                break
            except KFault:  # some players have chosen at a simultaneous choice, not all: on a little
                st.apply(st.legal_actions(st.waiting[0])[0])
    fns = [lambda S=S: array("q", S) for S in states]
    sizes = [batch_size(f) for f in fns]
    best = [float("inf"), float("inf")]
    for _ in range(cfg.clone_repeats):
        for i, (fn, k) in enumerate(zip(fns, sizes)):
            t0 = perf()
            for _ in range(k):
                fn()
            best[i] = min(best[i], (perf() - t0) / k)
    return {"early_move": n_early, "early_us": best[0] * 1e6, "late_move": n_late, "late_us": best[1] * 1e6,
            "ints": len(states[0])}


def compile_and_load(name: str) -> dict:
    """The first compile of a ruleset's kernel (an empty cache) and a load of it once cached: the
    whole `Kernel(game, "native")`, lowering, C, compiler and loading included."""
    import tempfile

    from fishrules.kernel import Kernel

    game = fishrules.load(name)
    old = os.environ.get("FISHRULES_CACHE")
    with tempfile.TemporaryDirectory(prefix="fishrules-bench-") as cache:
        os.environ["FISHRULES_CACHE"] = cache
        try:
            t0 = perf()
            Kernel(game, "native")
            first = perf() - t0
            loads = []
            for _ in range(5):
                t0 = perf()
                Kernel(game, "native")
                loads.append(perf() - t0)
        finally:
            if old is None:
                os.environ.pop("FISHRULES_CACHE", None)
            else:
                os.environ["FISHRULES_CACHE"] = old
    return {"first_compile_s": first, "cached_load_ms": min(loads) * 1e3}


def ismcts_seconds(cfg: Settings) -> dict:
    """Seconds for one ISMCTS decision of 1,000 iterations, Fisherman, 3 players, mid-game (the
    best of three, after a warm-up that builds the kernel and replays the position into it)."""
    from fishrules.bots import ISMCTSBot

    game = fishrules.load("fisherman")
    st = game.start(players=3, seed=4)
    rng = random.Random(2)
    while len(st.history) < 150:
        st.apply(rng.choice(st.legal_actions()))
    ISMCTSBot(seed=0, iterations=1000).choose(st, st.current)
    best = float("inf")
    for rep in range(3):
        t0 = perf()
        ISMCTSBot(seed=rep, iterations=1000).choose(st, st.current)
        best = min(best, perf() - t0)
    return {"seconds": best, "iterations": 1000, "legal": len(st.legal_actions())}


# ---- parse + check + compile --------------------------------------------------------------------


def pipeline_ms(name: str, seconds: float) -> dict:
    """The three stages fishrules.load runs, called directly (load's cache bypassed): the fastest
    of repeats, each stage apart, in ms.  The Lark parser is already built (once per process, from its disk cache)."""
    from fishrules.variants import find_ruleset, resolve_file

    path = find_ruleset(name)
    try:
        from fishrules.checker import check
        from fishrules.compiler import compile_model
    except ImportError:  # the stages moved: time the whole load() instead
        check = compile_model = None
    stages: dict[str, list] = {"parse": [], "check": [], "compile": []}
    t_end = perf() + seconds
    while True:
        t0 = perf()
        r = resolve_file(path)
        t1 = perf()
        if check is None:
            fishrules.api._cache.clear()
            fishrules.load(str(path))
            t2 = t3 = perf()
        else:
            model = check(list(r.items), r.variants, r.files, r.source)
            t2 = perf()
            compile_model(model)
            t3 = perf()
        for v, t in zip(stages.values(), (t1 - t0, t2 - t1, t3 - t2)):
            v.append(t)
        if perf() >= t_end and len(stages["parse"]) >= 3:
            break
    ms = {k: min(v) * 1e3 for k, v in stages.items()}
    return {"parse_ms": ms["parse"], "check_ms": ms["check"], "compile_ms": ms["compile"],
            "total_ms": sum(ms.values()), "repeats": len(stages["parse"]), "files": len(r.files),
            "whole_load": check is None}


def second_load_ms() -> dict:
    """load() of a file already loaded in this process, unchanged: the median of 51 calls, ms."""
    from fishrules.variants import find_ruleset

    path = str(find_ruleset("fishfry"))
    fishrules.load(path)
    times = []
    for _ in range(51):
        t0 = perf()
        fishrules.load(path)
        times.append(perf() - t0)
    return {"file": path, "ms": statistics.median(times) * 1e3}


# ---- start-up, in fresh processes ---------------------------------------------------------------


def startup(cfg: Settings) -> dict:
    """Wall time of fresh processes, the best of `startup_runs` each, run in turns (pass, import,
    check, pass, ...): `python -c pass`, `python -c "import fishrules"` and
    `fishrules check rulesets/fishfry.fish` (and `import fishrules.api`), the same interpreter, with the fishrules measured here
    first on PYTHONPATH and PYTHONDONTWRITEBYTECODE removed (so that imports use and write
    __pycache__, as in a normal install).  Warm: each command runs once first, which writes any
    missing bytecode and Lark's parser-table cache (`*.lark-cache`)."""
    from fishrules.variants import find_ruleset

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    src = str(Path(fishrules.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    py = sys.executable
    script = Path(py).parent / "fishrules"
    check = ([str(script)] if script.is_file() else
             [py, "-c", "import sys; from fishrules.cli import main; sys.exit(main())"])
    check += ["check", str(find_ruleset("fishfry"))]
    # `import fishrules.api`: what a program that calls load() imports (the package itself imports
    # its pipeline lazily); shown for reference, without a target.
    commands = {"pass": [py, "-c", "pass"], "import": [py, "-c", "import fishrules"],
                "import_api": [py, "-c", "import fishrules.api"], "check": check}

    where = subprocess.run([py, "-c", "import fishrules; print(fishrules.__file__)"], check=False, env=env,
                           capture_output=True, text=True, timeout=60).stdout.strip()
    if Path(where).resolve() != Path(fishrules.__file__).resolve():
        raise RuntimeError(f"the subprocesses import another fishrules: {where}")
    best = {}
    for k, cmd in commands.items():  # warm up: bytecode and the parser tables on disk
        r = subprocess.run(cmd, check=False, env=env, capture_output=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited with {r.returncode}: {r.stderr.decode()[-300:]}")
        best[k] = float("inf")
    cpu = dict.fromkeys(commands, float("inf"))
    for _ in range(cfg.startup_runs):
        for k, cmd in commands.items():
            u0 = children_cpu()
            t0 = perf()
            subprocess.run(cmd, check=False, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            best[k] = min(best[k], perf() - t0)
            cpu[k] = min(cpu[k], children_cpu() - u0)
    return {"pass_ms": best["pass"] * 1e3, "import_ms": best["import"] * 1e3, "check_ms": best["check"] * 1e3,
            "import_api_ms": best["import_api"] * 1e3, "import_api_x": best["import_api"] / best["pass"],
            "import_x": best["import"] / best["pass"], "check_x": best["check"] / best["pass"],
            "cpu_ms": {k: v * 1e3 for k, v in cpu.items()},
            "cpu_import_x": cpu["import"] / cpu["pass"] if cpu["pass"] else None,
            "cpu_check_x": cpu["check"] / cpu["pass"] if cpu["pass"] else None,
            "cpu_import_api_x": cpu["import_api"] / cpu["pass"] if cpu["pass"] else None,
            "check_command": "fishrules check " + check[-1], "runs": cfg.startup_runs, "warm": True}


def children_cpu() -> float:
    """CPU seconds (user + system) used so far by this process's finished children, or 0."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return 0.0
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# ---- the report ---------------------------------------------------------------------------------

OK, MISS = "✓", "✗"


def mark(ok: bool) -> str:
    return OK if ok else MISS


def ratio(x: float) -> str:
    return f"{x:.3f}" if x < 0.1 else f"{x:.2f}"


def gps(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


HEADERS = ["game", "players", "hand-written\ngames/s", "native\ngames/s", f"native ÷ hand\n(≥ {TARGET_NATIVE:g})",
           "Python kernel\ngames/s", f"Py kernel ÷ hand\n(≥ {TARGET_PY})", "API loop\ngames/s",
           f"API ÷ hand\n(≥ {TARGET_API})", f"state copy µs\n(≤ {TARGET_COPY_US:g})",
           f"first compile s\n(≤ {TARGET_COMPILE_S:g})", f"cached load ms\n(≤ {TARGET_LOAD_MS:g})"]


def rows(res: dict) -> list[list[str]]:
    out = []
    for g in res["games"]:
        first = True
        for r in g["rows"]:
            line = [g["name"] if first else "", str(r["players"])]
            s = r.get("speed")
            if s:
                line += [gps(s["baseline"]["games_per_s"]), gps(s["native"]["games_per_s"]),
                         f"{ratio(s['native_ratio'])} {mark(s['native_ratio'] >= TARGET_NATIVE)}",
                         gps(s["python"]["games_per_s"]),
                         f"{ratio(s['python_ratio'])} {mark(s['python_ratio'] >= TARGET_PY)}",
                         gps(s["api"]["games_per_s"]), f"{ratio(s['api_ratio'])} {mark(s['api_ratio'] >= TARGET_API)}"]
            else:
                line += ["failed"] + [""] * 6
            c = r.get("copy")
            line.append(f"{c['early_us']:.2f} → {c['late_us']:.2f} {mark(max(c['early_us'], c['late_us']) <= TARGET_COPY_US)}"
                        if c else "failed")
            k = g.get("kernel")
            if not first:
                line += ["", ""]
            elif k is None:
                line += ["failed", "failed"]
            else:
                line += [f"{k['first_compile_s']:.2f} {mark(k['first_compile_s'] <= TARGET_COMPILE_S)}",
                         f"{k['cached_load_ms']:.1f} {mark(k['cached_load_ms'] <= TARGET_LOAD_MS)}"]
            out.append(line)
            first = False
    return out


def c_lines(res: dict) -> list[str]:
    """Fisherman's native kernel against the hand-written C, and ISMCTS."""
    lines = []
    for g in res["games"]:
        if g["name"] != "fisherman":
            continue
        for r in g["rows"]:
            s = r.get("speed")
            if s and "c" in s:
                lines.append(f"fisherman, {r['players']} players: hand-written C {gps(s['c']['games_per_s'])} games/s, "
                             f"native kernel {gps(s['native']['games_per_s'])}: native ÷ C {ratio(s['native_c_ratio'])} "
                             f"(≥ {TARGET_C}) {mark(s['native_c_ratio'] >= TARGET_C)}")
    m = res.get("ismcts")
    if m:
        lines.append(f"ISMCTS, fisherman, 3 players: 1,000 iterations in {m['seconds']:.3f} s "
                     f"(≤ {TARGET_ISMCTS_S:g} s) {mark(m['seconds'] <= TARGET_ISMCTS_S)}")
    return lines


def cpu_x(s: dict, key: str) -> str:
    """The same ratio by the processes' CPU time: less disturbed by a busy machine."""
    x = s.get(f"cpu_{key}_x")
    return f"; by CPU time {x:.1f}x" if x else ""


def startup_x(s: dict, key: str) -> float:
    """The ratio a start-up target is judged by: the larger of the wall-clock ratio (the issue's
    definition) and the CPU-time one.  On a busy machine even the best of several `python -c pass`
    waits for a CPU, which makes the wall-clock ratio look better than it is; the CPU-time ratio
    keeps that from passing a target by accident."""
    return max(s[f"{key}_x"], s.get(f"cpu_{key}_x") or 0.0)


def startup_lines(res: dict) -> list[str]:
    """The start-up figures and the count of targets met, as lines under the table."""
    s, lo = res.get("startup"), res.get("second_load")
    rows = []
    if s:
        rows.append(['python -c "import fishrules"', f"{s['import_x']:.1f}x python -c pass",
                     f"({s['import_ms']:.0f} ms against {s['pass_ms']:.0f} ms{cpu_x(s, 'import')})",
                     f"≤ {TARGET_IMPORT:g}x {mark(startup_x(s, 'import') <= TARGET_IMPORT)}"])
        rows.append(['python -c "import fishrules.api"', f"{s['import_api_x']:.1f}x python -c pass",
                     f"({s['import_api_ms']:.0f} ms{cpu_x(s, 'import_api')})", "(what load() imports; no target)"])
        rows.append(["fishrules check rulesets/fishfry.fish", f"{s['check_x']:.1f}x python -c pass",
                     f"({s['check_ms']:.0f} ms{cpu_x(s, 'check')})", f"≤ {TARGET_CHECK:g}x {mark(startup_x(s, 'check') <= TARGET_CHECK)}"])
    else:
        rows.append(["start-up", "failed", "", ""])
    if lo:
        rows.append(["second load() of an unchanged file", f"{lo['ms']:.3f} ms", "(in one process)",
                     f"≤ {TARGET_RELOAD_MS:g} ms {mark(lo['ms'] <= TARGET_RELOAD_MS)}"])
    else:
        rows.append(["second load()", "failed", "", ""])
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    runs = f", best of {s['runs']} fresh processes" if s else ""
    lines = c_lines(res)
    lines += [f"start-up, warm (bytecode and Lark's parser tables cached on disk){runs} (issue 13's targets):"]
    lines += ["  " + "   ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    met, total = res["targets_met"]
    lines.append(f"targets met: {met} of {total} ({OK} met, {MISS} missed)")
    return lines


def count_targets(res: dict) -> tuple[int, int]:
    checks = []
    for g in res["games"]:
        k = g.get("kernel")
        checks += [bool(k) and k["first_compile_s"] <= TARGET_COMPILE_S, bool(k) and k["cached_load_ms"] <= TARGET_LOAD_MS]
        for r in g["rows"]:
            s, c = r.get("speed"), r.get("copy")
            checks += [bool(s) and s["native_ratio"] >= TARGET_NATIVE, bool(s) and s["python_ratio"] >= TARGET_PY,
                       bool(s) and s["api_ratio"] >= TARGET_API,
                       bool(c) and max(c["early_us"], c["late_us"]) <= TARGET_COPY_US]
            if s and "native_c_ratio" in s:
                checks.append(s["native_c_ratio"] >= TARGET_C)
    m = res.get("ismcts")
    checks.append(bool(m) and m["seconds"] <= TARGET_ISMCTS_S)
    s, lo = res.get("startup"), res.get("second_load")
    checks += [bool(s) and startup_x(s, "import") <= TARGET_IMPORT, bool(s) and startup_x(s, "check") <= TARGET_CHECK,
               bool(lo) and lo["ms"] <= TARGET_RELOAD_MS]
    return sum(checks), len(checks)


def plain_table(headers: list[str], body: list[list[str]]) -> str:
    headers = [h.replace("\n", " ") for h in headers]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(headers)]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(headers), "  ".join("-" * w for w in widths)] + [fmt(r) for r in body])


def markdown_table(headers: list[str], body: list[list[str]]) -> str:
    headers = [h.replace("\n", " ") for h in headers]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in body])


def print_table(res: dict) -> None:
    """The table on stdout (with rich if it is installed), then the start-up figures under it."""
    title = (f"fishrules {res['machine']['fishrules']} ({res['machine']['revision']}) against hand-written Python, "
             f"{res['machine']['python']}" + (", --quick" if res["quick"] else ""))
    foot = startup_lines(res)
    try:
        from rich import box
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        print(plain_table(HEADERS, rows(res)))
        print("\n".join(foot))
        return
    console = Console(highlight=False) if sys.stdout.isatty() else Console(width=160, highlight=False)
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for i, h in enumerate(HEADERS):
        table.add_column(h, justify="left" if i == 0 else "right")
    for r in rows(res):
        if r[0] and table.rows:
            table.add_section()
        table.add_row(*r)
    with console.capture() as captured:
        console.print(table)
    print("\n".join(line.rstrip() for line in captured.get().splitlines()))
    print("\n".join(foot))


def markdown(res: dict, note: str | None, command: str) -> str:
    info = res["machine"]
    la = res.get("load_average")
    head = ("# Benchmark results\n\n"
            f"Written by `{command}`; what the figures mean is in [README.md](README.md).\n\n")
    body = []
    if note:
        body.append(f"**{note}**\n")
    body.append(f"- date: {info['date']}\n- Python: {info['python']}\n- machine: `{info['processor']}`, "
                f"{info['cpu_count']} CPUs ({info['platform']})"
                + (f"; load average {la[0]:.1f} at the start, {la[1]:.1f} at the end" if la else "")
                + f"\n- fishrules {info['fishrules']}, code measured: {info['revision']}\n"
                f"- seed {SEED}; {res['settings']['rounds']} rounds of {res['settings']['slice']} s slices "
                f"per contestant; whole run {res['seconds']:.0f} s\n")
    body.append(markdown_table(HEADERS, rows(res)) + "\n")
    body.append("```text\n" + "\n".join(startup_lines(res)) + "\n```\n")
    if res["errors"]:
        body.append("Failed measurements:\n\n" + "\n".join(f"- {e}" for e in res["errors"]) + "\n")
    return head + "\n".join(body)


def revision() -> str:
    """The git commit of the code measured, "+ changes" if the working tree differs from it."""
    src = Path(fishrules.__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=False, cwd=src, capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "."], check=False, cwd=src, capture_output=True,
                               text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not commit:
        return "unknown (not a git checkout)"
    return commit + (" + uncommitted changes" if dirty else "")


def machine() -> dict:
    return {
        "revision": revision(),
        "source": str(Path(fishrules.__file__).resolve().parent),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "processor": platform.processor() or platform.machine() or "unknown",
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "fishrules": getattr(fishrules, "__version__", "?"),
    }


def loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="shorter slices and fewer runs (under 30 s)")
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table as a markdown page to FILE "
                    "(benchmarks/results.md)")
    ap.add_argument("--note", metavar="TEXT", help="a line to put at the top of the markdown page")
    ap.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES), metavar="GAME",
                    help="measure only these games (default: all five)")
    ap.add_argument("--python-backend", action="store_true",
                    help="instead of the table, the engine against the Python kernel (benchmarks/python_backend.py: "
                         "issue 32's gate for backend=\"python\")")
    args = ap.parse_args(argv)
    if args.python_backend:
        from benchmarks.python_backend import main as python_backend

        return python_backend((["--quick"] if args.quick else []) + ["--games", *args.games]
                              + (["--json", args.json] if args.json else []))
    cfg = Settings(args.quick)
    began = perf()
    info = machine()
    load0 = loadavg()
    res: dict = {"machine": info, "quick": args.quick, "seed": SEED, "settings": vars(cfg), "games": [],
                 "errors": [], "targets": {"native_ratio": TARGET_NATIVE, "native_c_ratio": TARGET_C,
                                           "python_ratio": TARGET_PY, "api_ratio": TARGET_API,
                                           "ismcts_s": TARGET_ISMCTS_S, "first_compile_s": TARGET_COMPILE_S,
                                           "cached_load_ms": TARGET_LOAD_MS, "copy_us": TARGET_COPY_US,
                                           "import_x": TARGET_IMPORT, "check_x": TARGET_CHECK,
                                           "second_load_ms": TARGET_RELOAD_MS}}
    say = lambda *a: print(f"{perf() - began:5.1f}s", *a, file=sys.stderr, flush=True)
    say(f"fishrules {info['fishrules']} ({info['revision']}) on {info['python']}, {info['cpu_count']} CPUs"
        + (" (quick)" if args.quick else ""))

    def attempt(what: str, fn, *args):
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001 - one broken measurement must not hide the others
            res["errors"].append(f"{what}: {type(exc).__name__}: {exc}")
            say(f"    failed: {type(exc).__name__}: {exc}")
            return None

    fishrules.load("fishfry").start(2, seed=0)  # the parser, the runtime: built before any timing
    for name in args.games:
        game = fishrules.load(name)
        g = {"name": name, "rows": []}
        say(f"  {name}: parse + check + compile; the kernel's first compile and a cached load")
        g["pipeline"] = attempt(f"{name} parse/check/compile", pipeline_ms, name, cfg.load_seconds)
        g["kernel"] = attempt(f"{name} kernel compile and load", compile_and_load, name)
        for players in sorted({game.min_players, game.max_players}):
            say(f"  {name}, {players} players: hand-written, native, Python kernel, API loop; state copies")
            fresh = fresh_game(name)
            g["rows"].append({
                "players": players,
                "speed": attempt(f"{name}, {players} players, games/s", side_by_side, name, fresh, players, cfg),
                "copy": attempt(f"{name}, {players} players, state copy", copy_figures, fresh, players, cfg),
            })
        res["games"].append(g)
    if "fisherman" in args.games:
        say("  ISMCTS, fisherman, 3 players, 1,000 iterations")
        res["ismcts"] = attempt("ISMCTS", ismcts_seconds, cfg)
    say("  second load()")
    res["second_load"] = attempt("second load()", second_load_ms)
    say("  start-up: python -c pass, import fishrules, fishrules check")
    res["startup"] = attempt("start-up", startup, cfg)
    res["targets_met"] = count_targets(res)
    res["seconds"] = perf() - began
    load1 = loadavg()
    res["load_average"] = (load0, load1) if load0 is not None else None

    print_table(res)
    if res["errors"]:
        print("failed measurements:\n" + "\n".join("  " + e for e in res["errors"]))
    say(f"whole run {res['seconds']:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        command = ("python benchmarks/bench.py" + (" --quick" if args.quick else "") + f" --markdown {args.markdown}"
                   + (' --note "…"' if args.note else ""))
        Path(args.markdown).write_text(markdown(res, args.note, command), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Playing many games: in this process, on local worker processes, or on a Dask cluster.

`simulate` and `compare` (in `comparison`) hand their games to `play`, which returns one plain
record per game, in the order of the games:

    {"scores": [...], "winners": [...], "decisions": int, "actions": int, "fires": [...]}

`fires` counts each named rule's firings in that game, in the order of `Game.rules`.  Game i is
played from the seed `api.game_seed_of(seed, i)` alone, and its bots are seeded from that seed, so a
game's record does not depend on which process played it, nor with how many others: 1 worker, 8
workers and a cluster give the same records, and so the same reports, byte for byte.

Games go out in chunks of consecutive indices.  A worker is sent the rules as text (`rules_spec`:
the file asked for and each file it extends that is not bundled, with the hash of the whole
chain), never a path on the client's disk; it writes them to a private temporary folder, loads them
there, and refuses them if their hash is not the client's (a worker whose fishrules bundles other
versions of the rulesets).  A worker process that dies loses no games: the chunks it had not
returned are played again, by a new pool (local processes) or by the cluster (Dask reschedules the
tasks of a worker it lost).
"""

from __future__ import annotations

import math
import os
import re
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from .errors import FishrulesError, OptionError, RuleError, StateError

__all__ = ["simulate", "play", "Runner", "rules_spec", "game_of_spec", "play_one", "MAX_WORKER_DEATHS"]

#: How many times worker processes may die during one run before it gives up (each death reruns
#: the chunks that were lost).
MAX_WORKER_DEATHS = 3


# ---- the rules, as text -------------------------------------------------------------------------------


def rules_spec(game) -> dict:
    """What a worker needs to load `game`, as plain data: the text of the file asked for and of each
    file it extends that is not a bundled ruleset (by its path relative to the first file's folder),
    the variant, and the SHA-256 of the whole chain (`logs.rules_hash`, bundled bases included)."""
    from .logs import _is_bundled, rules_hash, rules_texts

    texts = rules_texts(game)
    top_path, top_text = texts[0]
    folder = top_path.parent if top_path is not None else game._resolved.base_dir  # loads(…, base_dir=…)
    root = Path(os.path.realpath(folder)) if folder is not None else None
    name = top_path.name if top_path is not None else os.path.basename(game.files[-1] if game.files else "")
    files = [(name if _NAME.fullmatch(name) else "rules.fish", top_text)]
    for path, text in texts[1:]:
        if _is_bundled(path):
            continue  # the worker's own, checked by the hash
        files.append((os.path.relpath(os.path.realpath(path), root), text))
    return {"hash": rules_hash(texts), "variant": game.variant, "files": files, "title": game.title}


_GAMES: dict[tuple, Any] = {}
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.fish")


def game_of_spec(spec: dict, backend: str = "auto"):
    """The `Game` of a `rules_spec`, loaded from its texts in a temporary folder (once per process),
    its many games played by `backend` (see `fishrules.load`)."""
    from . import api
    from .logs import rules_hash, rules_texts

    key = (spec["hash"], spec["variant"], backend)
    game = _GAMES.get(key)
    if game is not None:
        return game
    folder = Path(tempfile.mkdtemp(prefix="fishrules-"))
    try:
        for rel, text in spec["files"]:
            target = (folder / rel).resolve()
            if folder.resolve() not in target.parents:
                raise StateError(f"a rule file sent to a worker is named {rel!r}, outside its folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", errors="surrogatepass")
        game = api.load(folder / spec["files"][0][0], spec["variant"], backend=backend)
        found = rules_hash(rules_texts(game))
        # messages name the files as the client sent them, not by this worker's temporary folder
        game._shown_from = tuple(sorted({os.path.relpath(folder) + os.sep, str(folder) + os.sep,
                                         str(folder.resolve()) + os.sep}, key=len, reverse=True))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if found != spec["hash"]:
        raise StateError(f"the rules of {spec['title']} hash to {found[:12]} on a worker but {spec['hash'][:12]} on the "
                         "client: the worker's fishrules bundles other versions of the rulesets it extends")
    _GAMES[key] = game
    return game


# ---- one game, one chunk -------------------------------------------------------------------------------


#: The bots a game may seat (see `comparison.BOT_CHOICES`); `mixed` seats them in turn (seat p of
#: game i plays MIXED[(i + p) % 4]).
MIXED = ("random", "greedy", "mcts", "ismcts")


def seat_bots(bots: str, i: int, n: int) -> list[str]:
    if bots == "mixed":
        return [MIXED[(i + p) % len(MIXED)] for p in range(n)]
    return [bots] * n


def play_one(game, players: int, options: dict, game_seed: int, kinds: list[str], iterations: int,
             quiet: bool = False) -> dict:
    """One game with the given bots (all `random`: the fast path), as plain data, counting rules.
    `quiet`: set up as `Game.simulate` sets up a game (chance from the playout's generator from the
    start), else as `Game.start(seed=game_seed)` does."""
    from .runtime import State, empty_draws

    opts = game._options(options)
    if quiet or all(k == "random" for k in kinds):
        return play_random(game, players, opts, game_seed)
    from .bots import make_bot

    state = State._new(game, players, opts, game_seed, False, count_rules=True)
    setup = dict(state.empty_draws)
    seats = [make_bot(k, seed=(game_seed + 7919 * p) % (1 << 63), iterations=iterations) for p, k in enumerate(kinds)]
    decisions = 0
    while not state.is_over:
        for p in state.waiting:
            state.apply(seats[p].choose(state, p))
            decisions += 1
    return {"scores": state.scores(), "winners": state.winners(), "decisions": decisions,
            "actions": len(state.history), "fires": state.fires, "empty": empty_draws(game, setup, state.empty_draws)}


def play_random(game, players: int, opts: dict, game_seed: int) -> dict:
    """One game with a uniformly random legal choice at every decision, as `Game.simulate` plays
    it (on the game kernel: `start(seed=game_seed)`'s game, every choice by the generator seeded
    from that seed): the one way `simulate` and `compare` play random games, so that the same seed
    plays the same games."""
    return next(random_games(game, players, opts, [game_seed]))


def random_games(game, players: int, opts: dict, seeds: list):
    """`play_random` of each seed, in order, many to a call on native code."""
    kernel = game.kernel
    for played in kernel.simulate(players, opts, seeds):
        r = played.outcome
        yield {"scores": list(r.scores), "winners": list(r.winners), "decisions": r.decisions,
               "actions": r.decisions + r.chances, "fires": played.fires, "empty": played.empty,
               "backend": kernel.name}


def play_chunk(job: dict, start: int, stop: int, game=None) -> list[dict]:
    """Games start..stop-1 of a job (`{"rules", "players", "options", "seed", "bots", "iterations"}`).
    A rule that goes wrong is returned as `{"error": text}`: fishrules' errors do not cross processes."""
    from .api import game_seed_of

    try:
        if game is None:
            game = game_of_spec(job["rules"], job.get("backend", "auto"))
        n, bots = job["players"], job["bots"]
        if bots == "random" or job.get("quiet", False):
            return list(random_games(game, n, game._options(job["options"]),
                                     [game_seed_of(job["seed"], i) for i in range(start, stop)]))
        return [play_one(game, n, job["options"], game_seed_of(job["seed"], i), seat_bots(bots, i, n), job["iterations"],
                         job.get("quiet", False)) for i in range(start, stop)]
    except RuleError as e:
        text = e.render()
        for prefix in getattr(game, "_shown_from", ()):
            text = text.replace(prefix, "")
        return [{"error": text, "kind": "rule"}]
    except FishrulesError as e:
        return [{"error": str(e), "kind": "state"}]


class _WorkerRuleError(RuleError):
    """A rule that went wrong on a worker: its message as the worker wrote it."""

    def __init__(self, text: str):
        FishrulesError.__init__(self, text)
        self.diagnostics = []
        self.text = text

    def render(self) -> str:
        return self.text


def _checked(records: list[dict]) -> list[dict]:
    if len(records) == 1 and "error" in records[0]:
        r = records[0]
        raise _WorkerRuleError(r["error"]) if r["kind"] == "rule" else StateError(r["error"])
    return records


# ---- many games: where ---------------------------------------------------------------------------------


#: How long to try reaching a Dask scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = "10s"


def _chunks(games: int, workers: int) -> list[tuple[int, int]]:
    size = max(1, min(500, math.ceil(games / (max(workers, 1) * 8))))
    return [(a, min(a + size, games)) for a in range(0, games, size)]


class Runner:
    """Where games are played: in this process (`workers` 1, no `dask`), on `workers` local
    processes, or on the Dask cluster at `dask` (`"local"`: a LocalCluster of `workers` processes,
    started here).  A context manager: the processes or the cluster it started stop at its end, and
    serve every `play` in between."""

    def __init__(self, workers: int = 1, dask: Optional[str] = None):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise OptionError(f"workers must be a whole number, 1 or more, not {workers!r}")
        if dask is not None and not isinstance(dask, str):
            raise OptionError(f"dask is the address of a scheduler (or 'local'), not {dask!r}")
        self.workers, self.dask = workers, dask
        self._pool = self._client = self._cluster = None
        self.deaths = 0

    def __enter__(self) -> "Runner":
        if self.dask is not None:
            self._connect()
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def play(self, game, job: dict, games: int, progress: Optional[Callable[[int], None]] = None) -> list[dict]:
        """Games 0..games-1 of `job` (`{"players", "options", "seed", "bots", "iterations"}`; its
        `rules` are filled in here), their records in order.  `progress(k)`: k more games done."""
        done = progress or (lambda k: None)
        if self.dask is None and self.workers == 1:
            out: list[dict] = []
            for a, b in _chunks(games, 1):
                out += _checked(play_chunk(job, a, b, game))
                done(b - a)
            return out
        job = {**job, "rules": rules_spec(game), "backend": game._backend}
        chunks = _chunks(games, self.workers)
        results = self._on_dask(job, chunks, done) if self.dask is not None else self._on_processes(job, chunks, done)
        return [r for k in range(len(chunks)) for r in results[k]]

    def _on_processes(self, job: dict, chunks: list, done) -> dict[int, list]:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        results: dict[int, list] = {}
        while len(results) < len(chunks):
            if self._pool is None:  # the platform's way: fork on Linux, spawn on macOS and Windows
                self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context())
            futures = {self._pool.submit(play_chunk, job, a, b): k for k, (a, b) in enumerate(chunks) if k not in results}
            try:
                todo = set(futures)
                while todo:
                    finished, todo = wait(todo, return_when=FIRST_COMPLETED)
                    for f in finished:
                        k = futures[f]
                        results[k] = _checked(f.result())
                        done(chunks[k][1] - chunks[k][0])
            except BrokenProcessPool:  # a worker died: keep what came back, play the rest again
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None
                self.deaths += 1
                if self.deaths > MAX_WORKER_DEATHS:
                    raise StateError(f"worker processes died {self.deaths} times; the games they were playing were "
                                     "played again each time, but not once more") from None
                for f, k in futures.items():
                    if k not in results and f.done() and not f.cancelled() and f.exception() is None:
                        results[k] = _checked(f.result())
                        done(chunks[k][1] - chunks[k][0])
        return results

    def _connect(self) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise OptionError("--dask needs Dask's `distributed`: pip install 'fishrules[dask]'") from None
        if self.dask == "local":
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                         dashboard_address=None)
            self._client = Client(self._cluster)
            return
        try:
            self._client = Client(self.dask, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as e:
            raise OptionError(f"cannot reach the Dask scheduler at {self.dask!r}: {e}") from None

    def _on_dask(self, job: dict, chunks: list, done) -> dict[int, list]:
        from distributed import as_completed

        if self._client is None:
            self._connect()
        results: dict[int, list] = {}
        key = f"fishrules-{job['rules']['hash'][:12]}-{job['seed']}-{os.getpid()}-{random.getrandbits(32):08x}"
        futures = {self._client.submit(play_chunk, job, a, b, key=f"{key}-{k}", retries=MAX_WORKER_DEATHS): k
                   for k, (a, b) in enumerate(chunks)}
        try:
            for f in as_completed(list(futures)):
                k = futures[f]
                results[k] = _checked(f.result())
                done(chunks[k][1] - chunks[k][0])
        except FishrulesError:
            raise
        except Exception as e:  # KilledWorker: a chunk that killed workers again and again
            raise StateError(f"the Dask cluster could not play the games: {type(e).__name__}: {str(e)[:200]}") from None
        return results


def play(game, job: dict, games: int, workers: int = 1, dask: Optional[str] = None,
         progress: Optional[Callable[[int], None]] = None) -> list[dict]:
    """`Runner(workers, dask).play(game, job, games, progress)`, for one run."""
    with Runner(workers, dask) as runner:
        return runner.play(game, job, games, progress)


# ---- the summary of `fishrules simulate` --------------------------------------------------------------


def simulate(ruleset: Any, games: int = 1000, players: Optional[int] = None, seed: int = 0,
             options: Optional[Mapping[str, Any]] = None, variant: Optional[str] = None, workers: int = 1,
             dask: Optional[str] = None, progress: Optional[Callable[[int], None]] = None) -> dict:
    """Play `games` random games of `ruleset` (a name, a path, or a loaded `Game`) and return plain
    data: win rate, mean score and spread by seat, game length, and how often each named rule fired.
    The same arguments give the same data, whatever `workers` and `dask` (see `play`)."""
    import statistics

    from . import api

    game = ruleset if isinstance(ruleset, api.Game) else api.load(ruleset, variant)
    if players is None:
        players = game.min_players
    if isinstance(players, bool) or not isinstance(players, int) or not (game.min_players <= players <= game.max_players):
        raise OptionError(f"{game.title} is for {game.min_players} to {game.max_players} players, not {players}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise OptionError(f"games must be a whole number, 1 or more, not {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionError(f"seed must be a whole number, not {seed!r}")
    opts = dict(options or {})
    game._options(opts)
    job = {"players": players, "options": opts, "seed": seed, "bots": "random", "iterations": 0, "quiet": True}
    records = play(game, job, games, workers, dask, progress)
    wins = [0.0] * players
    for r in records:
        for p in r["winners"]:
            wins[p] += 1 / len(r["winners"])
    lengths = [r["actions"] for r in records]

    def spread(xs):
        return statistics.pstdev(xs) if len(xs) > 1 else 0.0

    seats = []
    for p in range(players):
        sc = [r["scores"][p] for r in records]
        seats.append({"seat": p, "win_rate": wins[p] / games, "mean_score": statistics.fmean(sc),
                      "score_spread": spread(sc), "min_score": min(sc), "max_score": max(sc)})
    return {
        "game": game.title, "players": players, "games": games, "seed": seed, "options": opts,
        "seats": seats,
        "length": {"mean_actions": statistics.fmean(lengths), "spread_actions": spread(lengths),
                   "min_actions": min(lengths), "max_actions": max(lengths),
                   "mean_decisions": statistics.fmean(r["decisions"] for r in records)},
        "ties": {"games": sum(1 for r in records if len(r["winners"]) > 1),
                 "rate": sum(1 for r in records if len(r["winners"]) > 1) / games},
        "rules": rule_summary(game, records),
        "empty_draws": empty_summary(records),
        # what played the games (the same results on any): measured, not a result
        "backends": sorted({r.get("backend", "engine") for r in records}),
    }


def empty_summary(records: Sequence[dict]) -> dict:
    """For each zone some draw found empty: in how many games that happened during the set-up
    (before the first decision: a deal that ran out of cards, so some players got fewer), and in
    how many later (often by design: a stack that runs out ends a player's game)."""
    out: dict[str, dict] = {}
    for r in records:
        for name, (early, late) in r.get("empty", {}).items():
            row = out.setdefault(name, {"setup_games": 0, "later_games": 0})
            row["setup_games"] += 1 if early else 0
            row["later_games"] += 1 if late else 0
    return dict(sorted(out.items()))


def rule_summary(game, records: Sequence[dict]) -> dict:
    """For each named rule of `game`: how often it fired per game on average, and in what share of
    the games it fired at least once."""
    n = len(records)
    out = {}
    for name, k in game.program.rules.items():
        counts = [r["fires"][k] for r in records]
        out[name] = {"per_game": round(sum(counts) / n, 4), "games_share": round(sum(1 for c in counts if c) / n, 4)}
    return out

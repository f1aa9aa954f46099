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
returned are played again, by a new process (local processes) or by the cluster (Dask reschedules
the tasks of a worker it lost).  Past `MAX_WORKER_DEATHS` deaths in a run, the run ends with a
`StateError` saying so.

Local processes are a small pool of fishrules' own (`_Pool`), not Python's
`concurrent.futures.ProcessPoolExecutor`: that one reads every worker's results from one shared
pipe, so a worker killed while it sent a large result left half a message there, and the pool
waited for the rest of it for ever.  Here each worker has a pipe of its own for its results, and
sends them in pieces each written whole (at most `PIPE_BUF` bytes: the system writes them at once
or not at all), so a worker that dies leaves no piece half written: what it had sent of a chunk is
thrown away and the chunk played again.  A worker that stops halfway through sending a chunk and
sends nothing more for `SEND_DEADLINE` seconds is killed, and its chunks played again.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import pickle
import re
import random
import shutil
import sys
import tempfile
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional

from .errors import FishrulesError, OptionError, RuleError, StateError

__all__ = ["simulate", "play", "Runner", "rules_spec", "game_of_spec", "play_one", "MAX_WORKER_DEATHS", "MAX_WORKERS",
           "MAX_GAMES"]

log = logging.getLogger("fishrules.simulation")

#: How many times worker processes may die during one run before it gives up (each death reruns
#: the chunks that were lost).
MAX_WORKER_DEATHS = 3
#: The most worker processes (`--workers`) one run starts.
MAX_WORKERS = 256
#: The most games `simulate` plays in one run (it adds them up as they are played, so a run of this
#: many takes no more memory than a run of ten; at 50,000 games a second, 600 years).
MAX_GAMES = 10**15
#: Chunks given out at a time, for each worker: an enormous run starts at once, and stops at once.
IN_FLIGHT = 2
#: Chunks played or in flight, for each worker, that wait for an earlier one (records are handed on
#: in the order of the games): what a run holds at most, however many games it plays.
AHEAD = 8


# ---- the rules, as text -------------------------------------------------------------------------------


def rules_spec(game) -> dict:
    """What a worker needs to load `game`, as plain data: the text of the file asked for and of each
    file it extends that is not a bundled ruleset (by its path relative to the first file's folder),
    the variant, and the SHA-256 of the whole chain (`logs.rules_hash`, bundled bases included)."""
    from .logs import is_bundled, rules_hash, rules_texts

    texts = rules_texts(game)
    top_path, top_text = texts[0]
    folder = top_path.parent if top_path is not None else game._resolved.base_dir  # loads(…, base_dir=…)
    root = Path(os.path.realpath(folder)) if folder is not None else None
    name = top_path.name if top_path is not None else os.path.basename(game.files[-1] if game.files else "")
    files = [(name if _NAME.fullmatch(name) else "rules.fish", top_text)]
    for path, text in texts[1:]:
        if is_bundled(path):
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
            games = random_games(game, n, game._options(job["options"]),
                                 [game_seed_of(job["seed"], i) for i in range(start, stop)])
        else:
            games = (play_one(game, n, job["options"], game_seed_of(job["seed"], i), seat_bots(bots, i, n),
                              job["iterations"], job.get("quiet", False)) for i in range(start, stop))
        out = []
        for record in games:
            if _STOP is not None and _STOP.is_set():  # the run was stopped (Ctrl-C): nobody waits for these
                return []
            out.append(record)
            _maybe_die("playing")
        return out
    except RuleError as e:
        text = e.render()
        for prefix in getattr(game, "_shown_from", ()):
            text = text.replace(prefix, "")
        return [{"error": text, "kind": "rule"}]
    except OptionError as e:  # backend "native" for rules too large for the kernel
        return [{"error": str(e), "kind": "option"}]
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
        if r["kind"] == "rule":
            raise _WorkerRuleError(r["error"])
        raise OptionError(r["error"]) if r["kind"] == "option" else StateError(r["error"])
    return records


# ---- many games: where ---------------------------------------------------------------------------------


#: How long to try reaching a Dask scheduler, and to wait for its answer, before saying it cannot
#: be reached (seconds).
CONNECT_TIMEOUT = 10.0


class _Chunks:
    """Games 0..games-1 in chunks of consecutive games, (first, past the last), each worked out
    when it is asked for: a run of 10**12 games holds no list of two billion chunks."""

    def __init__(self, games: int, workers: int):
        self.games = games
        self.size = max(1, min(500, math.ceil(games / (max(workers, 1) * 8))))

    def __len__(self) -> int:
        return -(-self.games // self.size)

    def __getitem__(self, k: int) -> tuple[int, int]:
        a = k * self.size
        return (a, min(a + self.size, self.games))

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return (self[k] for k in range(len(self)))


class _Order:
    """Which chunk to give out next, and the records of the chunks played handed on in the order of
    the games (chunk k once every chunk before it has been).  A chunk is given out only while fewer
    than `window` are in flight and fewer than `ahead` are in flight or waiting for an earlier one:
    what a run holds is a window of chunks, never the run."""

    def __init__(self, chunks: _Chunks, window: int, ahead: int):
        import heapq

        self._heap = heapq
        self.chunks, self.window, self.ahead = chunks, max(1, window), max(1, window, ahead)
        self.given = 0  # chunks 0..given-1 have been given out
        self.again: list[int] = []  # given out to a worker that died: given out again first
        self.waiting: dict[int, list] = {}  # played, waiting for an earlier chunk
        self.handed = 0  # chunks 0..handed-1 have been handed on
        self.out = 0  # in flight

    def take(self) -> Optional[int]:
        """The next chunk to give out, or None (the window is full, or every chunk is out)."""
        if self.again:  # within the window already when first given out
            self.out += 1
            return self._heap.heappop(self.again)
        if self.out >= self.window or self.out + len(self.waiting) >= self.ahead or self.given >= len(self.chunks):
            return None
        self.out += 1
        self.given += 1
        return self.given - 1

    def lost(self, k: int) -> None:
        self.out -= 1
        self._heap.heappush(self.again, k)

    def back(self, k: int, records: list) -> list:
        """Chunk k played: the records that can be handed on now, in order."""
        self.out -= 1
        self.waiting[k] = records
        ready: list = []
        while self.handed in self.waiting:
            ready += self.waiting.pop(self.handed)
            self.handed += 1
        return ready

    @property
    def finished(self) -> bool:
        return self.handed >= len(self.chunks)


def _chunks(games: int, workers: int) -> _Chunks:
    return _Chunks(games, workers)


#: In a worker process: the event its runner sets to stop it (`play_chunk` looks between games).
_STOP: Any = None
#: Seconds stopped workers have to finish the game they are playing before they are terminated.
STOP_GRACE = 10.0
#: How often (seconds) a worker looks whether the process that started it is still there.
ORPHAN_CHECK = 0.5


def _start_worker(stop) -> None:  # pragma: no cover - runs in each worker process
    """A worker leaves Ctrl-C to the process that started it, which stops it by `stop`."""
    import signal

    global _STOP
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # started with Ctrl-C held back (`_held_back`): it is ignored now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _STOP = stop
    threading.Thread(target=_orphaned, args=(os.getppid(),), name="fishrules-parent-watch", daemon=True).start()


def _orphaned(parent: int) -> None:  # pragma: no cover - runs in each worker process
    """A worker whose parent is gone (killed, with no chance to stop it) ends within a second:
    nobody will ask it for games again, nor wait for the ones it plays."""
    import time

    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK)
    os._exit(1)


class _Deferred:
    """Ctrl-C (and SIGTERM, where the program handles it: the command line) taken when the run
    looks for it (`act`), not wherever the main thread happens to be: an exception raised inside
    the process pool's own code left it half shut, and Python printed a traceback at exit.  In the
    main thread only (elsewhere nothing changes); a signal ignored stays ignored."""

    def __init__(self) -> None:
        self.caught: list[int] = []
        self.old: dict[int, Any] = {}

    def __enter__(self) -> "_Deferred":
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
                if sig is not None and callable(signal.getsignal(sig)):
                    self.old[sig] = signal.signal(sig, lambda signum, frame: self.caught.append(signum))
        return self

    def __exit__(self, *exc) -> None:
        self._restore()

    def _restore(self) -> None:
        import signal

        old, self.old = self.old, {}
        for sig, handler in old.items():
            signal.signal(sig, handler)

    def act(self) -> None:
        """If a signal came: the handler it would have met, now (KeyboardInterrupt for Ctrl-C)."""
        if self.caught:
            sig, handlers = self.caught[0], dict(self.old)
            self._restore()
            handlers[sig](sig, None)


@contextlib.contextmanager
def _held_back() -> Iterator[None]:
    """Ctrl-C held back in this thread while it starts worker processes (a pool starts them as
    chunks are given out): a process started in between inherits it held back, and ignores it from
    its first line on (`_start_worker`), instead of dying of it with a traceback.  This process
    still gets it, at the latest when the block ends."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows: no signals to hold back
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def _starting_a_cluster(caught: list) -> Iterator[None]:
    """While a local Dask cluster starts: Ctrl-C and SIGTERM (where the program handles them: the
    command line) are taken down in `caught`, for the caller to act on once the cluster is up,
    not raised inside Dask's start (which left a worker half started, and Dask printed its
    traceback at exit) nor ignored (then one that came in those seconds was lost, and the run
    went on).  Its processes are started by threads Dask starts in here, which inherit Ctrl-C
    blocked from this one: each process starts with it blocked, and a terminal's Ctrl-C to the
    process group, which would have killed one half started with a traceback, waits in it for
    ever (the cluster is closed by this process).  In the main thread only (elsewhere nothing
    changes)."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    sigs = [s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None]
    blocks = callable(signal.getsignal(signal.SIGINT)) and hasattr(signal, "pthread_sigmask")
    if blocks:
        from multiprocessing import resource_tracker

        # Python starts the tracker of the worker processes' semaphores once, and unblocks Ctrl-C
        # in the thread that starts it: here, not in one of Dask's
        resource_tracker.ensure_running()
    old = {s: signal.signal(s, lambda signum, frame: caught.append(signum))
           for s in sigs if callable(signal.getsignal(s))}
    if blocks:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    elif signal.SIGINT in old:  # pragma: no cover - no signal masks (Windows): ignored, as it was
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if blocks:  # one that waited is taken down now, by the handler above (Python runs it here)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _raise_caught(caught: list) -> None:
    """The handler a signal taken down by `_starting_a_cluster` would have met (KeyboardInterrupt
    for Ctrl-C), now."""
    import signal

    if caught:
        handler = signal.getsignal(caught[0])
        if callable(handler):
            handler(caught[0], None)


#: A piece of a chunk's results: at most this many bytes, so that with its 4-byte length and its
#: 1-byte mark it is written to a pipe at once or not at all (POSIX's PIPE_BUF: 4096 on Linux, 512
#: on macOS; a Windows pipe writes a message whole).
_PIECE = max(64, getattr(__import__("select"), "PIPE_BUF", 4096) - 5)
#: Seconds a worker may leave a chunk's results half sent (the run waiting for the rest) before it
#: is taken for hung, killed, and its chunks played again.
SEND_DEADLINE = 60.0
#: For tests: `(stage, marker)` makes a worker kill itself (SIGKILL) when it reaches `stage`: "start"
#: (before it reads anything), "job" (a job read), "chunk" (a chunk read, not begun), "playing" (a
#: game of it played), "sending" (part of its results sent), "torn" (part of one piece of them
#: written, as a write that is not atomic would leave it), "sent" (all of them sent); or stop
#: there for ever at "hang" (part of its results sent).  Only the first worker that reaches it, if
#: `marker` is a file name (made then); every one, if None.  Read
#: when a worker starts; in the worker, `_dying`.
_DIE_AT: Optional[tuple] = None
_dying: Optional[tuple] = None


def _maybe_die(stage: str, results: Any = None) -> None:
    if _dying is None or _dying[0] != stage:
        return
    marker = _dying[1]
    if marker is not None:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
    if stage == "hang":
        time.sleep(3600)
    if stage == "torn" and results is not None:  # a piece's length, and less than that of it
        import struct

        os.write(results.fileno(), struct.pack("!i", _PIECE) + b"\x80" * (_PIECE // 3))
    import signal

    os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))


def _serve(jobs, results, stop, die_at, inherited: list) -> None:  # pragma: no cover - runs in each worker
    """A worker: reads a job (`("job", job)`), then chunks of it (`("chunk", k, first, past)`),
    and sends each chunk's records back in pieces (`_send`), until it reads None or its pipe ends."""
    global _dying
    _dying = die_at
    for conn in inherited:
        conn.close()
    _start_worker(stop)
    _maybe_die("start")
    job = None
    try:
        while True:
            message = jobs.recv()
            if message is None:
                return
            if message[0] == "job":
                job = message[1]
                _maybe_die("job")
                continue
            _, k, a, b = message
            _maybe_die("chunk")
            _send(results, (k, play_chunk(job, a, b)))
            _maybe_die("sent")
    except (EOFError, OSError):  # the runner closed the pipes: stopped, or gone
        return


def _send(results, value) -> None:  # pragma: no cover - runs in each worker process
    """`value`, pickled, in pieces of at most `_PIECE` bytes, each marked `+` (more follow) or `.`."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    n = len(data)
    for at in range(0, max(n, 1), _PIECE):
        last = at + _PIECE >= n
        if at and _dying is not None:
            _maybe_die("sending")
            _maybe_die("hang")
            if last:
                _maybe_die("torn", results)
        results.send_bytes((b"." if last else b"+") + data[at:at + _PIECE])


class _Worker:
    """One worker process of a `_Pool`, and its two pipes: jobs and chunks go out on one, its
    results come back on the other, which nobody but it writes (so its death ends that pipe)."""

    def __init__(self, ctx, stop, number: int, others: list["_Worker"]):
        jobs_in, self.jobs = ctx.Pipe(duplex=False)
        self.results, results_out = ctx.Pipe(duplex=False)
        # A forked worker closes its copies of this side's ends of its own pipes and of the other
        # workers': else it would never see the end of its jobs, nor a worker started before it
        # until it had ended
        inherited = [conn for w in others for conn in (w.jobs, w.results)] + [self.jobs, self.results] \
            if ctx.get_start_method() == "fork" else []
        self.process = ctx.Process(target=_serve, args=(jobs_in, results_out, stop, _DIE_AT, inherited),
                                   name=f"fishrules-worker-{number}", daemon=True)
        with _held_back():
            self.process.start()
        # The worker's own ends, closed here: a worker that dies leaves no writer of its results
        # (the reader sees the end of the pipe, never waits for the rest of a piece)
        jobs_in.close()
        results_out.close()
        self.job: Any = None  # the job it has been sent
        self.chunks: list[int] = []  # the chunks given to it, in order, not yet sent back
        self.pieces: list[bytes] = []  # the part of the first of them received so far
        self.waited = 0.0  # seconds waited since the last piece, while a chunk is half received
        self.dead = False

    def give(self, job_id: int, job: dict, k: int, a: int, b: int) -> None:
        if self.job != job_id:
            self.jobs.send(("job", job))
            self.job = job_id
        self.jobs.send(("chunk", k, a, b))
        self.chunks.append(k)

    def take(self) -> list[tuple[int, list]]:
        """The chunks whose results have come back whole since the last look, as (k, records).
        Reads only what is there: a piece is written whole, so none is read half.  A pipe that
        ends inside a piece (a worker killed while writing one, where writes are not whole) is
        the worker's death (`dead`)."""
        out = []
        while True:
            try:
                if not self.results.poll():
                    break
                piece = self.results.recv_bytes()
            except (EOFError, OSError):
                self.dead = True
                break
            self.waited = 0.0
            self.pieces.append(piece[1:])
            if piece[:1] == b".":
                k, records = pickle.loads(b"".join(self.pieces))
                self.pieces = []
                if not self.chunks or self.chunks[0] != k:  # pragma: no cover - a bug, not a death
                    raise RuntimeError(f"a worker sent chunk {k}, not the one it was given first")
                self.chunks.pop(0)
                out.append((k, records))
        return out

    def close(self) -> None:
        for conn in (self.jobs, self.results):
            try:
                conn.close()
            except OSError:  # pragma: no cover
                pass


class _Pool:
    """`workers` local worker processes (`_Worker`), started as they are needed and again when one
    dies; `stop` is the event that tells them to stop between two games."""

    def __init__(self, workers: int):
        import multiprocessing

        self.ctx = multiprocessing.get_context()  # the platform's way: fork on Linux, spawn on macOS and Windows
        self.size = workers
        self.stop = self.ctx.Event()
        self.workers: list[_Worker] = []
        self.started = 0
        self.job_id = 0

    def fill(self, wanted: int) -> None:
        """Worker processes up to `wanted` (at most the pool's size)."""
        while len(self.workers) < min(self.size, wanted):
            self.workers.append(_Worker(self.ctx, self.stop, self.started, self.workers))
            self.started += 1

    def replace(self, dead: _Worker) -> None:
        dead.close()
        dead.process.join(5)
        self.workers.remove(dead)

    @property
    def busy(self) -> bool:
        return any(w.chunks for w in self.workers)

    def close(self) -> None:
        """The workers are idle: each is told to end, and waited for."""
        for w in self.workers:
            try:
                w.jobs.send(None)
            except OSError:
                pass
        self._end(grace=5.0)

    def halt(self) -> None:
        """Ctrl-C, or an error: the workers stop now, not after the chunks they are playing.  Each
        returns after the game it is playing; one that has not within `STOP_GRACE` (or at once, at
        a second Ctrl-C) is terminated."""
        self.stop.set()
        self._end(grace=STOP_GRACE)

    def _end(self, grace: float) -> None:
        workers, self.workers = self.workers, []
        for w in workers:  # a worker sending results finds no reader now, and ends
            w.close()
        end = time.monotonic() + grace
        try:
            for w in workers:
                w.process.join(max(0.0, end - time.monotonic()))
        finally:  # also when a second Ctrl-C cuts the wait short
            stubborn = [w.process for w in workers if w.process.is_alive()]
            for proc in stubborn:
                proc.terminate()
            for proc in stubborn:
                proc.join(2)
                if proc.is_alive():  # pragma: no cover - a process that ignores SIGTERM
                    proc.kill()
                    proc.join(2)


def _death(proc) -> str:
    """How a worker process ended, in words."""
    code = proc.exitcode
    if code is None:  # pragma: no cover - only asked of a process that has ended
        return "still running"
    if code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"ended with status {code}"


#: What `--dask` may be: "local", or a scheduler's address, tcp:// (the default) or tls://.
_DASK = re.compile(r"(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]{2,45}\]|(?=[^:]{1,253}:)[A-Za-z0-9_-]{1,63}(?:\.[A-Za-z0-9_-]{1,63})*)"
                   r":([0-9]{1,5})")


def _dask_address(dask: Any) -> Optional[str]:
    """`dask` checked: None, "local", or a scheduler's address tcp://HOST:PORT or tls://HOST:PORT
    (`tcp://` is the default); anything else is an OptionError."""
    if dask is None or dask == "local":
        return dask
    if not isinstance(dask, str):
        raise OptionError(f"dask is the address of a scheduler (or 'local'), not {type(dask).__name__}")
    m = _DASK.fullmatch(dask)
    if m is None or not 1 <= int(m.group(1)) <= 65535:
        shown = dask if len(dask) <= 60 else dask[:57] + "…"
        raise OptionError(f"{shown!r} is not the address of a Dask scheduler: write tcp://HOST:PORT "
                          "(as `dask scheduler` prints it), or `local`")
    return dask if "://" in dask else "tcp://" + dask


def _reach(address: str, seconds: float) -> None:
    """Open a connection to the Dask scheduler at `address` and close it, within `seconds` in all.
    Dask bounds the time to connect but not its wait for the other end's first message: a web server,
    or anything else that waits for the client to speak, held `Client(...)` until that end gave up.
    Raises OptionError saying what went wrong."""
    import asyncio
    import threading

    from distributed.comm import connect

    outcome: list = []

    async def attempt() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=seconds), seconds)
        await comm.close()

    def run() -> None:
        try:
            asyncio.run(attempt())
            outcome.append(None)
        except BaseException as e:  # noqa: BLE001 - said below, in the caller's thread
            outcome.append(e)

    # its own thread and event loop: the caller may be running one (a notebook)
    thread = threading.Thread(target=run, name="fishrules-dask-probe", daemon=True)
    thread.start()
    thread.join(seconds + 5)
    e = outcome[0] if outcome else TimeoutError()
    if e is None:
        return
    if isinstance(e, TimeoutError):
        said = f"no answer within {seconds:g} s (is a Dask scheduler listening there?)"
    elif isinstance(e, OSError):  # Dask's own "Timed out trying to connect to … after 10 s"
        said = (e.strerror or str(e)).splitlines()[0][:200] if (e.strerror or str(e)) else "it cannot be reached"
    else:  # a web server's bytes read as a message's length made Dask try to allocate exabytes
        said = "what answers there does not speak as a Dask scheduler does"
    raise OptionError(f"cannot reach the Dask scheduler at {address!r}: {said}")


class Runner:
    """Where games are played: in this process (`workers` 1, no `dask`), on `workers` local
    processes, or on the Dask cluster at `dask` (`"local"`: a LocalCluster of `workers` processes,
    started here).  A context manager: the processes or the cluster it started stop at its end (at
    once, if it ends with an error or Ctrl-C), and serve every `play` in between."""

    def __init__(self, workers: int = 1, dask: Optional[str] = None):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise OptionError(f"workers must be a whole number, 1 or more, not {str(workers)[:40]!r}")
        if workers > MAX_WORKERS:
            raise OptionError(f"workers must be 1 to {MAX_WORKERS}, not {workers:,}")
        self.workers, self.dask = workers, _dask_address(dask)
        self._pool: Optional[_Pool] = None
        self._client: Any = None
        self._cluster: Any = None
        self.deaths = 0

    def __enter__(self) -> "Runner":
        if self.dask is not None:
            self._connect()
        return self

    def __exit__(self, exc_type, *exc) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            if exc_type is None and not pool.busy:
                pool.close()
            else:  # Ctrl-C, or an error: the workers stop now, not after the chunks they are playing
                pool.halt()
        client, self._client = self._client, None
        cluster, self._cluster = self._cluster, None
        # At Ctrl-C or SIGTERM on a loaded machine a worker can still be closing when distributed
        # asserts that all are closed: its processes end by themselves once orphaned (tested), and
        # what the user hears is what stopped the run, so each close is tried on its own
        for what in (client, cluster):
            if what is None:
                continue
            try:
                what.close()
            except Exception:  # noqa: BLE001 - see above
                log.debug("the Dask %s did not close cleanly", type(what).__name__, exc_info=True)
        if cluster is not None:
            # else distributed's exit hook closes it again and prints that assertion's traceback
            # after fishrules' own one line (seen in CI, once)
            cluster.shutdown_on_close = False

    def play(self, game, job: dict, games: int, progress: Optional[Callable[[int], None]] = None) -> list[dict]:
        """Games 0..games-1 of `job` (`{"players", "options", "seed", "bots", "iterations"}`; its
        `rules` are filled in here), their records in order.  `progress(k)`: k more games done."""
        return list(self.each(game, job, games, progress))

    def each(self, game, job: dict, games: int, progress: Optional[Callable[[int], None]] = None) -> Iterator[dict]:
        """`play`, one record at a time, in order, as the games are played: a run holds a window of
        chunks of games (`AHEAD` for each worker), not every record, so a run of a billion games
        takes no more memory than a run of a thousand."""
        done = progress or (lambda k: None)
        if self.dask is None and self.workers == 1:
            for a, b in _chunks(games, 1):
                records = _checked(play_chunk(job, a, b, game))
                done(b - a)
                yield from records
            return
        job = {**job, "rules": rules_spec(game), "backend": game._backend}
        chunks = _chunks(games, self.workers)
        if self.dask is not None:
            yield from self._on_dask(job, chunks, done)
        else:
            yield from self._on_processes(job, chunks, done)

    def _on_processes(self, job: dict, chunks: _Chunks, done) -> Iterator[dict]:
        from multiprocessing.connection import wait

        order = _Order(chunks, self.workers * IN_FLIGHT, self.workers * AHEAD)
        if self._pool is None:
            self._pool = _Pool(self.workers)
        pool = self._pool
        pool.job_id += 1
        finished = False
        try:
            with _Deferred() as signals:
                while not order.finished:
                    self._give_out(pool, order, job, chunks)
                    signals.act()  # Ctrl-C here, between two looks
                    busy = [w for w in pool.workers if w.chunks]
                    if not busy:  # pragma: no cover - a chunk not played and none in flight: a bug
                        raise RuntimeError("no chunk of games in flight, and some not played")
                    looked = time.monotonic()
                    wait([w.results for w in busy] + [w.process.sentinel for w in busy], timeout=0.2)
                    waited = time.monotonic() - looked
                    for w in busy:
                        alive = w.process.is_alive()  # before reading: all a dead worker sent is read now
                        came = w.take()
                        for k, records in came:
                            records = _checked(records)
                            done(chunks[k][1] - chunks[k][0])
                            yield from order.back(k, records)
                        if w.pieces and not came:
                            w.waited += waited
                        if not alive or w.waited > SEND_DEADLINE:
                            w.dead = True
                    for w in [w for w in busy if w.dead]:
                        self._lost(pool, w, order, chunks)
                finished = True
        finally:
            if not finished or pool.busy:  # stopped halfway (an error, Ctrl-C, a caller that stopped
                # reading): chunks still in flight would come back to the next run
                self._pool = None
                pool.halt()

    def _give_out(self, pool: _Pool, order: _Order, job: dict, chunks: _Chunks) -> None:
        """Chunks to the workers with fewest in hand, up to `IN_FLIGHT` each, starting workers as
        they are needed (no more than there are chunks)."""
        pool.fill(len(chunks))
        while True:
            w = min(pool.workers, key=lambda w: len(w.chunks))
            if len(w.chunks) >= IN_FLIGHT:
                return
            k = order.take()
            if k is None:
                return
            a, b = chunks[k]
            try:
                w.give(pool.job_id, job, k, a, b)
            except OSError:  # it died before it could be given the chunk: played by another
                w.chunks.append(k)
                w.dead = True
                self._lost(pool, w, order, chunks)
                pool.fill(len(chunks))

    def _lost(self, pool: _Pool, w: _Worker, order: _Order, chunks: _Chunks) -> None:
        """A worker died: its chunks are played again, by the others and a new one in its place."""
        hung = w.waited > SEND_DEADLINE
        if hung:  # halfway through sending for `SEND_DEADLINE`: stopped now
            w.process.kill()
        w.process.join(5)  # (one whose pipe ended inside a piece is dying: a moment)
        if w.process.is_alive():  # pragma: no cover - its pipe ended, and it lives on
            w.process.kill()
            w.process.join(5)
        how = f"stopped after sending nothing for {SEND_DEADLINE:g} s" if hung else _death(w.process)
        lost = list(w.chunks)
        pool.replace(w)
        self.deaths += 1
        for k in lost:
            order.lost(k)
        if self.deaths > MAX_WORKER_DEATHS:
            first, past = chunks[min(lost)] if lost else (0, 0)
            where = f" (the last, {how}, while playing games {first} to {past - 1})" if lost else f" (the last {how})"
            raise StateError(f"worker processes died {self.deaths} times{where}; the games they were playing were "
                              "played again each time, but not once more")

    def _connect(self) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise OptionError("--dask needs Dask's `distributed`: pip install 'fishrules[dask]'") from None
        if self.dask == "local":
            caught: list[int] = []
            try:
                with _starting_a_cluster(caught):
                    # its workers' warnings and errors (a task cancelled at Ctrl-C; a heartbeat that
                    # met the scheduler already closed, logged as an ERROR with a traceback) are not
                    # fishrules' to print: what goes wrong with the games is said by fishrules, in one line
                    # (no dashboard; its HTTP server, which it starts anyway, on a free port: on
                    # Dask's 8787, a second cluster on the machine printed Dask's warning that the
                    # port is in use)
                    self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                                 dashboard_address=None, silence_logs=logging.CRITICAL,
                                                 scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
                    self._client = Client(self._cluster)
                _raise_caught(caught)  # Ctrl-C or SIGTERM while it started: now, as at any other moment
            except BaseException:  # the cluster, or what of it had started, is closed with it
                self.__exit__(*sys.exc_info())
                raise
            return
        assert self.dask is not None
        _reach(self.dask, CONNECT_TIMEOUT)
        try:
            self._client = Client(self.dask, timeout=f"{CONNECT_TIMEOUT:g}s")
        except Exception as e:  # noqa: BLE001 - it answered a moment ago: whatever it is now, it is no
            # scheduler fishrules can use
            said = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
            raise OptionError(f"cannot reach the Dask scheduler at {self.dask!r}: {said}") from None

    def _on_dask(self, job: dict, chunks: _Chunks, done) -> Iterator[dict]:
        from distributed import as_completed

        if self._client is None:
            self._connect()
        key = f"fishrules-{job['rules']['hash'][:12]}-{job['seed']}-{os.getpid()}-{random.getrandbits(32):08x}"
        size = max(self.workers, len(self._client.scheduler_info().get("workers", {})) or 1)
        order = _Order(chunks, size * IN_FLIGHT, size * AHEAD)
        futures: dict = {}
        flow = as_completed()

        def give_out() -> None:
            k = order.take()
            while k is not None:
                a, b = chunks[k]
                f = self._client.submit(play_chunk, job, a, b, key=f"{key}-{k}", retries=MAX_WORKER_DEATHS)
                futures[f] = k
                flow.add(f)
                k = order.take()

        try:
            give_out()
            for f in flow:
                records = _checked(f.result())
                k = futures.pop(f)
                done(chunks[k][1] - chunks[k][0])
                yield from order.back(k, records)
                give_out()
        except (FishrulesError, GeneratorExit):
            self._client.cancel(list(futures))
            raise
        except BaseException as e:  # Ctrl-C: the cluster forgets the games still to play
            if self._cluster is None:  # one of our own is closed with its games, at once
                self._client.cancel(list(futures))
            if not isinstance(e, Exception):
                raise
            # KilledWorker: a chunk that killed workers again and again
            raise StateError(f"the Dask cluster could not play the games: {type(e).__name__}: {str(e)[:200]}") from None


def play(game, job: dict, games: int, workers: int = 1, dask: Optional[str] = None,
         progress: Optional[Callable[[int], None]] = None) -> list[dict]:
    """`Runner(workers, dask).play(game, job, games, progress)`, for one run."""
    with Runner(workers, dask) as runner:
        return runner.play(game, job, games, progress)


# ---- the summary of `fishrules simulate` --------------------------------------------------------------


def _sqrt_of_fraction(n: int, m: int) -> float:
    """The square root of n/m, correctly rounded: what `statistics.pstdev` gives of a variance n/m."""
    q = (n.bit_length() - m.bit_length() - 109) // 2  # 2 * 53 + 3 bits: enough to round once
    if q >= 0:
        m <<= 2 * q
    else:
        n <<= -2 * q
    a = math.isqrt(n // m)
    a |= a * a * m != n  # rounded to odd: the last bit says whether it was exact
    return (a << q) / 1 if q >= 0 else a / (1 << -q)


class _Numbers:
    """Many numbers, kept as their count, exact sum and sum of squares, least and most: their mean as
    `statistics.fmean` gives it and their spread as `statistics.pstdev` does, to the last bit,
    whatever their order and however many they are."""

    __slots__ = ("n", "sum", "squares", "least", "most")

    def __init__(self) -> None:
        self.n, self.sum, self.squares = 0, 0, 0
        self.least: Any = None
        self.most: Any = None

    def add(self, x: Any) -> None:
        exact = x if type(x) is int else Fraction(x)  # a float, summed exactly as statistics does
        self.n += 1
        self.sum += exact
        self.squares += exact * exact
        if self.n == 1:
            self.least = self.most = x
        elif x < self.least:
            self.least = x
        elif x > self.most:
            self.most = x

    def mean(self) -> float:
        return float(self.sum) / self.n

    def spread(self) -> float:
        if self.n < 2:
            return 0.0
        variance = Fraction(self.n * self.squares - self.sum * self.sum, self.n * self.n)
        return _sqrt_of_fraction(variance.numerator, variance.denominator)


class _Summary:
    """What `simulate` reports, added up one record at a time (in the order of the games)."""

    def __init__(self, game, players: int):
        self.rules = list(game.program.rules.items())
        self.wins = [0.0] * players
        self.scores = [_Numbers() for _ in range(players)]
        self.lengths, self.decisions = _Numbers(), _Numbers()
        self.ties = 0
        self.fired = [[0, 0] for _ in self.rules]  # times fired, games it fired in
        self.empty: dict[str, dict] = {}
        self.backends: set = set()

    def add(self, r: dict) -> None:
        w = r["winners"]
        for p in w:
            self.wins[p] += 1 / len(w)
        self.ties += len(w) > 1
        for numbers, x in zip(self.scores, r["scores"]):
            numbers.add(x)
        self.lengths.add(r["actions"])
        self.decisions.add(r["decisions"])
        for (name, k), counts in zip(self.rules, self.fired):
            c = r["fires"][k]
            counts[0] += c
            counts[1] += 1 if c else 0
        for name, (early, late) in r.get("empty", {}).items():
            row = self.empty.setdefault(name, {"setup_games": 0, "later_games": 0})
            row["setup_games"] += 1 if early else 0
            row["later_games"] += 1 if late else 0
        self.backends.add(r.get("backend", "engine"))


def simulate(ruleset: Any, games: int = 1000, players: Optional[int] = None, seed: int = 0,
             options: Optional[Mapping[str, Any]] = None, variant: Optional[str] = None, workers: int = 1,
             dask: Optional[str] = None, progress: Optional[Callable[[int], None]] = None) -> dict:
    """Play `games` random games of `ruleset` (a name, a path, or a loaded `Game`) and return plain
    data: win rate, mean score and spread by seat, game length, and how often each named rule fired.
    The same arguments give the same data, whatever `workers` and `dask` (see `play`).  The summary
    is added up as the games are played: memory does not grow with `games`."""
    from . import api

    game = ruleset if isinstance(ruleset, api.Game) else api.load(ruleset, variant)
    if players is None:
        players = game.min_players
    if isinstance(players, bool) or not isinstance(players, int) or not (game.min_players <= players <= game.max_players):
        raise OptionError(f"{game.title} is for {game.min_players} to {game.max_players} players, not {players}")
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        shown = f"{games:,}" if isinstance(games, int) and len(str(games)) <= 40 else repr(str(games)[:40])
        raise OptionError(f"games must be a whole number from 1 to {MAX_GAMES:,}, not {shown}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionError(f"seed must be a whole number, not {str(seed)[:40]!r}")
    opts = dict(options or {})
    game._options(opts)
    job = {"players": players, "options": opts, "seed": seed, "bots": "random", "iterations": 0, "quiet": True}
    total = _Summary(game, players)
    with Runner(workers, dask) as runner:
        for record in runner.each(game, job, games, progress):
            total.add(record)
    seats = []
    for p, sc in enumerate(total.scores):
        seats.append({"seat": p, "win_rate": total.wins[p] / games, "mean_score": sc.mean(),
                      "score_spread": sc.spread(), "min_score": sc.least, "max_score": sc.most})
    ln = total.lengths
    return {
        "game": game.title, "players": players, "games": games, "seed": seed, "options": opts,
        "seats": seats,
        "length": {"mean_actions": ln.mean(), "spread_actions": ln.spread(), "min_actions": ln.least,
                   "max_actions": ln.most, "mean_decisions": total.decisions.mean()},
        "ties": {"games": total.ties, "rate": total.ties / games},
        "rules": {name: {"per_game": round(fired / games, 4), "games_share": round(some / games, 4)}
                  for (name, _), (fired, some) in zip(total.rules, total.fired)},
        "empty_draws": dict(sorted(total.empty.items())),
        # what played the games (the same results on any): measured, not a result
        "backends": sorted(total.backends),
    }

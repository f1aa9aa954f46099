"""Rule work off the event loop: lanes of worker processes for `fishrules serve`.

Everything whose cost a rule text decides — reading and checking a pasted rule, loading it,
setting up a game, applying a step, drawing a seat's view from the rules, a bot's choice, a
kernel's compile — runs in a worker process, never on the event loop, which does I/O, dispatch
and drawing only.  A stranger's rule can then only ever cost the worker it runs in, for at most its
job's limits:

- **CPU time**: each job has a budget of CPU seconds, counted by the worker itself
  (`ITIMER_PROF`); past it the job ends with `Limit` and the worker starts afresh.
- **Wall time**: a job that has not answered after its deadline (its CPU budget three times over,
  plus a little) has its worker killed (SIGKILL) and replaced — unless the worker is waiting for a
  core and has used less than its budget: a low-priority lane on a busy machine is starved, not
  stuck, and its job gets more time, up to `MOST_WAIT` (past it: `Limit("busy")`).
- **Memory**: a worker's address space is bounded (`RLIMIT_AS`); a job that runs out ends with
  `Limit` and the worker starts afresh.

Workers are grouped in `Lane`s of the same priority: the server's own rulesets play in one lane,
pasted house rules in another at the lowest CPU priority (`nice`), so that a house rule's work can
only take the CPU nobody else wants, and compiles in a lane of one.  A lane's jobs wait in one
queue, first come first served, with one exception: a job may prefer a worker (the one that holds
its table's position), and waits for it while that worker is at work on something short.

Workers are forked from a server process (multiprocessing's `forkserver`) that has imported
fishrules and read the bundled rulesets once, so a new worker is ready in milliseconds and a job
never waits for an import.  What a job runs is a function of `fishrules.web.work`, named in the
job; arguments and results cross as pickles between the server and its own children only.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import multiprocessing
import os
import resource
import signal
import time
import traceback
from typing import Any, Optional

__all__ = ["Lane", "Limit", "Miss", "JobFailed"]

log = logging.getLogger("fishrules.web")

#: A worker's address space: what it has after importing fishrules, plus this much.
MEMORY_HEADROOM = 1 << 30
#: Seconds a job of a starved worker (runnable, under its CPU budget) may take in all.
MOST_WAIT = 60.0
#: How long a job waits for the worker it prefers while that worker is busy, in seconds.
PREFERENCE_WAIT = 0.03
_PRELOAD = ["fishrules.web.preload"]
_ctx: Any = None


class Limit(Exception):
    """A job passed one of its limits (`what`: "time", "memory"), waited for a core past
    `MOST_WAIT` ("busy"), was cancelled ("cancelled"), or its worker died ("crashed").  Nothing it did is kept."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


class Miss(Exception):
    """Raised by a job (in the worker) that needs something the worker does not hold: `what` says
    which ("rules", "position"); the caller sends it again with that thing."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


class JobFailed(Exception):
    """A job raised something that is not the library's own error: a bug, logged by the worker."""


class _OverTime(BaseException):
    """Raised inside a worker when a job passes its CPU budget (a BaseException: rule code that
    catches Exception does not swallow it)."""


def _over_time(signum: int, frame: Any) -> None:
    raise _OverTime()


def _context() -> Any:
    global _ctx
    if _ctx is None:
        if "forkserver" in multiprocessing.get_all_start_methods():
            _ctx = multiprocessing.get_context("forkserver")
            _ctx.set_forkserver_preload(_PRELOAD)
        else:  # pragma: no cover - platforms without fork
            _ctx = multiprocessing.get_context("spawn")
    return _ctx


def _worker_main(conn: Any, nice: int, headroom: int, module: str) -> None:
    """A worker: take a job, run it under its CPU budget, answer; start afresh after a limit."""
    import importlib

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops its workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if nice:
        os.nice(nice)
    if nice >= 19 and hasattr(os, "sched_setscheduler"):
        # Linux's SCHED_IDLE: run only on a core nobody else wants, and give it up at once when
        # anybody else wakes (with nice 19 alone, a busy worker still held a core a few ms after
        # the server's own workers woke: 200 tables' p50 rose from 7 to 17 ms under a stranger)
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:  # pragma: no cover - refused: nice 19 it is
            pass
    from ..errors import FishrulesError

    jobs = importlib.import_module(module)

    try:
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (size + headroom, size + headroom))
    except (OSError, ValueError):  # pragma: no cover - no /proc: the deadline still holds
        pass
    signal.signal(signal.SIGPROF, _over_time)
    while True:
        try:
            job_id, fn, args, cpu = conn.recv()
        except (EOFError, OSError):
            return
        fresh = False
        try:
            signal.setitimer(signal.ITIMER_PROF, cpu)
            try:
                reply: tuple = ("ok", getattr(jobs, fn)(*args))
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
        except _OverTime:
            reply, fresh = ("limit", "time"), True
        except MemoryError:
            reply, fresh = ("limit", "memory"), True
        except Miss as m:
            reply = ("miss", m.what)
        except FishrulesError as e:  # the library's own error: the visitor is told
            reply = ("error", e)
        except RecursionError:
            reply, fresh = ("limit", "memory"), True
        except Exception:
            reply = ("bug", traceback.format_exc(limit=-8)[-4000:])
        spent = time.process_time()  # the next job's CPU is counted from here (`Lane._overdue`)
        try:
            conn.send((job_id,) + reply + (spent,))
        except Exception:  # an error that cannot be pickled: its words still can
            err = reply[1]
            conn.send((job_id, "error", _plain_error(err), spent) if reply[0] == "error"
                      else (job_id, "bug", f"could not send the answer of {fn}", spent))
        if fresh:  # what a job cut short left behind (half-built caches) goes with the process
            return


def _plain_error(e: BaseException) -> Exception:
    """An error that could not be sent as it was, as one of the same family with its words."""
    from ..errors import FishrulesError, OptionError, StateError

    return (type(e) if type(e) in (OptionError, StateError) else FishrulesError)(str(e))


class _Job:
    __slots__ = ("id", "fn", "args", "cpu", "wall", "prefer", "future", "since", "key")

    def __init__(self, fn: str, args: tuple, cpu: float, wall: float, prefer: Optional[tuple], key: Any):
        self.id = next(_ids)
        self.fn = fn
        self.args = args
        self.cpu = cpu
        self.wall = wall
        self.prefer = prefer
        self.key = key
        self.future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.since = time.monotonic()


_ids = itertools.count(1)


class _Worker:
    __slots__ = ("slot", "gen", "proc", "conn", "job", "started", "timer", "spent")

    def __init__(self, slot: int, gen: int, proc: Any, conn: Any):
        self.slot = slot
        self.gen = gen
        self.proc = proc
        self.conn = conn
        self.job: Optional[_Job] = None
        self.started = 0.0
        self.timer: Optional[asyncio.TimerHandle] = None
        self.spent = 0.0  # its CPU seconds when it answered its last job

    @property
    def home(self) -> tuple:
        """What a job names to prefer this worker: its slot and generation (a replaced worker
        holds nothing of the one before)."""
        return (self.slot, self.gen)


class Lane:
    """`size` worker processes at CPU priority `nice`; `run` a job in one of them.  A job names a
    function of `module` (fishrules.web.work: only the server's code names what runs)."""

    def __init__(self, name: str, size: int, nice: int = 0, headroom: int = MEMORY_HEADROOM,
                 module: str = "fishrules.web.work"):
        self.name = name
        self.size = max(1, size)
        self.nice = nice
        self.headroom = headroom
        self.module = module
        self.jobs = 0  # jobs given to workers (tests, the benchmark)
        self._workers: list[Optional[_Worker]] = [None] * self.size
        self._gens = itertools.count(1)
        self._queue: collections.deque[_Job] = collections.deque()
        self._closed = False
        self._pump_timer: Optional[asyncio.TimerHandle] = None
        self.started = 0  # processes started, replacements included (tests, the benchmark)

    # ---- processes ---------------------------------------------------------------------------

    async def open(self) -> None:
        """Start every worker (the first start of the fork server, which reads fishrules and the
        bundled rulesets, is done in a thread: the loop goes on meanwhile)."""
        await asyncio.get_running_loop().run_in_executor(None, self._start_all)
        self._attach()

    def _start_all(self) -> None:
        for slot in range(self.size):
            if self._workers[slot] is None:
                self._workers[slot] = self._spawn(slot, attach=False)

    def _spawn(self, slot: int, attach: bool = True) -> _Worker:
        ctx = _context()
        ours, theirs = ctx.Pipe(duplex=True)
        proc = ctx.Process(target=_worker_main, args=(theirs, self.nice, self.headroom, self.module),
                           name=f"fishrules-{self.name}-{slot}", daemon=True)
        proc.start()
        theirs.close()
        self.started += 1
        w = _Worker(slot, next(self._gens), proc, ours)
        if attach:
            asyncio.get_running_loop().add_reader(ours.fileno(), self._readable, w)
        return w

    def _attach(self) -> None:
        loop = asyncio.get_running_loop()
        for w in self._workers:
            if w is not None:
                loop.add_reader(w.conn.fileno(), self._readable, w)

    def _replace(self, w: _Worker) -> None:
        """Let worker `w` go (killed if it still runs) and start another in its slot."""
        loop = asyncio.get_running_loop()
        with _quiet():
            loop.remove_reader(w.conn.fileno())
        if w.timer is not None:
            w.timer.cancel()
        if w.proc.is_alive():
            with _quiet():
                os.kill(w.proc.pid, signal.SIGKILL)
        with _quiet():
            w.conn.close()
        loop.run_in_executor(None, w.proc.join, 5)  # reaped in a thread: never waited for here
        if self._workers[w.slot] is w:
            self._workers[w.slot] = None if self._closed else self._spawn(w.slot)
        self._pump()

    def close(self) -> None:
        self._closed = True
        for job in self._queue:
            if not job.future.done():
                job.future.set_exception(Limit("cancelled"))
        self._queue.clear()
        for slot, w in enumerate(self._workers):
            if w is None:
                continue
            try:
                asyncio.get_running_loop().remove_reader(w.conn.fileno())
            except (RuntimeError, ValueError, OSError):
                pass
            with _quiet():
                w.conn.close()
            if w.proc.is_alive():
                with _quiet():
                    os.kill(w.proc.pid, signal.SIGKILL)
            w.proc.join(5)
            if w.job is not None and not w.job.future.done():
                w.job.future.set_exception(Limit("cancelled"))
            self._workers[slot] = None

    # ---- jobs --------------------------------------------------------------------------------

    async def run(self, fn: str, *args: Any, cpu: float, prefer: Optional[tuple] = None, key: Any = None,
                  wall: Optional[float] = None) -> tuple[Any, tuple]:
        """Run `work.fn(*args)` in a worker under `cpu` seconds of CPU: (its value, the worker's
        `home`).  Raises the job's `FishrulesError`, `Miss`, `Limit`, or `JobFailed`."""
        if self._closed:
            raise Limit("cancelled")
        job = _Job(fn, args, cpu, wall if wall is not None else cpu * 3 + 2, prefer, key)
        self._queue.append(job)
        self._pump()
        try:
            return await job.future
        except asyncio.CancelledError:
            self.cancel(job)
            raise

    def cancel_key(self, key: Any) -> int:
        """Cancel every job run with `key` (waiting or at work): how many."""
        found = [j for j in self._queue if j.key == key]
        found += [w.job for w in self._workers if w is not None and w.job is not None and w.job.key == key]
        for job in found:
            self.cancel(job)
        return len(found)

    def cancel(self, job: _Job) -> None:
        if job in self._queue:
            self._queue.remove(job)
        else:
            for w in self._workers:
                if w is not None and w.job is job:
                    w.job = None
                    self._replace(w)
        if not job.future.done():
            job.future.set_exception(Limit("cancelled"))

    def busy(self) -> int:
        """Jobs waiting or at work."""
        return len(self._queue) + sum(1 for w in self._workers if w is not None and w.job is not None)

    def _pump(self) -> None:
        """Give waiting jobs to idle workers: each worker first the jobs that prefer it; a job whose
        preferred worker is busy only after PREFERENCE_WAIT (moving costs it a replay)."""
        if self._pump_timer is not None:
            self._pump_timer.cancel()
            self._pump_timer = None
        if not self._queue:
            return
        now = time.monotonic()
        idle = [w for w in self._workers if w is not None and w.job is None]
        homes = {w.home: w for w in self._workers if w is not None}
        soonest: Optional[float] = None
        for w in idle:
            pick = next((j for j in self._queue if j.prefer == w.home), None)
            if pick is None:
                for j in self._queue:
                    home = homes.get(j.prefer) if j.prefer is not None else None
                    if home is None:  # no preference, or its worker is gone
                        pick = j
                        break
                    if home.job is None:  # its worker is idle and takes it in its turn
                        continue
                    wait = j.since + PREFERENCE_WAIT - now
                    if wait <= 0:
                        pick = j
                        break
                    soonest = wait if soonest is None else min(soonest, wait)
            if pick is None:
                continue
            self._queue.remove(pick)
            self._dispatch(w, pick)
        if self._queue and soonest is not None:
            self._pump_timer = asyncio.get_running_loop().call_later(max(soonest, 0.001), self._pump)

    def _dispatch(self, w: _Worker, job: _Job) -> None:
        self.jobs += 1
        w.job = job
        w.started = time.monotonic()
        try:
            w.conn.send((job.id, job.fn, job.args, job.cpu))
        except (OSError, ValueError) as e:  # the worker is gone: its replacement takes the job
            w.job = None
            self._queue.appendleft(job)
            log.warning("%s worker %d could not be sent a job (%s); starting another", self.name, w.slot, e)
            self._replace(w)
            return
        w.timer = asyncio.get_running_loop().call_later(job.wall, self._overdue, w, job)

    def _overdue(self, w: _Worker, job: _Job) -> None:
        if w.job is not job:
            return
        waited = time.monotonic() - w.started
        state = _cpu_state(w.proc.pid)
        if state is not None and state[0] == "R" and state[1] - w.spent < job.cpu:
            # runnable and under its budget: it waits for a core (a low-priority lane on a busy
            # machine), it is not stuck; its own timer still ends it past its CPU budget
            if waited + job.wall <= MOST_WAIT:
                w.timer = asyncio.get_running_loop().call_later(job.wall, self._overdue, w, job)
                return
            what = "busy"
        else:
            what = "time"
        w.job = None
        log.warning("%s worker %d: %s ran past %.1f s (%s); the worker was replaced", self.name, w.slot, job.fn,
                    waited, "waiting for a core" if what == "busy" else "stuck or over its CPU")
        if not job.future.done():
            job.future.set_exception(Limit(what))
        self._replace(w)

    def _readable(self, w: _Worker) -> None:
        try:
            msg = w.conn.recv()
        except Exception as e:  # an answer that cannot be read: the worker is not to be trusted on
            if not isinstance(e, (EOFError, OSError)):
                log.error("%s worker %d sent an answer that cannot be read: %r", self.name, w.slot, e)
            job = w.job
            w.job = None
            if job is not None and not job.future.done():
                log.warning("%s worker %d died during %s", self.name, w.slot, job.fn)
                job.future.set_exception(Limit("crashed"))
            self._replace(w)
            return
        job = w.job
        w.spent = msg[3]
        if job is None or msg[0] != job.id:
            return  # the answer of a job cancelled since
        w.job = None
        if w.timer is not None:
            w.timer.cancel()
            w.timer = None
        kind, value = msg[1], msg[2]
        fut = job.future
        if not fut.done():
            if kind == "ok":
                fut.set_result((value, w.home))
            elif kind == "error":
                fut.set_exception(value)
            elif kind == "miss":
                fut.set_exception(Miss(value))
            elif kind == "limit":
                fut.set_exception(Limit(value))
            else:
                log.error("%s worker %d: %s failed:\n%s", self.name, w.slot, job.fn, value)
                fut.set_exception(JobFailed(job.fn))
        if kind == "limit":  # the worker ends after a limit: its place is taken at once
            self._replace(w)
            return
        self._pump()


def _cpu_state(pid: int) -> Optional[tuple[str, float]]:
    """A process's scheduling state ("R": running or waiting for a core; "S", "D": asleep) and CPU
    seconds, from Linux's /proc; None where there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return fields[0].decode(), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class _quiet:
    """Suppress what letting a process or descriptor go may raise (it may be gone already)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return exc[0] is not None and issubclass(exc[0], (OSError, ValueError, RuntimeError, ProcessLookupError))

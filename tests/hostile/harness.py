"""Run one hostile input in a child process with a memory limit and a wall-clock timeout.

A hostile rule file, state or action may hang the engine, blow up its memory, or crash the
interpreter.  None of that may happen in the pytest process itself, and no test here times anything
in the pytest process: each input runs in a *worker*, a child Python process that has imported
fishrules once and then serves many requests over a pipe.  The worker has an address-space limit
(`MEMORY_LIMIT`, RLIMIT_AS) and every request a timeout; a worker that times out, runs out
of memory or dies is killed and a fresh one starts for the next request.

A timeout is counted in the worker's CPU time, with a wall-clock backstop of `LOADED` times as long:
the same input times out alike on an idle machine and on one whose cores the other tests share
(`make test` runs them in parallel), and a worker blocked without working (a read that never ends)
is still caught, later.

    from tests.hostile import harness, scenarios
    out = harness.run(scenarios.load_text, 'game "G"\\n', timeout=5)
    assert out.status == "raised" and out.is_a("RuleError"), out

A request names a function by its module and name (it must be importable in the worker: a module of
this package, or `fishrules` itself) and passes picklable arguments; the function runs in the worker,
and what it returns (picklable) or raises comes back as an `Outcome`:

    status      "ok" (returned `value`), "raised" (an exception escaped: `exc_type`, `exc_mro`,
                `message`, `diagnostics` for a RuleError, `traceback`), "timeout", "memory"
                (MemoryError, or killed by the kernel), "crashed" (the worker died: `returncode`)

Run this file as `python harness.py --worker` to be a worker (the parent does that).
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
import traceback as _tb
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

#: The worker's address-space limit (RLIMIT_AS).  Importing fishrules costs ~100 MiB of it.
MEMORY_LIMIT = 1536 * 1024 * 1024
#: The default wall-clock budget of one request, in seconds.  Generous: CI runs on two busy cores.
DEFAULT_TIMEOUT = 20.0
#: A worker that does not answer "ready" within this long is broken.
START_TIMEOUT = 60.0
#: A request's wall-clock backstop, in multiples of its timeout (the timeout itself is CPU time).
LOADED = 4.0
#: Messages and tracebacks longer than this are cut (a hostile input can make them huge).
MAX_TEXT = 20_000

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent  # the repository: `tests.hostile.*` imports from here

_HEADER = struct.Struct("!Q")


# ---- outcomes ------------------------------------------------------------------------------------


@dataclass
class Diag:
    """One diagnostic of a RuleError, as plain data."""

    severity: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    message: str
    hint: Optional[str]
    rendered: str

    @property
    def positioned(self) -> bool:
        return isinstance(self.line, int) and isinstance(self.column, int) and self.line >= 1 and self.column >= 1


@dataclass
class Outcome:
    status: str
    value: Any = None
    exc_type: Optional[str] = None
    exc_module: Optional[str] = None
    exc_mro: tuple = ()
    message: str = ""
    diagnostics: list = field(default_factory=list)
    traceback: str = ""
    elapsed: float = 0.0
    returncode: Optional[int] = None
    request: str = ""

    def is_a(self, name: str) -> bool:
        """An exception escaped, and it is (a subclass of) the fishrules class `name`."""
        return self.status == "raised" and name in self.exc_mro and (self.exc_module or "").startswith("fishrules")

    @property
    def errors(self) -> list[Diag]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def __str__(self) -> str:
        head = f"<{self.status}"
        if self.status == "raised":
            head += f" {self.exc_module}.{self.exc_type}"
        if self.returncode is not None:
            head += f" returncode={self.returncode}"
        head += f" in {self.elapsed:.2f}s> {self.request}"
        parts = [head]
        if self.status == "ok":
            parts.append(f"value: {self.value!r}"[:3000])
        if self.message:
            parts.append("message: " + self.message[:3000])
        if self.traceback:
            parts.append(self.traceback[-4000:])
        return "\n".join(parts)

    __repr__ = __str__


# ---- the worker (child side) ---------------------------------------------------------------------


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT // 2] + "\n[…cut…]\n" + text[-MAX_TEXT // 2:]


def _safe_str(x) -> str:
    try:
        return _cut(str(x))
    except BaseException as e:  # noqa: BLE001 - str() of a hostile object may itself fail
        return f"<str() failed: {type(e).__name__}>"


def _diags(exc) -> list[Diag]:
    out = []
    for d in getattr(exc, "diagnostics", None) or []:
        sp = getattr(d, "span", None)
        try:
            rendered = _cut(d.render())
        except BaseException as e:  # noqa: BLE001
            rendered = f"<render() failed: {type(e).__name__}: {e}>"
        out.append(Diag(
            severity=str(getattr(d, "severity", "error")),
            file=getattr(sp, "file", None) if sp is not None else None,
            line=getattr(sp, "line", None) if sp is not None else None,
            column=getattr(sp, "column", None) if sp is not None else None,
            message=_safe_str(getattr(d, "message", "")),
            hint=None if getattr(d, "hint", None) is None else _safe_str(d.hint),
            rendered=rendered,
        ))
    return out


def _resolve(ref: str) -> Callable:
    module, _, name = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _serve() -> None:  # pragma: no cover - runs in the child
    # Answers go out on a private copy of stdout; whatever the engine prints goes to stderr.
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # nothing may read the pipe but us
    home = os.getcwd()
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        resource = importlib.import_module("resource")
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    import fishrules  # imported once, before the first request is timed

    try:  # and its parser built
        fishrules.loads('game "warm-up"\nplayers 2 to 2\nphase game:\n  nothing\n')
    except Exception:  # noqa: BLE001 - a broken engine shows in the requests themselves
        pass

    importlib.import_module("tests.hostile.scenarios")

    def send(obj) -> None:
        try:
            data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as e:  # noqa: BLE001 - an unpicklable value
            data = pickle.dumps(Outcome("raised", exc_type="PicklingError", exc_module="harness",
                                        exc_mro=("PicklingError",), message=f"{type(e).__name__}: {e}"))
        out.write(_HEADER.pack(len(data)) + data)

    send("ready")
    while True:
        head = inp.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return
        (size,) = _HEADER.unpack(head)
        buf = bytearray(size)
        view, got = memoryview(buf), 0
        while got < size:
            n = inp.readinto(view[got:])
            if not n:
                return
            got += n
        ref, args, kwargs, cwd = pickle.loads(buf)
        os.chdir(cwd or home)
        started = time.perf_counter()
        try:
            value = _resolve(ref)(*args, **kwargs)
            outcome = Outcome("ok", value=value)
        except MemoryError:
            outcome = Outcome("memory")
        except BaseException as exc:  # noqa: BLE001 - everything is reported, even SystemExit
            t = type(exc)
            outcome = Outcome(
                "raised",
                exc_type=t.__name__,
                exc_module=t.__module__,
                exc_mro=tuple(c.__name__ for c in t.__mro__),
                message=_safe_str(exc),
                diagnostics=_diags(exc),
                traceback=_cut("".join(_tb.format_exception(t, exc, exc.__traceback__))),
            )
        outcome.elapsed = time.perf_counter() - started
        send(outcome)
        if outcome.status == "memory":
            return  # a fresh worker for the next request


# ---- the parent side -----------------------------------------------------------------------------


class Worker:
    """A persistent child process serving requests; restarted after a timeout or a death."""

    def __init__(self) -> None:
        self.proc: Optional[subprocess.Popen] = None
        self.starts = 0

    def _start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("PYTHONHASHSEED", "0")
        stderr = None if os.environ.get("FISHRULES_HARNESS_STDERR") else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "harness.py"), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
            cwd=str(ROOT), env=env, start_new_session=True,
        )
        self.starts += 1
        ready = self._receive(START_TIMEOUT)
        if ready != "ready":
            self.kill()
            raise RuntimeError(f"the hostile-input worker did not start: {ready!r}")

    def kill(self) -> None:
        p, self.proc = self.proc, None
        if p is None:
            return
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the worker's own session: it and nothing else
        except (ProcessLookupError, PermissionError):
            pass
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except OSError:
                pass

    def _read_exactly(self, n: int, deadline: float) -> Optional[bytes]:
        fd = self.proc.stdout.fileno()
        chunks, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _receive(self, timeout: float):
        deadline = time.monotonic() + timeout
        head = self._read_exactly(_HEADER.size, deadline)
        if head is None:
            return None
        (size,) = _HEADER.unpack(head)
        # the body of an answer is on its way: give it time even if the deadline has just passed
        body = self._read_exactly(size, max(deadline, time.monotonic() + 30))
        if body is None:
            return None
        return pickle.loads(body)

    def _cpu(self) -> float:
        """The worker's CPU time so far (its children's not counted: the worker runs none)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError, AttributeError):
            return float("inf")  # no /proc: the timeout is wall clock

    def _answer_within(self, timeout: float):
        """The answer, if the worker gives it before it has used `timeout` seconds of CPU (or
        LOADED times that of wall clock); None otherwise."""
        fd = self.proc.stdout.fileno()
        start, cpu0 = time.monotonic(), self._cpu()
        backstop = start + timeout * LOADED
        while True:
            used = self._cpu() - cpu0
            left = min(backstop - time.monotonic(), max(0.05, timeout - used))
            if used >= timeout or left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                return self._receive(30)

    def call(self, ref: str, args: tuple, kwargs: dict, timeout: float, cwd: Optional[str]) -> Outcome:
        if self.proc is None or self.proc.poll() is not None:
            self.kill()
            self._start()
        payload = pickle.dumps((ref, args, kwargs, cwd), protocol=pickle.HIGHEST_PROTOCOL)
        started = time.monotonic()
        try:
            self.proc.stdin.write(_HEADER.pack(len(payload)) + payload)
            self.proc.stdin.flush()
            answer = self._answer_within(timeout)
        except (EOFError, BrokenPipeError, OSError):
            answer = "died"
        elapsed = time.monotonic() - started
        if isinstance(answer, Outcome):
            if answer.status == "memory":
                self.kill()
            return answer
        if answer is None:  # no answer in time
            self.kill()
            return Outcome("timeout", elapsed=elapsed)
        # the worker died without answering: out of memory (SIGKILL from the kernel) or a crash
        rc = self.proc.wait(timeout=10) if self.proc is not None else None
        self.kill()
        status = "memory" if rc == -signal.SIGKILL else "crashed"
        return Outcome(status, returncode=rc, elapsed=elapsed)


_worker: Optional[Worker] = None


def worker() -> Worker:
    global _worker
    if _worker is None:
        _worker = Worker()
        atexit.register(close)
    return _worker


def close() -> None:
    global _worker
    if _worker is not None:
        _worker.kill()
        _worker = None


def _ref(func: Callable | str) -> str:
    if isinstance(func, str):
        return func
    return f"{func.__module__}:{func.__qualname__}"


def _describe(func, args, kwargs) -> str:
    def short(x):
        r = repr(x)
        return r if len(r) <= 120 else r[:100] + f"…[{len(r)} chars]"

    parts = [short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()]
    return f"{_ref(func)}({', '.join(parts)})"


def run(func: Callable | str, *args, timeout: float = DEFAULT_TIMEOUT, cwd: Optional[str | os.PathLike] = None,
        **kwargs) -> Outcome:
    """Call `func(*args, **kwargs)` in the worker, within `timeout` seconds of wall clock and
    `MEMORY_LIMIT` bytes of address space; `cwd` is the working directory for the call."""
    out = worker().call(_ref(func), args, kwargs, timeout, None if cwd is None else os.fspath(cwd))
    out.request = _describe(func, args, kwargs)
    return out


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--worker"]:
        # Serve as `tests.hostile.harness`, so that the outcomes unpickle as the parent's classes.
        sys.path.insert(0, str(ROOT))
        from tests.hostile import harness as _as_package

        _as_package._serve()
    else:
        print(__doc__)

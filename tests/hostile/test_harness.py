"""The harness itself: a hang, a memory blow-up and a crash in the worker are reported, and the next
input runs in a fresh worker.  (If these fail, no other hostile test can be trusted.)"""

from __future__ import annotations

import os
import signal
import time

from . import harness


def _sleep(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"


def _allocate(gib: int) -> int:
    return len(bytearray(gib << 30))


def _die() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def _noisy() -> str:
    print("a rule engine that prints must not break the pipe", flush=True)
    os.write(1, b"\x00\x01 raw bytes on fd 1\n")
    return "quiet answer"


def _fail() -> None:
    {}["missing"]


def test_ok_and_raised():
    out = harness.run(_noisy)
    assert out.status == "ok" and out.value == "quiet answer", out
    out = harness.run(_fail)
    assert out.status == "raised" and out.exc_type == "KeyError" and "KeyError" in out.traceback, out
    assert not out.is_a("RuleError")


def test_timeout_then_a_fresh_worker():
    out = harness.run(_sleep, 60, timeout=1.0)
    assert out.status == "timeout", out
    out = harness.run(_sleep, 0)
    assert out.status == "ok" and out.value == "woke", out


def test_memory_limit():
    out = harness.run(_allocate, 4)
    assert out.status == "memory", out
    assert harness.run(_sleep, 0).status == "ok"


def test_crash():
    out = harness.run(_die)
    assert out.status == "crashed" and out.returncode == -signal.SIGSEGV, out
    assert harness.run(_sleep, 0).status == "ok"

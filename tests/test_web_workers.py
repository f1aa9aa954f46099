"""The worker processes of `fishrules serve` (fishrules/web/workers.py): a job past its CPU time,
its deadline or its memory ends with `Limit` and a fresh worker; a dying worker loses its job, never
the lane; a cancelled job is cancelled whether it waits or runs.  Real processes, no mocks."""

from __future__ import annotations

import asyncio
import logging
import os

import pytest

import fishrules
from fishrules.web.workers import JobFailed, Lane, Limit

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def run(coro):
    return asyncio.run(coro)


async def _lane(size=1, **kw):
    lane = Lane("test", size, module="tests.web_jobs", **kw)
    await lane.open()
    return lane


def test_a_job_runs_and_answers():
    async def go():
        lane = await _lane()
        try:
            (value, pid), home = await lane.run("echo", {"a": [1, 2]}, cpu=5)
            assert value == {"a": [1, 2]} and home[0] == 0
            with pytest.raises(fishrules.OptionError, match="no such thing"):
                await lane.run("refuse", "no such thing", cpu=5)
            (_, pid2), _ = await lane.run("echo", 1, cpu=5)
            assert pid2 == pid  # an error of the library's own is an answer: the worker goes on
        finally:
            lane.close()
    run(go())


@pytest.mark.parametrize("nice", [19, 5, 0])
def test_a_lane_runs_at_the_priority_it_was_given(nice):
    # 19, the house rules' default, is Linux's idle class too; a lower number (`serve --house-nice`)
    # is plain nice, sharing the machine with other programs
    async def go():
        lane = await _lane(nice=nice)
        try:
            (got, policy), _ = await lane.run("priority", cpu=5)
        finally:
            lane.close()
        assert got == min(19, os.nice(0) + nice)
        if hasattr(os, "SCHED_IDLE"):
            assert (policy == os.SCHED_IDLE) == (nice >= 19)
    run(go())


@pytest.mark.parametrize("fn, args, what, cpu, wall", [
    ("spin", (30,), "time", 0.3, 2),        # CPU past the budget: the worker's own timer
    ("sleep", (30,), "time", 0.3, 2),       # no CPU at all, no answer: the deadline kills it
    # The memory cases have time to spare: filling 256 MB before the memory limit takes CPU, and
    # under load wall time, which must not end them first (it did once, with 0.3 s and 2 s)
    ("eat", (4096,), "memory", 10, 30),     # more memory than a worker has
    ("recurse", (0,), "memory", 10, 30),    # Python's stack
    ("die", (), "crashed", 0.3, 2),         # a worker that dies
])
def test_a_job_past_a_limit_ends_and_the_lane_goes_on(fn, args, what, cpu, wall):
    async def go():
        lane = await _lane(headroom=256 << 20)
        try:
            (_, pid), _ = await lane.run("echo", 0, cpu=5)
            with pytest.raises(Limit) as got:
                await lane.run(fn, *args, cpu=cpu, wall=wall)
            assert got.value.what == what
            (_, pid2), _ = await lane.run("echo", 0, cpu=5)
            assert pid2 != pid  # a fresh worker: nothing the job left behind is kept
        finally:
            lane.close()
    run(go())


def _hogs(seconds):
    """Every core busy at normal priority for `seconds`: a lane at the lowest gets none of them."""
    import subprocess
    import sys

    code = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 2)]


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's idle class")
@pytest.mark.parametrize("most_wait, what", [(60.0, None), (1.0, "busy")])
def test_a_starved_job_waits_for_a_core_it_is_not_killed_as_stuck(monkeypatch, most_wait, what):
    # A house rule's job at the lowest priority on a busy machine is runnable and under its CPU
    # budget: its deadline is pushed back (it used to be killed and reported as "took more than
    # N s"), up to MOST_WAIT, past which the visitor hears the server is busy
    from fishrules.web import workers

    monkeypatch.setattr(workers, "MOST_WAIT", most_wait)

    async def go():
        lane = await _lane(nice=19)
        hogs = _hogs(3.0)
        try:
            await asyncio.sleep(0.2)  # the hogs are running
            if what is None:
                value, _ = await lane.run("spin", 0.2, cpu=2, wall=0.5)
                assert value > 0
            else:
                with pytest.raises(Limit) as got:
                    await lane.run("spin", 0.2, cpu=2, wall=0.5)
                assert got.value.what == what
            assert (await lane.run("echo", 1, cpu=5))[0][0] == 1  # the lane goes on
        finally:
            for h in hogs:
                h.kill()
                h.wait()
            lane.close()
    run(go())


def test_a_bug_in_a_job_is_logged_once_and_the_worker_goes_on(caplog):
    async def go():
        lane = await _lane()
        try:
            with caplog.at_level(logging.ERROR, logger="fishrules.web"):
                with pytest.raises(JobFailed):
                    await lane.run("bug", cpu=5)
            assert "an internal slip" in caplog.text
            assert (await lane.run("echo", 7, cpu=5))[0][0] == 7
        finally:
            lane.close()
    run(go())


def test_cancelled_jobs_waiting_or_running():
    async def go():
        lane = await _lane()
        try:
            running = asyncio.ensure_future(lane.run("sleep", 30, cpu=60, key="a"))
            waiting = asyncio.ensure_future(lane.run("echo", 1, cpu=5, key="a"))
            other = asyncio.ensure_future(lane.run("echo", 2, cpu=5, key="b"))
            await asyncio.sleep(0.3)
            assert lane.cancel_key("a") == 2
            for f in (running, waiting):
                with pytest.raises(Limit) as got:
                    await f
                assert got.value.what == "cancelled"
            assert (await asyncio.wait_for(other, 30))[0][0] == 2  # the lane went on at once
        finally:
            lane.close()
    run(go())


def test_jobs_go_to_the_worker_they_prefer_unless_it_is_busy():
    async def go():
        lane = await _lane(size=2)
        try:
            (_, a), home_a = await lane.run("echo", 0, cpu=5)
            for _ in range(5):
                (_, pid), home = await lane.run("echo", 0, cpu=5, prefer=home_a)
                assert pid == a and home == home_a
            # the preferred worker busy for long: the job moves rather than wait
            slow = asyncio.ensure_future(lane.run("spin", 1.0, cpu=5, prefer=home_a))
            await asyncio.sleep(0.1)
            (_, pid), home = await asyncio.wait_for(lane.run("echo", 0, cpu=5, prefer=home_a), 0.8)
            assert pid != a and home != home_a
            await slow
        finally:
            lane.close()
    run(go())

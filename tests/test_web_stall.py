"""A real `fishrules serve` under a hostile visitor (issue 31): while honest tables play, a
stranger pastes and checks the costliest rules the limits allow and sets up tables whose every move
works for a long while; sockets that send nothing, or a byte now and then.  Nobody else waits.

The bounds are loose on purpose (ten times what this machine shows, and more): what they catch is
the server waiting for rule work — seconds to minutes before — not a slow machine.  The figures
themselves are measured by benchmarks/serve_load.py --hostile.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import statistics
import time
import urllib.parse
import urllib.request

import pytest

websockets = pytest.importorskip("websockets")

from ._web import SLOW_RULES, Server, unknown_names  # noqa: E402


def _post(url: str, form: dict, timeout: float = 60) -> tuple[int, str]:
    req = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _new_table(url: str, form: dict) -> dict:
    status, page = _post(url + "/tables", form)
    assert status == 200, page[:500]
    links = {}
    for token, seat in re.findall(r'href="/p/([A-Za-z0-9_-]+)" class="seatlink"(?: data-seat="(\d+)")?', page):
        links[int(seat) if seat else None] = token
    return links


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("stall") / "tables.sqlite")
    s = Server(db, "--bot-delay", "0.05", "--header-timeout", "1", "--most-per-address", "64").start()
    yield s
    s.stop()


async def _person(ws_url: str, token: str, latencies: list, stop: asyncio.Event) -> None:
    """A person at seat 0 playing fast: each action's time from sent to answered."""
    async with websockets.connect(f"{ws_url}/ws/{token}") as ws:
        sent = None
        sent_at = -1
        latest = None  # the latest frame: the table may send the next position before its "ok"
        quiet_since = time.monotonic()
        while not stop.is_set():
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except asyncio.TimeoutError:
                assert time.monotonic() - quiet_since < 20, "the table said nothing for 20 s"
                continue
            quiet_since = time.monotonic()
            if msg["type"] in ("ok", "refused") and sent is not None:
                latencies.append(time.monotonic() - sent)
                sent = None
                if latest is None or latest["at"] <= sent_at:
                    continue
                msg = latest  # this seat's turn again, said while the answer was on its way
            if msg["type"] == "frame":
                latest = msg
                if msg["over"]:
                    return
                if msg["mine"] and msg["actions"] and sent is None:
                    sent, sent_at = time.monotonic(), msg["at"]
                    await ws.send(json.dumps({"type": "act", "at": msg["at"], "action": msg["actions"][0]["text"]}))


async def _health(url: str, samples: list, stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()

    def get() -> float:
        t = time.monotonic()
        with urllib.request.urlopen(url + "/healthz", timeout=30) as r:
            r.read()
        return time.monotonic() - t

    while not stop.is_set():
        samples.append(await loop.run_in_executor(None, get))
        await asyncio.sleep(0.05)


async def _hostile(url: str, stop: asyncio.Event, done: list, enough) -> None:
    """Paste the costliest rules the limits allow and check them, again and again; set up tables
    whose every move works as long as a move may.  Once `enough()` is true after a check, stops
    the test (stopping between checks: none is left half done for the test to wait for)."""
    loop = asyncio.get_running_loop()
    worst = unknown_names(3600)  # about 128 KiB of mistakes, a "did you mean" each
    assert len(worst) <= 128 * 1024
    slow = {"rules": SLOW_RULES, "players": "2", "seat.0": "random", "seat.1": "random", "variant": ""}
    for _ in range(2):
        await loop.run_in_executor(None, _post, url + "/tables", slow)
    while not stop.is_set():
        status, _ = await loop.run_in_executor(None, _post, url + "/check", {"rules": worst + f"# {len(done)}\n"})
        done.append(status)
        if enough():
            stop.set()


def test_honest_tables_and_the_health_check_never_wait_for_a_strangers_rules(server):
    url = server.url
    ws_url = url.replace("http", "ws")
    tables = []
    for game, players in (("fishfry", 2), ("fishfish", 3), ("fatfish", 2), ("fisherman", 3)):
        form = {"ruleset": game, "players": str(players), "variant": "", "seat.0": "human"}
        form.update({f"seat.{p}": "random" for p in range(1, players)})
        tables.append(_new_table(url, form)[0])

    async def go():
        stop = asyncio.Event()
        latencies: list = []
        health: list = []
        checks: list = []
        people = [asyncio.ensure_future(_person(ws_url, t, latencies, stop)) for t in tables]
        # hostile all along, until the samples below are enough (or a bound for a loaded machine:
        # a server that waits for the stranger's rules is caught by its samples, not by the time)
        hostile = asyncio.ensure_future(
            _hostile(url, stop, checks, lambda: len(latencies) >= 20 and len(health) >= 40))
        watch = asyncio.ensure_future(_health(url, health, stop))
        try:
            await asyncio.wait_for(stop.wait(), 30)
        except asyncio.TimeoutError:
            stop.set()
        await asyncio.gather(*people, hostile, watch, return_exceptions=True)
        for p in people:
            if p.done() and p.exception() is not None:
                raise p.exception()
        return latencies, health, checks

    latencies, health, checks = asyncio.run(go())
    assert checks, "the hostile client checked nothing"
    assert len(latencies) >= 10 and len(health) >= 20
    health.sort()
    latencies.sort()
    # Before issue 31: /healthz waited 2-4 s (a minute for 128 KiB), every table with it.
    assert health[int(len(health) * 0.95)] < 0.5 and health[-1] < 2.0, health[-5:]
    assert statistics.median(latencies) < 0.5 and latencies[int(len(latencies) * 0.9)] < 1.5, latencies[-5:]


def test_sockets_that_send_nothing_or_trickle_are_closed_and_lock_nobody_out(server):
    host, port = "127.0.0.1", server.port
    silent = [socket.create_connection((host, port), timeout=5) for _ in range(80)]  # more than one address may hold
    trickle = socket.create_connection((host, port), timeout=5)
    try:
        start = time.monotonic()
        while time.monotonic() - start < 3:  # one byte every 0.2 s: never a whole request
            trickle.send(b"G")
            time.sleep(0.2)
    except OSError:
        pass  # closed on it: what is wanted
    closed = 0
    for s in silent + [trickle]:
        s.settimeout(5)
        try:
            if s.recv(1) == b"":
                closed += 1
        except (ConnectionResetError, OSError):
            closed += 1
        finally:
            s.close()
    assert closed == len(silent) + 1
    with urllib.request.urlopen(server.url + "/healthz", timeout=5) as r:
        assert r.read() == b"ok"

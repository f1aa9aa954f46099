"""Load on `fishrules serve`: many tables at once on loopback, people as WebSocket clients, bots on the
server.  A script, not a test: it prints figures and passes or fails nothing.

    .venv/bin/python benchmarks/serve_load.py                      # 200 tables, 60 s
    .venv/bin/python benchmarks/serve_load.py --tables 50 --seconds 20 --json out.json
    .venv/bin/python benchmarks/serve_load.py --tables 50 --hostile   # and a hostile visitor

The server runs in a process of its own (`fishrules serve` on a free port of 127.0.0.1, a SQLite
file in a temporary folder, synchronous=FULL: every action on disk before anybody is told).  This
process plays the people: each table has a person at seat 0 (a WebSocket client that thinks for
`--think` seconds on average, then sends a random legal action, and sends one action in ten twice,
as a double click does), a spectator, and bots at the other seats (random, waiting `--bot-delay`
seconds as the server's default).  When a table's game ends, the person sets up a new one, so that
`--tables` games are always under way.  The five base games take turns.

With `--hostile`, a stranger does the worst the limits allow all the while: pastes about 128 KiB
of mistakes (a "did you mean" each) and checks it again and again, and sets up tables of a house
rule whose every move works as long as a move may, played by bots.  `/healthz` is asked every 50 ms
throughout (its latency is reported), and what the people at the honest tables see is measured as
ever.

Measured: actions per second (everything the server committed: people's and bots'), the latency
from a person sending an action to every connection at that table (the person and the spectator)
having the new position, p50/p95/p99/max, the server's memory (RSS) at the start and the end, and
whether any action was lost or applied twice (the database against what the clients were told).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402

from tests._web import SLOW_RULES, Server, unknown_names  # noqa: E402

GAMES = [("fishfry", 2), ("fishfish", 3), ("fisherman", 3), ("fatfish", 2), ("fisheatfish", 2)]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time a process and its live descendants (the server's workers) used
    so far (a worker replaced after a limit takes its time with it)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += stats.get(p, (0, 0.0))[1]
        todo += [c for c, (parent, _) in stats.items() if parent == p]
    return total


def post(url: str, form: dict) -> int:
    req = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


async def hostile(url: str, deadline: float, out: dict) -> None:
    """The stranger of `--hostile` (see the module's doc)."""
    worst = unknown_names(3600)
    slow = {"rules": SLOW_RULES, "players": "2", "seat.0": "random", "seat.1": "random", "variant": ""}
    for _ in range(2):
        out["tables"] += await asyncio.to_thread(post, url + "/tables", slow) == 200
    while time.monotonic() < deadline:
        await asyncio.to_thread(post, url + "/check", {"rules": worst + f"# {out['checks']}\n"})
        out["checks"] += 1


async def health(url: str, deadline: float, out: list) -> None:
    def get() -> float:
        t = time.perf_counter()
        with urllib.request.urlopen(url + "/healthz", timeout=60) as r:
            r.read()
        return time.perf_counter() - t

    while time.monotonic() < deadline:
        out.append(await asyncio.to_thread(get) * 1000)
        await asyncio.sleep(0.05)


def create_table(url: str, game: str, players: int) -> tuple[str, str]:
    form = {"ruleset": game, "players": str(players), "variant": "", "seat.0": "human"}
    for p in range(1, players):
        form[f"seat.{p}"] = "random"
    req = urllib.request.Request(url + "/tables", data=urllib.parse.urlencode(form).encode(), method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        page = r.read().decode()
    person = re.search(r'href="/p/([A-Za-z0-9_-]+)" class="seatlink" data-seat="0"', page).group(1)
    watcher = re.search(r'href="/p/([A-Za-z0-9_-]+)" class="seatlink">', page).group(1)
    return person, watcher


class Load:
    def __init__(self, url: str, think: float, deadline: float, seed: int):
        self.url = url
        self.ws_url = url.replace("http", "ws")
        self.think = think
        self.deadline = deadline
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.sent = 0
        self.doubles = 0
        self.sent_at: dict[str, dict] = {}  # person token -> {position: action text} of what it sent
        self.acked: dict[str, set] = {}  # person token -> positions whose action the server said it took
        self.errors: list[str] = []
        self.unanswered = 0  # actions sent (double clicks included) not answered yet
        self.games_done = 0

    async def table(self, k: int) -> None:
        n = 0
        while time.monotonic() < self.deadline:
            game, players = GAMES[(k + n) % len(GAMES)]
            n += 1
            person, watcher = await asyncio.to_thread(create_table, self.url, game, players)
            self.sent_at[person], self.acked[person] = {}, set()
            try:
                if await self.play(person, watcher):
                    self.games_done += 1
            except (OSError, websockets.ConnectionClosed, asyncio.TimeoutError) as e:
                self.errors.append(f"{game}: {type(e).__name__}: {e}")
                return

    async def play(self, person: str, watcher: str) -> bool:
        origin = {"origin": self.url}
        async with websockets.connect(f"{self.ws_url}/ws/{person}", additional_headers=origin, max_size=2**22) as me, \
                websockets.connect(f"{self.ws_url}/ws/{watcher}", additional_headers=origin, max_size=2**22) as spectator:
            pending: dict[int, tuple[float, set]] = {}  # at sent -> (when, connections yet to see it)
            state = {"frame": None, "over": False}
            changed = asyncio.Event()

            def seen(conn: str, at: int) -> None:
                now = time.perf_counter()
                for a in [a for a in pending if a < at]:
                    t0, left = pending[a]
                    left.discard(conn)
                    if not left:
                        self.latencies.append(now - t0)
                        del pending[a]

            async def reader(ws, name: str) -> None:
                async for raw in ws:
                    msg = json.loads(raw)
                    if msg["type"] == "frame":
                        seen(name, msg["at"])
                        if name == "me":
                            state["frame"] = msg
                            state["over"] = msg["over"]
                            changed.set()
                    elif msg["type"] == "ok" and name == "me":
                        if not msg["duplicate"]:
                            self.acked[person].add(msg["taken_at"])
                        self.unanswered -= 1
                    elif msg["type"] == "refused" and name == "me" and not msg.get("moved_on"):
                        self.errors.append("refused: " + msg["message"][:200])

            tasks = [asyncio.ensure_future(reader(me, "me")), asyncio.ensure_future(reader(spectator, "spectator"))]
            acted_at = None
            try:
                while time.monotonic() < self.deadline:
                    await changed.wait()
                    changed.clear()
                    f = state["frame"]
                    if f is None or f["over"]:
                        if f is not None:
                            await asyncio.sleep(0.2)  # the last frames reach the spectator
                            return True
                        continue
                    if not f["mine"] or f["at"] == acted_at:
                        continue
                    await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
                    if state["frame"] is not f:  # something happened meanwhile: look again
                        changed.set()
                        continue
                    action = self.rng.choice(f["actions"])["text"]
                    message = json.dumps({"type": "act", "at": f["at"], "action": action})
                    pending[f["at"]] = (time.perf_counter(), {"me", "spectator"})
                    await me.send(message)
                    self.sent += 1
                    self.unanswered += 1
                    self.sent_at[person].setdefault("texts", []).append(action)
                    if self.rng.random() < 0.1:  # a double click
                        await me.send(message)
                        self.doubles += 1
                        self.unanswered += 1
                    acted_at = f["at"]
                end = time.monotonic() + 3
                while self.unanswered > 0 and time.monotonic() < end:  # the last answers
                    await asyncio.sleep(0.05)
                return False
            finally:
                for t in tasks:
                    t.cancel()


def stored(db: str) -> tuple[int, dict]:
    """How many actions the database holds, and each person's: {token: {position: text}}."""
    con = sqlite3.connect(db)
    total = con.execute("SELECT COUNT(*) FROM fr_actions").fetchone()[0]
    by_person: dict = {}
    for token, at, text in con.execute(
            "SELECT t.token, a.at, a.text FROM fr_tokens t JOIN fr_actions a ON a.table_id = t.table_id AND a.seat = 0 "
            "WHERE t.role = 'seat' AND t.seat = 0"):
        by_person.setdefault(token, {})[at] = text
    con.close()
    return total, by_person


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def run(args) -> dict:
    folder = tempfile.mkdtemp(prefix="fishrules-load-")
    db = os.path.join(folder, "tables.sqlite")
    server = Server(db, "--bot-delay", str(args.bot_delay), "--quiet", "--most-connections", "100000",
                    "--most-per-address", "100000", "--tables-per-hour", "1000000").start()
    try:
        start_rss = rss_mib(server.proc.pid)
        start_cpu = cpu_seconds(server.proc.pid)
        t_start = time.monotonic()
        c_start = time.process_time()
        load = Load(server.url, args.think, t_start + args.seconds, args.seed)
        # Set the tables up a few at a time (people arrive), then play for the rest of the time.
        tasks = []
        for k in range(args.tables):
            tasks.append(asyncio.ensure_future(load.table(k)))
            if k % 20 == 19:
                await asyncio.sleep(0.2)
        up_rss = rss_mib(server.proc.pid)
        samples = []

        async def sample() -> None:  # the server's memory every 10 s
            while True:
                await asyncio.sleep(10)
                samples.append(round(rss_mib(server.proc.pid), 1))

        sampler = asyncio.ensure_future(sample())
        stranger = {"checks": 0, "tables": 0}
        healthz: list = []
        extra = [asyncio.ensure_future(health(server.url, t_start + args.seconds, healthz))]
        if args.hostile:
            extra.append(asyncio.ensure_future(hostile(server.url, t_start + args.seconds, stranger)))
        await asyncio.gather(*tasks)
        await asyncio.gather(*extra)
        sampler.cancel()
        elapsed = time.monotonic() - t_start
        client_cpu = time.process_time() - c_start
        end_rss = rss_mib(server.proc.pid)
        server_cpu_s = cpu_seconds(server.proc.pid)
        await asyncio.sleep(1.0)
        total, by_person = stored(db)
    finally:
        server.stop()
    # Lost: the server said it took an action the database does not hold.  Twice: the database holds
    # an action of a person at a position the server never said it took one at (a double click
    # taken twice), or more of a person's actions than the person sent.
    lost = sum(1 for t, ats in load.acked.items() for at in ats if at not in by_person.get(t, {}))
    twice = sum(1 for t, rows in by_person.items() for at in rows if at not in load.acked.get(t, set()))
    twice += sum(max(0, len(rows) - len(load.sent_at.get(t, {}).get("texts", []))) for t, rows in by_person.items())
    cpu = server_cpu_s - start_cpu
    lat = [x * 1000 for x in load.latencies]
    return {
        "tables": args.tables, "seconds": round(elapsed, 1), "think_s": args.think, "bot_delay_s": args.bot_delay,
        "actions_committed": total, "actions_per_s": round(total / elapsed, 1),
        "people_actions_sent": load.sent, "double_clicks": load.doubles, "games_finished": load.games_done,
        "latency_ms": {"n": len(lat), "p50": round(pct(lat, 0.5), 1), "p95": round(pct(lat, 0.95), 1),
                       "p99": round(pct(lat, 0.99), 1), "max": round(max(lat), 1) if lat else None,
                       "mean": round(statistics.fmean(lat), 1) if lat else None},
        "server_rss_mib": {"start": round(start_rss, 1), "tables_up": round(up_rss, 1), "end": round(end_rss, 1),
                           "every_10s": samples},
        "healthz_ms": {"n": len(healthz), "p50": round(pct(healthz, 0.5), 1), "p99": round(pct(healthz, 0.99), 1),
                       "max": round(max(healthz), 1) if healthz else None},
        "hostile": {"checks": stranger["checks"], "slow_tables": stranger["tables"]} if args.hostile else None,
        "actions_lost": lost, "actions_applied_twice": twice, "answers_missing": load.unanswered,
        "server_cpu_s": round(cpu, 1),  # the server and its workers "server_cpu_share_of_one_core": round(cpu / elapsed, 2),
        "server_cpu_ms_per_action": round(cpu * 1000 / max(1, total), 2),
        "errors": load.errors[:10],
        "client_cpu_share_of_one_core": round(client_cpu / elapsed, 2),
        "cpus": os.cpu_count(), "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--think", type=float, default=1.0, help="a person's mean time to choose, in seconds")
    ap.add_argument("--bot-delay", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hostile", action="store_true", help="and a stranger doing the worst the limits allow")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    out = asyncio.run(run(args))
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

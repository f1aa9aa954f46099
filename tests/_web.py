"""Helpers of the `fishrules serve` tests: a throwaway PostgreSQL server, a real server process,
and Chromium for Playwright."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator, Optional

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: Chromium stalls on refused connections without these (no network here but loopback).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin(name: str) -> Optional[str]:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


@contextlib.contextmanager
def postgres_server() -> Iterator[Optional[str]]:
    """A PostgreSQL server of its own in a temporary folder (initdb, pg_ctl), for as long as the
    block lasts; yields its URL, or None when the machine has no PostgreSQL server programs.
    Run as root, the server runs as the `postgres` user (PostgreSQL refuses to run as root)."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        yield None
        return
    root = tempfile.mkdtemp(prefix="fishrules-pg-")
    data = os.path.join(root, "data")
    as_user: list[str] = []
    if os.geteuid() == 0:
        import pwd

        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE}
    subprocess.run(as_user + [initdb, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"], check=True, **quiet)
    opts = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(as_user + [pg_ctl, "-D", data, "-o", opts, "-w", "-t", "30", "-l", os.path.join(root, "log"), "start"],
                   check=True, **quiet)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(as_user + [pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"], **quiet)
        shutil.rmtree(root, ignore_errors=True)


# ---- what a hostile visitor pastes (tests/test_web_hostile.py, test_web_stall.py, benchmarks/serve_load.py) ----

#: A house rule every action of which works for a long while (a loop just under the work budget).
SLOW_RULES = """\
game "Slow"
players 2 to 2
the game has x: number
each player has pokes: number
score "pokes": your pokes
phase game:
  repeat 3 times:
    for each player:
      player chooses poke

action poke:
  add 1 to your pokes
  repeat 100000 times:
    add 1 to x
"""


def unknown_names(n: int) -> str:
    """A file of `n` mistakes, each an unknown name (a "did you mean" each)."""
    return 'game "Many"\nplayers 2 to 2\n' + "".join(f"define d{i}: nosuch{i} + 1\n" for i in range(n))


class Server:
    """`fishrules serve` in a process of its own, on a free port of 127.0.0.1."""

    def __init__(self, db: str, *extra: str):
        self.db = db
        self.extra = list(extra)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: Optional[subprocess.Popen] = None
        self.log = tempfile.NamedTemporaryFile(prefix="fishrules-serve-", suffix=".log", delete=False)

    def start(self) -> "Server":
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fishrules", "serve", "--port", str(self.port), "--db", self.db, *self.extra],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        # ready, not only alive: its workers started and the bundled rulesets read (on a loaded
        # machine that took more than a first page's 8 s, and the page waited for it)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"fishrules serve exited: {self.output()}")
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:  # refused, or 503 while it starts
                time.sleep(0.1)
        raise RuntimeError(f"fishrules serve did not start: {self.output()}")

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no chance to clean up."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


# ---- a person at a table, in the browser ------------------------------------------------------------


class Person:
    """A browser page at a table, with every WebSocket message it received (`messages`, parsed),
    driven as a person would: clicking the action's name, then the cards, dice, circles or players
    it takes on the table (or the buttons of its values), then Play."""

    def __init__(self, page):
        import json

        self.page = page
        self.messages: list = []
        self.raw: list[str] = []
        self.times: list[float] = []  # when each message came (time.monotonic())

        def on_ws(ws):
            def got(payload):
                text = payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
                self.times.append(time.monotonic())
                self.raw.append(text)
                try:
                    self.messages.append(json.loads(text))
                except ValueError:
                    self.messages.append({"type": "?"})

            ws.on("framereceived", got)

        page.on("websocket", on_ws)

    @property
    def frame(self) -> Optional[dict]:
        for m in reversed(self.messages):
            if m.get("type") == "frame":
                return m
        return None

    def frames(self) -> list:
        return [m for m in self.messages if m.get("type") == "frame"]

    def wait_frame(self, timeout: float = 20.0) -> dict:
        deadline = time.monotonic() + timeout
        while self.frame is None:
            if time.monotonic() > deadline:
                raise AssertionError("no frame received")
            self.page.wait_for_timeout(20)
        return self.frame

    def dom_at(self) -> int:
        return int(self.page.evaluate("document.querySelector('#table .table').dataset.at"))

    def do(self, action: dict, frame: dict) -> bool:
        """Put `action` of `frame` together in the page and send it: True when sent, False when the
        page moved on to other choices meanwhile (the others play on while this person clicks)."""
        try:
            self._do(action, frame)
            return True
        except (AssertionError, TimeoutError, Exception) as e:
            if type(e).__name__ not in ("AssertionError", "TimeoutError", "Error"):
                raise
            latest = self.frame
            if self.dom_at() != frame["at"] and latest is not None and (
                    [a["text"] for a in latest["actions"]] != [a["text"] for a in frame["actions"]]):
                return False
            raise

    def _do(self, action: dict, frame: dict) -> None:
        page = self.page
        decl = frame["decl"].get(action["name"], [])
        picker = page.locator("#picker")
        label = frame.get("words", {}).get(action["name"], {}).get("label", action["name"])
        name = picker.locator(".names").get_by_role("button", name=label, exact=True)
        assert name.count() == 1, f"no button {action['name']} at {frame['at']}: " + picker.inner_html()[:2000]
        name.click()  # chosen again: what an earlier try picked is let go (a move with nothing to choose: Play sends it)
        picker.locator(".names button.on").get_by_text(label, exact=True).wait_for()
        kinds = {"card": "card", "die": "die", "number": "num", "player": "player"}
        for p in decl:
            value = action["args"][p["name"]]
            for v in (value if p["kind"] == "some" else [value]):
                done = False
                if p["of"] in kinds:
                    spot = page.locator(f'#table [data-pick="{kinds[p["of"]]}:{v}"].can:not(.picked)')
                    if spot.count():
                        spot.first.click()
                        done = True
                if not done:
                    shown = (frame["names"][v] if p["of"] == "player" else f"die {v}" if p["of"] == "die"
                             else str(v).replace("_", " "))
                    buttons = picker.locator(f'.param[data-param="{p["name"]}"] button.value')
                    texts = buttons.all_inner_texts()  # one round trip, not one a button
                    if shown in texts:
                        buttons.nth(texts.index(shown)).click()
                        done = True
                assert done, (f"cannot choose {p['name']}={v!r} in the page for {action['text']}: "
                              + page.locator("#picker").inner_html()[:3000])
        play = picker.locator("button.play")
        assert play.count() == 1, f"no Play button for {action['text']}"
        assert play.inner_text().startswith("Play: " + label), (play.inner_text(), label)
        play.click()


def play_through_pages(people: list, choose, timeout: float = 120.0) -> None:
    """Play until the game is over: each person whose turn it is chooses with `choose(person,
    frame)` and does it in the page; bots play on the server meanwhile."""
    deadline = time.monotonic() + timeout
    acted: dict = {}
    while True:
        if time.monotonic() > deadline:
            raise AssertionError("the game did not end in time")
        if any(p.frame is not None and p.frame["over"] for p in people):
            return
        moved = False
        for person in people:
            f = person.frame  # the latest, read again: another's move may have changed it
            if f is None or not f["mine"] or acted.get(id(person)) == f["at"]:
                continue
            # the page has drawn that frame too (its own copy of the messages may lag ours)
            person.page.wait_for_function(
                "at => { const t = document.querySelector('#table .table'); return t && Number(t.dataset.at) >= at; }",
                arg=f["at"], timeout=10000)
            if person.frame is not f:
                continue
            action = choose(person, f)
            if person.do(action, f):
                acted[id(person)] = f["at"]
                moved = True
        if not moved:
            people[0].page.wait_for_timeout(15)


def steps_of(game, log: dict) -> list:
    """Who took each step of a logged game ([position, seat], as a table records it): the history
    played again with manual chance, each decision's player noted."""
    import re as _re

    from fishrules import CHANCE, SIMULTANEOUS

    state = game.start(players=log["players"], seed=log["seed"], options=log["options"], chance="manual")
    out = []
    for i, entry in enumerate(log["history"]):
        if state.current != CHANCE:
            m = _re.match(r"p([0-9]+): ", entry)
            out.append([i, int(m.group(1)) if m and state.current == SIMULTANEOUS else state.current])
        state.apply(entry)
    return out

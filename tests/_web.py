"""Helpers of the `fishrules serve` tests: a throwaway PostgreSQL server, a real server process,
and Chromium for Playwright."""

from __future__ import annotations

import atexit
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

import pytest

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


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


class Server:
    """`fishrules serve` in a process of its own, on a free port of 127.0.0.1."""

    def __init__(self, db: str, *extra: str):
        self.db = db
        self.extra = list(extra)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: Optional[subprocess.Popen] = None
        self.log = tempfile.NamedTemporaryFile(prefix="fishrules-serve-", suffix=".log", delete=False)
        # read after the server stops (a failure's message, a test of what it printed), so kept
        # until this test process ends: hundreds were left in /tmp, one a server started
        atexit.register(_unlink, self.log.name)

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
            # The page has drawn a later position than `frame` (another's move, a bot's): the
            # choice is made again from the latest frame.  (Not only when the choices differ: at a
            # choice made together another's choice redraws the page with the very same choices,
            # and what this try had picked is gone with it.)
            if self.moved_on(frame) or self.dom_at() > frame["at"]:
                return False
            raise

    def moved_on(self, frame: dict) -> bool:
        """The page shows another position than `frame`'s, with other moves to choose from."""
        latest = self.frame
        return self.dom_at() != frame["at"] and latest is not None and (
            [a["text"] for a in latest["actions"]] != [a["text"] for a in frame["actions"]])

    def _patiently(self, act, frame: dict) -> None:
        """`act(timeout)` (a click, a wait for an element) given as long as a page may take (WAIT),
        a second at a time, but given up as soon as the page has moved on from `frame`: another's
        move changed the choices, and the button `act` waits for may be gone for good (waiting out
        the whole WAIT for it cost Fish Eat Fish's game 15 s each time)."""
        deadline = time.monotonic() + WAIT / 1000
        while True:
            try:
                act(1000)
                return
            except Exception as e:
                if type(e).__name__ != "TimeoutError" or time.monotonic() >= deadline or self.moved_on(frame):
                    raise

    def _do(self, action: dict, frame: dict) -> None:
        page = self.page
        decl = frame["decl"].get(action["name"], [])
        picker = page.locator("#picker")
        label = frame.get("words", {}).get(action["name"], {}).get("label", action["name"])
        name = picker.locator(".names").get_by_role("button", name=label, exact=True)
        assert name.count() == 1, f"no button {action['name']} at {frame['at']}: " + picker.inner_html()[:2000]
        # chosen again: what an earlier try picked is let go (a move with nothing to choose: Play sends it)
        self._patiently(lambda t: name.click(timeout=t), frame)
        chosen = picker.locator(".names button.on").get_by_text(label, exact=True)
        self._patiently(lambda t: chosen.wait_for(timeout=t), frame)
        kinds = {"card": "card", "die": "die", "number": "num", "player": "player"}
        for p in decl:
            value = action["args"][p["name"]]
            for v in (value if p["kind"] == "some" else [value]):
                done = False
                if p["of"] in kinds:
                    spot = page.locator(f'#table [data-pick="{kinds[p["of"]]}:{v}"].can:not(.picked)')
                    picked = page.locator(f'#table [data-pick="{kinds[p["of"]]}:{v}"].picked')
                    once = (value if p["kind"] == "some" else [value]).count(v) == 1
                    if spot.count():
                        # (a click that landed while the wait for it timed out has picked it: done;
                        # not where the value is picked twice, as a pair of equal numbers)
                        self._patiently(lambda t: None if once and picked.count() else spot.first.click(timeout=t),
                                        frame)
                        done = True
                if not done:
                    shown = (frame["names"][v] if p["of"] == "player" else f"die {v}" if p["of"] == "die"
                             else str(v).replace("_", " "))
                    buttons = picker.locator(f'.param[data-param="{p["name"]}"] button.value')
                    texts = buttons.all_inner_texts()  # one round trip, not one a button
                    if shown in texts:
                        button = buttons.nth(texts.index(shown))
                        self._patiently(lambda t: button.click(timeout=t), frame)
                        done = True
                assert done, (f"cannot choose {p['name']}={v!r} in the page for {action['text']}: "
                              + page.locator("#picker").inner_html()[:3000])
        play = picker.locator("button.play")
        assert play.count() == 1, f"no Play button for {action['text']}"
        assert play.inner_text().startswith("Play: " + label), (play.inner_text(), label)
        self._patiently(lambda t: play.click(timeout=t), frame)


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


# ---- the browser tests (tests/test_web_browser*.py) ----------------------------------------------------
# They are several files so that `make test`'s workers (a file to a worker) play their games side by
# side; each file starts its own browser and server (`open_browser`, `serve_for_pages`, made module
# fixtures there), and what they share is here.

SHOTS = os.environ.get("FISHRULES_SCREENSHOTS")  # a folder: the docs' screenshots are taken there

# These tests are about the pages: a house table's work runs at the server's own priority here.  At
# the default, the lowest, it waits for every other busy process, and on a loaded test machine (the
# other test workers) a house table's page waited more than 8 s.  Priority has tests of its own
# (test_web_workers.py, test_web_stall.py).
SAME_PRIORITY = ("--house-nice", "0")
#: How long a page may take to do what a test waits for, in ms: a bound for a loaded test machine
#: (the suite runs in three processes on two cores), not a figure of speed (docs/serve.md has those).
WAIT = 15000


def open_browser() -> Iterator:
    """Debian's Chromium through Playwright, for as long as the module's tests run."""
    from playwright import sync_api

    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def serve_for_pages(tmp_path_factory) -> Iterator[Server]:
    """A server whose bots think briefly (`--bot-iterations 5`, no delay), so that whole games stay quick."""
    db = str(tmp_path_factory.mktemp("serve") / "tables.sqlite")
    s = Server(db, "--bot-delay", "0", "--bot-iterations", "5", "--seed", "100", *SAME_PRIORITY).start()
    yield s
    s.stop()


# The two fixtures of a module of browser tests (each module imports them: `from ._web import
# browser, server`): one Chromium and one server for all of its tests.
@pytest.fixture(scope="module")
def browser():
    yield from open_browser()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_for_pages(tmp_path_factory)


#: Every page of these tests asks for reduced motion (app.css then leaves out the flash of what
#: changed): animated, Chromium repainted the table at every frame for 2.5 s after each move,
#: most of the CPU of a whole game in the page (Fish Eat Fish's: 17-26 s of Chromium, 10-11 s without).
LESS_MOTION = {"reduced_motion": "reduce"}


def person(browser, server, path="/"):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000}, **LESS_MOTION)
    ctx.set_default_timeout(WAIT)
    # a page of a table is drawn by a rules worker: on a machine loaded past its cores (ci36, load
    # 9 on 2) one took more than WAIT to load; a server that never draws it still fails the test
    ctx.set_default_navigation_timeout(4 * WAIT)
    page = ctx.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p = Person(page)
    p.errors = errors
    if path:
        page.goto(server.url + path)
    return p


def set_up(page, players, seats, names=(), options=None):
    """Fill in the set-up form the page shows, create the table; the host's page of links follows."""
    page.select_option("#players", str(players))
    for p, kind in enumerate(seats):
        page.select_option(f'select[name="seat.{p}"]', kind)
        if p < len(names) and names[p]:
            page.fill(f'input[name="name.{p}"]', names[p])
    for k, v in (options or {}).items():
        page.fill(f'input[name="option.{k}"]', str(v))
    page.click("#setup button[type=submit]")
    page.wait_for_selector("ul.links")
    links = {}
    for a in page.locator("a.seatlink").all():
        seat = a.get_attribute("data-seat")
        links[int(seat) if seat is not None else None] = a.get_attribute("href")
    return links


def house_table(browser, server, rules, players, seats, names=()):
    """A table of the house rules `rules`, set up in the lobby: (the host's person, the links)."""
    host = person(browser, server)
    host.page.fill("#rules", rules)
    host.page.wait_for_selector('#diags .diags[data-ok="1"]')
    host.page.click("#house button[type=submit]")
    host.page.wait_for_selector("#setup")
    return host, set_up(host.page, players, seats, names)


def table_log(server, link) -> dict:
    import json

    with urllib.request.urlopen(server.url + link + "/log", timeout=10) as r:
        return json.loads(r.read())


# Every bundled ruleset: a person at seat 0 (two at Fish Eat Fish, for its secret simultaneous
# cards), bots of every kind at the others.  Options keep the long ones short.  The files that play
# them each take some by name (`games`); test_web_browser.py checks that together they take all.
GAMES = [
    ("fishfry", 2, ["human", "random"], {}),
    ("fishfry-keeper", 3, ["human", "greedy", "random"], {"rounds": 2}),
    ("fishfry-total-points", 2, ["human", "mcts"], {"rounds": 2}),
    ("fishfry-first-to", 2, ["human", "ismcts"], {"target": 60}),
    ("fishfry-tournament", 2, ["human", "greedy"], {"rounds": 2}),
    ("fishfish", 3, ["human", "ismcts", "greedy"], {}),
    ("fisherman", 3, ["human", "random", "greedy"], {}),
    ("fatfish", 2, ["human", "mcts"], {}),
    ("fatfish-licenses", 3, ["human", "random", "ismcts"], {}),
    ("fisheatfish", 3, ["human", "human", "random"], {}),
]
#: The rulesets of GAMES each whole-game file plays.
WHOLE_GAME_FILES = {
    "test_web_browser_games_1.py": ["fishfry", "fishfry-keeper", "fishfry-total-points", "fishfry-first-to",
                                    "fishfry-tournament", "fishfish"],
    "test_web_browser_games_2.py": ["fisherman", "fatfish", "fatfish-licenses"],
    "test_web_browser_games_3.py": ["fisheatfish"],
}


def games(file: str) -> list:
    """GAMES of the whole-game test file named `file` (its `__file__`), as pytest parameters."""
    import pytest

    names = WHOLE_GAME_FILES[Path(file).name]
    return [pytest.param(*g, id=g[0]) for g in GAMES if g[0] in names]


def a_whole_game_in_the_page(browser, server, name, players, seats, options) -> None:
    """A whole game of `name` played in the page by the people of `seats`, against the server's
    bots; what each turn shows, the score sheet, the log and the rules at hand are checked."""
    import random
    import re

    import fishrules

    host = person(browser, server, f"/new?ruleset={name}")
    links = set_up(host.page, players, seats, options=options)
    people = [person(browser, server, links[p]) for p in range(players) if seats[p] == "human"]
    for p in people:
        p.wait_frame()
    rng = random.Random(name)
    shot = {"done": not SHOTS or "-" in name}  # the docs show the five games
    seen = {"turns": 0, "boxes": [], "cards": 0, "changed": 0, "kept": 0, "still": False}
    me = people[0].page
    me.evaluate("() => { document.querySelector('.status h1').keptNode = true; }")

    def choose(p, frame):
        page = p.page
        # a step that showed nobody anything new may be taken back (Fat Fish's keep): the page offers it
        if frame["back"] and p.frame is frame:
            page.wait_for_selector("button.takeback", timeout=3000)
        if p is people[0]:
            seen["turns"] += 1
            # what the latest turn did stays on the table, as the log tells it, with its cards
            # (read in one go: the others play on meanwhile)
            lines, cards, log_lines = page.evaluate("""() => {
                const box = [...document.querySelectorAll('.justnow li')];
                return [box.map(e => e.firstChild.textContent),
                        Math.max(0, ...box.map(e => e.querySelectorAll('.card').length)),
                        [...document.querySelectorAll('.log li')].map(e => e.textContent)]; }""")
            if lines:
                seen["boxes"].append(" ".join(lines))
                seen["cards"] = max(seen["cards"], cards)
                assert all(x in log_lines for x in lines), (lines, log_lines)
            seen["changed"] += page.locator("#table .changed").count() > 0
            # marked without the flash: these pages ask for less motion (LESS_MOTION)
            seen["still"] = seen["still"] or page.evaluate("""() => { const e = document.querySelector('#table .changed');
                                                           return e !== null && getComputedStyle(e).animationName === 'none'; }""")
            # only what changed is drawn again: the title is the same node all game long
            seen["kept"] += page.evaluate("() => document.querySelector('.status h1').keptNode === true")
        if not shot["done"] and len(frame["html"]) > 0 and frame["at"] >= 6:
            # a picture of the whole page: the controls where they lie in it, not pinned to the window
            page.evaluate("() => document.querySelector('main').classList.remove('mine')")
            page.screenshot(path=f"{SHOTS}/serve-{name}.png", full_page=True)
            shot["done"] = True
        return rng.choice(frame["actions"])

    play_through_pages(people, choose, timeout=240)
    log = table_log(server, links[0])
    assert log["over"] and log["history"]
    state = fishrules.load(name).replay(log["history"], players=players, options=log["options"])
    assert state.is_over
    page = people[0].page
    page.wait_for_selector(".end table.sheet")
    # the score sheet: a row per player, winners first, the rules' own score parts as columns
    rows = page.locator(".end table.sheet tbody tr").all()
    assert len(rows) == players
    heads = page.locator(".end table.sheet thead th").all_inner_texts()
    game = fishrules.load(name)
    terms = [t.name for t in game.model.scores]
    if len(terms) > 1:
        assert heads[1:1 + len(terms)] == terms
    winners = [f"Player {p + 1}" for p in state.winners()]
    assert any(w in page.locator(".end .verdict").inner_text() for w in winners)
    # the log: turns under the players' names, in words (whose turns the last ones are is the
    # dice's affair: a long last turn may be all the window holds)
    log_text = page.locator(".log").inner_text()
    heads = page.locator(".log .turn h3").all_inner_texts()
    assert heads and all(re.fullmatch(r"Player [0-9]+|Setting up|Someone", h) for h in heads), heads
    assert not re.search(r"\bp[0-9]\b", log_text)
    # words, not the rule file's names, wherever the table names a value or a zone
    labels = page.locator(".zname, .kv .k").all_inner_texts()
    assert labels and not [t for t in labels if "_" in t]
    assert seen["boxes"] and seen["changed"] and seen["still"] and seen["kept"] == seen["turns"] >= 2, seen
    moment = {"fisherman": lambda: seen["cards"] >= 3,  # a whole trick, as it was taken
              "fishfish": lambda: any("Revealed: " in b for b in seen["boxes"]),
              "fisheatfish": lambda: any("from circle" in b for b in seen["boxes"]),
              "fatfish": lambda: seen["cards"] >= 1, "fatfish-licenses": lambda: seen["cards"] >= 1}
    assert moment.get(name, lambda: any("roll" in b.lower() for b in seen["boxes"]))(), seen["boxes"][-5:]
    # the rules at hand: what the game is, each move, counters in words
    rules = page.locator("details#rules")
    rules.locator("summary").click()
    assert game.describe()["about"][0] in rules.inner_text()
    if name.startswith("fishfry"):
        assert re.search(r"roll\s+[0-3] of 3|roll\s+[0-9]+$", page.locator('.kv[data-name="roll"]').inner_text())
    if SHOTS and name == "fatfish-licenses":  # the docs show a score sheet and the log beside the table
        page.locator(".end").screenshot(path=f"{SHOTS}/serve-score-sheet.png")
        page.locator(".log").screenshot(path=f"{SHOTS}/serve-log.png")
    for p in people + [host]:
        assert not p.errors, p.errors
        p.page.context.close()

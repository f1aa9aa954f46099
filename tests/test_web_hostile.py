"""`fishrules serve` against a hostile visitor (issue 31): other sites' pages, other host names, a
browser that never reads, binary messages, rules that cost too much to check or to play, too many
checks or tables from one address.  In process (Starlette's test client, real worker processes);
tests/test_web_stall.py does the same against a real server under load."""

from __future__ import annotations

import asyncio
import logging
import re
import time

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import fishrules.web.app as app_module
import fishrules.web.tables as tables_module
from fishrules.web.app import Conn, Hosts, create_app
from fishrules.web.store import SQLiteStore

from ._web import SLOW_RULES, unknown_names
from .test_web_app import HOSTS, ORIGIN, frame_of, new_table

@pytest.fixture
def client(tmp_path):
    app = create_app(SQLiteStore(str(tmp_path / "t.sqlite")), bot_delay=0, bot_iterations=5, hosts=HOSTS)
    with TestClient(app) as c:
        yield c


def _tables(client):
    return client.app.state.tables


# ---- other sites -----------------------------------------------------------------------------------


FORM = {"ruleset": "fishfry", "players": "2", "seat.0": "human", "seat.1": "random", "variant": ""}


@pytest.mark.parametrize("headers", [
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},  # another server of the same site is another server
    {"origin": "http://evil.example"},
    {"origin": "null"},  # an opaque origin: a sandboxed frame, a data: page
    {"origin": "http://testserver.evil.example"},
    {"origin": "https://testserver:1"},  # another port is another origin
])
def test_a_post_from_another_sites_page_is_refused_and_does_nothing(client, headers):
    for path, data in (("/tables", FORM), ("/check", {"rules": "game x"}), ("/new", {"rules": "game x"})):
        r = client.post(path, data=data, headers=headers, follow_redirects=False)
        assert r.status_code == 403, (path, r.status_code)
        assert "another site" in r.text
    assert _tables(client).store.unfinished() == []


@pytest.mark.parametrize("headers", [
    {"sec-fetch-site": "same-origin"},
    {"sec-fetch-site": "none"},  # typed in the address bar
    {"origin": "http://testserver"},
    {},  # a program that is not a browser
])
def test_a_post_from_this_servers_own_pages_is_taken(client, headers):
    r = client.post("/tables", data=FORM, headers=headers, follow_redirects=False)
    assert r.status_code == 303


@pytest.mark.parametrize("host, ok", [
    ("rebind.example", False), ("evil.example:80", False), ("testserver.evil.example", False), ("", False),
    ("127.0.0.1:8000", True), ("[::1]:8000", True), ("10.1.2.3", True), ("localhost:8000", True),
    ("testserver", True), ("TestServer", True),
])
def test_only_the_names_this_server_answers_to_are_served(client, host, ok):
    r = client.get("/", headers={"host": host})
    assert (r.status_code == 200) is ok, (host, r.status_code)
    if not ok:
        assert r.status_code == 421 and "does not answer to that name" in r.text


def test_dns_rebinding_reaches_no_websocket(client):
    _, links, _ = new_table(client)
    # an attacker's page at rebind.example whose name now points here: Host and Origin agree
    for headers in ({"host": "rebind.example", "origin": "http://rebind.example"},
                    {"origin": "http://rebind.example"},
                    {"origin": "http://testserver.evil.example"}):
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect(f"/ws/{links[0]}", headers=headers) as ws:
                ws.receive_json()
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as ws:
        assert frame_of(ws)["type"] == "frame"


def test_links_are_built_on_the_configured_address_never_the_requests_host(tmp_path):
    hosts = Hosts(allowed=["testserver"], public_url="https://games.example.org")
    with TestClient(create_app(SQLiteStore(str(tmp_path / "t.sqlite")), bot_delay=0, hosts=hosts)) as c:
        _, _, page = new_table(c)
        links = re.findall(r'class="seatlink"[^>]*>([^<]+)<', page)
        assert links and all(u.startswith("https://games.example.org/p/") for u in links)
        assert "testserver" not in "".join(links)


# ---- the WebSocket -------------------------------------------------------------------------------


def test_a_binary_message_closes_the_connection_with_one_line_of_log(client, caplog):
    _, links, _ = new_table(client)
    with caplog.at_level(logging.INFO, logger="fishrules.web"):
        with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as ws:
            frame_of(ws)
            ws.send_bytes(b"\x00\x01binary")
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    ws.receive_json()
            assert closed.value.code == 1003
    assert "binary" in caplog.text and "Traceback" not in caplog.text and "KeyError" not in caplog.text
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as ws:  # the table goes on
        assert frame_of(ws)["type"] == "frame"


class _NeverReads:
    """A browser that never reads: every send waits for ever."""

    def __init__(self):
        self.sent = 0
        self.closed_with = None

    async def send_text(self, text):
        self.sent += 1
        await asyncio.Event().wait()

    async def close(self, code=1000):
        self.closed_with = code


def test_a_browser_that_does_not_read_is_let_go_and_holds_bounded_memory():
    async def go():
        ws = _NeverReads()
        conn = Conn(ws)
        writer = asyncio.ensure_future(conn.writer())
        for i in range(100_000):  # frames take each other's place: the queue does not grow
            conn.push_frame(f'{{"type":"frame","at":{i}}}')
        await asyncio.sleep(0)
        assert len(conn.queue) <= 1 and not conn.overflowed
        for i in range(app_module.MOST_QUEUED + 10):
            conn.push({"type": "ok", "at": i})
        assert conn.overflowed and conn.closed
        assert len(conn.queue) <= app_module.MOST_QUEUED
        writer.cancel()
    asyncio.run(go())


def test_a_frame_waiting_is_replaced_in_place_not_by_walking_the_queue():
    conn = Conn(None)
    for i in range(app_module.MOST_QUEUED - 2):
        conn.push({"type": "ok", "at": i})
    before = list(conn.queue)
    conn.push_frame("first")
    conn.push_frame("second")
    assert list(conn.queue)[:-1] == before and conn.queue[-1] == ["second"]


# ---- rules that cost too much --------------------------------------------------------------------


def test_a_rule_that_takes_too_long_to_check_is_stopped_and_said_in_one_line(client, monkeypatch):
    monkeypatch.setattr(tables_module, "CHECK_CPU", 0.2)
    tables = _tables(client)
    started = tables.untrusted.started
    text = unknown_names(1500)
    r = client.post("/check", data={"rules": text})
    body = r.json()
    if body["ok"] or "took more than" not in body["html"]:  # checked within the budget: nothing to stop
        pytest.skip("this machine checks 1,500 mistakes in 0.2 s")
    assert "These rules took more than 0.2 s to check." in body["html"]
    assert tables.untrusted.started > started  # the worker that ran past it was replaced
    assert client.get("/healthz").text == "ok"
    monkeypatch.setattr(tables_module, "CHECK_CPU", 5.0)
    r = client.post("/check", data={"rules": 'extends "fishfry"\n'})
    assert r.json()["ok"]  # the next check is taken as ever


def test_an_action_that_takes_too_long_is_refused_and_the_table_goes_on(client, monkeypatch):
    _, links, _ = new_table(client, rules=SLOW_RULES, seats=("human", "human"))
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me:
        f = frame_of(me)
        monkeypatch.setattr(tables_module, "ACT_CPU", 0.05)
        me.send_json({"type": "act", "at": f["at"], "action": "poke"})
        msg = me.receive_json()
        while msg["type"] != "refused":
            msg = me.receive_json()
        assert "took more than 0.05 s" in msg["message"] and "not taken" in msg["message"]
        monkeypatch.setattr(tables_module, "ACT_CPU", 30.0)
        me.send_json({"type": "act", "at": f["at"], "action": "poke"})
        msg = me.receive_json()
        while msg["type"] != "ok":
            msg = me.receive_json()
        assert msg["taken_at"] == f["at"]


def test_a_bot_whose_move_takes_too_long_stops_its_table_saying_why(client, monkeypatch):
    monkeypatch.setattr(tables_module, "ACT_CPU", 0.05)
    monkeypatch.setattr(tables_module, "BOT_CPU", 0.05)
    _, links, _ = new_table(client, rules=SLOW_RULES, seats=("random", "human"))
    with client.websocket_connect(f"/ws/{links[1]}", headers=ORIGIN) as ws:
        frame_of(ws)
        table = next(iter(_tables(client)._tables.values()))
        for _ in range(300):
            if table.broken:
                break
            time.sleep(0.1)
        assert table.broken and "stopped" in table.broken
        ws.send_json({"type": "act", "at": 0, "action": "poke"})
        msg = ws.receive_json()
        while msg["type"] not in ("refused", "ok"):
            msg = ws.receive_json()
        assert msg["type"] == "refused" and "stopped" in msg["message"]


def test_a_game_that_goes_on_too_long_is_stopped_saying_why(client, monkeypatch):
    monkeypatch.setattr(tables_module, "MOST_TABLE_ACTIONS", 3)
    _, links, _ = new_table(client, "fishfry", seats=("human", "human"))
    taken, refusals = 0, []
    for _ in range(40):  # whoever is to act acts (the dice decide who that is), until refused
        for seat in (0, 1):
            with client.websocket_connect(f"/ws/{links[seat]}", headers=ORIGIN) as ws:
                f = frame_of(ws)
                if not f["mine"]:
                    continue
                ws.send_json({"type": "act", "at": f["at"], "action": f["actions"][0]["text"]})
                msg = ws.receive_json()
                while msg["type"] not in ("refused", "ok"):
                    msg = ws.receive_json()
                if msg["type"] == "refused":
                    refusals.append(msg["message"])
                else:
                    taken += 1
        if refusals or f["over"]:
            break
    assert taken == 3 and refusals and "more than 3 actions" in refusals[-1], (taken, refusals)


# ---- quotas ----------------------------------------------------------------------------------------


def test_checks_from_one_address_are_rate_limited(client):
    answers = [client.post("/check", data={"rules": 'extends "fishfry"\n'}).json() for _ in range(30)]
    refused = [a for a in answers if "Too many checks" in a["html"]]
    assert refused and len(refused) >= 30 - app_module.CHECKS_AT_ONCE - 10


def test_tables_from_one_address_are_bounded_per_hour(tmp_path, monkeypatch):
    monkeypatch.setattr(app_module, "TABLES_PER_HOUR", 3)
    with TestClient(create_app(SQLiteStore(str(tmp_path / "t.sqlite")), bot_delay=0, hosts=HOSTS)) as c:
        codes = [c.post("/tables", data=FORM, follow_redirects=False).status_code for _ in range(5)]
    assert codes[:3] == [303] * 3 and codes[3:] == [429, 429]


def test_a_newer_check_from_the_same_address_cancels_the_one_before(tmp_path):
    async def go():
        tables = tables_module.Tables(SQLiteStore(str(tmp_path / "t.sqlite")), workers=1)
        tables.open()
        await tables.ready()
        try:
            first = asyncio.ensure_future(tables.rules_of(None, unknown_names(3000), None, client="1.2.3.4"))
            await asyncio.sleep(0.2)
            second = await tables.rules_of(None, 'extends "fishfry"\n', None, client="1.2.3.4")
            assert second.title
            with pytest.raises(tables_module.Refusal, match="cancelled"):
                await first
        finally:
            tables.close()
    asyncio.run(go())


def test_checked_house_rules_are_kept_by_bytes_not_by_count(tmp_path):
    tables = tables_module.Tables(SQLiteStore(str(tmp_path / "t.sqlite")), workers=1)
    try:
        info = tables_module.RulesInfo(key=("text", "0", None), title="t", min_players=2, max_players=2, variants=(),
                                       options=(), describe={}, variant=None, rules_name="x", rules_text="x" * (128 << 10),
                                       rules_hash="0")
        for i in range(1000):
            tables._keep_text(("text", str(i), None), info)
        assert sum(len(i.rules_text) for i in tables._texts.values()) <= 16 << 20
        assert ("text", "999", None) in tables._texts  # the newest kept, the oldest let go
    finally:
        tables.trusted.close()
        tables.untrusted.close()
        tables.compiler.close()


def test_a_check_never_compiles_a_kernel_and_a_table_of_searching_bots_compiles_once(client):
    tables = _tables(client)
    text = 'extends "fishfry"\ngame "Fishfry at home"\n'
    assert client.post("/check", data={"rules": text}).json()["ok"]
    assert tables.compiler.jobs == 0 and not tables._compiles
    for _ in range(2):
        new_table(client, rules=text, seats=("human", "mcts"))
    assert len(tables._compiles) == 1 and tables.compiler.jobs == 1


def test_a_restarted_server_reads_no_table_back_until_asked(tmp_path):
    path = str(tmp_path / "t.sqlite")
    with TestClient(create_app(SQLiteStore(path), bot_delay=0, hosts=HOSTS)) as c:
        made = [new_table(c, seats=("human", "human"))[1] for _ in range(3)]
    with TestClient(create_app(SQLiteStore(path), bot_delay=0, hosts=HOSTS)) as c:
        assert c.get("/healthz").text == "ok"
        tables = _tables(c)
        assert tables._tables == {}
        assert c.get(f"/p/{made[1][0]}").status_code == 200
        assert len(tables._tables) == 1

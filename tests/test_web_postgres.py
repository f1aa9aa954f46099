"""`fishrules serve --db postgresql://…` against a real PostgreSQL server started for the test: a table
created, played over WebSocket, the server killed and started again, the game finished."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("psycopg")
ws_client = pytest.importorskip("websockets.sync.client")

import fishrules

from ._web import Server, postgres_server


def _post(url: str, form: dict) -> str:
    data = urllib.parse.urlencode(form).encode()
    req = urllib.request.Request(url, data=data, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:  # follows the 303 to the host's page
        return r.read().decode()


def _play(server: Server, token: str, most: int) -> int:
    """Take the first action offered, `most` times or to the end; how many were taken."""
    url = server.url.replace("http", "ws") + f"/ws/{token}"
    taken = 0
    f = None
    with ws_client.connect(url, origin=server.url, open_timeout=10) as ws:
        while taken < most:
            msg = json.loads(ws.recv(timeout=20))
            assert msg["type"] != "refused", msg
            if msg["type"] != "frame":
                continue
            f = msg
            if f["over"]:
                break
            if f["mine"]:
                ws.send(json.dumps({"type": "act", "at": f["at"], "action": f["actions"][0]["text"]}))
                taken += 1
                while True:  # until the table has moved on
                    msg = json.loads(ws.recv(timeout=20))
                    assert msg["type"] != "refused", msg
                    if msg["type"] == "frame" and msg["at"] != f["at"]:
                        f = msg
                        break
                if f["over"]:
                    break
                if f["mine"]:
                    ws.send(json.dumps({"type": "hello"}))  # the latest frame again, to act on it
    return taken


def test_a_table_on_postgresql_survives_a_killed_server():
    with postgres_server() as url:
        if url is None:  # pragma: no cover - `make test` installs PostgreSQL
            pytest.skip("no PostgreSQL server programs (initdb, pg_ctl) on this machine")
        server = Server(url, "--bot-delay", "0", "--seed", "11").start()
        try:
            page = _post(server.url + "/tables", {"ruleset": "fishfry-keeper", "players": "2", "seat.0": "human",
                                                  "seat.1": "random", "option.rounds": "2", "variant": ""})
            token = re.search(r'href="/p/([A-Za-z0-9_-]+)" class="seatlink" data-seat="0"', page).group(1)
            assert _play(server, token, 3) == 3
            server.kill()
            server.start()
            _play(server, token, 10_000)
            with urllib.request.urlopen(f"{server.url}/p/{token}/log", timeout=10) as r:
                log = json.loads(r.read())
        finally:
            server.stop()
    assert log["over"] and log["seed"] == 11
    state = fishrules.load("fishfry-keeper").replay(log["history"], players=2, options={"rounds": 2})
    assert state.is_over

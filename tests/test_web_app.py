"""`fishrules serve` over HTTP and WebSocket, in process (Starlette's test client): the lobby, links,
actions taken once, refusals that say why, and the guards against hostile input."""

from __future__ import annotations

import json
import re

import pytest

# `make test` installs the `web` extra and httpx2 (the `test` extra): a missing one is an error here,
# never a silent skip (these tests were skipped while the test extra named another package).
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import fishrules
from fishrules.cli import main as cli_main
from fishrules.web.app import CSP, Hosts, create_app
from fishrules.web.store import SQLiteStore

ORIGIN = {"origin": "http://testserver"}
#: Starlette's test client names the server `testserver`: the one name these apps answer to besides addresses.
HOSTS = Hosts(allowed=["testserver"])
HOSTILE_NAME = '"><img src=x onerror=alert(1)>'


@pytest.fixture
def client(tmp_path):
    store = SQLiteStore(str(tmp_path / "tables.sqlite"))
    seeds = iter(range(2, 10_000))  # table k is seeded 2 + k: the same games on every run
    app = create_app(store, bot_delay=0, bot_iterations=5, seeds=lambda: next(seeds), hosts=HOSTS)
    with TestClient(app) as c:
        c.db = str(tmp_path / "tables.sqlite")
        yield c


def new_table(client, ruleset="fishfry", players=2, seats=("human", "human"), names=("", ""), options=None, rules=None):
    form = {"players": str(players), "variant": ""}
    if rules is None:
        form["ruleset"] = ruleset
    else:
        form["rules"] = rules
    for p, kind in enumerate(seats):
        form[f"seat.{p}"] = kind
        form[f"name.{p}"] = names[p] if p < len(names) else ""
    for k, v in (options or {}).items():
        form[f"option.{k}"] = v
    r = client.post("/tables", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    host = r.headers["location"]
    page = client.get(host).text
    links = {}
    for token, seat in re.findall(r'href="/p/([A-Za-z0-9_-]+)" class="seatlink"(?: data-seat="(\d+)")?', page):
        links[int(seat) if seat else None] = token
    return host, links, page


def frame_of(ws):
    while True:
        msg = ws.receive_json()
        if msg["type"] == "frame":
            return msg


def test_every_page_carries_the_guards(client):
    r = client.get("/")
    assert r.status_code == 200
    assert r.headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
    assert r.headers["x-frame-options"] == "DENY" and r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["cache-control"] == "no-store"
    assert "<script>" not in r.text and 'src="/static/lobby.js"' in r.text
    for name in fishrules.bundled():
        assert f"/new?ruleset={name}" in r.text
    assert client.get("/static/table.js").status_code == 200


def test_a_table_is_set_up_and_each_person_gets_a_link(client):
    r = client.get("/new?ruleset=fishfry-keeper")
    assert r.status_code == 200 and 'name="option.rounds"' in r.text
    host, links, page = new_table(client, "fishfry", 3, ("human", "random", "human"), ("<script>x</script>", "", HOSTILE_NAME))
    assert set(links) == {0, 2, None}  # two people and the spectators; the bot has no link
    assert all(len(t) >= 32 for t in links.values())  # 192 random bits
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "<img" not in page and "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    table = client.get(f"/p/{links[0]}")
    assert table.status_code == 200 and "<img" not in table.text and "<script>x" not in table.text
    assert client.get("/p/" + "A" * 32).status_code == 404
    assert client.get("/p/x").status_code == 404


def test_actions_are_taken_once_and_stale_ones_refused(client):
    _, links, _ = new_table(client, "fishfry", 2, ("human", "human"))
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me, \
            client.websocket_connect(f"/ws/{links[1]}", headers=ORIGIN) as other, \
            client.websocket_connect(f"/ws/{links[None]}", headers=ORIGIN) as spectator:
        f = frame_of(me)
        assert frame_of(other)["mine"] is False and frame_of(spectator)["actions"] == []
        assert f["mine"] and f["actions"]
        action = next(a for a in f["actions"] if a["name"] == "stay")
        me.send_json({"type": "act", "at": f["at"], "action": action["text"]})
        me.send_json({"type": "act", "at": f["at"], "action": action["text"]})  # a double click
        replies = [me.receive_json() for _ in range(4)]
        kinds = [m["type"] for m in replies]
        assert kinds.count("ok") == 2
        oks = [m for m in replies if m["type"] == "ok"]
        assert [m["duplicate"] for m in oks] == [False, True]
        after = frame_of(other)
        assert after["at"] > f["at"] and after["mine"]
        assert frame_of(spectator)["at"] == after["at"]
        # a choice made at the old position, by the player now to play: refused, saying so
        other.send_json({"type": "act", "at": f["at"], "action": after["actions"][0]["text"]})
        refused = other.receive_json()
        assert refused["type"] == "refused" and refused["moved_on"] and "moved on" in refused["message"]
        # not your turn
        me.send_json({"type": "act", "at": after["at"], "action": "stay"})
        msg = me.receive_json()
        while msg["type"] == "frame":
            msg = me.receive_json()
        assert msg["type"] == "refused" and "not your turn" in msg["message"]
        spectator.send_json({"type": "act", "at": after["at"], "action": "stay"})
        assert "Spectators" in spectator.receive_json()["message"]
    store = SQLiteStore(client.db)
    tid = store.find_token(links[0])[0]
    _, actions = store.load(tid)
    assert [a.text for a in actions].count("stay") == 1  # stored once
    store.close()


def test_an_illegal_attempt_names_the_rule_it_breaks(client):
    _, links, _ = new_table(client, "fishfry", 2, ("human", "random"))
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me:
        f = frame_of(me)
        dice = re.findall(r'data-pick="die:(\d)"><small>\d</small> ([A-Z0-9 ]+)<', f["html"])
        assert [face for _, face in dice] == ["BODY 10", "BODY 5", "BODY 10", "BODY 5", "PANFISH"]  # seed 2
        me.send_json({"type": "act", "at": f["at"], "action": "reroll 5"})
        msg = me.receive_json()
        assert msg["type"] == "refused" and msg["rule"] == "PANFISH are set aside" and msg["line"] > 0
        assert "not allowed" in msg["message"]


def test_a_websocket_from_another_site_is_refused(client):
    _, links, _ = new_table(client)
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"/ws/{links[0]}", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/ws/" + "B" * 32, headers=ORIGIN) as ws:
            ws.receive_json()


def test_hostile_messages_get_answers_not_crashes(client):
    _, links, _ = new_table(client)
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as ws:
        f = frame_of(ws)
        for bad in ["not json", "[]", json.dumps({"type": "act"}), json.dumps({"type": "act", "at": "1", "action": 3}),
                    json.dumps({"type": "act", "at": f["at"], "action": "x" * 2000}), "{" * 5000,
                    json.dumps({"type": "act", "at": f["at"], "action": "p1: stay"}),
                    json.dumps({"type": "act", "at": f["at"], "action": "<script>alert(1)</script>"})]:
            ws.send_text(bad)
        answers = [ws.receive_json() for _ in range(7)]
        assert all(a["type"] == "refused" for a in answers)
        assert all("Traceback" not in a["message"] for a in answers)
        ws.send_text("x" * 20000)  # past the largest message taken
        assert ws.receive_json()["type"] == "refused"


def test_house_rules_are_checked_at_their_lines_and_confined(client):
    bad = 'extends "fishfry"\ngame "Quick <b>"\nreplace players 2 to 3\nreplace rule "score the turn":\n  add turn_point to roller\'s catch\n'
    r = client.post("/check", data={"rules": bad})
    data = r.json()
    assert not data["ok"] and 'data-line="5"' in data["html"] and "unknown name" in data["html"]
    assert "did you mean `turn_points`?" in data["html"].replace("&#x27;", "'")
    r = client.post("/new", data={"rules": bad})
    assert r.status_code == 400 and 'data-line="5"' in r.text and "<b>" not in r.text
    good = bad.replace("turn_point ", "turn_points ")
    r = client.post("/check", data={"rules": good})
    assert r.json()["ok"] and r.json()["title"] == "Quick <b>"
    r = client.post("/new", data={"rules": good})
    assert r.status_code == 200 and "Quick &lt;b&gt;" in r.text and 'name="players"' in r.text
    _, links, page = new_table(client, rules=good, players=3, seats=("human", "random", "random"))
    assert "Quick &lt;b&gt;" in page
    # a pasted rule extends bundled rulesets only, never a file on the server
    for target in ["/etc/passwd", "../../etc/passwd", "tests/overlays/keeper", "rulesets/fishfry.fish"]:
        r = client.post("/check", data={"rules": f'extends "{target}"\ngame "x"\n'})
        assert not r.json()["ok"]
        assert "root:" not in r.json()["html"]


def test_sizes_are_limited_and_errors_are_pages(client):
    r = client.post("/check", data={"rules": "x" * 300_000})
    assert r.status_code == 413 and "Too large" in r.text and "Traceback" not in r.text
    r = client.post("/check", data={"rules": "# " + "x" * 140_000})
    assert not r.json()["ok"] and "at most" in r.json()["html"]
    r = client.get("/nowhere")
    assert r.status_code == 404 and "Not found" in r.text
    assert r.headers["content-security-policy"] == CSP
    r = client.get("/tables")
    assert r.status_code == 405
    r = client.post("/tables", data={"ruleset": "nope", "players": "2"})
    assert r.status_code == 400 and "Traceback" not in r.text
    r = client.post("/tables", data={"ruleset": "fishfry", "players": "99", "seat.0": "human"})
    assert r.status_code == 400 and "2 to 8 players" in r.text
    r = client.post("/tables", data={"ruleset": "fishfry-keeper", "players": "2", "seat.0": "human", "seat.1": "human",
                                     "option.rounds": "<script>"})
    assert r.status_code == 400 and "whole number" in r.text and "<script>" not in r.text


def test_no_response_carries_a_traceback(client, monkeypatch):
    tables = client.app.state.tables

    def broken(*args):
        raise RuntimeError("secret internals /work/…")

    monkeypatch.setattr(tables.store, "find_token", broken)
    r = client.get("/p/" + "C" * 32)
    assert r.status_code == 500 and "Traceback" not in r.text and "secret internals" not in r.text
    assert "Something went wrong" in r.text


def test_a_finished_table_downloads_as_a_log_replay_reads(client, tmp_path, capsys):
    _, links, _ = new_table(client, "fishfry", 2, ("human", "random"))
    assert client.get(f"/p/{links[0]}/log").status_code == 409  # not before the end: it shows every card
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me:
        f = frame_of(me)
        while not f["over"]:
            if f["mine"]:
                stay = [a for a in f["actions"] if a["name"] == "stay"]
                me.send_json({"type": "act", "at": f["at"], "action": (stay or f["actions"])[0]["text"]})
            f = frame_of(me)
    r = client.get(f"/p/{links[None]}/log")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    log = r.json()
    assert log["format"] == "fishrules-log/2" and log["over"] and log["rules"]["text"]
    path = tmp_path / "table.json"
    path.write_text(r.text)
    capsys.readouterr()
    assert cli_main(["replay", str(path)]) == 0
    out = capsys.readouterr()
    assert "winner" in (out.out + out.err).lower()


def test_a_table_is_read_back_as_it_was_by_a_new_server(tmp_path):
    """What a restarted server does: the table replayed from the store (its opening dice included)
    is the same position, and every seat's frame the same bytes."""
    path = str(tmp_path / "again.sqlite")
    seeds = iter(range(50, 60))
    with TestClient(create_app(SQLiteStore(path), bot_delay=0, seeds=lambda: next(seeds), hosts=HOSTS)) as c:
        _, links, _ = new_table(c, "fishfry-keeper", 2, ("human", "greedy"), options={"rounds": "2"})
        with c.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me:
            f = frame_of(me)
            for _ in range(3):
                if f["over"]:
                    break
                me.send_json({"type": "act", "at": f["at"], "action": f["actions"][-1]["text"]})
                while True:
                    g = frame_of(me)
                    if g["at"] != f["at"] and (g["mine"] or g["over"]):
                        break
                f = g
        before = {seat: c.get(f"/p/{t}").text for seat, t in links.items()}
    with TestClient(create_app(SQLiteStore(path), bot_delay=0, hosts=HOSTS)) as c:
        after = {seat: c.get(f"/p/{t}").text for seat, t in links.items()}
        with c.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me:
            assert frame_of(me)["at"] == f["at"]
    assert after == before


def test_the_command_says_what_is_wrong_with_its_database(tmp_path, capsys):
    assert cli_main(["serve", "--db", str(tmp_path / "no" / "such" / "folder.sqlite"), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "cannot use the database" in err and "Traceback" not in err
    assert cli_main(["serve", "--port", "70000"]) == 2
    assert cli_main(["serve", "--house-nice", "20"]) == 2
    assert "--house-nice 20: from 0" in capsys.readouterr().err


# ---- issue 33: the lobby says what `fishrules check` says; a table that cannot be dealt -------------

BIG_FAT = 'extends "fatfish"\ngame "Big Fat Fish"\nreplace players 2 to 9\n'


def test_the_lobby_says_what_check_says_warnings_included(client):
    r = client.post("/check", data={"rules": BIG_FAT}, headers=ORIGIN)
    data = r.json()
    assert data["ok"] is True
    assert "can be played, but" in data["html"] and "1 warning" in data["html"]
    assert "with 9 players the cards run out" in data["html"] and "allow at most 6" in data["html"]
    # the set-up page says it too
    page = client.post("/new", data={"rules": BIG_FAT}, headers=ORIGIN).text
    assert "cards run out" in page
    # rules with no warning: no problems at all
    assert "No problems" in client.post("/check", data={"rules": 'extends "fishfry"\ngame "X"\n'}, headers=ORIGIN).json()["html"]


def test_a_table_that_cannot_be_dealt_cannot_be_started(client):
    form = {"players": "9", "variant": "", "rules": BIG_FAT}
    for p in range(9):
        form[f"seat.{p}"] = "random"
    r = client.post("/tables", data=form, headers=ORIGIN, follow_redirects=False)
    assert r.status_code == 400 and "cards run out while the game is set up" in r.text and "`deck`" in r.text
    # as many players as the cards deal: the table starts
    host, _, _ = new_table(client, rules=BIG_FAT, players=6, seats=("human",) + ("random",) * 5, names=("Ana",))
    assert host.startswith("/host/")


def test_the_table_words_things_and_names_people(client):
    _, links, page = new_table(client, "fishfry", players=2, seats=("human", "human"), names=("Ana", "Gus"))
    assert "Seat of Ana" in page and "(p0)" not in page
    html = client.get(f"/p/{links[0]}").text
    shown = re.sub(r"<[^>]+>", " ", html[:html.index("<details")])  # the table's words, the raw history aside
    assert "You are Ana" in shown and "p0" not in shown and "fish caught" in shown and "fish_caught" not in shown
    assert "fishfry rolled" not in shown  # hidden by the rules' presentation
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as ws:
        f = frame_of(ws)
        ws.send_json({"type": "act", "at": f["at"], "action": "stay"})
        while True:
            msg = ws.receive_json()
            if msg["type"] == "frame" and msg["at"] > f["at"]:
                break
        assert "Ana stays." in msg["html"]
    setup = client.get("/new?ruleset=fishfry-keeper").text
    assert "fish a player may keep" in setup and "Seat 1" in setup


# ---- issue 33: the rules at hand ----------------------------------------------------------------------


def _rules_panel(html):
    start = html.index('<details class="rules"')
    return html[start:html.index("</details>", start)]


def test_the_rules_are_at_hand_from_the_lobby_the_set_up_and_the_table(client):
    """Every bundled game's rules panel says what the game is and what each move does; a house
    rule's own `about` counts; the panel is drawn from the rules alone, the same for every seat."""
    lobby = client.get("/").text
    for name in fishrules.bundled():
        assert f'href="/rules?ruleset={name}"' in lobby
        game = fishrules.load(name)
        d = game.describe()
        page = client.get(f"/rules?ruleset={name}").text
        panel = _rules_panel(page)
        assert d["about"][0].replace("'", "&#x27;") in panel
        for a in d["actions"]:
            assert f"<dt>{a['label']}</dt>" in panel.replace("&#x27;", "'")
        assert "Rules of" in _rules_panel(client.get(f"/new?ruleset={name}").text)
    assert client.get("/rules?ruleset=nope").status_code == 404
    house = 'extends "fishfry"\ngame "Quick"\npresentation:\n  about: "Our <b>own</b> Fishfry."\n'
    _, links, _ = new_table(client, rules=house, players=3, seats=("human", "human", "random"), names=("Ana", "Gus"))
    panels = {seat: _rules_panel(client.get(f"/p/{t}").text) for seat, t in links.items()}
    assert "Our &lt;b&gt;own&lt;/b&gt; Fishfry." in panels[0] and "<b>own" not in panels[0]
    assert panels[0] == panels[1] == panels[None]  # nothing of a seat's own in it
    assert "roll" in panels[0] and "Counts up to 3." in panels[0]
    setup = client.post("/new", data={"rules": house}, headers=ORIGIN).text
    assert "Our &lt;b&gt;own&lt;/b&gt; Fishfry." in _rules_panel(setup)


# ---- issue 33: taking back one's own step -------------------------------------------------------------


OPEN_FAT_FISH = 'extends "fatfish"\ngame "Open Fat Fish"\nreplace each player has hand: zone of fish\n'


def _latest(ws, after):
    while True:
        f = frame_of(ws)
        if f["at"] != after:
            return f


def test_a_step_that_made_nothing_hidden_known_can_be_taken_back(client):
    """A house rule of Fat Fish with open hands: a lay may be taken back while it is still the
    layer's turn (the others' frames are then those of before the lay, byte for byte, and the store
    forgets it); in Fat Fish itself a lay shows a secret card: it stands; a Fishfry reroll (dice
    rolled) never; nor another's step, nor a spectator's request."""
    _, links, _ = new_table(client, "fatfish", 2, ("human", "human"), ("Ana", "Gus"))
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as a, \
            client.websocket_connect(f"/ws/{links[1]}", headers=ORIGIN) as b:
        fa, fb = frame_of(a), frame_of(b)
        me, f = (a, fa) if fa["mine"] else (b, fb)
        lay = next(x for x in f["actions"] if x["name"] == "lay" and not x["breaks"])
        me.send_json({"type": "act", "at": f["at"], "action": lay["text"]})
        assert not _latest(me, f["at"])["back"]  # the others saw a card of a secret hand
    _, links, _ = new_table(client, rules=OPEN_FAT_FISH, players=2, seats=("human", "human"), names=("Ana", "Gus"))
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as a, \
            client.websocket_connect(f"/ws/{links[1]}", headers=ORIGIN) as b:
        fa, fb = frame_of(a), frame_of(b)
        me, other, f = (a, b, fa) if fa["mine"] else (b, a, fb)
        before_other = fb if me is a else fa
        assert not f["back"]
        lay = next(x for x in f["actions"] if x["name"] == "lay" and not x["breaks"])
        me.send_json({"type": "act", "at": f["at"], "action": lay["text"]})
        g = _latest(me, f["at"])
        assert g["mine"] and g["back"] and lay["args"]["card"] in g["html"]
        assert not _latest(other, f["at"])["back"]
        other.send_json({"type": "back", "at": g["at"]})  # not theirs to take back
        assert other.receive_json()["type"] == "refused"
        me.send_json({"type": "back", "at": g["at"]})
        h = _latest(me, g["at"])
        assert h["at"] == f["at"] and h["actions"] == f["actions"] and not h["back"]
        back_other = _latest(other, g["at"])
        while back_other["at"] != f["at"]:
            back_other = _latest(other, back_other["at"])
        assert back_other["html"] == before_other["html"]  # as it was: the lay is gone
    store = SQLiteStore(client.db)
    tid = store.find_token(links[0])[0]
    assert store.load(tid)[1] == []
    store.close()
    _, links, _ = new_table(client, "fishfry", 2, ("human", "human"))
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me, \
            client.websocket_connect(f"/ws/{links[None]}", headers=ORIGIN) as spectator:
        f = frame_of(me)
        me.send_json({"type": "act", "at": f["at"], "action": "reroll 1"})
        g = _latest(me, f["at"])
        assert g["mine"] and not g["back"]  # the dice rolled: it stands
        me.send_json({"type": "back", "at": g["at"]})
        msg = me.receive_json()
        while msg["type"] != "refused":
            msg = me.receive_json()
        assert "cannot be taken back" in msg["message"]
        spectator.send_json({"type": "back", "at": g["at"]})
        msg = spectator.receive_json()
        while msg["type"] == "frame":
            msg = spectator.receive_json()
        assert "Spectators" in msg["message"]


def test_taking_back_is_allowed_only_where_it_tells_nobody_anything_hidden():
    """`may_take_back` over random games of every bundled ruleset: whenever it allows a step to be
    taken back, no seat and no spectator sees any card after the step that it did not see before,
    and nothing was rolled or drawn; a house rule's lays from open hands are allowed."""
    import collections
    import random

    from fishrules import SIMULTANEOUS
    from fishrules.web.work import may_take_back

    allowed = collections.Counter()
    for name in fishrules.bundled() + ["open"]:
        game = fishrules.loads(OPEN_FAT_FISH, "open.fish") if name == "open" else fishrules.load(name)
        state = game.start(players=2 if name.startswith("fat") or name == "open" else 3, seed=5)
        rng = random.Random(5)
        for _ in range(80):
            if state.is_over:
                break
            who = state.waiting[0] if state.current == SIMULTANEOUS else None
            after = state.clone()
            after.apply(rng.choice(state.legal_actions(who)))
            if may_take_back(state, after):
                allowed[name] += 1
                assert len(after.history) == len(state.history) + 1
                for v in [None] + list(range(state.n)):
                    seen_before = json.dumps(state.view(v)["values"]) + json.dumps(state.view(v)["seats"])
                    for e in after.events_for(v, since=len(state.history)):
                        assert e["event"] != "reveal"
                        for c in e.get("cards", []):
                            assert c is None or c in seen_before
            state = after
    assert allowed["open"] and not allowed["fishfry"] and not allowed["fisherman"]


def test_ready_only_once_the_workers_have_started(tmp_path):
    # /healthz is liveness (the event loop answers); /readyz readiness: 503 until the workers
    # have started and the bundled rulesets are read, which a fresh server does in the background
    import time

    app = create_app(SQLiteStore(str(tmp_path / "ready.sqlite")), bot_delay=0, hosts=HOSTS)
    cold = TestClient(app)  # outside `with`: the application never started, nor its workers
    r = cold.get("/readyz")
    assert (r.status_code, r.text) == (503, "starting") and cold.get("/healthz").text == "ok"
    with TestClient(app) as c:
        deadline = time.monotonic() + 120
        while (r := c.get("/readyz")).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert r.text == "ready"
        assert "Fishfry" in c.get("/new?ruleset=fishfry").text


# A house rule that goes wrong on a secret value: the refusal says where, never the value.
LEAKY = """game "Leaky fingers"
players 2 to 2
the game has xs: list of numbers
each player has fingers: number

action show(secret n: a number from 1 to 9):
  remove n from xs
  set your fingers to n

phase game:
  add 3 to xs
  each of players secretly chooses show
  end game

score "fingers": your fingers
"""


def test_rules_that_go_wrong_on_a_secret_do_not_tell_it(client):
    _, links, _ = new_table(client, rules=LEAKY, players=2, seats=("human", "human"))
    with client.websocket_connect(f"/ws/{links[0]}", headers=ORIGIN) as me, \
            client.websocket_connect(f"/ws/{links[1]}", headers=ORIGIN) as other:
        f = frame_of(me)
        me.send_json({"type": "act", "at": f["at"], "action": "p0: show 7"})  # secret: 7 is not in xs
        msg = me.receive_json()
        while msg["type"] == "frame":
            msg = me.receive_json()
        assert msg["type"] == "ok"
        g = frame_of(other)
        while "p1: show 3" not in str(g["actions"]):
            g = frame_of(other)
        other.send_json({"type": "act", "at": g["at"], "action": "p1: show 3"})
        msg = other.receive_json()
        while msg["type"] == "frame":
            msg = other.receive_json()
        assert msg["type"] == "refused" and "went wrong" in msg["message"]
        assert "at line 7 of the rules (`remove n from xs`), while playing action show" in msg["message"]
        assert "7 is not" not in msg["message"] and "7" not in msg["message"].replace("line 7", "")

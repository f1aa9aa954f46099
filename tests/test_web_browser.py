"""`fishrules serve` as people use it: a real server process, Debian's Chromium driven by Playwright.

One browser for the whole module; each test opens the contexts (people) it needs.  Bots take most
seats and think briefly (`--bot-iterations 5`, no delay), so that whole games stay quick.
"""

from __future__ import annotations

import json
import os
import random
import re
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
sync_api = pytest.importorskip("playwright.sync_api")

import fishrules
from fishrules.web.render import TableInfo, frame_json
from fishrules.web.tables import bot_move

from ._web import CHROMIUM, CHROMIUM_ARGS, Person, Server, play_through_pages, steps_of

if not os.path.exists(CHROMIUM):  # pragma: no cover - `make test` installs Debian's chromium
    pytest.skip("no Chromium (Debian's chromium package) on this machine", allow_module_level=True)

SHOTS = os.environ.get("FISHRULES_SCREENSHOTS")  # a folder: the docs' screenshots are taken there


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("serve") / "tables.sqlite")
    s = Server(db, "--bot-delay", "0", "--bot-iterations", "5", "--seed", "100").start()
    yield s
    s.stop()


def _person(browser, server, path="/"):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    ctx.set_default_timeout(8000)
    page = ctx.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    person = Person(page)
    person.errors = errors
    if path:
        page.goto(server.url + path)
    return person


def _set_up(page, players, seats, names=(), options=None):
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


def _log(server, link) -> dict:
    with urllib.request.urlopen(server.url + link + "/log", timeout=10) as r:
        return json.loads(r.read())


def _check_every_frame(person, seat, game, log, names, kinds, variant=None):
    """Every frame the page received is exactly the frame of `seat` at that position, worked out here
    from the finished game's log: nothing reached the browser but what that seat's view holds."""
    info = TableInfo(game.describe(), names, kinds, variant)
    states: dict = {}
    steps = steps_of(game, log)
    for raw in person.raw:
        msg = json.loads(raw)
        if msg.get("type") != "frame":
            continue
        at = msg["at"]
        if at not in states:
            states[at] = game.replay(log["history"][:at], players=log["players"], options=log["options"],
                                     seed=log["seed"])
        assert raw == frame_json(states[at], seat, info, [s for s in steps if s[0] < at]), \
            f"seat {seat}'s frame at {at} is not its view"


def _first(person, frame):
    return frame["actions"][0]


def test_two_people_at_one_fishfish_table_each_see_only_their_own_cards(browser, server):
    host = _person(browser, server)
    host.page.get_by_role("link", name="Fish Fish", exact=True).click()
    links = _set_up(host.page, 3, ["human", "human", "random"], ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'])
    if SHOTS:
        host.page.screenshot(path=f"{SHOTS}/serve-links.png")
    a = _person(browser, server, links[0])
    b = _person(browser, server, links[1])
    watcher = _person(browser, server, links[None])
    for p in (a, b, watcher):
        p.wait_frame()
    assert "<img" not in a.page.content().split("<body", 1)[1].replace("&lt;img", "")
    assert a.page.locator(".seat h2").first.inner_text().startswith("<script>alert(1)</script>")
    seen_secret = {0: 0, 1: 0}
    rng = random.Random(3)

    def choose(person, frame):
        # Before choosing: each page shows the Fishing cards only to the Fisherman.
        for seat, other in ((0, a), (1, b)):
            me = other.page
            fisherman = frame_fisherman(other)
            hand = me.locator('.zone[data-zone="fishing_hand"] .card')
            if hand.count():
                faces = hand.evaluate_all("els => els.map(e => e.classList.contains('back'))")
                if seat == fisherman:
                    assert not any(faces)
                    seen_secret[seat] += 1
                else:
                    assert all(faces)
        return rng.choice(frame["actions"])

    play_through_pages([a, b], choose)
    assert seen_secret[0] and seen_secret[1]  # each was the Fisherman, and saw their cards
    watcher.wait_frame()
    log = _log(server, links[0])
    game = fishrules.load("fishfish")
    names = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "Player 3"]
    kinds = ["human", "human", "random"]
    a.page.wait_for_timeout(200)
    _check_every_frame(a, 0, game, log, names, kinds)
    _check_every_frame(b, 1, game, log, names, kinds)
    _check_every_frame(watcher, None, game, log, names, kinds)
    assert a.page.locator(".end").inner_text().startswith("Score sheet")
    assert a.page.locator("#download").is_visible()
    for p in (a, b, watcher, host):
        assert not p.errors, p.errors  # no script error, no refused resource (CSP)
        p.page.context.close()


def frame_fisherman(person) -> int:
    text = person.page.locator('.kv[data-name="fisherman"] .who').first.get_attribute("data-pick")
    return int(text.split(":")[1])


# Every bundled ruleset: a person at seat 0 (two at Fish Eat Fish, for its secret simultaneous
# cards), bots of every kind at the others.  Options keep the long ones short.
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


@pytest.mark.parametrize("name,players,seats,options", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_of_every_bundled_ruleset_in_the_page(browser, server, name, players, seats, options):
    host = _person(browser, server, f"/new?ruleset={name}")
    links = _set_up(host.page, players, seats, options=options)
    people = [_person(browser, server, links[p]) for p in range(players) if seats[p] == "human"]
    for p in people:
        p.wait_frame()
    rng = random.Random(name)
    shot = {"done": not SHOTS or "-" in name}  # the docs show the five games

    def choose(person, frame):
        if not shot["done"] and len(frame["html"]) > 0 and frame["at"] >= 6:
            person.page.screenshot(path=f"{SHOTS}/serve-{name}.png", full_page=True)
            shot["done"] = True
        return rng.choice(frame["actions"])

    play_through_pages(people, choose, timeout=240)
    log = _log(server, links[0])
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
    # the log: turns under the players' names, in words
    log_text = page.locator(".log").inner_text()
    assert "Player 1" in log_text and not re.search(r"\bp[0-9]\b", log_text)
    # words, not the rule file's names, wherever the table names a value or a zone
    labels = page.locator(".zname, .kv .k").all_inner_texts()
    assert labels and not [t for t in labels if "_" in t]
    if SHOTS and name == "fatfish-licenses":  # the docs show a score sheet and the log beside the table
        page.locator(".end").screenshot(path=f"{SHOTS}/serve-score-sheet.png")
        page.locator(".log").screenshot(path=f"{SHOTS}/serve-log.png")
    for p in people + [host]:
        assert not p.errors, p.errors
        p.page.context.close()


def test_a_house_rule_with_a_mistake_is_fixed_in_the_page_then_played(browser, server):
    person = _person(browser, server)
    page = person.page
    wrong = ('extends "fishfry"\ngame "Fishfry, quick"\nreplace players 2 to 3\n'
             'replace rule "score the turn":\n  add turn_point to roller\'s catch\n')
    page.fill("#rules", wrong)
    page.wait_for_selector('#diags li.diag[data-line="5"]')
    diag = page.locator('#diags li.diag[data-line="5"]').inner_text()
    assert "unknown name `turn_point`" in diag and "did you mean `turn_points`?" in diag
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/serve-house-rule.png", full_page=True)
    page.fill("#rules", wrong.replace("turn_point ", "turn_points "))
    page.wait_for_selector('#diags .diags[data-ok="1"]')
    # the lobby says what `fishrules check` says: this rule plays, with a warning
    assert 'replaces rule "score the turn" with the same thing' in page.locator("#diags").inner_text()
    page.click("#house button[type=submit]")
    page.wait_for_selector("#setup")
    assert "Fishfry, quick" in page.locator("h1").inner_text()
    links = _set_up(page, 3, ["human", "random", "greedy"])
    me = _person(browser, server, links[0])
    me.wait_frame()
    assert "Fishfry, quick" in me.page.locator(".status h1").inner_text()
    play_through_pages([me], lambda p, f: random.Random(f["at"]).choice(f["actions"]))
    log = _log(server, links[0])
    assert log["rules"]["text"].startswith('extends "fishfry"') and log["over"]
    for p in (person, me):
        assert not p.errors, p.errors
        p.page.context.close()


def test_an_illegal_attempt_in_the_page_shows_the_rule_it_breaks(browser, server):
    host = _person(browser, server, "/new?ruleset=fishfry")
    links = _set_up(host.page, 2, ["human", "random"])
    me = _person(browser, server, links[0])
    frame = me.wait_frame()
    dice = me.page.locator(".die").all_inner_texts()
    set_aside = [i + 1 for i, t in enumerate(dice) if "PANFISH" in t]
    if not set_aside:
        me.page.fill("#typed-text", "reroll 9")
        me.page.click("#typed button")
        me.page.wait_for_selector(".message.refused")
        assert "not allowed" in me.page.locator("#message").inner_text()
    else:
        # choose reroll, click the PANFISH die (not offered), and try it
        me.page.locator("#picker .names button", has_text="reroll").click()
        me.page.locator(f'#table [data-pick="die:{set_aside[0]}"]').click()
        me.page.locator("#picker button.try").click()
        me.page.wait_for_selector(".message.refused")
        assert "PANFISH are set aside" in me.page.locator("#message").inner_text()
    assert frame["mine"]
    for p in (host, me):
        p.page.context.close()


def test_killed_in_mid_game_the_server_comes_back_and_the_game_ends_as_if_never_stopped(browser, tmp_path):
    """SIGKILL in mid-game, start again on the same database: the page reconnects by itself, the
    link still works, and the game ends exactly as the same game played without a stop."""
    db = str(tmp_path / "kill.sqlite")
    server = Server(db, "--bot-delay", "0", "--bot-iterations", "5", "--seed", "4242").start()
    try:
        host = _person(browser, server, "/new?ruleset=fishfish")
        seats = ["human", "random", "greedy"]
        links = _set_up(host.page, 3, seats)
        me = _person(browser, server, links[0])
        me.wait_frame()
        moves = {"n": 0}

        def choose(person, frame):
            moves["n"] += 1
            if moves["n"] == 4:  # mid-game: kill the server, start it again
                server.kill()
                person.page.wait_for_selector(".conn.lost")
                # said plainly, and nothing can be played meanwhile
                assert "connection to the server is lost" in person.page.locator("#conn").inner_text()
                assert person.page.locator("#picker button:not([disabled])").count() == 0
                assert person.page.locator("#typed button").is_disabled()
                server.start()
                person.page.wait_for_selector(".conn.live", timeout=15000)
                person.wait_frame()
                frame = person.frame
            return frame["actions"][0]

        play_through_pages([me], choose, timeout=120)
        assert moves["n"] >= 4
        again = _person(browser, server, links[0])  # the link still works
        again.wait_frame()
        assert again.frame["over"]
        log = _log(server, links[0])
    finally:
        server.stop()
    # The same game without a stop: seed 4242, the person always takes the first action offered.
    game = fishrules.load("fishfish")
    state = game.start(players=3, seed=4242)
    while not state.is_over:
        p = state.current
        if seats[p] == "human":
            state.apply(state.legal_actions()[0])
        else:
            state.apply(bot_move(state.clone(), p, seats[p], 4242, len(state.history), 5))
    assert log["history"] == state.history
    for p in (host, me, again):
        p.page.context.close()


def test_the_lobby_says_what_check_says_and_refuses_a_table_it_cannot_deal(browser, server):
    person = _person(browser, server)
    page = person.page
    page.fill("#rules", 'extends "fatfish"\ngame "Big Fat Fish"\nreplace players 2 to 9\n')
    page.wait_for_selector("#diags .diags.warn")
    said = page.locator("#diags").inner_text()
    assert "can be played, but" in said and "with 9 players the cards run out" in said and "allow at most 6" in said
    page.click("#house button[type=submit]")
    page.wait_for_selector("#setup")
    assert "cards run out" in page.locator("details.warnings").inner_text()
    page.select_option("#players", "9")
    page.click("#setup button[type=submit]")
    page.wait_for_selector("p.error")
    assert "cannot be dealt" in page.locator("p.error").inner_text()
    links = _set_up(page, 6, ["human"] + ["random"] * 5, ["Ana"])
    host_page = page.url
    assert page.locator("ul.links button.copy").count() == 2  # Ana's link, the spectators'
    page.goto(server.url + "/")  # the lobby lists the tables this browser set up
    page.wait_for_selector("#my-tables a")
    mine = page.locator("#my-tables a").first
    assert mine.inner_text() == "Big Fat Fish" and host_page.endswith(mine.get_attribute("href"))
    me = _person(browser, server, links[0])
    me.wait_frame()
    assert me.page.locator(".seat").count() == 6
    # (the refused table's page answers 400, which the console notes: nothing else went wrong)
    assert not [e for e in person.errors if "400 (Bad Request)" not in e] and not me.errors
    for p in (person, me):
        p.page.context.close()


def test_the_log_says_who_did_what_and_a_move_is_chosen_in_words(browser, server):
    host = _person(browser, server, "/new?ruleset=fishfry")
    links = _set_up(host.page, 2, ["human", "random"], ["Ana", "Bob"])
    me = _person(browser, server, links[0])
    me.wait_frame()
    picker = me.page.locator("#picker")
    assert picker.locator(".names button", has_text="reroll").count() == 1
    picker.locator(".names button", has_text="stay").click()
    me.page.wait_for_selector(".log .turn h3:text-is('Bob')", timeout=20000)
    log = me.page.locator(".log").inner_text()
    assert "Ana stays." in log and "Bob" in log
    assert "click it on the table" not in picker.inner_text() or me.page.locator("#table [data-pick]").count()
    assert not me.errors and not host.errors
    for p in (host, me):
        p.page.context.close()


def test_a_move_is_made_with_the_keyboard_alone_and_the_focus_stays_in_the_controls(browser, server):
    host = _person(browser, server, "/new?ruleset=fishfry")
    links = _set_up(host.page, 2, ["human", "random"], ["Ana", "Bob"])
    me = _person(browser, server, links[0])
    frame = me.wait_frame()
    page = me.page
    inside = "() => document.getElementById('picker').contains(document.activeElement)"
    reroll = page.locator("#picker .names button", has_text="reroll")
    reroll.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#picker .names button.on")
    assert page.evaluate(inside)  # the controls were drawn again: the focus is still in them
    dice = page.locator("#table .die.can")
    assert dice.count() and dice.first.get_attribute("tabindex") == "0"  # a die to choose is reached by Tab
    dice.first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#table .die.picked")
    assert page.evaluate("() => document.activeElement.classList.contains('die')")
    page.locator("#picker button.play").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("at => Number(document.querySelector('#table .table').dataset.at) > at", arg=frame["at"])
    assert "Ana rerolls" in page.locator(".log").inner_text()
    assert not me.errors and not host.errors
    for p in (host, me):
        p.page.context.close()


def test_lobby_screenshot(browser, server):
    person = _person(browser, server)
    assert person.page.locator("a.game").count() == len(fishrules.bundled())
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        person.page.screenshot(path=f"{SHOTS}/serve-lobby.png", full_page=True)
    assert not person.errors
    person.page.context.close()

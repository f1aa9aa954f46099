"""`fishrules serve` killed in mid-game and started again, and bots played at a pace people follow:
each on a server of its own, with the pages in Debian's Chromium (test_web_browser.py says why the
browser tests are several files)."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("starlette")
pytest.importorskip("playwright.sync_api")

import fishrules
from fishrules.web.tables import bot_move

from ._web import CHROMIUM, SAME_PRIORITY, Server, house_table, open_browser, play_through_pages
from ._web import person as _person
from ._web import set_up as _set_up
from ._web import table_log as _log

if not os.path.exists(CHROMIUM):  # pragma: no cover - `make test` installs Debian's chromium
    pytest.skip("no Chromium (Debian's chromium package) on this machine", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    yield from open_browser()


def test_killed_in_mid_game_the_server_comes_back_and_the_game_ends_as_if_never_stopped(browser, tmp_path):
    """SIGKILL in mid-game, start again on the same database: the page reconnects by itself, the
    link still works, and the game ends exactly as the same game played without a stop."""
    db = str(tmp_path / "kill.sqlite")
    server = Server(db, "--bot-delay", "0", "--bot-iterations", "5", "--seed", "4242", *SAME_PRIORITY).start()
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


QUICK = 'extends "fishfry"\ngame "Fishfry, three rolls"\n'


def test_bots_play_at_a_pace_people_follow_and_their_turn_stays_in_sight(browser, tmp_path):
    """With a bot delay, each bot decision stays on the table at least that long (a house rule,
    two bots); when the person's turn comes, what the bot before did — its choices and its dice —
    is still said at the top of the table."""
    server = Server(str(tmp_path / "pace.sqlite"), "--bot-delay", "1.0", "--bot-iterations", "5", "--seed", "7", *SAME_PRIORITY).start()
    try:
        host, links = house_table(browser, server, QUICK, 3, ["human", "random", "greedy"], ["Ana", "Bob", "Cy"])
        me = _person(browser, server, links[0])
        f = me.wait_frame()
        picker = me.page.locator("#picker")
        picker.locator(".names button", has_text="stay").click()
        picker.locator("button.play").click()
        me.page.wait_for_function("at => { const t = document.querySelector('#table .table');"
                                  " return Number(t.dataset.at) > at && document.querySelector('.status.mine'); }",
                                  arg=f["at"] + 1, timeout=60000)
        # every frame after Ana's own: a bot's decision, each at least the delay after the one before
        frames = [(t, json.loads(raw)) for t, raw in zip(me.times, me.raw) if '"type":"frame"' in raw]
        ats = [(t, m["at"]) for t, m in frames]
        moves = [(t, at) for (t, at), (_, before) in zip(ats[1:], ats) if at != before]
        assert len(moves) >= 3  # Ana's stay, then at least one decision of each bot
        gaps = [b - a for (a, _), (b, _) in zip(moves, moves[1:])]
        assert min(gaps) >= 0.8, gaps
        box = me.page.locator(".justnow")
        assert box.locator("h2").inner_text() == "Just now — Cy"
        said = box.inner_text()
        assert ("Cy stays." in said or "Cy rerolls" in said) and ("The dice roll" in said or "Rolled" in said)
        assert not me.errors
        for p in (host, me):
            p.page.context.close()
    finally:
        server.stop()

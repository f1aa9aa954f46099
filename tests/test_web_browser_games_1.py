"""A whole game in the page of each Fishfry mode and of Fish Fish, and the phone tests
(test_web_browser.py says why the browser tests are several files; tests/_web.py has the game)."""

from __future__ import annotations

import os
import random

import pytest

pytest.importorskip("starlette")
pytest.importorskip("playwright.sync_api")

from ._web import browser, server  # noqa: F401 (the module's fixtures)
from ._web import (CHROMIUM, GAMES, LESS_MOTION, SHOTS, WAIT, Person, a_whole_game_in_the_page, games, house_table,
                   person, set_up)

if not os.path.exists(CHROMIUM):  # pragma: no cover - `make test` installs Debian's chromium
    pytest.skip("no Chromium (Debian's chromium package) on this machine", allow_module_level=True)


@pytest.mark.parametrize("name,players,seats,options", games(__file__))
def test_a_whole_game_of_every_bundled_ruleset_in_the_page(browser, server, name, players, seats, options):
    a_whole_game_in_the_page(browser, server, name, players, seats, options)


# one person at each table (the others bots), on a phone
PHONE = [(g[0], g[1], ["human"] + ["random"] * (g[1] - 1), g[3]) for g in GAMES
         if g[0] in ("fishfry", "fishfish", "fisherman", "fatfish", "fisheatfish")]


@pytest.mark.parametrize("name,players,seats,options", PHONE + [("house", 3, ["human", "random", "random"], {})],
                         ids=[g[0] for g in PHONE] + ["house"])
def test_on_a_phone_the_controls_are_on_the_first_screen_when_it_is_your_turn(browser, server, name, players, seats, options):
    if name == "house":
        host, links = house_table(browser, server, 'extends "fisherman"\ngame "Fisherman, house"\n', 3, seats)
    else:
        host = person(browser, server, f"/new?ruleset={name}")
        links = set_up(host.page, players, seats, options=options)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, **LESS_MOTION)
    ctx.set_default_timeout(WAIT)
    page = ctx.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    me = Person(page)
    page.goto(server.url + links[0])
    rng = random.Random(name)
    checked = 0
    me.wait_frame()
    while checked < 3:
        for _ in range(600):  # until it is this person's turn (the bots play meanwhile)
            if me.frame["mine"] or me.frame["over"]:
                break
            # what the others' turns show fits too (five dice showing their longest faces did not)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
            page.wait_for_timeout(50)
        f = me.frame
        if f["over"] or not f["mine"]:
            break
        page.wait_for_function("at => Number(document.querySelector('#table .table').dataset.at) >= at", arg=f["at"])
        page.evaluate("() => window.scrollTo(0, 0)")
        top = page.evaluate("() => document.getElementById('picker').getBoundingClientRect().top")
        assert 0 <= top < 844 - 60, top  # the move's controls, on the first screen
        if SHOTS and name == "fisherman" and checked == 1:
            page.screenshot(path=f"{SHOTS}/serve-phone.png")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing scrolls sideways
        checked += 1
        Person.do(me, rng.choice(f["actions"]), f)
        page.wait_for_function("at => Number(document.querySelector('#table .table').dataset.at) > at", arg=f["at"])
    assert checked
    assert not errors
    ctx.close()
    host.page.context.close()

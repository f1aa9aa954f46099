"""A whole game in the page of Fisherman, Fat Fish and Fat Fish with licences (test_web_browser.py
says why the browser tests are several files; tests/_web.py has the game)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("starlette")
pytest.importorskip("playwright.sync_api")

from ._web import browser, server  # noqa: F401 (the module's fixtures)
from ._web import CHROMIUM, a_whole_game_in_the_page, games

if not os.path.exists(CHROMIUM):  # pragma: no cover - `make test` installs Debian's chromium
    pytest.skip("no Chromium (Debian's chromium package) on this machine", allow_module_level=True)


@pytest.mark.parametrize("name,players,seats,options", games(__file__))
def test_a_whole_game_of_every_bundled_ruleset_in_the_page(browser, server, name, players, seats, options):
    a_whole_game_in_the_page(browser, server, name, players, seats, options)

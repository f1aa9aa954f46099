"""Shared helpers: scripted (manual-chance) play."""

from __future__ import annotations

import pytest

import fishrules


def roll(state: fishrules.State, *faces: str) -> fishrules.State:
    """Resolve the next chance nodes, one die each, with the given faces (in the order the rules
    roll them)."""
    for face in faces:
        outcomes = state.chance_outcomes()
        assert outcomes, f"expected a die to be rolled, but {state.current!r} is to act"
        die = outcomes[0][0].text.rsplit(" rolls ", 1)[0]
        state.apply(f"{die} rolls {face}")
    return state


@pytest.fixture(scope="session")
def fishfry():
    return fishrules.load("fishfry")


@pytest.fixture(scope="session")
def modes():
    return {name: fishrules.load(name) for name in fishrules.bundled() if name.startswith("fishfry")}


# `make test` runs the suite in several processes, a file to a process, handing out the files in
# the order of this list first, then the others in their usual order (pytest-xdist's
# --no-loadscope-reorder, which the Makefile passes).  The longest files go first so that the run
# does not end with one process playing a long file while the others wait: these are the files
# that took longest in a quiet run (`--durations`), longest first.  The order changes no test.
LONGEST_FIRST = [
    "tests/hostile/test_simulation.py",
    "tests/test_native_sanitizers_1.py",  # gcc building sanitized code: split in two for that
    "tests/test_native_sanitizers_2.py",
    "tests/test_adapters_openspiel.py",
    "tests/test_web_browser.py",
    "tests/test_web_browser_games_1.py",
    "tests/hostile/test_generated_code.py",
    "tests/hostile/test_lsp.py",
    "tests/test_native.py",
    "tests/test_web_browser_games_2.py",
    "tests/test_simulation.py",
    "tests/test_web_hostile.py",
    "tests/test_lsp.py",
    "tests/test_web_browser_restart.py",
    "tests/test_cycles.py",
    "tests/test_web_browser_games_3.py",
    "tests/test_web_render.py",
    "tests/hostile/test_sizes.py",
    "tests/hostile/test_limits.py",
    "tests/test_generated_source.py",
    "tests/test_kernel_surface.py",
    "tests/test_kernel.py",
    "tests/test_kernel_chance.py",
    "tests/test_apistate.py",
    "tests/test_web_stall.py",
    "tests/test_kernel_views.py",
    "tests/test_fidelity_hidden.py",
    "tests/test_package_api.py",
]


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable: the rest keep their order

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
# that took longest in a whole run (the seconds of a loaded run's JUnit report, 5 December, with
# the later cuts of test_web_stall and test_web_render), longest first, down to some 15 s: a file
# of the rest is short enough to end the run.  The order changes no test.
LONGEST_FIRST = [
    "tests/hostile/test_simulation.py",  # 271 s
    # one test each, gcc building sanitized code (29-125 s: the most of any file from one run to
    # the next): first, so that the two halves build at once and never end the run
    "tests/test_native_sanitizers_1.py",  # 41
    "tests/test_native_sanitizers_2.py",  # 29
    "tests/hostile/test_generated_code.py",  # 203
    "tests/test_adapters_openspiel.py",  # 165
    "tests/test_web_browser_games_1.py",  # 107
    "tests/test_web_browser.py",  # 103
    "tests/test_generated_source.py",  # 94
    "tests/test_web_browser_games_2.py",  # 88
    "tests/hostile/test_sizes.py",  # 83
    "tests/test_simulation.py",  # 82
    "tests/test_web_hostile.py",  # 56
    "tests/test_kernel_surface.py",  # 54
    "tests/test_web_browser_restart.py",  # 53
    "tests/hostile/test_limits.py",  # 53
    "tests/hostile/test_lsp.py",  # 52
    "tests/test_native.py",  # 49
    "tests/test_kernel_faults.py",  # 49
    "tests/test_web_browser_games_3.py",  # 48 (one test: Fish Eat Fish's whole game)
    "tests/test_backends_refuse_alike.py",  # 42
    "tests/test_kernel.py",  # 40
    "tests/test_cycles.py",  # 36
    "tests/test_lsp.py",  # 35
    "tests/test_kernel_record.py",  # 31
    "tests/test_properties.py",  # 30
    "tests/test_web_app.py",  # 28
    "tests/test_apistate.py",  # 28
    "tests/test_web_render.py",  # 27
    "tests/test_many_mistakes.py",  # 26
    "tests/hostile/test_nesting.py",  # 26
    "tests/test_examples.py",  # 25
    "tests/test_baselines.py",  # 25
    "tests/test_fmt.py",  # 24
    "tests/test_kernel_words.py",  # 22
    "tests/test_kernel_chance.py",  # 20
    "tests/test_playout.py",  # 20
    "tests/test_cli_sessions.py",  # 20
    "tests/test_web_workers.py",  # 19
    "tests/test_golden.py",  # 18
    "tests/test_kernel_views.py",  # 17
    "tests/test_web_stall.py",  # 14 (23 before its samples ended with enough)
]


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable: the rest keep their order

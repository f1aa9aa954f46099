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

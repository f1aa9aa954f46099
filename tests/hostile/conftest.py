"""The hostile-input suite shares one harness worker per session (see harness.py)."""

from __future__ import annotations

import pytest

from . import harness


@pytest.fixture(scope="session", autouse=True)
def _hostile_worker():
    yield
    harness.close()

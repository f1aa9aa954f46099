"""Hypothesis settings for the fuzz suites: a short, derandomized run for CI, a long random campaign
behind FISHRULES_FUZZ_LONG=1 (see README.md)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, Phase, note, settings
from hypothesis.errors import InvalidArgument
from hypothesis.database import DirectoryBasedExampleDatabase

HERE = Path(__file__).resolve().parent
LONG = os.environ.get("FISHRULES_FUZZ_LONG", "") not in ("", "0")
#: How many examples the long campaign tries per CI example.
LONG_FACTOR = int(os.environ.get("FISHRULES_FUZZ_FACTOR", "40"))
#: The harness timeout of one fuzzed input, in seconds.
FUZZ_TIMEOUT = 10.0


def fuzz(examples: int):
    """CI: `examples` fixed examples (derandomized: the same inputs every run), no shrinking (a hang
    would be retried for every smaller input), no database.  Long: LONG_FACTOR times as many random
    examples, shrunk, remembered in tests/hostile/.hypothesis-long/."""
    if LONG:
        return settings(
            max_examples=examples * LONG_FACTOR, deadline=None, derandomize=False, print_blob=True,
            database=DirectoryBasedExampleDatabase(str(HERE / ".hypothesis-long")),
            suppress_health_check=list(HealthCheck),
        )
    return settings(
        max_examples=examples, deadline=None, derandomize=True, database=None, print_blob=True,
        phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
    )


def say(text: str) -> None:
    """`hypothesis.note` inside a Hypothesis test (printed with a failing example); nothing outside."""
    try:
        note(text)
    except InvalidArgument:
        pass

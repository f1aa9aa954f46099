"""Half of the rule files (every other one of tests/_sanitizers.py's list) built with
`-fsanitize=address,undefined` play random games with no report; the other half is
tests/test_native_sanitizers_1.py, so that the suite's processes build the two halves at once."""

from __future__ import annotations

import pytest

from ._sanitizers import play_sanitized, sanitized_files
from ._twins import NATIVE


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
def test_half_of_the_rulesets_and_hostile_files_under_the_sanitizers(tmp_path):
    played, drawn = play_sanitized(sanitized_files()[1::2], tmp_path)
    assert played >= 1500 and drawn >= 50  # (cards drawn by hand from shuffled zones, step by step)

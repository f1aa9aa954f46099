"""Fuzzing saved states (issue 11, section 6): random field edits of real saved states of every
bundled ruleset (mid-game, finished, at a chance node, at a simultaneous choice).

Each edited text must raise StateError, or load as exactly the saved position (an edit that changes
nothing: `scenarios.restore` checks `==`, the JSON, the legal actions and every view).  Nothing else
escapes, within the harness's bounds.
"""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from . import mutations as mu
from . import scenarios as sc
from .contract import readable, run
from .fuzzing import FUZZ_TIMEOUT, fuzz, say

RULESETS = sorted(mu.BUNDLED)
# (seed, steps, chance) of the positions of each ruleset the edits start from
POSITIONS = [(1, 0, "seeded"), (2, 7, "seeded"), (3, 25, "seeded"), (4, 200, "seeded"), (5, 3, "manual")]


@functools.lru_cache(maxsize=None)
def saved(ruleset: str, seed: int, steps: int, chance: str) -> str:
    out = run(sc.state_json, ruleset, seed, steps, chance=chance)
    assert out.status == "ok", out
    return out.value


def check(out) -> None:
    say(str(out)[:3000])
    if out.status == "ok":
        return  # restore() found it to be exactly the saved position
    assert out.status == "raised" and out.is_a("StateError"), f"expected StateError (or the same state), got {out}"
    readable(out.message)


@pytest.mark.parametrize("ruleset", RULESETS)
@fuzz(12)
@given(where=st.sampled_from(POSITIONS), ops=st.lists(mu.json_edit, min_size=1, max_size=3))
def test_field_edits(ruleset, where, ops):
    text = saved(ruleset, *where)
    data = json.loads(text)
    for op in ops:
        data = mu.edit_json(data, op)
    edited = mu.dumps(data)
    seed, steps, chance = where
    check(run(sc.restore, ruleset, seed, steps, edited, chance=chance, timeout=FUZZ_TIMEOUT))


@fuzz(40)
@given(ruleset=st.sampled_from(RULESETS), where=st.sampled_from(POSITIONS),
       ops=st.lists(mu.text_edit, min_size=1, max_size=2))
def test_text_edits(ruleset, where, ops):
    text = saved(ruleset, *where)
    for op in ops:
        text = mu.edit_text(text, op)
    seed, steps, chance = where
    check(run(sc.restore, ruleset, seed, steps, text, chance=chance, timeout=FUZZ_TIMEOUT))

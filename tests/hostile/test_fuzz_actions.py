"""Fuzzing action texts (issue 11, section 6): random texts, and legal texts edited (odd digits,
NUL bytes, huge numbers, player prefixes, repeats), at random positions of every bundled ruleset.

Each must be applied as the legal action it means, or raise IllegalAction and change nothing
(`scenarios.apply_text` checks both); nothing else escapes, within the harness's bounds.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from . import mutations as mu
from . import scenarios as sc
from .contract import L, assert_exc, run
from .fuzzing import FUZZ_TIMEOUT, fuzz, say

RULESETS = sorted(mu.BUNDLED)


def fuzz_edited(ruleset: str, seed: int, steps: int, pick: int, ops: list, manual: bool,
                simultaneous: bool = False) -> dict:
    """In the worker: take the `pick`-th legal text at the position (or at the first simultaneous
    choice of the game, if asked and there is one), edit it, apply it."""
    chance = "manual" if manual else "seeded"
    if simultaneous and not manual:
        steps = sc.find_steps(ruleset, seed, "simultaneous", limit=120) or steps
    state = sc.position(ruleset, seed, steps, chance=chance)
    legal = [] if state.is_over else [str(a) for a in sc.legal_now(state)]
    text = legal[pick % len(legal)] if legal else "stay"
    for op in ops:
        text = mu.edit_action(text, op)
    return {"text": text, **sc.apply_text(ruleset, seed, steps, text, chance=chance)}


def check(out) -> None:
    say(str(out)[:3000])
    assert out.status == "ok", out
    if out.value["result"] == "illegal":
        assert_exc(out.value["error"], "IllegalAction")
        return
    if out.value["result"] == "rule error":  # a fault of the rules themselves, rolled back
        assert_exc(out.value["error"], "RuleError")
        return
    text = out.value.get("text", "")
    assert not any(ch.isdigit() and not ch.isascii() for ch in text), f"unicode digits accepted: {text!r}"
    assert "\x00" not in text, f"a NUL byte accepted: {text!r}"
    assert len(text) <= L["MAX_ACTION_TEXT"], f"a text of {len(text)} characters accepted"


@pytest.mark.parametrize("ruleset", RULESETS)
@fuzz(10)
@given(seed=st.integers(0, 5), steps=st.integers(0, 60), pick=st.integers(0, 10**4),
       ops=st.lists(mu.action_edit, min_size=1, max_size=3), manual=st.booleans(), simultaneous=st.booleans())
def test_edited_legal_texts(ruleset, seed, steps, pick, ops, manual, simultaneous):
    check(run(fuzz_edited, ruleset, seed, steps, pick, ops, manual, simultaneous, timeout=FUZZ_TIMEOUT))


@fuzz(40)
@given(ruleset=st.sampled_from(RULESETS), seed=st.integers(0, 5), steps=st.integers(0, 60),
       text=st.one_of(st.text(max_size=60), st.text(alphabet="p0123456789²١３ :-_abcdefghijklmnopqrstuvwxyz\x00",
                                                      max_size=40)))
def test_random_texts(ruleset, seed, steps, text):
    check(run(sc.apply_text, ruleset, seed, steps, text, timeout=FUZZ_TIMEOUT))

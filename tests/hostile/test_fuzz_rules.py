"""Fuzzing rule files (issue 11, section 6).

Every input — a bundled ruleset mutated (tokens deleted, duplicated, swapped; odd characters and raw
bytes inserted; numbers made huge; an expression wrapped in deep nesting; a line repeated a thousand
times), or a random program from the grammar — must load or raise a RuleError whose errors all have
a position, within the harness's time and memory bounds.  What loads is then played a few random
moves (`scenarios.play`): views, scores, JSON round trips; a run-time RuleError must have a position
and leave the state as it was; a player who must act has a legal action.

Also every file of corpus/rules/ (inputs the fuzzing found, kept as regression cases).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from . import mutations as mu
from . import scenarios as sc
from .contract import CORPUS, assert_rule_error, readable, run
from .fuzzing import FUZZ_TIMEOUT, fuzz, say


def check_outcome(out) -> None:
    say(str(out)[:4000])
    if out.status == "ok":
        rt = out.value.get("runtime_error")
        if rt is not None:
            assert "RuleError" in rt["mro"], rt
            errors = [d for d in rt["diagnostics"] if d.severity == "error"]
            assert errors and all(d.positioned for d in errors), f"a run-time RuleError without a position: {rt['message']}"
            readable(rt["message"])
        oe = out.value.get("option_error")
        if oe is not None:
            readable(oe["message"])
        return
    assert_rule_error(out)


@pytest.mark.parametrize("name", sorted(mu.BUNDLED))
@fuzz(12)
@given(ops=st.lists(mu.mutation, min_size=1, max_size=3), seed=st.integers(0, 3))
def test_mutated_bundled_ruleset(name, ops, seed):
    text = mu.BUNDLED[name]
    for op in ops:
        text = mu.mutate(text, op)
    out = run(sc.exercise_mutant, text, name + ".fish", seed, timeout=FUZZ_TIMEOUT)
    check_outcome(out)


@fuzz(60)
@given(text=mu.programs(), seed=st.integers(0, 3))
def test_random_programs(text, seed):
    out = run(sc.exercise_text, text, "random.fish", None, seed, 8, timeout=FUZZ_TIMEOUT)
    check_outcome(out)


CORPUS_RULES = sorted((CORPUS / "rules").glob("*.fish")) if (CORPUS / "rules").is_dir() else []


@pytest.mark.parametrize("path", CORPUS_RULES, ids=[p.name for p in CORPUS_RULES])
def test_corpus(path: Path):
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    out = run(sc.exercise_text, text, path.name, str(path.parent), 0, 8, timeout=FUZZ_TIMEOUT)
    check_outcome(out)

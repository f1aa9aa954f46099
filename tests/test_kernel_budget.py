"""The kernel's work budget in its own words (issue 32, docs/one-machine-plan.md §2.7).

A step of the kernel that passes its budget stops with FAULT_BUDGET at the statement running
(`S[H_AT]`).  The kernel's budget is the engine's (abi.KERNEL_BUDGET), and it counts as the engine
does (tests/test_kernel_work.py), so `faults.error` words it as the engine does
(`reasons.OVER_BUDGET`, at that statement, with what was being done: `faults.counts_as_the_engine`)
and the game is not played on the engine's machine (`Kernel._fallback`).  Held here for rules that
run away (more than WORK_BUDGET on the engine: the engine refuses them), on both spellings: the
kernel's words are the engine's, message, line and context (frozen in
tests/golden/engine/test_kernel_budget.json by `freeze`, tests/tools/freeze_engine.py).
"""

from __future__ import annotations

import pytest

import fishrules
from fishrules.errors import RuleError
from fishrules.kernel import Kernel, faults
from fishrules.kernel.native import NativeError, compiler
from ._frozen import frozen
from ._twins import watched_fallback

try:
    compiler()
    BACKENDS = ("python", "native")
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    BACKENDS = ("python",)

HEAD = 'game "Heavy"\nplayers 2 to 3\n'
BOARD = "board: circles from 1 to 1000\n  line 1, 2\n"
TURNS = "phase game:\n  repeat:\n    for each player:\n      player chooses heavy\n\n"
#: rules that do more than WORK_BUDGET in one step, at the start and in a move
RUNAWAY = {
    "endless repeat at the start": HEAD + "the game has x: number\nphase game:\n  repeat:\n    add 1 to x\n",
    "a loop of a billion in a phase played from a phase": HEAD + "the game has x: number\nphase game:\n  play inner\n"
    + "phase inner:\n  repeat 1000000000 times:\n    add 1 to x\n  for each player:\n    player chooses heavy\n\n"
    + "action heavy:\n  nothing\n",
    "a filter in a loop, in a move": HEAD + BOARD + "the game has x: number\n" + TURNS
    + "action heavy:\n  repeat while count(circles where it > x) > 0:\n    add 1 to x\n    subtract 1 from x\n",
}


def _render(call) -> str:
    with pytest.raises(RuleError) as got:
        call()
    return got.value.render()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(RUNAWAY))
def test_a_step_over_the_budget_is_said_by_the_kernel_in_the_engines_words(backend, name):
    g = fishrules.loads(RUNAWAY[name], "heavy.fish")
    kernel = Kernel(g, backend)
    opts = g._options(None)
    engine = frozen("test_kernel_budget")[name]  # (the engine's words, frozen by `freeze`)
    assert "steps of work" in engine
    calls = watched_fallback(kernel)
    assert _render(lambda: kernel.playout(2, opts, 3)) == engine
    assert not calls  # not asked of the engine's machine


def test_the_kernels_budget_is_the_engines_and_the_engine_is_not_asked():
    assert faults.counts_as_the_engine()  # (abi.KERNEL_BUDGET: the engine's)
    g = fishrules.loads(RUNAWAY["endless repeat at the start"], "heavy.fish")
    kernel = Kernel(g, "python")
    calls = watched_fallback(kernel)
    with pytest.raises(RuleError, match="steps of work"):
        kernel.playout(2, g._options(None), 3)
    assert not calls


def freeze(engine) -> dict:
    """The engine's words for each runaway rule (run by tests/tools/freeze_engine.py while it lived)."""
    out = {}
    for name, text in RUNAWAY.items():
        g = fishrules.loads(text, "heavy.fish")
        out[name] = _render(lambda: engine.fallback(Kernel(g, "python"), 2, g._options(None), 3, 300))
    return out

"""Rules nested as deep as the language allows on the kernel's Python spelling (issue 32, step 5f).

CPython compiles at most 20 nested loops and 100 levels of indentation in one function, and gives up
on an `elif` chain of a few thousand links; rules may nest deeper (sixty parameters of one action,
a loop a parameter when its moves are listed; blocks a hundred deep; `otherwise if` a thousand
times).  `emit_python` cuts such code as the engine's compiler does: each of these compiles on the
Python spelling (no `why_not_native`, the state a `KState`, never the engine's machine) and plays
exactly as the engine's own `State` (tests/_twins.py), with random moves."""

from __future__ import annotations

import random
import warnings

import pytest

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.kernel import Kernel

from ._twins import engine_start

HEAD = 'game "Deep"\nplayers 2 to 3\n'
WIDE = (HEAD + "cards c: v from 1 to 8\nthe game has deck: zone of c\neach player has hand: zone of c\n"
        "each player has points: number\nphase game:\n  move c to deck\n  for each player:\n"
        "    move top(1, deck) to player's hand\n  repeat 2 times:\n    for each player:\n      player chooses pick\n"
        "action pick({params}):\n  add {last} to your points\nscore \"p\": your points\n")


def _blocks(header: str, depth: int, inner: str) -> str:
    """`phase game:` with `depth` blocks opened by `header`, one inside the other, around `inner`."""
    lines = [HEAD.rstrip("\n"), "the game has x: number", "each player has points: number", "phase game:"]
    for i in range(depth):
        lines.append("  " * (i + 1) + header.format(i=i))
    lines += ["  " * (depth + 1) + line for line in inner.splitlines()]
    lines += ["  for each player:", "    player chooses poke", "action poke:", "  add 1 to your points",
              "action pass:", "  nothing", 'score "x": x + your points']
    return "\n".join(lines) + "\n"


def _chain(links: int, in_a_loop: bool = False) -> str:
    """A chain of `otherwise if` `links` long, between players' choices (in a `repeat` loop: the
    lowering walks a loop's chain link by link, `kernel/lower.py` `_nesting` and `rounds`, which
    recursed a call a link and raised a bare RecursionError)."""
    at = "    " if in_a_loop else "  "
    lines = [HEAD.rstrip("\n"), "the game has x: number", "each player has points: number", "phase game:",
             "  for each player:", "    player chooses poke or pass"]
    lines += ["  repeat 2 times:"] if in_a_loop else []
    lines += [at + "if x = 0:", at + "  add 1 to x"]
    for i in range(1, links):
        lines += [f"{at}otherwise if x = {i}:", f"{at}  add {1 + i % 3} to x"]
    lines += [at + "otherwise:", at + "  add 5 to x", "  for each player:", "    player chooses poke or pass",
              "action poke:", "  add x to your points", "action pass:", "  nothing", 'score "x": x + your points']
    return "\n".join(lines) + "\n"


INNER = "add 1 to x\nif x > 3:\n  add 2 to x"
WAIT = "add 1 to x\nfor each player:\n  player chooses poke or pass\nif x > 3:\n  add 2 to x"
DEEP = 96  # (the language's MAX_NESTING is 100: the phase and the blocks inside the innermost)

CASES = {
    # a loop a parameter when the moves are listed
    "sixty numbers": HEAD + "each player has points: number\nphase game:\n  repeat 2 times:\n    for each player:\n"
    "      player chooses pick\naction pick(" + ", ".join(f"a{i}: a number from 1 to {1 + (i % 7 == 0)}" for i in range(60))
    + "):\n  add a0 + a59 to your points\nscore \"p\": your points\n",
    "sixty some": WIDE.format(params=", ".join(f"a{i}: some your hand" for i in range(60)), last="count(a59)"),
    # blocks nested as deep as the language allows (with a player's choice in the innermost: arms of
    # the block's dispatch, a jump out of them handed back through the functions cut out)
    "repeats": _blocks("repeat 1 times:", DEEP, INNER),
    "repeat until": _blocks("repeat until x > {i}:", DEEP, INNER),
    "for each": _blocks("for each p{i} in players where it is first(players):", DEEP, INNER),
    "ifs": _blocks("if x >= 0:", DEEP, INNER),
    "ifs around a choice": _blocks("if x >= 0:", DEEP, WAIT),
    "repeats around a choice": _blocks("repeat 1 times:", DEEP, WAIT),
    # an expression as deep as the language allows, in an action's rule and in a define
    "a deep where": HEAD + "each player has points: number\ndefine many: count(" + "(" * 90 + "players"
    + " where it is not last(players))" * 90 + ")\nphase game:\n  repeat 2 times:\n    for each player:\n"
    "      player chooses poke or pass\naction poke:\n  require \"r\": count(" + "(" * 90 + "players"
    + " where it is not last(players))" * 90 + ") > 0\n  add many to your points\naction pass:\n  nothing\n"
    "score \"p\": your points\n",
    # a chain of `otherwise if` a thousand links long
    "a long chain": _chain(1000),
    "a long chain in a loop": _chain(1000, in_a_loop=True),
}


def _loops_in_ifs(depth: int) -> str:
    lines = [HEAD.rstrip("\n"), "the game has x: number", "each player has points: number", "phase game:"]
    for i in range(depth):
        lines.append("  " * (2 * i + 1) + "if x >= 0:")
        lines.append("  " * (2 * i + 2) + "repeat 1 times:")
    lines += ["  " * (2 * depth + 1) + line for line in INNER.splitlines()]
    lines += ["  for each player:", "    player chooses poke", "action poke:", "  add 1 to your points",
              "action pass:", "  nothing", 'score "x": x + your points']
    return "\n".join(lines) + "\n"


CASES["loops in ifs"] = _loops_in_ifs(DEEP // 2)  # (the ifs and loops alternating, 96 deep)


@pytest.fixture
def no_engine(monkeypatch):
    """The engine's machine never plays a game for the kernel."""
    def refuse(*args, **kwargs):
        raise AssertionError("the engine's machine played the kernel's game")
    monkeypatch.setattr(Kernel, "_fallback", refuse)


@pytest.mark.parametrize("name", CASES)
def test_deep_rules_compile_on_the_python_spelling_and_play_as_the_engine(name, no_engine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game = fishrules.loads(CASES[name], f"{name}.fish", backend="python")
    kernel = game.kernel
    assert kernel.name == "python" and kernel.why_not_native is None, kernel.why_not_native
    for seed in (1, 2):
        a, b = engine_start(game, 2, seed), game.start(players=2, seed=seed)
        assert type(b).__name__ == "KState"
        rng = random.Random(seed)
        steps = 0
        while not a.is_over:
            assert (a.current, a.waiting, a.history) == (b.current, b.waiting, b.history)
            who = a.waiting[0] if a.current == SIMULTANEOUS else None
            texts = [x.text for x in a.legal_actions(who)]
            assert texts == [x.text for x in b.legal_actions(who)]
            pick = texts[rng.randrange(len(texts))]
            a.apply(pick)
            b.apply(pick)
            steps += 1
        assert b.is_over and type(b).__name__ == "KState"
        assert a.scores() == b.scores() and a.history == b.history and steps > 0
        played = kernel.playout(2, game._options(None), seed)  # a whole game, on the kernel alone
        assert played.outcome.scores is not None


def test_rules_too_deep_for_the_c_writer_are_the_native_backends_own_error():
    # (the C of a chain of a thousand links nests one `if` a link: the writer's recursion is the
    # build's NativeError, in words, and "auto" plays on the Python spelling)
    from fishrules.kernel import NativeError

    with pytest.raises(NativeError, match="nest deeper than the kernel writes as C"):
        fishrules.loads(CASES["a long chain in a loop"], "chain.fish", backend="native").kernel
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kernel = fishrules.loads(CASES["a long chain in a loop"], "chain.fish").kernel
    assert kernel.name == "python" and "nest deeper" in kernel.why_not_native


def test_the_cut_code_is_only_the_deep_code():
    """Code nested less deep is written as it was (the bundled rulesets' Python is not slower):
    nothing of a shallow game is outlined, and a deep one's outlined functions are few."""
    from fishrules.kernel.emit_python import emit_python

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shallow = Kernel(fishrules.load("fishfry"), "python").program
        deep = Kernel(fishrules.loads(CASES["for each"], "deep.fish"), "python").program
    assert "def xo1()" not in emit_python(shallow) and "def xh1(" not in emit_python(shallow) and "at_line(" not in emit_python(shallow)
    assert 0 < emit_python(deep).count("nonlocal") < 10

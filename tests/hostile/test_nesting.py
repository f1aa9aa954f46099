"""Nesting and recursion (issue 11, section 2: nesting): MAX_NESTING and MAX_DEFINE_DEPTH.

Deep input must never become a RecursionError (in parsing, building the tree, hashing it, checking,
compiling or running) nor crash the interpreter: past MAX_NESTING levels of blocks, expressions or
brackets, and past MAX_DEFINE_DEPTH defines each using the one before, the rules are refused with a
RuleError at the construct, naming the limit.  Just under, they load, run and compute the right value.

Every deep input is loaded both from a string (`loads`) and from a file (`load`: the file path is
hashed differently).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import scenarios as sc
from .contract import FAST, HEAD, L, TINY, assert_loads, assert_rule_error, nested, run

DEPTH = L["MAX_NESTING"]
UNDER = DEPTH - 10  # a single construct this deep, with room for what surrounds it
OVER = DEPTH + 1


def scores_of(text: str, players: int = 2) -> list:
    import fishrules

    return fishrules.loads(text, name="x.fish").start(players=players, seed=0).scores()


def score_game(define: str) -> str:
    """TINY with `define deep: …` (the line after TINY) and a score that reads it."""
    return TINY + f"define deep: {define}\nscore \"deep\": deep\n"


DEFINE_LINE = TINY.count("\n") + 1  # the first line after TINY


def both_ways(text: str, tmp_path: Path):
    """Load the text from a string and from a file; yield each outcome."""
    yield run(sc.load_text, text, timeout=FAST)
    f = tmp_path / "deep.fish"
    f.write_text(text)
    yield run(sc.load_path, str(f), timeout=FAST)


def refused(text: str, tmp_path: Path, lines, limit: str = "MAX_NESTING") -> None:
    for out in both_ways(text, tmp_path):
        assert_rule_error(out, lines=lines, limit=limit)


# ---- expressions ------------------------------------------------------------------------------------

EXPRESSIONS = {
    # name: (template around the core, core, value of the result as a score, or None if not a number)
    "parentheses": ("({})", "7", lambda d: 7),
    "negation": ("- {}", "7", lambda d: 7 if d % 2 == 0 else -7),
    "conditional": ("if yes then {} otherwise 0", "7", lambda d: 7),
    "max calls": ("max({}, 1)", "7", lambda d: 7),
    "abs calls": ("abs({})", "-7", lambda d: 7),
    "sum of a list": ("sum(largest(1, value of dice showing {}))", None, None),
}


@pytest.mark.parametrize("name", ["parentheses", "negation", "conditional", "max calls", "abs calls"])
def test_nested_expression_just_under_the_limit(name):
    template, core, value = EXPRESSIONS[name]
    text = score_game(nested(template, UNDER, core))
    out = run(scores_of, text, timeout=FAST)
    assert out.status == "ok" and out.value == [value(UNDER)] * 2, out


@pytest.mark.parametrize("depth", [OVER, 300, 1000])
@pytest.mark.parametrize("name", ["parentheses", "negation", "conditional", "max calls", "abs calls"])
def test_nested_expression_over_the_limit(name, depth, tmp_path):
    template, core, _ = EXPRESSIONS[name]
    refused(score_game(nested(template, depth, core)), tmp_path, DEFINE_LINE)


def test_a_hundred_thousand_parentheses(tmp_path):
    refused(score_game(nested("({})", 100_000, "7")), tmp_path, DEFINE_LINE)


@pytest.mark.parametrize("depth,value", [(UNDER, "yes"), (UNDER + 1, "no")])
def test_nots_just_under_the_limit(depth, value):
    text = TINY + f"define deep: {'not ' * depth}yes\nscore \"deep\": if deep then 1 otherwise 0\n"
    out = run(scores_of, text, timeout=FAST)
    assert out.status == "ok" and out.value == [1 if value == "yes" else 0] * 2, out


@pytest.mark.parametrize("depth", [OVER, 1000, 10_000])
def test_nots_over_the_limit(depth, tmp_path):
    refused(TINY + f"define deep: {'not ' * depth}yes\n", tmp_path, DEFINE_LINE)


@pytest.mark.parametrize("op,core,value", [("+", "1", lambda n: n), ("-", "1", lambda n: 2 - n),
                                           ("*", "1", lambda n: 1)])
def test_operator_chain_just_under_the_limit(op, core, value):
    text = score_game(f" {op} ".join([core] * UNDER))
    out = run(scores_of, text, timeout=FAST)
    assert out.status == "ok" and out.value == [value(UNDER)] * 2, out


@pytest.mark.parametrize("terms", [OVER + 1, 5000])
@pytest.mark.parametrize("op,core", [("+", "1"), ("*", "1"), ("and", "yes"), ("or", "no")])
def test_operator_chain_over_the_limit(op, core, terms, tmp_path):
    refused(TINY + "define deep: " + f" {op} ".join([core] * terms) + "\n", tmp_path, DEFINE_LINE)


def test_twenty_thousand_terms(tmp_path):
    refused(TINY + "define deep: " + " + ".join(["1"] * 20_000) + "\n", tmp_path, DEFINE_LINE)


@pytest.mark.parametrize("template,core", [
    ("left of {}", "you"),
    ("right of {}", "you"),
    ("{} other than you", "players"),
    ("{} starting with you", "players"),
    ("({} where yes)", "players"),
    ("count({}) + 0", "players"),
    ("[{}]", "1"),
    ("(((({}))))", "1"),
])
@pytest.mark.parametrize("depth", [300, 3000])
def test_other_deep_expressions(template, core, depth, tmp_path):
    text = TINY + "define deep: " + nested(template, depth, core) + "\n"
    for out in both_ways(text, tmp_path):
        assert_rule_error(out, lines=DEFINE_LINE)


@pytest.mark.parametrize("where", [
    "option o: number = {e}, \"o\"",
    "the game has v: number = {e}",
    "each player has v: number = {e}",
    "score \"v\": {e}",
    "winners: players where {b}",
    "action deep(n: a number from 0 to {e}):\n  nothing",
    "action deep:\n  require \"r\": {b}\n  nothing",
    "phase deep:\n  repeat {e} times:\n    nothing",
    "phase deep:\n  set v to {e}\nthe game has v: number",
])
def test_deep_expressions_everywhere(where, tmp_path):
    e = nested("({})", 1000, "1")
    b = nested("not ({})", 500, "yes")
    text = TINY.replace('score "points": your points\n', "") + where.format(e=e, b=b) + "\n"
    for out in both_ways(text, tmp_path):
        assert_rule_error(out, limit="MAX_NESTING")


# ---- blocks -----------------------------------------------------------------------------------------------


def nested_blocks(header: str, depth: int, inner: str = "add 1 to x") -> str:
    """`phase game:` with `depth` blocks opened by `header` one inside the other (lines 5...)."""
    lines = [HEAD.rstrip("\n"), "the game has x: number", "phase game:"]
    for i in range(depth):
        lines.append("  " * (i + 1) + header.format(i=i))
    lines.append("  " * (depth + 1) + inner)
    lines += ["  for each player:", "    player chooses poke", "action poke:", "  nothing",
              'score "x": x']
    return "\n".join(lines) + "\n"


BLOCKS = ["if yes:", "repeat 1 times:", "for each player other than left of first(players):", 'rule "r{i}":',
          "if x >= 0:", "repeat until yes:", "for each p{i} in players where it is first(players):"]


@pytest.mark.parametrize("header", BLOCKS)
def test_nested_blocks_just_under_the_limit(header):
    text = nested_blocks(header, UNDER)
    out = run(sc.exercise_text, text, timeout=FAST)
    assert_loads(out)
    assert out.value["runtime_error"] is None, out


@pytest.mark.parametrize("depth", [OVER, 300, 600])
@pytest.mark.parametrize("header", BLOCKS)
def test_nested_blocks_over_the_limit(header, depth, tmp_path):
    text = nested_blocks(header, depth)
    refused(text, tmp_path, range(5, depth + 6))


def test_three_hundred_nested_ifs_with_otherwise(tmp_path):
    lines = [HEAD.rstrip("\n"), "phase game:"]
    for i in range(300):
        lines += ["  " * (i + 1) + "if yes:", "  " * (i + 2) + "nothing", "  " * (i + 1) + "otherwise:"]
    lines.append("  " * 301 + "nothing")
    refused("\n".join(lines) + "\n", tmp_path, range(4, 1000))


def test_long_flat_otherwise_if_chain_is_not_nesting():
    # a thousand `otherwise if` lines are one level deep: fine, or a RuleError; never a crash
    lines = [HEAD.rstrip("\n"), "the game has x: number", "phase game:", "  if x = 0:", "    add 1 to x"]
    for i in range(1, 1000):
        lines += [f"  otherwise if x = {i}:", "    add 1 to x"]
    lines += ["  for each player:", "    player chooses poke", "action poke:", "  nothing"]
    out = run(sc.exercise_text, "\n".join(lines) + "\n", timeout=FAST)
    if out.status != "ok":
        assert_rule_error(out)


def test_nested_variant_blocks(tmp_path):
    lines = [TINY.rstrip("\n")]
    for i in range(300):
        lines.append("  " * i + f"variant v{i}:")
    lines.append("  " * 300 + "replace option o: number = 1")
    refused("\n".join(lines) + "\n", tmp_path, range(1, 400))


def test_deep_indentation_alone(tmp_path):
    # indentation that opens no block: a syntax error at the line, whatever its depth
    text = HEAD + "phase game:\n" + "".join(" " * (2 * i + 2) + "nothing\n" for i in range(500))
    for out in both_ways(text, tmp_path):
        assert_rule_error(out, lines=range(4, 6))


# ---- MAX_DEFINE_DEPTH ---------------------------------------------------------------------------------------


def define_chain(n: int, kind: str = "plain") -> str:
    """n defines, d1 = 1 and each d(i) = d(i-1) + 1; the score reads the last (= n)."""
    out = [TINY.replace('score "points": your points\n', "")]
    if kind == "plain":
        out.append("define d1: 1\n")
        out += [f"define d{i}: d{i - 1} + 1\n" for i in range(2, n + 1)]
        out.append(f'score "deep": d{n}\n')
    elif kind == "per player":
        out.append("define d1: your points + 1\n")
        out += [f"define d{i}: d{i - 1} + 1\n" for i in range(2, n + 1)]
        out.append(f'score "deep": d{n}\n')
    elif kind == "parameters":
        out.append("define d1(k: number): k + 1\n")
        out += [f"define d{i}(k: number): d{i - 1}(k) + 1\n" for i in range(2, n + 1)]
        out.append(f'score "deep": d{n}(0)\n')
    return "".join(out)


@pytest.mark.parametrize("kind", ["plain", "per player", "parameters"])
def test_define_chain_just_under_the_limit(kind):
    n = L["MAX_DEFINE_DEPTH"] - 1
    out = run(scores_of, define_chain(n, kind), timeout=FAST)
    assert out.status == "ok" and out.value == [n] * 2, out


@pytest.mark.parametrize("n", [L["MAX_DEFINE_DEPTH"] + 2, 1000])
@pytest.mark.parametrize("kind", ["plain", "per player", "parameters"])
def test_define_chain_over_the_limit(kind, n, tmp_path):
    text = define_chain(n, kind)
    first = text.count("\n", 0, text.index("define d1")) + 1
    refused(text, tmp_path, range(first, first + n + 2), limit="MAX_DEFINE_DEPTH")


def test_define_chain_in_reverse_order(tmp_path):
    # the chain written last-first: the same depth, found the same way
    n = 1000
    text = TINY + "".join(f"define d{i}: d{i + 1} + 1\n" for i in range(1, n)) + f"define d{n}: 1\nscore \"d\": d1\n"
    refused(text, tmp_path, range(DEFINE_LINE, DEFINE_LINE + n + 2), limit="MAX_DEFINE_DEPTH")


@pytest.mark.parametrize("defines", [
    "define a: b + 1\ndefine b: a + 1\n",
    "define a: a + 1\n",
    "define f(n: number): if n = 0 then 0 otherwise f(n - 1)\nscore \"f\": f(3)\n",
    "define f(n: number): g(n) + 1\ndefine g(n: number): f(n) + 1\nscore \"f\": f(3)\n",
    "".join(f"define c{i}: c{(i + 1) % 500} + 1\n" for i in range(500)),
])
def test_define_cycles(defines, tmp_path):
    text = TINY + defines
    for out in both_ways(text, tmp_path):
        if out.status == "ok":  # not refused by the checker: then a RuleError when played
            play = run(sc.exercise_text, text, timeout=FAST)
            assert play.status == "ok" and play.value["runtime_error"] is not None, play
            assert any(d.positioned for d in play.value["runtime_error"]["diagnostics"])
        else:
            assert_rule_error(out, lines=range(DEFINE_LINE, DEFINE_LINE + 502))


def test_phases_calling_phases_a_thousand_deep(tmp_path):
    text = HEAD + "phase game:\n  play p1\n" + "".join(f"phase p{i}:\n  play p{i + 1}\n" for i in range(1, 1000)) + \
        "phase p1000:\n  nothing\n"
    out = run(sc.load_text, text, timeout=FAST)
    if out.status == "ok":
        assert_rule_error(run(sc.start_only, text, timeout=FAST))
    else:
        assert_rule_error(out)

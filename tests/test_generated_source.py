"""The Python the compiler writes is built only from names it mints and literals it writes with
repr(): no name or text of a rule file ever becomes code (issue 13's rule for the source writer).

Two checks.  Every identifier in the generated code of every bundled ruleset and example is one the
compiler owns (minted `d3`/`b12`, its helpers, its own locals, Python's keywords and a few
builtins).  And a ruleset whose names are Python's dangerous names (`exec`, `__import__`, `open`)
or the compiler's own (`s`, `L`, `fr`, `charge`, `push`), and whose strings try to close a literal or
a comment, compiles to code where those names never appear and those strings appear only as string
literals that read back as themselves — and it plays exactly the game it renames."""

from __future__ import annotations

import ast
import io
import keyword
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

import fishrules
from fishrules.compiler import source_of
from fishrules.runtime.contract import HELPERS, STATE

from ._compiling import SPLIT, compiled_with, playthrough

ROOT = Path(__file__).resolve().parent.parent
MINTED = re.compile(r"^[a-z]+\d+$")
# The compiler's own locals, the state's attributes the contract between generated code and the
# runtime names (fishrules.runtime.contract, held by tests/test_runtime_contract.py), and the
# builtins the code calls.
OWN = {
    "s", "L", "fr", "pc", "at", "i", "n", "o", "p", "v", "w", "_", "exc", "bad", "ok", "memo", "actor",
    "MISSING", "score", "winners",
    "append", "clear", "fromkeys", "get", "pop",
    "Exception", "all", "any", "dict", "len", "min", "range", "set", "sorted", "sum", "tuple",
} | set(STATE)

RENAMES = {
    "catch": "exec", "fryer": "__import__", "fish_caught": "open", "body_points": "s", "panfish_points": "L",
    "turn_points": "charge", "fishfry_rolled": "push", "roller": "fr", "reroll": "compile", "stay": "globals",
    "chosen": "os", "HEAD": "lambda", "TAIL": "class", "PANFISH": "def", "BODY": "sys", "rolling": "subprocess",
    "fishfry": "builtins",
}
DANGEROUS = {"exec", "__import__", "open", "compile", "globals", "os", "sys", "subprocess", "builtins", "eval"}
HOSTILE = [
    "x'); __import__('os').system('touch /tmp/pwned') #",
    "\\' + exec('1') + '\\",
    "a\rb\x0cc\u2028d\u2029e\x85f",
    "}{\\N{BULLET}%s{0}",
    "'''",
    "\\x41\t\\u0041",
    "é漢字\U0001F41F",
]


def hostile_fishfry() -> tuple[str, list[str]]:
    """fishfry.fish with every name above renamed and every string made hostile (each distinct)."""
    out, strings = [], []
    for line in (ROOT / "rulesets" / "fishfry.fish").read_text().split("\n"):
        code, hash_, comment = line.partition("#")

        def swap(_m):
            text = HOSTILE[len(strings) % len(HOSTILE)] + str(len(strings))
            if code.lstrip().startswith("log "):  # a log sentence's braces are its placeholders: checked, never code
                text = text.replace("{", "(").replace("}", ")")
            strings.append(text)
            return '"' + text + '"'

        code = re.sub(r'"[^"\n]*"', swap, code)
        for a, b in RENAMES.items():
            code = re.sub(rf"\b{a}\b", b, code)
        out.append(code + hash_ + comment)
    return "\n".join(out), strings


def tokens(src: str):
    return list(tokenize.generate_tokens(io.StringIO(src).readline))


HOUSE_RULES = ROOT / "examples" / "house-rules"
#: Every bundled ruleset and example, by name: loaded by the tests (`load`), not when the file is
#: collected (by every process of `make test`, whether it runs these tests or not).
NAMES = sorted(fishrules.bundled()) + sorted(path.name for path in HOUSE_RULES.glob("*.fish"))


def load(name: str) -> fishrules.Game:
    return fishrules.load(HOUSE_RULES / name if name.endswith(".fish") else name)


def sources():
    for name in NAMES:
        yield name, load(name)


@pytest.mark.parametrize("name", NAMES)
def test_every_identifier_is_the_compilers_own(name):
    game = load(name)
    src = source_of(game._model)
    compile(src, "<listing>", "exec")  # the listing is valid Python, header included
    for tok in tokens(src):
        if tok.type == tokenize.NAME:
            word = tok.string
            assert MINTED.match(word) or word in HELPERS or word in OWN or keyword.iskeyword(word), (word, tok.start)
        elif tok.type == tokenize.STRING:
            ast.literal_eval(tok.string)  # a plain literal, nothing else (no f-strings)
            assert not tok.string.lstrip("rbuRBU").startswith(("f", "F"))


def test_hostile_names_and_strings_never_become_code():
    text, strings = hostile_fishfry()
    game = fishrules.loads(text, name="hostile.fish")
    src = source_of(game._model)
    toks = tokens(src)
    names = {t.string for t in toks if t.type == tokenize.NAME}
    assert not names & DANGEROUS
    literals = [ast.literal_eval(t.string) for t in toks if t.type == tokenize.STRING]
    code_only = "".join(t.string for t in toks if t.type not in (tokenize.STRING, tokenize.COMMENT))
    for text_ in strings:
        if text_ in literals:  # a string the code needs is a literal that reads back as itself
            assert repr(text_) in src
    assert "pwned" not in code_only and "system" not in code_only
    for t in toks:
        if t.type == tokenize.COMMENT:  # a comment is one line: nothing in it reached the code
            assert "\n" not in t.string and "\r" not in t.string


def test_the_hostile_ruleset_plays_the_game_it_renames():
    text, _ = hostile_fishfry()
    hostile = fishrules.loads(text, name="hostile.fish")
    plain = fishrules.load("fishfry")
    for players in (2, 5):
        assert hostile.simulate(40, players, seed=3) == plain.simulate(40, players, seed=3)
    s, t = hostile.start(3, seed=9), plain.start(3, seed=9)
    while not t.is_over:
        a, b = s.legal_actions(), t.legal_actions()
        assert len(a) == len(b)
        s.apply(a[-1])
        t.apply(b[-1])
    assert s.scores() == t.scores() and s.winners() == t.winners()


def test_explain_python_prints_the_listing():
    exe = Path(sys.executable).with_name("fishrules")
    out = subprocess.run([str(exe), "explain", "--python", "fatfish"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == source_of(fishrules.load("fatfish")._model)
    assert "# The globals this code is given" in out.stdout
    assert re.search(r"# \w+ at rulesets/fatfish\.fish line \d+", out.stdout)  # rules named by line
    compile(out.stdout, "<listing>", "exec")


# ---- cutting the code into pieces CPython can read changes nothing ------------------------------------


@pytest.mark.parametrize("knobs", SPLIT, ids=["inline", "arms"])
@pytest.mark.parametrize("name", NAMES)
def test_every_ruleset_plays_the_same_cut_into_the_smallest_pieces(name, knobs):
    """The compiler cuts deep expressions, long `if` chains, big dispatches, deep statements and
    many parameters into pieces (so that whatever the checker accepts compiles): with the
    thresholds at their smallest, the code is cut everywhere it can be, and every ruleset plays
    exactly as it does uncut: the same positions, scores, views, legal actions and errors."""
    game = load(name)
    split = compiled_with(game, knobs)
    src = split._program.source
    uncut = game._program.source
    # the thresholds did cut: parts of expressions, every chain after its first link (the cut of
    # the `if … otherwise` of a statement is checked over all the rulesets, below)
    for piece in ("nested too deep to write in one piece", "sum(("):
        assert piece in src, piece
    assert "elif " not in src and ("pc == " not in uncut or " <= pc <= " in src)
    if "_INLINE_DEPTH" in knobs:  # every nested statement an arm
        assert src.count("continue") > uncut.count("continue")
    for tok in tokens(src):  # the pieces are named by the compiler too
        if tok.type == tokenize.NAME:
            word = tok.string
            assert MINTED.match(word) or word in HELPERS or word in OWN or keyword.iskeyword(word), (word, tok.start)
    for players in sorted({game.min_players, game.max_players}):
        for seed in (1, 2):
            assert playthrough(split, players, seed, actions=60) == playthrough(game, players, seed, actions=60)


def test_the_smallest_pieces_cut_inline_if_statements_somewhere():
    """(The differential test above is only as good as its cuts: some ruleset has an `if …
    otherwise` written inline, cut with a flag, and an action with several parameters.)"""
    cut = [compiled_with(game, SPLIT[0])._program.source for _, game in sources()]
    assert any(re.search(r"^ +f\d+ = True$", src, re.M) for src in cut)
    assert any("from its parameter 2 on" in src for src in cut)

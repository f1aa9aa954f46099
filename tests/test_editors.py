"""Highlighting and editor files: the Pygments lexer `fishrules` and the TextMate grammar.

Lexing every bundled ruleset and every ```fishrules snippet of the docs yields no error token;
the lexer is registered under `fishrules` (the fish shell keeps `fish`); the TextMate grammar is
valid and in step with the lexer's word lists; and none of Pygments, pygls or lsprotocol is
imported on the normal path.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pygments = pytest.importorskip("pygments")
from pygments.token import Error  # noqa: E402

from fishrules import lexer as fl  # noqa: E402
from fishrules.lexer import FishrulesLexer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULE_FILES = sorted((ROOT / "rulesets").glob("*.fish")) + sorted((ROOT / "examples" / "house-rules").glob("*.fish"))
FENCE = re.compile(r"^([ \t]*)```fishrules\b[^\n]*\n(.*?)^\1```", re.S | re.M)


def snippets():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for i, m in enumerate(FENCE.finditer(page.read_text(encoding="utf-8"))):
            yield pytest.param(m.group(2), id=f"{page.relative_to(ROOT)}#{i}")


def errors(text: str) -> list:
    return [(t, v) for t, v in FishrulesLexer().get_tokens(text) if t in Error]


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_rulesets_lex_without_errors(path):
    assert errors(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("text", list(snippets()))
def test_docs_snippets_lex_without_errors(text):
    assert errors(text) == []


def test_what_it_highlights():
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    toks = [(t, v) for t, v in FishrulesLexer().get_tokens('phase game:\n  if count(dice) >= 2 and fishy:  # yes\n    add 1 to roller\'s catch\nscore "x": 3\n') if v.strip()]
    assert (Keyword.Declaration, "phase") in toks and (Name.Builtin, "count") in toks
    assert (Operator.Word, "and") in toks and (Comment.Single, "# yes") in toks
    assert (String.Double, '"x"') in toks and (Number.Integer, "2") in toks and (Operator, "'s") in toks
    assert (Keyword, "if") in toks and (Name, "fishy") in toks


def test_the_entry_point_and_no_clash_with_the_fish_shell():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["entry-points"]["pygments.lexers"]["fishrules"] == "fishrules.lexer:FishrulesLexer"
    from pygments.lexers import get_lexer_by_name

    assert get_lexer_by_name("fish").name != "fishrules"  # the shell's own
    assert FishrulesLexer.aliases == ["fishrules"] and FishrulesLexer.filenames == []
    try:
        assert type(get_lexer_by_name("fishrules")).__name__ == "FishrulesLexer"
    except pygments.util.ClassNotFound:
        pytest.skip("the package was installed before its entry point existed: reinstall to register it")


def test_the_textmate_grammar():
    grammar = json.loads((ROOT / "editors" / "vscode" / "syntaxes" / "fishrules.tmLanguage.json").read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.fishrules"
    for rule in grammar["patterns"]:
        re.compile(rule["match"])  # the patterns are plain regular expressions
    text = json.dumps(grammar)
    for word in fl.DECLARATIONS + fl.STATEMENTS + fl.WORD_OPERATORS + fl.CONSTANTS + fl.BUILTINS:
        assert re.search(rf"[|:(]{word}[|)]", text), word
    package = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
    assert package["contributes"]["languages"][0]["id"] == "fishrules"
    assert package["contributes"]["grammars"][0]["scopeName"] == "source.fishrules"


def test_the_language_keywords_are_highlighted():
    # every keyword the grammar of the language has is one of the lexer's words
    from fishrules.lsp import KEYWORDS

    words = set(fl.DECLARATIONS + fl.STATEMENTS + fl.WORD_OPERATORS + fl.CONSTANTS) | {"no"}
    assert set(KEYWORDS) - words == set()


def test_loading_rules_imports_no_editor_package_nor_the_game_kernel():
    # (the kernel's lowering and native build were a fifth of `fishrules check`'s start, imported
    # only to check the backend's name)
    code = ("import sys, fishrules, fishrules.cli; fishrules.load('fishfry'); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('pygments', 'pygls', 'lsprotocol', 'cattrs')"
            " or m.startswith('fishrules.kernel')]; "
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr

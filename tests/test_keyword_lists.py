"""The three keyword lists agree with the grammar: completion (`lsp.py`), highlighting in the docs
(`lexer.py`) and in VS Code (`editors/vscode/syntaxes/fishrules.tmLanguage.json`).

Each is written by hand where its reader wants it; a word the grammar gains (a new statement's
keyword, say) must reach all three, and a word it loses must leave them.  The grammar's words are
its string literals that are words (`"reveal"`, `"highest"`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fishrules import lexer, lsp

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "src" / "fishrules" / "syntax" / "grammar.lark"
TM = ROOT / "editors" / "vscode" / "syntaxes" / "fishrules.tmLanguage.json"


def grammar_words() -> set[str]:
    text = "\n".join(line.split("//")[0] for line in GRAMMAR.read_text(encoding="utf-8").splitlines())
    return set(re.findall(r'"([a-z]+)"i?', text))


def tm_groups() -> dict[str, set[str]]:
    """The word lists of the TextMate grammar, by scope name (`\\b(?:a|b|c)\\b` patterns)."""
    out: dict[str, set[str]] = {}
    for p in json.loads(TM.read_text(encoding="utf-8"))["patterns"]:
        m = re.fullmatch(r"(?:\^|\\b)\(\?:([a-z|]+)\)\\b", p.get("match", ""))
        if m:
            out[p["name"].rsplit(".", 1)[0]] = set(m.group(1).split("|"))
    return out


def test_the_grammar_words_are_found():
    words = grammar_words()
    assert {"reveal", "unavailable", "secretly", "otherwise", "highest", "then"} <= words and len(words) > 100


def test_the_lexer_knows_exactly_the_grammar_words():
    lists = lexer.DECLARATIONS + lexer.STATEMENTS + lexer.WORD_OPERATORS + lexer.CONSTANTS
    assert len(lists) == len(set(lists)), "a word is in two of lexer.py's lists"
    words = set(lists)
    assert not grammar_words() - words, f"lexer.py does not highlight {sorted(grammar_words() - words)}"
    assert not words - grammar_words(), f"lexer.py highlights {sorted(words - grammar_words())}, not in the grammar"
    assert not set(lexer.BUILTINS) & grammar_words()


def test_the_vscode_grammar_has_the_lexer_s_lists():
    groups = tm_groups()
    assert groups["storage.type.declaration"] == set(lexer.DECLARATIONS)
    assert groups["keyword.operator.word"] == set(lexer.WORD_OPERATORS)
    assert groups["constant.language"] == set(lexer.CONSTANTS)
    assert groups["support.function.builtin"] == set(lexer.BUILTINS)
    # every other word of the grammar is a control keyword (declarations are words of statements too)
    control = groups["keyword.control"]
    rest = grammar_words() - set(lexer.WORD_OPERATORS) - set(lexer.CONSTANTS)
    assert control == rest, f"missing {sorted(rest - control)}, extra {sorted(control - rest)}"


def test_completion_offers_exactly_the_grammar_words():
    words = set(lsp.KEYWORDS)
    assert not grammar_words() - words, f"lsp.py does not offer {sorted(grammar_words() - words)}"
    assert not words - grammar_words(), f"lsp.py offers {sorted(words - grammar_words())}, not in the grammar"


"""What issue 11 asks the documentation to say: a docs/security.md page (what a rule file can and
cannot do, the limits, what the API guarantees to a server, how to report a problem) and one table of
limits in the language reference."""

from __future__ import annotations

import re

import pytest

from .contract import LIMITS, ROOT, names_limit

DOCS = ROOT / "docs"
RULE_LIMITS = [k for k in LIMITS if k not in ("MAX_STATE_BYTES", "MAX_ACTION_TEXT")]


def test_security_page_exists():
    assert (DOCS / "security.md").is_file(), "docs/security.md is missing"


@pytest.mark.parametrize("limit", sorted(LIMITS))
def test_security_page_gives_every_limit(limit):
    # one table of limits: the security page gives the limit, or links to the table that does
    page = DOCS / "security.md"
    assert page.is_file(), "docs/security.md is missing"
    text = page.read_text(encoding="utf-8")
    links_table = re.search(r"\(language\.md#[^)]*limit[^)]*\)", text) is not None
    assert links_table or names_limit(text, limit), f"docs/security.md neither gives {limit} nor links to the table"


@pytest.mark.parametrize("limit", sorted(RULE_LIMITS))
def test_language_reference_gives_every_limit(limit):
    text = (DOCS / "language.md").read_text(encoding="utf-8")
    assert names_limit(text, limit), f"docs/language.md does not give {limit} = {LIMITS[limit]}"


@pytest.mark.parametrize("words", [("extends",), ("StateError",), ("IllegalAction",), ("RuleError",),
                                   ("report",)])
def test_security_page_covers(words):
    page = DOCS / "security.md"
    assert page.is_file(), "docs/security.md is missing"
    text = page.read_text(encoding="utf-8")
    for w in words:
        assert w in text, f"docs/security.md does not mention {w}"

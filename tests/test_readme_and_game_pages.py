"""The README works as written after `make demo`, and the documentation explains each game in the
project's own words (issue 23, group 4).

- The README says how to put `fishrules` on the PATH, and `make demo` says it too.
- Every concrete `fishrules …` command the README shows (one without a placeholder such as GAME or
  FILE…) runs from the repository's root and succeeds; `play` is left at its first prompt; the
  servers (`lsp`, `serve`) are started by their own suites.
- Each game's page has a "How to play" section, lists the numbers a table changes as the ruleset
  names them, and points to no rulebook file: the repository has none."""

from __future__ import annotations

import glob
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from fishrules import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = sorted((ROOT / "docs" / "games").glob("*.md"))
#: A word of a command that stands for something to fill in.
PLACEHOLDER = re.compile(r"^(-*[A-Z][A-Z_…]*|.*….*|\[.*|.*\]|out\.html|N|K|S|V)$")


def readme_commands() -> list[str]:
    found = re.findall(r"`(fishrules [^`]+)`", README)
    found += [line.strip() for line in re.findall(r"^\s*(fishrules .+)$", README, re.M)]
    out = []
    for cmd in dict.fromkeys(found):
        words = shlex.split(cmd.split("#")[0])
        # servers run until stopped: their own suites start them (tests/test_lsp.py, tests/test_web_*.py)
        if words[1:2] not in (["lsp"], ["serve"]) and all(not PLACEHOLDER.match(w) for w in words[1:]):
            out.append(cmd)
    return out


def test_the_readme_says_how_to_put_fishrules_on_the_path():
    assert "source .venv/bin/activate" in README and ".venv/bin/fishrules" in README
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    demo = make[make.index("\ndemo:"):].split("\n\n")[0]
    assert "activate" in demo


def test_the_readme_shows_commands_that_can_be_run():
    assert len(readme_commands()) >= 5, readme_commands()


@pytest.mark.parametrize("cmd", readme_commands())
def test_each_readme_command_works_as_typed(cmd, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    argv = []
    for word in shlex.split(cmd.split("#")[0])[1:]:
        argv += sorted(glob.glob(word)) if "*" in word else [word]
    if argv[0] in ("simulate", "compare"):  # fewer games: the test is that the command works as typed
        argv = [a if i == 0 or argv[i - 1] != "--games" else "20" for i, a in enumerate(argv)]
        argv += [] if "--games" in argv else ["--games", "20"]
    try:
        code = cli.main(argv)
    except SystemExit as e:  # --help
        code = e.code
    out, err = capsys.readouterr()
    assert code == 0, f"$ {cmd}\n{out}\n{err}"
    assert "Traceback" not in out + err


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_game_page_says_how_to_play_in_its_own_words(page):
    text = page.read_text(encoding="utf-8")
    assert "\n## How to play\n" in text
    how = text.split("\n## How to play\n")[1].split("\n## ")[0]
    assert len(how.split()) >= 150, "a few paragraphs: the rules of the game, start to end"
    assert "shared/rulebooks" not in text and not re.search(r"\b[\w-]+\.txt\b", text), "a rulebook file the repository lacks"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_game_page_lists_the_numbers_its_ruleset_names(page):
    from fishrules import nodes as n
    from fishrules.variants import find_ruleset, resolve_file

    text = page.read_text(encoding="utf-8")
    named = [it.name for it in resolve_file(find_ruleset(page.stem)).items
             if isinstance(it, n.Define) and isinstance(it.expr, n.Number)]
    assert named
    section = text.split("\n## The numbers a table changes\n")[1].split("\n## ")[0]
    for name in named:
        assert f"`{name}`" in section, (page.name, name)


def test_no_ruleset_points_to_a_rulebook_file():
    for path in (ROOT / "rulesets").glob("*.fish"):
        assert "shared/rulebooks" not in path.read_text(encoding="utf-8"), path.name

"""The documentation cannot drift from the code: every snippet in README.md and docs/** is run.

What each kind of fenced block means to this test (a block may carry a title, as in
```` ```fishrules title="our-fishfry.fish" ````; the title names the file the block is; `fishrules`
is the rules' Pygments lexer, as `fish` is the fish shell's):

- ```` ```fishrules ````: a rule file that loads and plays to the end with random legal actions.
- ```` ```fishrules-error ````: a rule file with a deliberate mistake: it must fail to load. It must
  have a title, and a ```` ```console ```` block of the same page must run `fishrules check` on it,
  so the error message the page shows is checked word for word.
- ```` ```python ````: a script, run in a fresh namespace with the repository root as the current
  folder; it must not raise.
- ```` ```console ````: `$ fishrules …` lines and, under each, what the command prints. A block
  whose every command is `fishrules` is run — in a scratch folder holding the page's titled rule
  files as the page has shown them up to that block, with the repository's `rulesets/` and
  `examples/` beside them — and its output compared word by word with what the page shows
  (`N games/s` is timing and is not compared). For `fishrules play`, the page writes what the
  player types after the prompt (`your choice> stay`) and the test types it. A block with any
  other command (`make`, `pip`, …) is not run.
- ```` ```sh ```` and any other language: shown only.
"""

from __future__ import annotations

import glob
import io
import os
import random
import re
import shlex
import sys
from pathlib import Path

import pytest

import fishrules
from fishrules import cli
from fishrules.random_play import random_step

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# A fenced block: its indentation, language, the rest of its opening line, and its body.
FENCE = re.compile(r"^([ \t]*)```([\w-]*)([^\n]*)\n(.*?)^\1```[ \t]*$", re.S | re.M)
TITLE = re.compile(r'title="([^"]+)"')
PROMPT = "your choice>"


class Block:
    def __init__(self, page: Path, index: int, lang: str, info: str, body: str, indent: str):
        self.page = page
        self.index = index
        self.lang = lang
        title = TITLE.search(info)
        self.title = title.group(1) if title else None
        lines = body.splitlines(keepends=True)
        self.text = "".join(line[len(indent):] if line.startswith(indent) else line for line in lines)

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}#{self.lang}{self.index}"


def blocks_of(page: Path) -> list[Block]:
    found = FENCE.findall(page.read_text(encoding="utf-8"))
    return [Block(page, i, lang, info, body, indent) for i, (indent, lang, info, body) in enumerate(found)]


BLOCKS = [b for page in PAGES for b in blocks_of(page)]


def of(lang: str) -> list:
    return [pytest.param(b, id=b.id) for b in BLOCKS if b.lang == lang]


def test_there_are_snippets():
    counts = {lang: len(of(lang)) for lang in ("fishrules", "fishrules-error", "python", "console")}
    assert counts["fishrules"] >= 3 and counts["python"] >= 5 and counts["fishrules-error"] >= 1, counts
    assert len(CONSOLE) >= 5, "the console blocks that are run"


def test_fences_are_closed():
    """An unclosed or mistyped fence would hide the rest of a page from this test."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert len(re.findall(r"^[ \t]*```", text, re.M)) == 2 * len(FENCE.findall(text)), page


# ---- rule files ---------------------------------------------------------------------------------


def load_block(block: Block) -> fishrules.Game:
    return fishrules.loads(block.text, block.title or "snippet.fish", base_dir=str(ROOT / "rulesets"))


def play_out(game: fishrules.Game, players: int, seed: int) -> fishrules.State:
    state = game.start(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(100_000):
        if state.is_over:
            break
        random_step(state, rng)
    assert state.is_over
    return state


@pytest.mark.parametrize("block", of("fishrules"))
def test_fish_snippet_loads_and_plays(block):
    game = load_block(block)
    play_out(game, game.min_players, seed=1)


@pytest.mark.parametrize("block", of("fishrules-error"))
def test_fish_error_snippet_fails_and_its_message_is_shown(block):
    with pytest.raises(fishrules.RuleError):
        load_block(block)
    assert block.title, "a fish-error block needs a title: the file the page runs `fishrules check` on"
    checked = [
        cmd for b in BLOCKS if b.page == block.page and b.lang == "console" and runnable(b)
        for cmd, _ in transcript(b) if shlex.split(cmd)[:2] == ["fishrules", "check"]
        and block.title in shlex.split(cmd)
    ]
    assert checked, f"no console block of {block.page.name} shows `fishrules check {block.title}`"


def test_house_rule_examples_check_and_play():
    for path in sorted((ROOT / "examples" / "house-rules").glob("*.fish")):
        game = fishrules.load(path)
        assert play_out(game, max(3, game.min_players), seed=2).winners()


# ---- python -------------------------------------------------------------------------------------


@pytest.mark.parametrize("block", of("python"))
def test_python_snippet_runs(block, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = compile(block.text, block.id, "exec")
    exec(code, {"__name__": "__main__"})


# ---- console ------------------------------------------------------------------------------------


def transcript(block: Block) -> list[tuple[str, str]]:
    """(command, the output shown under it) for every `$ ` line of a console block."""
    out: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:].strip(), []))
        elif out:
            out[-1][1].append(line)
    return [(cmd, "\n".join(lines)) for cmd, lines in out]


def runnable(block: Block) -> bool:
    steps = transcript(block)
    return bool(steps) and all(shlex.split(cmd)[0] == "fishrules" for cmd, _ in steps)


CONSOLE = [pytest.param(b, id=b.id) for b in BLOCKS if b.lang == "console" and runnable(b)]


def words(text: str) -> list[str]:
    """Output compared word by word: line wrapping depends on the terminal, timing on the machine."""
    text = re.sub(r"\d+ games/s", "N games/s", text)
    text = re.sub(r"(?<=\w)-\s+(?=\w)", "-", text)  # argparse breaks long names at a hyphen
    return text.split()


def run_cli(argv: list[str], typed: list[str], monkeypatch, capsys) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(t + "\n" for t in typed)))
    try:
        cli.main(argv)
    except SystemExit:  # --help
        pass
    out, err = capsys.readouterr()
    return out + err


@pytest.mark.parametrize("block", CONSOLE)
def test_console_block_shows_real_output(block, tmp_path, monkeypatch, capsys):
    for other in BLOCKS:  # each file as the page has written it so far: a later block is a new version
        if other.page == block.page and other.index < block.index and other.title and other.lang in ("fishrules", "fishrules-error"):
            (tmp_path / other.title).write_text(other.text, encoding="utf-8")
    for name in ("rulesets", "examples"):
        os.symlink(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    for cmd, shown in transcript(block):
        argv = []
        for word in shlex.split(cmd)[1:]:
            argv += sorted(glob.glob(word)) if "*" in word else [word]
        typed = re.findall(rf"^{PROMPT} ?(.*)$", shown, re.M)
        expected = re.sub(rf"^{PROMPT}.*$", PROMPT, shown, flags=re.M)
        got = run_cli(argv, typed, monkeypatch, capsys)
        if words(got) != words(expected) and os.environ.get("FISHRULES_UPDATE_DOCS"):
            _rewrite_shown(block, cmd, shown, got, typed)
            continue
        assert words(got) == words(expected), f"$ {cmd}\n--- the page shows:\n{shown}\n--- it prints:\n{got}"


def _rewrite_shown(block: Block, cmd: str, shown: str, got: str, typed: list[str]) -> None:
    """FISHRULES_UPDATE_DOCS=1: write what the command prints into the page, in place of what it
    showed (the typed answers put back after each prompt).  Review the diff before committing."""
    for answer in typed:
        got = got.replace(f"{PROMPT} ", f"\0{answer}\n", 1)
    got = got.replace("\0", f"{PROMPT} ")
    new = "\n".join(line.rstrip() for line in got.rstrip("\n").splitlines())
    text = block.page.read_text(encoding="utf-8")
    indent = re.search(rf"^([ \t]*)\$ {re.escape(cmd)}$", text, re.M).group(1)
    old = "\n".join(indent + line if line else line for line in [f"$ {cmd}", *shown.splitlines()])
    fresh = "\n".join(indent + line if line else line for line in [f"$ {cmd}", *new.splitlines()])
    assert old in text, f"cannot find the output of `{cmd}` in {block.page}"
    block.page.write_text(text.replace(old, fresh, 1), encoding="utf-8")


def test_language_reference_names_every_function():
    from fishrules.checker import BUILTINS

    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    missing = [f for f in BUILTINS if f"`{f}(" not in text]
    assert not missing, f"docs/language.md does not describe {missing}"

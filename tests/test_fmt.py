"""`fishrules fmt`: one canonical layout, every comment kept, idempotent, and the same rules.

The bundled rulesets and house-rule examples are already laid out canonically (fixed points), so
formatting them changes neither their text nor their rule hash.  Hypothesis lays each ruleset out
at random (other indentation widths, spaces anywhere whitespace may go, blank lines and trailing
blanks) and checks that `fmt` gives the canonical text back, and that every layout parses to the
same rules.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fishrules
from fishrules import RuleError
from fishrules.fmt import format_text
from fishrules.syntax import parse
from fishrules.syntax.lark_parser import lalr_parser

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "rulesets").glob("*.fish")) + sorted((ROOT / "examples" / "house-rules").glob("*.fish"))
SRC = str(ROOT / "src")


def comments(text: str) -> list[str]:
    """Every comment of a text, in order (a `#` outside a text in quotes, to the end of the line)."""
    out = []
    for line in text.splitlines():
        in_str = False
        for i, ch in enumerate(line):
            if ch == '"':
                in_str = not in_str
            elif ch == "#" and not in_str:
                out.append(line[i:].rstrip())
                break
    return out


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_files_are_fixed_points(path):
    text = path.read_text(encoding="utf-8")
    assert format_text(text, path.name) == text


def test_the_rule_hash_of_a_bundled_ruleset_is_unchanged():
    # Formatting a bundled file changes nothing, so its rule hash (of its text) stays the same.
    for path in BUNDLED[:3]:
        text = path.read_text(encoding="utf-8")
        assert fishrules.loads(format_text(text), name=path.name, base_dir=str(path.parent))._identity == \
            fishrules.loads(text, name=path.name, base_dir=str(path.parent))._identity


MESSY = """\
# a comment at the top


game   "Messy"    # the title
players 2  to 4
dice :2 with faces A ,B   ,  C 5
the game has  total : number



define heads:count( dice showing A )+ - 1
phase game :
    # inside the phase
    repeat 3 times :
            roll all dice



            if heads>1 :
                    add  heads to total   # counted
    # after the repeat
      # between levels
phase  game_two :
    nothing
score "total" : total *2
# at the end

"""

CANONICAL = """\
# a comment at the top


game "Messy"      # the title
players 2 to 4
dice: 2 with faces A, B, C 5
the game has total: number


define heads: count(dice showing A) + -1
phase game:
  # inside the phase
  repeat 3 times:
    roll all dice

    if heads > 1:
      add heads to total                  # counted
  # after the repeat
  # between levels

phase game_two:
  nothing

score "total": total * 2
# at the end
"""


def test_a_messy_file():
    assert format_text(MESSY) == CANONICAL
    assert format_text(CANONICAL) == CANONICAL
    assert comments(MESSY) == comments(CANONICAL)
    assert parse(MESSY) == parse(CANONICAL)


def test_a_line_continued_in_brackets_keeps_its_layout():
    text = 'game "G"\nplayers 2 to 4\ndefine x: max(1,\n        2,   # two\n   3)\nphase game:\n      nothing\n'
    out = format_text(text)
    assert out == 'game "G"\nplayers 2 to 4\ndefine x: max(1,\n        2,   # two\n   3)\nphase game:\n  nothing\n'
    assert format_text(out) == out


def test_a_file_with_syntax_errors_is_not_formatted():
    with pytest.raises(RuleError) as info:
        format_text('game "G"\nphase game\n  nothing\n')
    assert "ends too early" in str(info.value)


# ---- random layouts of every ruleset ------------------------------------------------------------


def _lines(text: str):
    """(indent level, tokens, original text of the line, trailing comment or None) per logical line,
    and the gaps (blank lines and comment lines) between them, in order."""
    ip = lalr_parser().parse_interactive(text)
    depth, cur = 0, []
    for tok in ip.iter_parse():
        if tok.type == "_NL":
            if cur:
                yield ("line", depth, cur, str(tok))
                cur = []
            else:
                yield ("gap", depth, None, str(tok))
        elif tok.type == "_INDENT":
            depth += 1
        elif tok.type == "_DEDENT":
            depth -= 1
        else:
            cur.append(tok)


def messy(text: str, draw) -> str:
    """The same rules laid out at random, keeping every comment."""
    width = draw(st.sampled_from([1, 2, 3, 4, 8]))
    out = []
    spaces = st.integers(min_value=0, max_value=3)
    for kind, depth, toks, nl in _lines(text):
        if kind == "line":
            parts = [str(toks[0])]
            for a, b in zip(toks, toks[1:]):
                need = a.type in ("NAME", "INT") or str(a)[-1:].isalnum()
                need = need and (b.type in ("NAME", "INT") or str(b)[:1].isalnum() or b.type == "STRING")
                parts.append(" " * (draw(spaces) + (1 if need or a.type == "STRING" else 0)))
                parts.append(str(b))
            if toks[0].line != toks[-1].end_line:  # continued lines: as they are
                parts = [text[toks[0].start_pos:toks[-1].end_pos]]
            line = " " * (width * depth) + "".join(parts)
        else:
            line = None
        # the newline token: its trailing comment, then its blank and comment lines
        chunks = nl.split("\n")
        head, middle = chunks[0], chunks[1:-1]
        if line is not None:
            out.append(line + (" " * draw(st.integers(min_value=1, max_value=4)) + head if head else "")
                       + " " * draw(st.integers(min_value=0, max_value=2)))
        elif head:
            out.append(head)
        for m in middle:
            stripped = m.strip()
            if not stripped:
                out.append(" " * draw(st.integers(min_value=0, max_value=3)))
                continue
            indent = len(m) - len(m.lstrip(" "))
            out.append(" " * (indent // 2 * width) + stripped)
    return "\n".join(out) + "\n" * draw(st.integers(min_value=1, max_value=3))


_PARSED: dict = {}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BUNDLED), st.data())
def test_random_layouts_format_back_and_parse_the_same(path, data):
    text = path.read_text(encoding="utf-8")
    if path not in _PARSED:  # the bundled file's own tree, parsed once (a third of this test's parses)
        _PARSED[path] = parse(text, path.name)
    tree = _PARSED[path]
    mess = messy(text, data.draw)
    assert parse(mess, path.name) == tree  # the same rules in any layout
    out = format_text(mess, path.name)
    assert comments(out) == comments(text)
    assert parse(out, path.name) == tree
    assert format_text(out, path.name) == out  # idempotent
    assert out == text  # and canonical: the bundled files are laid out that way


# ---- the command ---------------------------------------------------------------------------------


def run(*args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "fishrules.cli", *args], capture_output=True, text=True,
                          input=stdin, cwd=cwd, env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"})


def test_fmt_check_and_write(tmp_path):
    f = tmp_path / "messy.fish"
    f.write_text(MESSY, encoding="utf-8")
    r = run("fmt", "--check", str(f))
    assert r.returncode == 1 and "would be laid out again" in r.stdout
    assert f.read_text(encoding="utf-8") == MESSY  # --check changes nothing
    r = run("fmt", str(f))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f.read_text(encoding="utf-8") == CANONICAL
    r = run("fmt", "--check", str(f))
    assert r.returncode == 0 and r.stdout == ""


def test_fmt_check_of_the_bundled_files():
    r = run("fmt", "--check", *map(str, BUNDLED))
    assert r.returncode == 0, r.stdout


def test_fmt_of_standard_input():
    r = run("fmt", "-", stdin=MESSY)
    assert r.returncode == 0 and r.stdout == CANONICAL


def test_fmt_of_a_broken_file(tmp_path):
    f = tmp_path / "broken.fish"
    f.write_text('game "G"\nphase game\n  nothing\n', encoding="utf-8")
    r = run("fmt", str(f))
    assert r.returncode == 1 and "broken.fish:2:11: error: this line ends too early" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr

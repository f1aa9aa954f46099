"""A file of thousands of mistakes is checked in time linear in its size (issue 31, section 1).

Each mistake's hint ("did you mean …") compared the unknown name with every name the rules know,
and each diagnostic found its source line by splitting the whole file: a file of N mistakes cost
N × N.  These tests count the comparisons difflib makes (`SequenceMatcher.set_seq1`, one per known
name compared) for 500 unknown names among 500 known ones, in each place a name is
looked up, and check that what is printed is bounded and says what was left out.  The slower
hostile cases (a whole 128 KiB file of each kind, in a worker with a deadline) are in
tests/hostile/test_limits.py.
"""

from __future__ import annotations

import difflib
import random
import re
import time

import pytest

import fishrules
from fishrules import RuleError
from fishrules.errors import Diagnostic, Source, Span, did_you_mean, follows_from

#: The bounds docs/language.md gives (its table of limits): hints for the first MAX_HINTS unknown
#: names of a check (`fishrules.checker.core`), each comparing at most MAX_HINT_CANDIDATES known
#: names, and the first MAX_SHOWN_DIAGNOSTICS problems shown (`fishrules.errors`).
MAX_HINTS, MAX_HINT_CANDIDATES, MAX_SHOWN_DIAGNOSTICS = 100, 200, 200

#: How many known names, and how many mistakes, each file has (N x N comparisons before: 250,000).
N = 500

HEAD = 'game "G"\nplayers 2 to 4\ndice: 2 with faces A, B\nthe game has total: number\nthe game has leader: player = nobody\n'


def _lines(template: str, n: int = N) -> str:
    return "".join(template.format(k=k) + "\n" for k in range(n))


#: place -> rules with N known names `alpha_K` of one kind and N uses of `alpah_K`, which is none of
#: them (each the misspelling of one).
PLACES = {
    "a define's expression": HEAD + _lines("define alpha_{k}: {k}") + _lines("define beta_{k}: alpah_{k} + 1")
    + "phase game:\n  roll all dice\n",
    "a phase's statement": HEAD + _lines("define alpha_{k}: {k}") + "phase game:\n" + _lines("  add alpah_{k} to total"),
    "an action with parameters in scope": HEAD + _lines("define alpha_{k}: {k}")
    + "phase game:\n  leader chooses act\naction act(n: a number from 1 to 2):\n" + _lines("  add alpah_{k} + n to total"),
    "a variable set": HEAD + _lines("the game has alpha_{k}: number") + "phase game:\n" + _lines("  set alpah_{k} to 1"),
    "a phase played": HEAD + _lines("phase alpha_{k}:\n  nothing") + "phase game:\n" + _lines("  play alpah_{k}"),
    "a phase ended": HEAD + _lines("phase alpha_{k}:\n  nothing") + "phase game:\n" + _lines("  end alpah_{k}"),
    "an action offered": HEAD + _lines("action alpha_{k}:\n  nothing") + "phase game:\n" + _lines("  leader chooses alpah_{k}"),
    "a face of the dice": HEAD.replace("faces A, B", "faces " + ", ".join(f"alpha_{k}" for k in range(N)))
    + _lines("define d{k}: count(dice showing alpah_{k})") + "phase game:\n  roll all dice\n",
    "a player's value": HEAD + _lines("each player has alpha_{k}: number") + _lines("define d{k}: leader's alpah_{k}")
    + "phase game:\n  roll all dice\n",
    "a value of each player": HEAD + _lines("each player has alpha_{k}: number")
    + _lines("define d{k}: count(players where alpah_{k} > 0)") + "phase game:\n  roll all dice\n",
}


@pytest.fixture
def comparisons(monkeypatch) -> list:
    """Counts the names difflib compares (each `set_seq1` is one known name compared in full)."""
    calls: list = []
    real = difflib.SequenceMatcher.set_seq1

    def counted(self, a):
        calls.append(a)
        return real(self, a)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counted)
    return calls


def _error(text: str) -> RuleError:
    with pytest.raises(RuleError) as info:
        fishrules.loads(text, name="many.fish")
    return info.value


@pytest.mark.parametrize("place", list(PLACES))
def test_hints_for_many_unknown_names_are_bounded(place, comparisons):
    err = _error(PLACES[place])
    errors = err.errors
    assert len(errors) >= N, f"every mistake is still reported: {len(errors)}"
    # N x N comparisons before; now at most MAX_HINTS hints, each comparing a bounded number of names
    assert len(comparisons) <= MAX_HINTS * MAX_HINT_CANDIDATES, len(comparisons)
    # and the first mistakes keep their hint, as in a file of one mistake
    first = next(d for d in errors if "alpah_0`" in d.message)
    assert first.hint is not None and "`alpha_0`" in first.hint, first.render()


def test_a_name_misspelt_again_keeps_its_hint(comparisons):
    # a mistake made over and over is hinted wherever it is, the work done once
    text = HEAD + _lines("define alpha_{k}: {k}", 50) + _lines("define beta_{k}: alpah_7 + 1") + "phase game:\n  roll all dice\n"
    errors = _error(text).errors
    assert len(errors) == N
    assert all(d.hint is not None and "`alpha_7`" in d.hint for d in errors), [d.render() for d in errors if not d.hint][:3]
    assert len(comparisons) <= 200, len(comparisons)


def test_did_you_mean_is_bounded_however_many_names_it_is_given(comparisons):
    known = ["a" * k for k in range(1, 100)] + [f"alpha_{k}" for k in range(20_000)]
    hint = did_you_mean("alpah_7", known)
    assert hint is not None and "`alpha_7`" in hint
    assert len(comparisons) <= MAX_HINT_CANDIDATES
    comparisons.clear()
    assert did_you_mean("a" * 10_000, known) is None  # a name this long gets no hint
    assert did_you_mean("a" * 40, known) is not None
    assert len(comparisons) <= MAX_HINT_CANDIDATES


#: (a name, the names known, the hint as before the bound: difflib's three closest)
HINTS = [
    ("fsh_caught", ["fish_caught", "total", "leader"], "did you mean `fish_caught`?"),
    ("HAED", ["HEAD", "TAIL", "BODY"], "did you mean `HEAD`?"),
    ("rolls", ["rolling", "round", "turn", "rolls_x"], "did you mean `rolls_x` or `rolling`?"),
    ("nothing_like_it", ["alpha", "beta"], None),
]


def _difflib_hint(name: str, known: list[str]) -> str | None:
    close = difflib.get_close_matches(name, sorted(set(known)), n=3, cutoff=0.6)
    if not close:
        return None
    return "did you mean " + (f"`{close[0]}`" if len(close) == 1 else
                              ", ".join(f"`{c}`" for c in close[:-1]) + f" or `{close[-1]}`") + "?"


def test_hints_are_difflibs_among_fewer_names_than_the_bounds(comparisons):
    # bounded, yet as good as ever where the bounds are not reached: the same names, in the same order
    rng = random.Random(31)
    words = ["".join(rng.choice("abcdefghij_") for _ in range(rng.randint(1, 14))) for _ in range(150)]
    for name, known, hint in HINTS:
        assert did_you_mean(name, known) == hint == _difflib_hint(name, known)
    for _ in range(500):
        name = "".join(ch for ch in rng.choice(words) if rng.random() > 0.15) + rng.choice(["", "x", "e"])
        known = rng.sample(words, rng.randint(0, 150))
        assert did_you_mean(name, known) == _difflib_hint(name, known), (name, known)
    comparisons.clear()
    known = [f"fish_{k}" for k in range(1000)]
    assert did_you_mean("fsh_999", known) == _difflib_hint("fsh_999", known)
    assert len(comparisons) < 1200  # difflib's own, and the hint's: a few (1,000 before)


# ---- what is printed -------------------------------------------------------------------------------------


def test_render_shows_the_first_problems_and_says_how_many_are_left_out():
    err = _error(PLACES["a define's expression"])
    total = len(err.diagnostics)
    text = err.render()
    assert len(err.shown) == MAX_SHOWN_DIAGNOSTICS and err.left_out == total - MAX_SHOWN_DIAGNOSTICS
    assert text.count("error: ") == MAX_SHOWN_DIAGNOSTICS
    assert f"… and {total - MAX_SHOWN_DIAGNOSTICS:,} more not shown" in text
    assert f"first {MAX_SHOWN_DIAGNOSTICS} problems" in text
    assert text.endswith(f"\n\n{len(err.errors):,} errors")
    # the problems shown are the first ones of the file
    shown_lines = [int(m) for m in re.findall(r"many\.fish:(\d+):", text)]
    assert shown_lines == sorted(shown_lines) and shown_lines[0] == min(d.span.line for d in err.diagnostics)


def test_the_bounds_are_those_documented():
    from fishrules.checker import core
    from fishrules import errors

    assert (core.MAX_HINTS, errors.MAX_HINT_CANDIDATES, errors.MAX_SHOWN_DIAGNOSTICS) == \
        (MAX_HINTS, MAX_HINT_CANDIDATES, MAX_SHOWN_DIAGNOSTICS)


def test_a_file_of_few_problems_is_shown_whole():
    err = _error(HEAD + "define a: nosuch\ndefine b: nosuch_either\nphase game:\n  roll all dice\n")
    assert err.left_out == 0 and "not shown" not in err.render()
    assert err.render().endswith("\n\n2 errors")


def test_fishrules_check_says_what_it_left_out(tmp_path, capsys):
    from fishrules.cli import main

    path = tmp_path / "many.fish"
    path.write_text(PLACES["a phase played"])
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    # errors come first: the phases never played (warnings, earlier in the file) are left out
    assert err.count(": error: ") == MAX_SHOWN_DIAGNOSTICS and ": warning: " not in err
    assert re.search(r"… and [\d,]+ more not shown: fishrules shows the first 200 problems of a file; fix these first", err)
    assert re.search(rf"\n{N:,} errors\n", err), err[-500:]


# ---- the work done for each diagnostic ------------------------------------------------------------------


def test_quoting_a_line_does_not_read_the_whole_file():
    # 40,000 lines (800 KB): each diagnostic quotes its line, for 10,000 diagnostics
    text = "".join(f"define d{k}: nosuch\n" for k in range(40_000))
    source = Source("big.fish", text)
    started = time.process_time()
    rendered = [Diagnostic(Span(source, k, 1, k, 2), "x").render() for k in range(1, 40_001, 4)]
    assert time.process_time() - started < 2.0  # splitting the file for each took about a minute
    assert rendered[1].split("\n")[1] == "    5 | define d4: nosuch"


def test_lines_are_counted_as_the_parser_counts_them():
    source = Source("x.fish", "a\r\nb\u2028c\nd\n")
    assert [source.line(k) for k in range(0, 5)] == ["", "a", "b\u2028c", "d", ""]


def test_errors_that_follow_from_lost_lines_are_found_without_a_scan_each():
    lost = frozenset(f"name_{k}" for k in range(5_000)) | {"define name_3", "game"}
    started = time.process_time()
    hits = [follows_from(f"unknown name `other_{k}`", lost) for k in range(5_000)]
    assert time.process_time() - started < 2.0  # 25,000,000 lookups before
    assert not any(hits)
    assert follows_from("unknown name `name_42`", lost)
    assert follows_from('the rule "name_7" and more', lost)
    assert follows_from("there is no `define name_3` here", lost)
    assert follows_from("the rules have no title", lost)
    assert not follows_from("the rules do not say how many may play", lost)
    assert not follows_from("`name_4", lost)
    many_quotes = "`" * 100 + "name_5`"
    assert follows_from(many_quotes, lost) == any(f"`{x}`" in many_quotes for x in lost)


def test_an_overlay_naming_many_missing_things_in_a_large_base_is_bounded(tmp_path, comparisons):
    """An overlay's hint lists the names there are, nearest first: that compared each missing name
    with every name of the base (2,000 by 2,000 took 48 s), and walked the base's actions for each."""
    (tmp_path / "big.fish").write_text(HEAD + _lines("phase alpha_{k}:\n  nothing") + "phase game:\n  roll all dice\n")
    overlay = tmp_path / "over.fish"
    overlay.write_text('extends "big"\n' + _lines("remove phase alpah_{k}"))
    with pytest.raises(RuleError) as info:
        fishrules.load(overlay)
    errors = info.value.errors
    assert len(errors) >= N
    assert len(comparisons) <= 2 * MAX_HINTS * 1024, len(comparisons)
    assert "`alpha_0`" in (errors[0].hint or "")  # the first keep their list of the nearest
    assert "hints are given for the first" in (errors[-1].hint or "")


def test_a_long_overlay_that_breaks_its_base_is_blamed_without_a_copy_per_line(tmp_path, monkeypatch):
    """A problem the overlay causes in its base is reported at the overlay's line; finding that
    line took a copy of every declaration after each line of the overlay: 7,000 lines took 5 s."""
    from fishrules import variants

    copies = []
    real = variants._Rules.items
    monkeypatch.setattr(variants._Rules, "items", lambda self: copies.append(1) or real(self))
    path = tmp_path / "long.fish"
    path.write_text('extends "fishfry"\n' + _lines("define extra_{k}: {k}", 2000) + "remove define rolls_a_turn\n")
    with pytest.raises(RuleError) as info:
        fishrules.load(path)
    assert any("rolls_a_turn" in d.message and d.span.file.endswith("long.fish") for d in info.value.errors)
    assert len(copies) < 50, len(copies)

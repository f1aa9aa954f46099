"""The hostile corpus of house-rule mistakes (tests/house-mistakes, issue 23 group 1): each file
says what `fishrules check` must report — every diagnostic at a line of the file itself (never in
the ruleset it extends), with the message and the hint each must give, in order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import fishrules
from fishrules.cli import main

CORPUS = Path(__file__).resolve().parent / "house-mistakes"
FILES = sorted(CORPUS.glob("*.fish"))
EXPECT = re.compile(r"^# expect: (\d+):(\d+) (error|warning): (.*)$")
HINT = re.compile(r"^# hint: (.*)$")


def expectations(path: Path) -> list[dict]:
    out: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        m = EXPECT.match(line)
        if m:
            out.append({"at": (int(m.group(1)), int(m.group(2))), "severity": m.group(3), "message": m.group(4),
                        "hints": []})
            continue
        h = HINT.match(line)
        if h:
            assert out, f"{path.name}: a `# hint:` before any `# expect:`"
            out[-1]["hints"].append(h.group(1))
    return out


def diagnostics_of(path: Path) -> list:
    try:
        game = fishrules.load(path.name)
    except fishrules.RuleError as exc:
        return exc.diagnostics
    return list(game.warnings)


def test_there_is_a_corpus():
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_mistake_gives_its_error_and_hint(path, monkeypatch):
    monkeypatch.chdir(CORPUS)  # as the writer runs `fishrules check`: bundled rulesets are named by name
    want = expectations(path)
    got = diagnostics_of(path)
    shown = "\n\n".join(d.render() for d in got)
    assert len(got) == len(want), f"{path.name} gives:\n{shown}"
    for d, w in zip(got, want):
        assert d.span is not None and d.span.file == path.name, f"{path.name}: not in the file itself:\n{d.render()}"
        assert (d.span.line, d.span.column) == w["at"], d.render()
        assert d.severity == w["severity"], d.render()
        assert w["message"] in d.message, d.render()
        for hint in w["hints"]:
            assert d.hint is not None and hint in d.hint, d.render()
        if d.severity == "error":
            assert d.hint, f"an error for a house-rule writer comes with a hint:\n{d.render()}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_command_shows_it(path, monkeypatch, capsys):
    monkeypatch.chdir(CORPUS)
    want = expectations(path)
    code = main(["check", path.name])
    err = capsys.readouterr().err
    assert code == (1 if any(w["severity"] == "error" for w in want) else 0)
    assert "Traceback" not in err
    for w in want:
        assert f"{path.name}:{w['at'][0]}:{w['at'][1]}: {w['severity']}: " in err

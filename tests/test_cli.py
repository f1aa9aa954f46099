"""The `fishrules` command, driven through `fishrules.cli.main(argv)` (and once as a real process)."""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fishrules
from fishrules.cli import main
from fishrules.syntax import parse

BUNDLED = fishrules.bundled()
EXE = Path(sys.executable).with_name("fishrules")


def run(capsys, *argv: str):
    """main(argv) -> (exit status, stdout, stderr)."""
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def simulate_json(capsys, *argv: str) -> dict:
    rc, out, err = run(capsys, "simulate", *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


def without_timing(result: dict) -> dict:
    assert "timing" not in result and "seconds" not in result  # measurements only with --timing
    return result


# ---- the command itself -----------------------------------------------------------------------


def test_help_as_a_process():
    assert EXE.is_file(), f"the console script is not installed at {EXE}"
    p = subprocess.run([str(EXE), "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("usage: fishrules")
    for command in ("check", "play", "simulate", "explain", "replay"):
        assert command in p.stdout


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    assert "usage: fishrules" in capsys.readouterr().err


# ---- check ------------------------------------------------------------------------------------


def test_check_every_bundled_ruleset(capsys):
    assert len(BUNDLED) >= 5
    rc, out, err = run(capsys, "check", *BUNDLED)
    assert rc == 0, out + err
    for name in BUNDLED:
        g = fishrules.load(name)
        line = f"{name}: ok — {g.title}, {g.min_players} to {g.max_players} players"
        assert re.search(rf"^{re.escape(line)}", out, re.M), out
    assert "error" not in out + err


def test_check_bundled_files_by_path(capsys):
    paths = sorted(str(p) for p in Path(fishrules.api.rulesets_dir()).glob("*.fish"))
    rc, out, _ = run(capsys, "check", *paths)
    assert rc == 0
    assert out.count(": ok — ") == len(paths) == len(BUNDLED)


def _caret_column(out: str, line_no: int, source: str) -> int:
    """The 1-based column the caret under the quoted source line points at."""
    lines = out.splitlines()
    i = next(i for i, ln in enumerate(lines) if re.match(rf"\s*{line_no} \| ", ln))
    assert lines[i].split(" | ", 1)[1] == source, lines[i]
    caret = lines[i + 1]
    bar = caret.index("| ")
    assert bar == lines[i].index("| "), "the caret line is not aligned with the source line"
    return caret.index("^") - (bar + 2) + 1


def test_check_a_syntax_error(capsys, tmp_path):
    bad = tmp_path / "broken.fish"
    bad.write_text('game "Broken"\nplayers 2 to 4\nphase game:\n  frobnicate\n', encoding="utf-8")
    rc, out, err = run(capsys, "check", str(bad))
    assert rc == 1 and out == ""  # errors go to standard error
    m = re.search(r"broken\.fish:(\d+):(\d+): error: ", err)
    assert m, err
    line, col = int(m[1]), int(m[2])
    assert line == 4
    assert _caret_column(err, 4, "  frobnicate") == col
    assert "1 of 1 file(s) have errors" in err


def test_check_a_rule_error_and_a_good_file_together(capsys, tmp_path):
    bad = tmp_path / "bad-face.fish"
    bad.write_text(
        'game "Broken"\nplayers 2 to 4\ndice: 2 with faces A, B\n'
        'score "s": count(dice showing BANANA)\nphase game:\n  roll all dice\n',
        encoding="utf-8",
    )
    rc, out, err = run(capsys, "check", "fishfry", str(bad))
    assert rc == 1  # one bad file fails the whole check
    assert out.strip() == "fishfry: ok — Fishfry, 2 to 8 players"  # the results on standard output
    m = re.search(r"bad-face\.fish:(\d+):(\d+): error: .*BANANA", err)
    assert m, err
    assert int(m[1]) == 4
    source = "score \"s\": count(dice showing BANANA)"
    col = _caret_column(err, 4, source)
    assert col == int(m[2]) and source[col - 1:].startswith("dice showing BANANA")
    assert "1 of 2 file(s) have errors" in err


def test_check_a_missing_ruleset(capsys):
    rc, out, err = run(capsys, "check", "fishfyr")
    assert rc == 1 and out == ""
    assert "cannot find the ruleset 'fishfyr'" in err and "fishfry" in err


# ---- simulate ---------------------------------------------------------------------------------


def test_simulate_json(capsys):
    r = simulate_json(capsys, "fishfry", "--games", "20", "--seed", "3")
    assert (r["game"], r["games"], r["seed"], r["players"]) == ("Fishfry", 20, 3, 2)
    assert [s["seat"] for s in r["seats"]] == [0, 1]
    assert sum(s["win_rate"] for s in r["seats"]) == pytest.approx(1.0)
    for s in r["seats"]:
        assert 0 <= s["min_score"] <= s["mean_score"] <= s["max_score"]
    # a single Fishfry game is at least one full turn each: 5 dice rolled per player
    assert r["length"]["min_actions"] >= 10
    assert r["length"]["mean_decisions"] > 0


def test_simulate_is_reproducible(capsys):
    first = simulate_json(capsys, "fishfry", "--games", "20", "--seed", "3")
    again = simulate_json(capsys, "fishfry", "--games", "20", "--seed", "3")
    assert without_timing(first) == without_timing(again)
    others = [without_timing(simulate_json(capsys, "fishfry", "--games", "20", "--seed", str(s)))
              for s in (4, 5, 6)]
    stripped = {k: v for k, v in without_timing(first).items() if k != "seed"}
    assert any({k: v for k, v in o.items() if k != "seed"} != stripped for o in others)


def test_simulate_players(capsys):
    r = simulate_json(capsys, "fishfry", "--players", "4", "--games", "10", "--seed", "1")
    assert r["players"] == 4 and len(r["seats"]) == 4
    assert sum(s["win_rate"] for s in r["seats"]) == pytest.approx(1.0)


def test_simulate_with_an_option(capsys):
    short = simulate_json(capsys, "fishfry-keeper", "--option", "rounds=2", "--games", "10", "--seed", "2")
    assert short["options"] == {"rounds": 2}
    full = simulate_json(capsys, "fishfry-keeper", "--games", "10", "--seed", "2")
    assert full["options"] == {}
    # 2 rounds instead of the default 7: clearly shorter games
    assert short["length"]["mean_actions"] < 0.6 * full["length"]["mean_actions"]


def test_simulate_a_bad_option_name(capsys):
    rc, out, err = run(capsys, "simulate", "fishfry-keeper", "--option", "roundz=2", "--games", "5")
    assert rc == 2
    assert "roundz" in err and "rounds" in err
    assert "Traceback" not in err and out == ""


@pytest.mark.parametrize(
    "option, words",
    [("rounds", ["NAME=VALUE"]), ("rounds=many", ["rounds", "whole number"]), ("rounds=0", ["rounds", "1 to 100"])],
)
def test_simulate_bad_option_values(capsys, option, words):
    rc, _, err = run(capsys, "simulate", "fishfry-keeper", "--option", option, "--games", "5")
    assert rc == 2
    for w in words:
        assert w in err


def test_simulate_text_table(capsys):
    rc, out, _ = run(capsys, "simulate", "fishfry", "--games", "5", "--seed", "1")
    assert rc == 0
    assert "win rate" in out and "p0" in out and "p1" in out and "games/s" not in out
    rc, out, _ = run(capsys, "simulate", "fishfry", "--games", "5", "--seed", "1", "--timing")
    assert rc == 0 and "games/s" in out


# ---- explain ----------------------------------------------------------------------------------


def test_explain_keeper(capsys):
    rc, out, _ = run(capsys, "explain", "fishfry-keeper")
    assert rc == 0
    assert 'rule "done fishing"' in out
    assert "fish_limit" in out
    module = parse(out, "explained.fish")
    assert module.items


# ---- play and replay --------------------------------------------------------------------------


def _expected_game(seed: int, players: int = 2):
    """What `play fishfry --seed SEED` does when seat 0 always answers "1": a bot picks with
    random.Random(f"{seed}/{position}"), the dice are seeded with the same seed."""
    import random

    game = fishrules.load("fishfry")
    s = game.start(players=players, seed=seed)
    while not s.is_over:
        acts = s.legal_actions()
        rng = random.Random(f"{seed}/{len(s.history)}")
        s.apply(acts[0] if s.current == 0 else acts[rng.randrange(len(acts))])
    return s


def test_play_then_replay(capsys, tmp_path, monkeypatch):
    prompts = []

    def answer(prompt=""):
        prompts.append(prompt)
        if len(prompts) > 200:
            raise AssertionError("the game does not end")
        return "1"

    monkeypatch.setattr(builtins, "input", answer)
    log = tmp_path / "game.json"
    rc, out, _ = run(capsys, "play", "fishfry", "--seed", "1", "--log", str(log))
    assert rc == 0
    assert prompts, "the human was never asked"
    assert "Game over." in out
    data = json.loads(log.read_text(encoding="utf-8"))
    assert data["format"] == "fishrules-log/2"
    assert data["seats"] == ["human", "random"] and data["over"] is True and "rules" not in data
    assert (data["ruleset"], data["players"], data["seed"]) == ("fishfry", 2, 1)
    expected = _expected_game(1)
    assert data["history"] == expected.history
    assert f"Winner{'s' if len(expected.winners()) != 1 else ''}: " + ", ".join(f"p{p}" for p in expected.winners()) in out

    monkeypatch.setattr(builtins, "input", lambda *a: pytest.fail("replay must not ask anything"))
    rc, out, err = run(capsys, "replay", str(log))
    assert rc == 0, err
    assert f"{len(expected.history)} actions replayed" in out
    assert f"scores {expected.scores()}" in out
    assert f"winners {['p%d' % p for p in expected.winners()]}" in out

    rc, verbose, _ = run(capsys, "replay", "-v", str(log))
    assert rc == 0
    assert verbose.splitlines()[0].split(None, 1)[1] == expected.history[0]


def test_play_until_end_of_input(capsys, monkeypatch, tmp_path):
    def eof(prompt=""):
        raise EOFError

    monkeypatch.setattr(builtins, "input", eof)
    rc, out, err = run(capsys, "play", "fishfry", "--seed", "1", "--log", str(tmp_path / "x.json"))
    assert rc == 0
    assert "bye" in out
    assert "Traceback" not in err


def test_play_quit_and_a_bad_seat(capsys, monkeypatch):
    monkeypatch.setattr(builtins, "input", lambda prompt="": "q")
    rc, out, _ = run(capsys, "play", "fishfry", "--seed", "2")
    assert rc == 0 and "Game over" not in out
    rc, _, err = run(capsys, "play", "fishfry", "--seat", "5")
    assert rc == 2 and "--seat" in err


def test_play_illegal_answer_is_reported_and_asked_again(capsys, monkeypatch):
    # what the player types is shown as typed, never read as rich markup ("[/]" used to crash)
    answers = iter(["reroll 9", "fish [bold]x[/]", "[/]", "q"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    rc, out, err = run(capsys, "play", "fishfry", "--seed", "1")
    assert rc == 0, err
    assert "'reroll 9' is not allowed" in out
    assert "'fish [bold]x[/]' is not allowed: there is no action `fish`" in out
    assert "'[/]' is not allowed" in out
    with pytest.raises(StopIteration):
        next(answers)  # both answers were asked for


@pytest.mark.parametrize(
    "content, words",
    [
        ('{"hello": "world"}\n', "not a fishrules log"),
        ("[1, 2, 3]\n", "not a fishrules log"),
        ('game "Fishfry"\n', "cannot read the log"),
    ],
)
def test_replay_of_something_else(capsys, tmp_path, content, words):
    f = tmp_path / "not-a-log.txt"
    f.write_text(content, encoding="utf-8")
    rc, out, err = run(capsys, "replay", str(f))
    assert rc == 1  # an input that is wrong, like a rule file; 2 is for a wrong command line
    assert words in err and out == ""


def test_replay_of_a_missing_file(capsys, tmp_path):
    rc, _, err = run(capsys, "replay", str(tmp_path / "nothing.json"))
    assert rc == 1 and "cannot read the log" in err


def test_replay_of_a_truncated_log(capsys, tmp_path):
    f = tmp_path / "short.json"
    f.write_text(json.dumps({"format": "fishrules-log/1", "history": []}), encoding="utf-8")
    rc, _, err = run(capsys, "replay", str(f))
    assert rc == 1
    assert "Traceback" not in err and "ruleset" in err


def test_replay_of_a_tampered_log(capsys, tmp_path):
    s = _expected_game(1)
    history = list(s.history)
    history[0] = "die 1 rolls BANANA"
    f = tmp_path / "tampered.json"
    f.write_text(json.dumps({"format": "fishrules-log/1", "ruleset": "fishfry", "variant": None, "players": 2,
                             "options": {}, "seed": 1, "history": history}), encoding="utf-8")
    rc, _, err = run(capsys, "replay", str(f))
    assert rc == 1
    assert "history entry 1 ('die 1 rolls BANANA') is not allowed" in err


def test_play_never_shows_another_players_secret(monkeypatch, capsys):
    """A Fish at the table must not learn the Fisherman's hidden Fishing card from the screen."""
    answers = iter(["1"] * 200)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "fishfish", "--players", "3", "--seat", "1", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "p0 chooses set_line ?" in out
    others = re.findall(r"p[02] chooses set_line (\S+)", out)
    assert others and set(others) == {"?"}

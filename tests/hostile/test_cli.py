"""The `fishrules` command on hostile input (issue 11, section 5), run as a subprocess.

Each command exits non-zero and prints a one-line error (or the rule-error display), never a
traceback; the `play` prompt re-asks after a bad answer and carries on; `simulate` refuses a player
count outside the ruleset's range, saying the range, and a non-positive `--games`; `replay` of a
tampered log prints one readable line and exits non-zero.

Every command line of this module runs once, two at a time, the first time a test asks for it
(starting the interpreter is most of the cost).
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from . import scenarios as sc
from .contract import HEAD, TINY, readable, run

BIN = Path(sys.executable).parent / "fishrules"
MARK = "SECRET-" + uuid.uuid4().hex[:12]


def _limits() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def cli(args: list, stdin: str = "", cwd=None, timeout: float = 60) -> subprocess.CompletedProcess:
    cmd = [str(BIN)] if BIN.exists() else [sys.executable, "-m", "fishrules.cli"]
    env = dict(os.environ, COLUMNS="120", NO_COLOR="1", TERM="dumb")
    try:
        return subprocess.run(cmd + list(args), input=stdin, capture_output=True, text=True, errors="replace",
                              timeout=timeout, cwd=cwd, env=env, preexec_fn=_limits)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd + list(args), -999, str(e.stdout or ""), f"TIMEOUT after {timeout}s")


# ---- the inputs -------------------------------------------------------------------------------------------

FILES = {
    "digits.fish": TINY + "define big: " + "9" * 5000 + "\n",
    "ifs.fish": HEAD + "phase game:\n" + "".join("  " * (i + 1) + "if yes:\n" for i in range(300)) + "  " * 301 + "nothing\n",
    "nots.fish": TINY + "define deep: " + "not " * 1000 + "yes\n",
    "cards.fish": TINY + "cards c: v from 1 to 1000000000\n",
    "empty.fish": "",
    "passwd.fish": 'extends "/etc/passwd"\ngame "X"\n',
    "dotdot.fish": 'extends "../outside"\ngame "X"\n',
}


def log(**fields) -> dict:
    base = {"format": "fishrules-log/1", "ruleset": "fishfry", "variant": None, "players": 2, "options": {},
            "seed": 1, "history": []}
    base.update(fields)
    return base


LOGS = {
    "variant 5": log(variant=5),
    "players text": log(players="3"),
    "players 0": log(players=0),
    "history entry 5": log(history=[5]),
    "history entry null": log(history=[None]),
    "history entry p2": log(history=["p²"]),
    "history text": log(history="die 1 rolls HEAD"),
    "ruleset dot": log(ruleset="."),
    "ruleset empty": log(ruleset=""),
    "options text": log(ruleset="fishfry-keeper", options={"rounds": "x"}),
    "options list": log(options=[1]),
    "seed text": log(seed="x"),
}
BROKEN_LOGS = {
    "deeply nested": '{"format": "fishrules-log/1", "history": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "a million brackets": "[" * 1_000_000,
    "a huge number": '{"format": "fishrules-log/1", "players": ' + "9" * 5000 + "}",
    "NUL": "\x00",
}
PLAY_ANSWERS = ["²", "9" * 30, "9" * 5000, "\x00", "p²", "-1", "0", "reroll ²", "x" * 100_000]


def _simultaneous_history() -> list:
    for seed in range(10):
        steps = sc.find_steps("fisheatfish", seed, "simultaneous")
        if steps is not None:
            return sc.position("fisheatfish", seed, steps).history
    raise AssertionError("no simultaneous choice")


def cases(tmp: Path) -> dict:
    """name -> (args, stdin, cwd) of every command line this module runs."""
    empty = tmp / "empty-cwd"
    empty.mkdir()
    (tmp / "dir.fish").mkdir()
    out: dict = {}
    for args in (["check", "."], ["check", "/"], ["check", ""], ["explain", "."], ["check", ".."],
                 ["simulate", "."], ["check", "dir.fish"]):
        out["path " + " ".join(args)] = (args, "", tmp)
    files = tmp / "files"
    files.mkdir()
    for name, text in FILES.items():
        (files / name).write_text(text)
        out["file " + name] = (["check", str(files / name)], "", tmp)
    (files / "latin1.fish").write_bytes(b'game "caf\xe9"\n')
    out["file latin1.fish"] = (["check", str(files / "latin1.fish")], "", tmp)
    for players in ("0", "1", "99"):
        out["players " + players] = (["simulate", "fishfry", "--players", players, "--games", "1"], "", tmp)
    for games in ("0", "-5"):
        out["games " + games] = (["simulate", "fishfry", "--games", games], "", tmp)
    for option in ("rounds=" + "9" * 5000, "rounds=²"):
        out["option " + option[:10]] = (["simulate", "fishfry-keeper", "--games", "1", "--option", option], "", tmp)
    out["play"] = (["play", "fishfry", "--seed", "1"], "\n".join(PLAY_ANSWERS) + "\nq\n", tmp)
    logs = tmp / "logs"
    logs.mkdir()
    for i, (name, data) in enumerate(LOGS.items()):
        (logs / f"{i}.json").write_text(json.dumps(data))
        out["log " + name] = (["replay", str(logs / f"{i}.json")], "", tmp)
    for i, (name, text) in enumerate(BROKEN_LOGS.items()):
        (logs / f"broken{i}.json").write_text(text)
        out["broken log " + name] = (["replay", str(logs / f"broken{i}.json")], "", tmp)
    out["log is a directory"] = (["replay", str(logs)], "", tmp)
    out["log is missing"] = (["replay", str(logs / "missing.json")], "", tmp)
    history = run(_simultaneous_history).value
    for name, entry in (("p2", "p²: challenge_card yellow-1"), ("long", "p" + "1" * 5000 + ": challenge_card yellow-1")):
        (logs / f"simul-{name}.json").write_text(json.dumps(log(ruleset="fisheatfish", history=history + [entry])))
        out["simultaneous " + name] = (["replay", str(logs / f"simul-{name}.json")], "", tmp)
    (logs / "good.json").write_text(json.dumps(log(ruleset="fisheatfish", history=history)))
    out["good log"] = (["replay", str(logs / "good.json")], "", tmp)
    (tmp / "secret.txt").write_text(f"{MARK}: password\n")
    (tmp / "secret.fish").write_text(f"{MARK} line one\n")
    for ref in ("secret.txt", "secret.fish"):
        (logs / f"ref-{ref}.json").write_text(json.dumps(log(ruleset=str(tmp / ref))))
        out["log names " + ref] = (["replay", str(logs / f"ref-{ref}.json")], "", tmp)
    return out


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("cli")
    todo = cases(tmp)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(cli, args, stdin, cwd) for name, (args, stdin, cwd) in todo.items()}
        return {name: f.result() for name, f in futures.items()}


def assert_clean_failure(p: subprocess.CompletedProcess, one_line: bool = False) -> str:
    out = p.stdout + p.stderr
    assert "Traceback" not in out, out[-3000:]
    assert p.returncode > 0, f"exit status {p.returncode}:\n{out[-2000:]}"
    assert out.strip(), "no message at all"
    readable(out)
    if one_line:
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1, f"expected one line of error, got:\n{p.stderr[-2000:]}"
    return out


def assert_rule_error_display(out: str) -> None:
    assert re.search(r"^\S+:\d+:\d+: error: ", out, re.M), f"no file:line:col: error: header:\n{out[-2000:]}"


# ---- check and explain ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["check .", "check /", "check ", "explain .", "check ..", "simulate .",
                                  "check dir.fish"])
def test_paths_that_are_not_rule_files(results, case):
    assert_clean_failure(results["path " + case])


@pytest.mark.parametrize("name", sorted(FILES) + ["latin1.fish"])
def test_check_a_hostile_file(results, name):
    out = assert_clean_failure(results["file " + name])
    assert_rule_error_display(out)
    assert "root:x:0:0" not in out


# ---- simulate ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", ["0", "1", "99"])
def test_simulate_refuses_a_player_count_outside_the_range(results, players):
    out = assert_clean_failure(results["players " + players], one_line=True)
    assert re.search(r"\b2\b.*\b8\b", out), f"the message does not give the range 2 to 8: {out}"


@pytest.mark.parametrize("games", ["0", "-5"])
def test_simulate_refuses_non_positive_games(results, games):
    assert_clean_failure(results["games " + games], one_line=True)


@pytest.mark.parametrize("option", ["rounds=999", "rounds=²"])
def test_simulate_with_odd_options(results, option):
    assert_clean_failure(results["option " + option], one_line=True)


# ---- play ------------------------------------------------------------------------------------------------------


def test_play_prompt_reasks_after_odd_answers(results):
    p = results["play"]
    out = p.stdout + p.stderr
    assert "Traceback" not in out, out[-3000:]
    assert p.returncode == 0, f"exit status {p.returncode}:\n{out[-2000:]}"
    assert out.count("your choice>") >= len(PLAY_ANSWERS) + 1, f"the prompt was not asked again:\n{out[-3000:]}"


# ---- replay ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(LOGS))
def test_replay_of_a_tampered_log(results, name):
    assert_clean_failure(results["log " + name], one_line=True)


@pytest.mark.parametrize("name", sorted(BROKEN_LOGS))
def test_replay_of_broken_json(results, name):
    assert_clean_failure(results["broken log " + name], one_line=True)


@pytest.mark.parametrize("name", ["p2", "long"])
def test_replay_of_an_odd_simultaneous_entry(results, name):
    assert_clean_failure(results["simultaneous " + name], one_line=True)


@pytest.mark.parametrize("name", ["log is a directory", "log is missing"])
def test_replay_of_a_log_that_is_not_a_file(results, name):
    assert_clean_failure(results[name], one_line=True)


@pytest.mark.parametrize("ref", ["secret.txt", "secret.fish"])
def test_replay_does_not_print_a_file_named_by_the_log(results, ref):
    # the log names its ruleset; a tampered log must not make replay print another file
    out = assert_clean_failure(results["log names " + ref])
    assert MARK not in out, out


def test_a_good_log_still_replays(results):
    p = results["good log"]
    assert p.returncode == 0 and "actions replayed" in p.stdout, p.stdout + p.stderr

"""The `fishrules` command on hostile input (issue 11, section 5).

Each command exits non-zero and prints a one-line error (or the rule-error display), never a
traceback; the `play` prompt re-asks after a bad answer and carries on; `simulate` refuses a player
count outside the ruleset's range, saying the range, and a non-positive `--games`; `replay` of a
tampered log prints one readable line and exits non-zero.

Every command line of this module runs once, the first time a test asks for it, as `cli.main(argv)`
in the hostile suite's worker (harness.py: its memory limit, a fresh worker if one dies), with its
standard input, output and error replaced, its working directory and the environment a process
would have.  Starting an interpreter for each was most of this module's time (47 processes, 22 s of
a loaded run), so only the command lines whose process itself is the subject run as processes too,
and are held to the same: `PROCESSES` says which, and why.
"""

from __future__ import annotations

import contextlib
import io
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


ENV = {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}


def cli(args: list, stdin: str = "", cwd=None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The command line run as a process of its own."""
    cmd = [str(BIN)] if BIN.exists() else [sys.executable, "-m", "fishrules.cli"]
    env = dict(os.environ, **ENV)
    try:
        return subprocess.run(cmd + list(args), input=stdin, capture_output=True, text=True, errors="replace",
                              timeout=timeout, cwd=cwd, env=env, preexec_fn=_limits)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd + list(args), -999, str(e.stdout or ""), f"TIMEOUT after {timeout}s")


def main_in_this_process(args: list, stdin: str) -> tuple:  # pragma: no cover - runs in the harness's worker
    """`fishrules.cli.main(args)` as the command would run it: standard input `stdin`, the output
    and the error caught, the environment of `cli`; (exit status, output, error).  An exception that
    escaped `main` is left to escape (the harness reports it, with its traceback)."""
    from fishrules import cli as command

    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in ENV}
    os.environ.update(ENV)
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = command.main(args)
            except SystemExit as e:  # argparse refusing the command line, as it exits the process
                code = e.code if isinstance(e.code, int) else 1
        return code, out.getvalue(), err.getvalue()
    finally:
        sys.stdin = old_stdin
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cli_in_worker(args: list, stdin: str = "", cwd=None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The command line run by `main_in_this_process` in the harness's worker, as `cli` gives it."""
    out = run(main_in_this_process, list(args), stdin, timeout=timeout, cwd=cwd)
    argv = ["fishrules.cli.main"] + list(args)
    if out.status == "ok":
        code, stdout, stderr = out.value
        return subprocess.CompletedProcess(argv, code, stdout, stderr)
    # an exception escaped main (its traceback: the tests' "never a traceback" fails on it), or
    # the worker timed out, ran out of memory or died
    return subprocess.CompletedProcess(argv, -999, "", f"{out}\n{out.traceback}")


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


#: The command lines that also run as processes of their own, where the process is the subject:
#: its standard input a pipe that `play` reads to the end; bytes that are not UTF-8, and a name that
#: is not ASCII, printed on the process's own streams; a log nested 100,000 deep, read on the stack
#: of a fresh interpreter; a folder given as the rule file, from the working directory the shell
#: gave; a good log, exit status 0.
PROCESSES = ["play", "file latin1.fish", "simultaneous p2", "broken log deeply nested", "path check .", "good log"]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    """name -> the runs of that command line: in the worker, then as a process if it is in PROCESSES."""
    tmp = tmp_path_factory.mktemp("cli")
    todo = cases(tmp)
    assert set(PROCESSES) <= set(todo)
    with ThreadPoolExecutor(max_workers=2) as pool:
        processes = {name: pool.submit(cli, *todo[name]) for name in PROCESSES}
        out = {name: [cli_in_worker(args, stdin, cwd)] for name, (args, stdin, cwd) in todo.items()}
        for name, f in processes.items():
            out[name].append(f.result())
    return out


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
    for p in results["path " + case]:
        assert_clean_failure(p)


@pytest.mark.parametrize("name", sorted(FILES) + ["latin1.fish"])
def test_check_a_hostile_file(results, name):
    for p in results["file " + name]:
        out = assert_clean_failure(p)
        assert_rule_error_display(out)
        assert "root:x:0:0" not in out


# ---- simulate ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", ["0", "1", "99"])
def test_simulate_refuses_a_player_count_outside_the_range(results, players):
    for p in results["players " + players]:
        out = assert_clean_failure(p, one_line=True)
        assert re.search(r"\b2\b.*\b8\b", out), f"the message does not give the range 2 to 8: {out}"


@pytest.mark.parametrize("games", ["0", "-5"])
def test_simulate_refuses_non_positive_games(results, games):
    for p in results["games " + games]:
        assert_clean_failure(p, one_line=True)


@pytest.mark.parametrize("option", ["rounds=999", "rounds=²"])
def test_simulate_with_odd_options(results, option):
    for p in results["option " + option]:
        assert_clean_failure(p, one_line=True)


# ---- play ------------------------------------------------------------------------------------------------------


def test_play_prompt_reasks_after_odd_answers(results):
    for p in results["play"]:
        out = p.stdout + p.stderr
        assert "Traceback" not in out, out[-3000:]
        assert p.returncode == 0, f"exit status {p.returncode}:\n{out[-2000:]}"
        assert out.count("your choice>") >= len(PLAY_ANSWERS) + 1, f"the prompt was not asked again:\n{out[-3000:]}"


# ---- replay ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(LOGS))
def test_replay_of_a_tampered_log(results, name):
    for p in results["log " + name]:
        assert_clean_failure(p, one_line=True)


@pytest.mark.parametrize("name", sorted(BROKEN_LOGS))
def test_replay_of_broken_json(results, name):
    for p in results["broken log " + name]:
        assert_clean_failure(p, one_line=True)


@pytest.mark.parametrize("name", ["p2", "long"])
def test_replay_of_an_odd_simultaneous_entry(results, name):
    for p in results["simultaneous " + name]:
        assert_clean_failure(p, one_line=True)


@pytest.mark.parametrize("name", ["log is a directory", "log is missing"])
def test_replay_of_a_log_that_is_not_a_file(results, name):
    for p in results[name]:
        assert_clean_failure(p, one_line=True)


@pytest.mark.parametrize("ref", ["secret.txt", "secret.fish"])
def test_replay_does_not_print_a_file_named_by_the_log(results, ref):
    # the log names its ruleset; a tampered log must not make replay print another file
    for p in results["log names " + ref]:
        out = assert_clean_failure(p)
        assert MARK not in out, out


def test_a_good_log_still_replays(results):
    for p in results["good log"]:
        assert p.returncode == 0 and "actions replayed" in p.stdout, p.stdout + p.stderr

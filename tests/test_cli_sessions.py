"""The command line as people and scripts use it (issue 17): a game that survives Ctrl-C, a killed
process and the end of input; logs that replay in another folder; paths; `simulate --json` byte for
byte; hot seat and bots; exit statuses, streams, --quiet and colours.

Where the process is what is tested (a signal, a kill, the end of input while a game waits, the
exit status the shell sees) it is a real `python -m fishrules` process; elsewhere the same entry
point (`fishrules.__main__.main`) runs in this process with what a process would be given: its
arguments, standard input, folder and environment, its two streams read apart (starting Python and
importing fishrules for each of about sixty commands cost a minute of the suite)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

import fishrules
from fishrules import cli
from fishrules.__main__ import main as entry
from fishrules.logs import read_log, rules_hash, rules_texts, save_log

SRC = str(Path(fishrules.__file__).resolve().parent.parent)  # this checkout's code, whatever the folder
ROOT = Path(__file__).resolve().parent.parent
PROMPT = "your choice>"
HOUSE_RULE = 'extends "fishfry-total-points"\ngame "Fishfry, quick"\nreplace option rounds: number from 1 to 100 = 2\n'


def env(**extra) -> dict:
    e = dict(os.environ, COLUMNS="120", PYTHONUNBUFFERED="1")
    e["PYTHONPATH"] = SRC + os.pathsep + e.get("PYTHONPATH", "")
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        e.pop(name, None)
    e.update(extra)
    return e


def fishrules_cmd(*args) -> list:
    return [sys.executable, "-m", "fishrules", *map(str, args)]


def run_process(*args, stdin: str = "", cwd=None, **extra) -> subprocess.CompletedProcess:
    return subprocess.run(fishrules_cmd(*args), input=stdin, capture_output=True, text=True, cwd=cwd,
                          env=env(**extra), timeout=120)


def run(*args, stdin: str = "", cwd=None, **extra) -> subprocess.CompletedProcess:
    """`fishrules ARGS` as `run_process` runs it, in this process: the exit status `python -m
    fishrules` would end with, and what it wrote to each stream."""
    out, err = StringIO(), StringIO()
    saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
    try:
        os.environ.clear()
        os.environ.update(env(**extra))
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin = StringIO(stdin)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = entry([str(a) for a in args])
            except SystemExit as e:  # argparse's way out: what sys.exit() makes the process's status
                status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(fishrules_cmd(*args), status, out.getvalue(), err.getvalue())


class Session:
    """A `fishrules play` process typed into line by line, its output read as it comes."""

    def __init__(self, *args, cwd=None, **extra):
        self.p = subprocess.Popen(fishrules_cmd("play", *args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, env=env(**extra))
        self.out = b""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while chunk := os.read(self.p.stdout.fileno(), 65536):
            self.out += chunk

    def wait_for(self, text: str, count: int, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while self.out.decode(errors="replace").count(text) < count:
            assert self.p.poll() is None, f"the game ended early:\n{self.text[-2000:]}"
            assert time.monotonic() < end, f"no {count}th {text!r} in time:\n{self.text[-2000:]}"
            time.sleep(0.02)

    def type(self, line: str) -> None:
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        rc = self.p.wait(timeout)
        self.reader.join(10)
        return rc, self.p.stderr.read().decode(errors="replace")

    @property
    def text(self) -> str:
        return self.out.decode(errors="replace")


def play_moves(args: list, answers: int, cwd) -> Session:
    """Start a game, answer "1" at the first `answers` prompts, and wait at the next one."""
    s = Session(*args, cwd=cwd)
    for i in range(answers):
        s.wait_for(PROMPT, i + 1)
        s.type("1")
    s.wait_for(PROMPT, answers + 1)
    return s


GAME = ["fishfry-keeper", "--option", "rounds=3", "--seed", "11", "--log", "game.json"]


@pytest.fixture(scope="module")
def whole_game(tmp_path_factory) -> dict:
    """The log of GAME played through in one go, answering 1 at every prompt."""
    d = tmp_path_factory.mktemp("whole")
    p = run("play", *GAME, stdin="1\n" * 400, cwd=d)
    assert p.returncode == 0, p.stderr
    data = json.loads((d / "game.json").read_text())
    assert data["over"] and len(data["history"]) > 30
    return data


# ---- nothing lost ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_a_killed_game_resumes_where_it_stopped(tmp_path, whole_game, sig):
    s = play_moves(GAME, 4, tmp_path)
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["history"] and not saved["over"]
    s.p.send_signal(sig)
    rc, err = s.finish()
    if sig == signal.SIGINT:
        assert rc == 130, err
        assert "Traceback" not in err
        assert "fishrules play --resume game.json" in err
    else:
        assert rc == -signal.SIGKILL
    # every action before the kill is in the log, which is whole; nothing else is left beside it
    log = read_log(str(tmp_path / "game.json"))
    assert log["history"] == whole_game["history"][:len(log["history"])]
    assert len(log["history"]) >= len(saved["history"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]
    # the same seats, bots, options and seed: the game goes on exactly as the uninterrupted one did
    p = run("play", "--resume", "game.json", stdin="1\n" * 400, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "resumed after" in p.stdout and "Game over." in p.stdout
    done = json.loads((tmp_path / "game.json").read_text())
    assert done["history"] == whole_game["history"] and done["over"] is True
    assert {k: v for k, v in done.items() if k != "history"} == {k: v for k, v in whole_game.items() if k != "history"}


def test_the_log_is_saved_after_every_action(tmp_path, whole_game):
    s = play_moves(GAME, 0, tmp_path)
    lengths = []
    for i in range(3):
        lengths.append(len(json.loads((tmp_path / "game.json").read_text())["history"]))
        s.type("1")
        s.wait_for(PROMPT, i + 2)
    lengths.append(len(json.loads((tmp_path / "game.json").read_text())["history"]))
    s.p.stdin.close()  # the end of input: the terminal went away
    rc, err = s.finish()
    assert rc == 0 and "bye" in s.text
    assert lengths == sorted(lengths) and len(set(lengths)) == len(lengths), lengths
    assert "fishrules play --resume game.json" in err


def test_quit_keeps_the_game_and_a_finished_game_is_not_resumed(tmp_path):
    p = run("play", *GAME, stdin="1\nq\n", cwd=tmp_path)
    assert p.returncode == 0 and "--resume game.json" in p.stderr
    data = json.loads((tmp_path / "game.json").read_text())
    assert data["format"] == "fishrules-log/2" and not data["over"]
    p = run("play", "--resume", "game.json", stdin="1\n" * 400, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    p = run("play", "--resume", "game.json", cwd=tmp_path)
    assert p.returncode == 1 and "is over" in p.stderr and "fishrules replay game.json" in p.stderr


def test_a_crash_while_saving_leaves_the_previous_log(tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    save_log(str(path), {"format": "fishrules-log/2", "history": ["a"]})

    def crash(*a):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        save_log(str(path), {"format": "fishrules-log/2", "history": ["a", "b"]})
    assert json.loads(path.read_text())["history"] == ["a"]
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_resume_refuses_rules_that_changed(tmp_path):
    rules = tmp_path / "quick.fish"
    rules.write_text(HOUSE_RULE)
    p = run("play", "quick.fish", "--no-embed-rules", "--seed", "2", "--log", "game.json", stdin="1\nq\n", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "game.json").read_text())
    assert "rules" not in data and data["ruleset"] == "quick.fish"
    rules.write_text(HOUSE_RULE.replace("= 2", "= 3"))
    p = run("play", "--resume", "game.json", cwd=tmp_path)
    assert p.returncode == 1 and p.stdout == ""
    assert "quick.fish" in p.stderr and data["rules_hash"][:12] in p.stderr and "Traceback" not in p.stderr
    # a bundled ruleset's recorded hash that is not this version's: resume refuses, replay warns
    bundled = tmp_path / "bundled.json"
    p = run("play", "fishfry", "--seed", "2", "--log", "bundled.json", stdin="1\nq\n", cwd=tmp_path)
    log = json.loads(bundled.read_text())
    log["rules_hash"] = "0" * 64
    bundled.write_text(json.dumps(log))
    p = run("play", "--resume", "bundled.json", cwd=tmp_path)
    assert p.returncode == 1 and "000000000000" in p.stderr and "fishfry" in p.stderr
    p = run("replay", "bundled.json", cwd=tmp_path)
    assert p.returncode == 0 and "warning" in p.stderr and "actions replayed" in p.stdout


def test_a_log_that_cannot_be_written_is_said_before_playing(tmp_path):
    (tmp_path / "adir").mkdir()
    for where in ("missing/g.json", "adir"):
        p = run("play", "fishfry", "--log", where, stdin="1\n", cwd=tmp_path)
        assert p.returncode == 1 and f"cannot write the log {where}" in p.stderr and PROMPT not in p.stdout
    assert [p.name for p in (tmp_path / "adir").iterdir()] == []


def test_resume_is_given_alone(tmp_path):
    p = run("play", "fishfry", "--resume", "game.json", cwd=tmp_path)
    assert p.returncode == 2 and "--resume" in p.stderr and "GAME" in p.stderr
    p = run("play", "--resume", "game.json", "--seed", "3", cwd=tmp_path)
    assert p.returncode == 2 and "--seed" in p.stderr
    p = run("play", cwd=tmp_path)
    assert p.returncode == 2 and "--resume" in p.stderr
    p = run("play", "--resume", "missing.json", cwd=tmp_path)
    assert p.returncode == 1 and "cannot read the log missing.json" in p.stderr


# ---- logs that travel -----------------------------------------------------------------------------


def test_a_house_rule_log_replays_on_another_machine(tmp_path):
    home, other = tmp_path / "home", tmp_path / "other"
    (home / "logs").mkdir(parents=True)
    other.mkdir()
    (home / "quick.fish").write_text(HOUSE_RULE)
    p = run("play", "quick.fish", "--seed", "4", "--log", "logs/game.json", stdin="1\n" * 200, cwd=home)
    assert p.returncode == 0, p.stderr
    data = json.loads((home / "logs" / "game.json").read_text())
    assert data["ruleset"] == "../quick.fish"  # relative to the log: no machine's path in it
    assert data["rules"]["text"] == HOUSE_RULE and data["rules"]["name"] == "quick.fish"
    assert str(tmp_path) not in json.dumps(data)
    here = run("replay", "logs/game.json", cwd=home)
    shutil.copy(home / "logs" / "game.json", other / "game.json")  # the log alone, without the rules
    there = run("replay", "game.json", cwd=other)
    assert there.returncode == 0, there.stderr
    assert here.stdout == there.stdout and "Fishfry, quick" in there.stdout


def test_embed_rules_for_a_bundled_ruleset(tmp_path):
    p = run("play", "fishfry", "--variant", "keeper", "--embed-rules", "--seed", "1", "--log", "g.json",
            stdin="q\n", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "g.json").read_text())
    assert (data["ruleset"], data["variant"]) == ("fishfry", "keeper")
    assert data["rules"]["text"] == (ROOT / "rulesets" / "fishfry-keeper.fish").read_text()
    assert data["rules_hash"] == rules_hash(rules_texts(fishrules.load("fishfry-keeper")))
    p = run("replay", "g.json", cwd=tmp_path)
    assert p.returncode == 0 and "Keeper" in p.stdout


def test_rules_extending_a_local_file_are_named_not_carried(tmp_path):
    (tmp_path / "base.fish").write_text(HOUSE_RULE)
    (tmp_path / "mine.fish").write_text('extends "base"\ngame "Mine"\n')
    p = run("play", "mine.fish", "--seed", "1", "--log", "g.json", stdin="q\n", cwd=tmp_path)
    assert p.returncode == 0 and "note:" in p.stderr and "base.fish" in p.stderr
    data = json.loads((tmp_path / "g.json").read_text())
    assert "rules" not in data and data["ruleset"] == "mine.fish"
    p = run("replay", "g.json", cwd=tmp_path)
    assert p.returncode == 0 and "Mine" in p.stdout
    (tmp_path / "base.fish").write_text(HOUSE_RULE.replace("= 2", "= 4"))  # the base changed: so did the rules
    p = run("replay", "g.json", cwd=tmp_path)
    assert p.returncode == 1 and data["rules_hash"][:12] in p.stderr


def test_a_log_without_its_rules_names_the_file_and_hash(tmp_path):
    (tmp_path / "quick.fish").write_text(HOUSE_RULE)
    run("play", "quick.fish", "--no-embed-rules", "--seed", "4", "--log", "g.json", stdin="q\n", cwd=tmp_path)
    data = json.loads((tmp_path / "g.json").read_text())
    (tmp_path / "quick.fish").unlink()
    p = run("replay", "g.json", cwd=tmp_path)
    assert p.returncode == 1 and p.stdout == ""
    assert "'quick.fish'" in p.stderr and data["rules_hash"][:12] in p.stderr
    (tmp_path / "quick.fish").write_text(HOUSE_RULE + "# a comment changes the text\n")
    p = run("replay", "g.json", cwd=tmp_path)
    assert p.returncode == 1 and "quick.fish" in p.stderr and data["rules_hash"][:12] in p.stderr


def test_carried_rules_cannot_reach_files_beside_the_log(tmp_path):
    """Carried rule text is read with no folder: its `extends` reaches bundled rulesets only."""
    mark = "SECRET-7f3a"
    (tmp_path / "local.fish").write_text(f'game "{mark}"\nplayers 2 to 2\n')
    log = {"format": "fishrules-log/2", "ruleset": "x.fish", "variant": None, "players": 2, "options": {},
           "seed": 1, "history": [], "rules": {"name": "x.fish", "text": 'extends "local"\ngame "X"\n'}}
    (tmp_path / "g.json").write_text(json.dumps(log))
    p = run("replay", "g.json", cwd=tmp_path)
    assert p.returncode == 1 and "cannot find the ruleset" in p.stderr and mark not in p.stdout + p.stderr


@pytest.mark.parametrize("field, value", [("seats", ["human"]), ("seats", ["human", "robot"]), ("seats", ["random"] * 2),
                                          ("rules_hash", "xyz"),
                                          ("rules", {"name": "../x.fish", "text": ""}), ("rules", {"text": 5}),
                                          ("over", "no")])
def test_a_log_with_a_bad_new_field(tmp_path, field, value):
    log = {"format": "fishrules-log/2", "ruleset": "fishfry", "variant": None, "players": 2, "options": {},
           "seed": 1, "history": [], field: value}
    (tmp_path / "g.json").write_text(json.dumps(log))
    for args in (["replay", "g.json"], ["play", "--resume", "g.json"]):
        p = run(*args, cwd=tmp_path)
        assert p.returncode == 1 and "broken fishrules log" in p.stderr and "Traceback" not in p.stderr


def test_a_log_of_the_first_format_still_replays(tmp_path):
    state = fishrules.load("fishfry").start(players=2, seed=3)
    while not state.is_over:
        state.apply(state.legal_actions()[0])
    log = {"format": "fishrules-log/1", "ruleset": "fishfry", "variant": None, "players": 2, "options": {},
           "seed": 3, "history": state.history}
    (tmp_path / "old.json").write_text(json.dumps(log))
    p = run("replay", "old.json", cwd=tmp_path)
    assert p.returncode == 0 and f"scores {state.scores()}" in p.stdout


# ---- paths ----------------------------------------------------------------------------------------


def test_explain_and_errors_show_no_absolute_path(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "elsewhere").mkdir()
    good = tmp_path / "rules" / "quick.fish"
    good.write_text(HOUSE_RULE)
    bad = tmp_path / "rules" / "bad.fish"
    bad.write_text('extends "fishfry"\ngame "Bad"\nreplace dice: 5 with faces A, B\n')
    cwd = tmp_path / "elsewhere"
    # processes: the names shown are relative to the folder the command starts in
    p = run_process("explain", str(good), cwd=cwd)
    assert p.returncode == 0
    assert "# read from fishfry, then fishfry-tournament, then fishfry-total-points, then ../rules/quick.fish" in p.stdout
    assert "# from fishfry:" in p.stdout and "# from ../rules/quick.fish:3:" in p.stdout
    p2 = run_process("check", str(bad), cwd=cwd)
    # the error is the house rule's, at its line; the line of fishfry it breaks is named by its name
    assert p2.returncode == 1 and re.search(r"^\.\./rules/bad\.fish:3:1: error: .*\(at fishfry:\d+:\d+: ", p2.stderr, re.M), p2.stderr
    for out in (p.stdout + p.stderr, p2.stderr):
        assert str(tmp_path) not in out and str(ROOT) not in out and "/rulesets/" not in out
    p = run_process("explain", "rulesets/fishfry-keeper.fish", cwd=ROOT)
    assert "# read from rulesets/fishfry.fish, then rulesets/fishfry-tournament.fish" in p.stdout


# ---- results apart from measurements -----------------------------------------------------------------


def test_simulate_json_is_the_same_bytes_for_the_same_seed(tmp_path):
    args = ["simulate", "fishfry", "--players", "3", "--games", "30", "--seed", "5", "--json"]
    first = run(*args, cwd=tmp_path)
    again = run(*args, cwd=ROOT)
    assert first.returncode == 0 and first.stderr == ""
    assert first.stdout == again.stdout
    result = json.loads(first.stdout)
    assert "timing" not in result and "seconds" not in first.stdout
    timed = run(*args, "--timing", cwd=tmp_path)
    timing = json.loads(timed.stdout).pop("timing")
    assert set(timing) == {"seconds", "games_per_second", "backends"} and timing["seconds"] > 0
    assert timing["backends"] in (["native"], ["python"])  # what played them: measured, not a result
    assert {k: v for k, v in json.loads(timed.stdout).items() if k != "timing"} == result


# ---- seats ----------------------------------------------------------------------------------------


def _segments(out: str) -> list[tuple[int, str]]:
    """(player, what was on the screen during their turn) for every hot-seat turn."""
    parts = re.split(r"^Pass the keyboard to p(\d+)\.", out, flags=re.M)
    segs = []
    for i in range(1, len(parts), 2):
        p, body = int(parts[i]), parts[i + 1]
        end = re.search(rf"^p{p}'s turn is over\.", body, re.M)
        segs.append((p, body[:end.start()] if end else body))
    return segs


def test_hot_seat_never_shows_a_secret_to_the_next_player(tmp_path):
    answers = "\n1\n" * 300  # Enter at each "pass the keyboard", then the first choice
    p = run("play", "fishfish", "--players", "3", "--seat", "0", "--seat", "1", "--seat", "2", "--seed", "5",
            "--log", "g.json", stdin=answers, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "g.json").read_text())
    assert data["seats"] == ["human"] * 3
    segs = _segments(p.stdout)
    assert len(segs) > 10 and {q for q, _ in segs} == {0, 1, 2}
    secrets_seen = 0
    for q, body in segs:
        assert f"p{q}, your turn." in body
        for who, line in re.findall(r"^p(\d) chooses set_line (\S+)", body, re.M):
            if int(who) != q:
                assert line == "?", f"p{q} sees p{who}'s secret line {line}:\n{body}"
        # the table's rows of the game's values: `fisherman   p0`, then `fishing hand   5 cards, face down`
        # (a value ends where two spaces begin: the next pair of columns, or the end of the line)
        for fisherman, hand in re.findall(r"^fisherman +p(\d+)\b.*?^fishing hand +(\S+(?: \S+)*)", body, re.S | re.M):
            if int(fisherman) != q:
                assert re.fullmatch(r"\d+ cards?, face down|empty", hand), f"p{q} sees the fishing hand:\n{body}"
            elif "Catch" in hand or "Empty_handed" in hand:
                secrets_seen += 1
    assert secrets_seen > 0  # the Fisherman does see their own hand
    assert "Game over." in p.stdout


def test_hot_seat_clears_the_screen_of_a_terminal(tmp_path):
    p = run("play", "fishfish", "--players", "3", "--seat", "0", "--seat", "1", "--seed", "5", stdin="\n1\n" * 6 + "q\n",
            cwd=tmp_path, TTY_COMPATIBLE="1", TERM="xterm")
    assert p.returncode == 0, p.stderr
    clear, out = "\x1b[2J", p.stdout
    over = list(re.finditer("turn is over", out))
    ready = list(re.finditer(r"p\d ready> ", out))
    assert len(over) >= 2 and len(ready) >= 3
    for m in over:  # what the last player saw is wiped before anybody is called
        assert clear in out[max(0, m.start() - 40):m.start()], out[max(0, m.start() - 400):m.start()]
    for m in ready[:-1]:  # and the screen is wiped again once the next player is there alone (not after q)
        assert clear in out[m.end():m.end() + 40]


def test_bots_per_seat(tmp_path):
    p = run("play", "fishfry", "--players", "3", "--bot", "greedy", "--bot", "2=random", "--seed", "3",
            "--log", "g.json", stdin="q\n", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "g.json").read_text())["seats"] == ["human", "greedy", "random"]
    assert "p1 greedy, p2 random" in p.stdout
    for bad, words in ((["--bot", "0=greedy"], "--seat 0"), (["--bot", "clever"], "random or greedy"),
                       (["--seat", "4"], "0 to 2"), (["--bot", "9=random"], "0 to 2")):
        p = run("play", "fishfry", "--players", "3", *bad, cwd=tmp_path)
        assert p.returncode == 2 and words in p.stderr and p.stdout == "", (bad, p.stderr)


def test_the_greedy_bot_takes_the_best_lead_without_peeking_at_dice():
    import random

    game = fishrules.load("fishfry")
    for seed in range(5):
        state = game.start(players=2, seed=seed)
        acts = state.legal_actions()
        choice = cli.bot_choice("greedy", state, state.current, random.Random(0))
        leads = {}
        for a in acts:
            trial = state.clone()
            trial.manual = True
            trial.apply(a)
            sc = trial.scores()
            leads[str(a)] = sc[state.current] - sc[1 - state.current]
        assert leads[str(choice)] == max(leads.values())
        assert len(state.history) == len(state.clone().history)  # the position itself is untouched


# ---- exit statuses, streams, quiet and colour -------------------------------------------------------------


@pytest.mark.parametrize("args, status", [
    (["check", "nothing-here.fish"], 1),
    (["explain", "fishfyr"], 1),
    (["replay", "rulesets/fishfry.fish"], 1),
    (["simulate", "fishfry", "--players", "99"], 2),
    (["simulate", "fishfry", "--option", "rounds=2"], 2),
    (["simulate", "fishfry", "--frobnicate"], 2),
    (["frobnicate"], 2),
    (["play", "fishfry", "--seat", "7"], 2),
])
def test_exit_statuses_and_streams(args, status):
    # the status the shell sees, from a process: for one command of each status (the rest in here)
    p = (run_process if args in (["check", "nothing-here.fish"], ["frobnicate"]) else run)(*args, cwd=ROOT)
    assert p.returncode == status, p.stderr
    assert p.stdout == "" and p.stderr.strip() and "Traceback" not in p.stderr


def test_help_documents_the_exit_statuses():
    p = run("--help")
    assert p.returncode == 0 and "exit status: 0 success; 1" in p.stdout and "2 a wrong command line" in p.stdout


def test_quiet(tmp_path):
    p = run("check", "-q", "fishfry", cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = run("--quiet", "simulate", "fishfry", "--games", "5", cwd=tmp_path, TTY_COMPATIBLE="1")
    assert p.returncode == 0 and p.stderr == "" and "win rate" in p.stdout
    p = run("check", "-q", "fishfyr", cwd=tmp_path)
    assert p.returncode == 1 and "cannot find the ruleset" in p.stderr


@pytest.fixture(scope="module")
def coloured(tmp_path_factory) -> subprocess.CompletedProcess:
    """What a terminal gets, without --no-color nor NO_COLOR (the same for each way of asking)."""
    return run("simulate", "fishfry", "--games", "5", cwd=tmp_path_factory.mktemp("coloured"), TTY_COMPATIBLE="1")


@pytest.mark.parametrize("how", [{"args": ["--no-color"]}, {"args": [], "NO_COLOR": "1"}, {"args": ["--no-color"], "FORCE_COLOR": "1"}])
def test_no_color(tmp_path, how, coloured):
    extra = {k: v for k, v in how.items() if k != "args"}
    assert "\x1b[" in coloured.stdout  # a terminal gets colours and styles
    p = run("simulate", "fishfry", "--games", "5", *how["args"], cwd=tmp_path, TTY_COMPATIBLE="1", **extra)
    # no colour nor style (a progress bar on a terminal still moves the cursor)
    assert p.returncode == 0 and not re.search(r"\x1b\[[0-9;]*m", p.stdout + p.stderr) and "win rate" in p.stdout

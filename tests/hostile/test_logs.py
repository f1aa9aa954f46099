"""Game logs as untrusted input (issue 25): `play --log`, `play --resume` and `replay`.

A log travels between people as a rule file does.  Whatever it is — a named pipe, a device, a
folder, 8 GiB, cut short, tampered with, a link, written by another program at the same time —
reading or resuming it prints a one-line error naming the log (exit status 1) and never a
traceback; it never waits for ever, never reads a file the log names outside the rule `extends`
follows, and never runs the rule text it carries as anything but rules.  Writing a log never
replaces a file that is already there (not another game's log, not a device, not the file a link
points to) and never writes over a log another program changed meanwhile; a reader never sees a
log half written.

Most commands run in the hostile harness's worker (`scenarios.cli`: the command line as a person
runs it, with a timeout and a memory limit); the ones that need two processes at once run the
command as a process of its own.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from . import scenarios as sc
from .contract import FAST, SLOW, TINY, readable, run

MARK = "SECRET-" + uuid.uuid4().hex[:12]
PROMPT = "your choice>"


def cli(args: list, cwd: Path, stdin: str = "", timeout: float = SLOW) -> dict:
    out = run(sc.cli, [str(a) for a in args], str(cwd), stdin, timeout=timeout)
    assert out.status == "ok", out  # not a timeout, a crash or a blow-up of the worker
    return out.value


def refused(value: dict, *words: str) -> str:
    """A clean refusal: exit status 1, one line on standard error (or a rule error with its hint),
    readable, saying `words`."""
    err = value["err"]
    assert value["status"] == 1, value
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("  hint: ")), \
        f"expected one line of error, got:\n{err[-3000:]}"
    readable(err)
    assert "Traceback" not in value["out"] + err
    for w in words:
        assert w in err, f"{w!r} not in: {err}"
    return err


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """A folder with `game.json`: a game of Fishfry's Keeper (5 rounds) at seed 3 stopped after two
    choices, and
    `house.json`: a house rule's game, its rules carried in the log."""
    d = tmp_path_factory.mktemp("logs")
    got = cli(["play", "fishfry-keeper", "--option", "rounds=5", "--seed", "3", "--log", "game.json"], d, stdin="1\n1\nq\n")
    assert got["status"] == 0 and (d / "game.json").is_file(), got
    (d / "house.fish").write_text('extends "fishfry-keeper"\ngame "House"\nreplace option rounds: number from 1 to 9 = 2\n')
    got = cli(["play", "house.fish", "--seed", "3", "--log", "house.json"], d, stdin="1\nq\n")
    assert got["status"] == 0 and "rules" in json.loads((d / "house.json").read_text()), got
    (d / "house.fish").unlink()  # the log alone must do
    return d


def game_log(saved: Path) -> dict:
    return json.loads((saved / "game.json").read_text())


def the_only_files(folder: Path) -> set:
    return {p.name for p in folder.iterdir()}


# ---- what is not a log file ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["replay", "resume"])
@pytest.mark.parametrize("what", ["fifo", "dev-zero", "dev-tty", "folder", "missing", "nul in the name"])
def test_a_log_that_is_not_a_file_is_refused_without_waiting(what, command, tmp_path):
    if what == "fifo":
        path = tmp_path / "pipe.json"
        os.mkfifo(path)  # nobody writes to it: reading would wait for ever
    elif what == "dev-zero":
        path = Path("/dev/zero")
    elif what == "dev-tty":
        path = Path("/dev/tty") if os.path.exists("/dev/tty") else Path("/dev/null")
    elif what == "folder":
        path = tmp_path
    elif what == "missing":
        path = tmp_path / "missing.json"
    else:
        path = str(tmp_path / "a\x00b.json")
    args = ["replay", path] if command == "replay" else ["play", "--resume", path]
    refused(cli(args, tmp_path, timeout=FAST))


@pytest.mark.parametrize("command", ["replay", "resume"])
def test_a_huge_log_is_refused_without_reading_it(command, tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:  # sparse: 8 GiB that take no room
        f.write(b'{"format": "fishrules-log/2", "history": ["')
        f.truncate(8 << 30)
    args = ["replay", big] if command == "replay" else ["play", "--resume", big]
    refused(cli(args, tmp_path, timeout=FAST), "16 MiB")


@pytest.mark.parametrize("command", ["replay", "resume"])
def test_a_log_cut_short_anywhere_is_refused(saved, command, tmp_path):
    whole = (saved / "game.json").read_bytes()
    for k, cut in enumerate(sorted({1, 10, len(whole) // 3, len(whole) // 2, len(whole) - 3, len(whole) - 2})):
        path = tmp_path / f"cut{k}.json"
        path.write_bytes(whole[:cut])
        args = ["replay", path] if command == "replay" else ["play", "--resume", path]
        refused(cli(args, tmp_path, stdin="q\n", timeout=FAST), str(path))


# ---- tampered fields ---------------------------------------------------------------------------------------------

#: Field edits of a real log: each must be refused, with one line naming the log.
TAMPERED = {
    "players huge": {"players": 10**30},
    "players negative": {"players": -2},
    "players true": {"players": True},
    "seats of another count": {"seats": ["human"]},
    "seats of no human": {"seats": ["random", "random"]},
    "seats of an unknown bot": {"seats": ["human", "rm -rf /"]},
    "option huge": {"options": {"rounds": 10**30}},
    "option nested": {"options": {"rounds": [[[[1]]]]}},
    "option unknown": {"options": {"__class__": 1}},
    "seed a float": {"seed": 1.5},
    "variant a megabyte": {"variant": "v" * (1 << 20)},
    "ruleset a megabyte": {"ruleset": "r" * (1 << 20)},
    "history a million and one": {"history": ["reroll 1"] * 1_000_001},
    "history entry a megabyte": {"history": ["reroll " + "1" * (1 << 20)]},
    "history entries of every type": {"history": [1, 1.5, True, None, [], {}]},
    "hash not hex": {"rules_hash": "z" * 64},
    "hash of other rules": {"rules_hash": "0" * 64},
    "over not a yes": {"over": "no"},
    "format of the future": {"format": "fishrules-log/99"},
}


@pytest.mark.parametrize("name", TAMPERED)
@pytest.mark.parametrize("command", ["replay", "resume"])
def test_a_tampered_log_is_refused(saved, name, command, tmp_path):
    data = {**game_log(saved), **TAMPERED[name]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    if command == "replay" and name == "hash of other rules":  # replay goes on, with a warning
        got = cli(["replay", path], tmp_path, timeout=SLOW)
        assert got["status"] == 0 and "warning" in got["err"], got
        return
    args = ["replay", path] if command == "replay" else ["play", "--resume", path]
    refused(cli(args, tmp_path, stdin="q\n", timeout=SLOW))
    assert json.loads(path.read_text()) == json.loads(json.dumps(data)), "a refused log was changed"


# ---- every count in a log ------------------------------------------------------------------------------------

#: What a number in a log may be made: huge, negative, or of every wrong type.
ODD_NUMBERS = {
    "a billion": 10**9, "10**30": 10**30, "2**64": 2**64, "4,000 digits": int("9" * 4000), "-1": -1,
    "minus a billion": -(10**9), "0": 0, "1.5": 1.5, "1e308": 1e308, "a text": "3", "true": True, "null": None,
    "a list": [3], "an object": {"n": 3}, "nested": [[[[[[3]]]]]],
}
#: Where each goes: (field, how it is put in the log).
NUMBER_FIELDS = {
    "players": lambda d, v: {**{k: x for k, x in d.items() if k != "seats"}, "players": v},
    "players beside seats": lambda d, v: {**d, "players": v},
    "seed": lambda d, v: {**d, "seed": v},
    "an option's value": lambda d, v: {**d, "options": {"rounds": v}},
    "over": lambda d, v: {**d, "over": v},
    "the history": lambda d, v: {**d, "history": v},
    "a history entry": lambda d, v: {**d, "history": [*d["history"], v]},
    "the seats": lambda d, v: {**d, "seats": v},
}
#: The values a field may take (everything else is refused).
ALLOWED = {("seed", "-1"), ("seed", "minus a billion"), ("seed", "0"), ("seed", "a billion"), ("seed", "null"),
           ("over", "null"), ("the seats", "null")}


@pytest.mark.parametrize("value", ODD_NUMBERS)
@pytest.mark.parametrize("field", NUMBER_FIELDS)
@pytest.mark.parametrize("command", ["replay", "resume"])
def test_every_count_in_a_log_is_bounded_before_anything_is_built(saved, field, value, command, tmp_path):
    """`players` 10**9 in a 300-byte log built a list of a billion seats (MemoryError, exit 70):
    every number of a log, at any size and of any type, is checked before it is used."""
    data = NUMBER_FIELDS[field](game_log(saved), ODD_NUMBERS[value])
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    args = ["replay", path] if command == "replay" else ["play", "--resume", path]
    got = cli(args, tmp_path, stdin="q\n", timeout=FAST)  # in the harness: within FAST, in 1.5 GiB
    if (field, value) in ALLOWED or (command, field, value) == ("replay", "over", "true"):  # replay reads a game over
        assert got["status"] == 0, got
    else:
        refused(got)
    assert len(got["err"]) < 1024, got


def test_a_log_of_a_million_seats_is_refused_at_once(saved, tmp_path):
    data = {**game_log(saved), "seats": ["human"] * 1_000_000, "players": 1_000_000}
    (tmp_path / "t.json").write_text(json.dumps(data))
    for args in (["replay", "t.json"], ["play", "--resume", "t.json"]):
        refused(cli(args, tmp_path, stdin="q\n", timeout=FAST), "players")


# ---- rule text carried in a log -------------------------------------------------------------------------------

#: Carried rule text that tries to reach files of this machine.
REACHING = {
    "extends a file beside the log": 'extends "secret"\ngame "X"\n',
    "extends a file above the log": 'extends "../secret"\ngame "X"\n',
    "extends an absolute path": 'extends "/etc/passwd"\ngame "X"\n',
    "extends the secret through a link": 'extends "inside"\ngame "X"\n',
}


@pytest.mark.parametrize("name", REACHING)
@pytest.mark.parametrize("command", ["replay", "resume"])
def test_rules_carried_in_a_log_reach_no_file(saved, name, command, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for where in (logs, tmp_path):
        (where / "secret.fish").write_text(f"# {MARK}\ngame \"{MARK}\"\nplayers 2 to 2\nphase game:\n  nothing\n")
    (logs / "inside.fish").symlink_to(tmp_path / "secret.fish")
    data = game_log(saved)
    data["rules"] = {"name": "house.fish", "text": REACHING[name], "variant": None}
    (logs / "t.json").write_text(json.dumps(data))
    args = ["replay", "t.json"] if command == "replay" else ["play", "--resume", "t.json"]
    got = cli(args, logs, stdin="q\n")
    assert got["status"] != 0, got
    assert MARK not in got["out"] + got["err"]
    assert "Traceback" not in got["out"] + got["err"]


#: Carried rule text written to become Python if the engine ever pasted it into code.
CODE = [
    TINY + 'option o: yes or no = yes, "\'\'\'); open(\'{marker}\', \'w\').write(\'x\') #"\n',
    TINY + 'option o: yes or no = yes, "\\\\"); __import__(\'os\').system(\'touch {marker}\') #"\n',
    TINY.replace("poke", "__import__") + 'define __class__: 1\ndefine exec: 2\n',
    TINY + 'option o: yes or no = yes, "{{marker}} {{0.__class__}} %s %(x)s"\n'
           'rule "\\\\nimport os\\\\nos.system(\'touch {marker}\')": \n  nothing\n',
    TINY.replace('score "points"', 'score "\\\\" + open(\'{marker}\', \'w\').write(\'x\') + \\""'),
]


@pytest.mark.parametrize("k", range(len(CODE)))
def test_rules_carried_in_a_log_never_become_code(saved, k, tmp_path):
    marker = tmp_path / "ran"
    data = game_log(saved)
    data["history"], data["rules_hash"] = [], None
    data["rules"] = {"name": "house.fish", "text": CODE[k].format(marker=marker), "variant": None}
    (tmp_path / "t.json").write_text(json.dumps(data))
    got = cli(["replay", "t.json"], tmp_path)
    assert got["status"] in (0, 1), got
    if got["status"] == 1:  # the rules did not load: an error about them, said as such
        assert "Traceback" not in got["err"] and "internal error" not in got["err"], got
    assert not marker.exists(), "carried rule text ran as code"


def test_a_house_rule_carried_in_a_log_replays_alone(saved):
    got = cli(["replay", "house.json"], saved)
    assert got["status"] == 0 and "actions replayed" in got["out"], got


# ---- links -------------------------------------------------------------------------------------------------------


def test_a_link_to_a_log_replays_but_is_not_resumed(saved, tmp_path):
    (tmp_path / "link.json").symlink_to(saved / "game.json")
    before = (saved / "game.json").read_bytes()
    got = cli(["replay", "link.json"], tmp_path)
    assert got["status"] == 0, got
    refused(cli(["play", "--resume", "link.json"], tmp_path, stdin="1\nq\n"), "link")
    assert (saved / "game.json").read_bytes() == before and (tmp_path / "link.json").is_symlink()


# ---- writing: never over a file ----------------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["a text", "another game's log", "an empty file", "a link to a text",
                                  "a dangling link", "a fifo", "a device"])
def test_play_log_never_writes_over_a_file(saved, what, tmp_path):
    folder = tmp_path / "here"
    folder.mkdir()
    elsewhere = tmp_path / "notes.txt"
    elsewhere.write_text(MARK)
    path = folder / "game.json"
    if what == "a text":
        path.write_text(MARK)
    elif what == "another game's log":
        path.write_bytes((saved / "game.json").read_bytes())
    elif what == "an empty file":
        path.write_text("")
    elif what == "a link to a text":
        path.symlink_to(elsewhere)
    elif what == "a dangling link":
        path.symlink_to(tmp_path / "nothing-here.json")
    elif what == "a fifo":
        os.mkfifo(path)
    else:  # a device of its own, never a system's (a log written over it would replace it)
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device takes root")
    before = {p: (p.lstat().st_ino, p.read_bytes() if p.is_file() else None) for p in (path, elsewhere) if os.path.lexists(p)}
    listing = the_only_files(folder)
    refused(cli(["play", "fishfry", "--seed", "1", "--log", path], folder, stdin="1\nq\n", timeout=FAST), str(path))
    after = {p: (p.lstat().st_ino, p.read_bytes() if p.is_file() else None) for p in before}
    assert after == before, "--log changed a file that was there"
    assert the_only_files(folder) == listing, "a file was left behind"
    assert not (tmp_path / "nothing-here.json").exists()


def test_play_log_in_a_missing_folder_is_refused_before_playing(tmp_path):
    err = refused(cli(["play", "fishfry", "--log", tmp_path / "no" / "g.json"], tmp_path, stdin="1\n", timeout=FAST))
    assert "cannot write the log" in err and not (tmp_path / "no").exists()


# ---- two programs at once ---------------------------------------------------------------------------------------


def _fishrules(*args) -> list:
    return [sys.executable, "-m", "fishrules", *map(str, args)]


def _env() -> dict:
    src = str(Path(__file__).resolve().parents[2] / "src")
    return dict(os.environ, COLUMNS="120", NO_COLOR="1", TERM="dumb", PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))


class Player:
    """A `fishrules play` process, typed into and read as it goes."""

    def __init__(self, args: list, cwd: Path):
        self.p = subprocess.Popen(_fishrules("play", *args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, env=_env())
        os.set_blocking(self.p.stdout.fileno(), False)
        self.out = b""

    def wait_for(self, text: str, count: int, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while self.out.decode(errors="replace").count(text) < count:
            chunk = self.p.stdout.read()
            if chunk:
                self.out += chunk
                continue
            assert self.p.poll() is None, f"the game ended early:\n{self.out.decode(errors='replace')[-2000:]}"
            assert time.monotonic() < end, f"no {count}th {text!r} in time"
            time.sleep(0.02)

    def type(self, line: str) -> None:
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        rc = self.p.wait(timeout)
        return rc, self.p.stderr.read().decode(errors="replace")


def test_a_log_changed_by_another_program_is_not_written_over(saved, tmp_path):
    (tmp_path / "g.json").write_bytes((saved / "game.json").read_bytes())
    player = Player(["--resume", "g.json"], tmp_path)
    try:
        player.wait_for(PROMPT, 1)
        (tmp_path / "g.json").write_text(MARK)  # an editor, say, saves over it
        player.type("1")
        rc, err = player.finish()
    finally:
        player.p.kill()
    assert rc == 1 and "changed by another program" in err and "Traceback" not in err, err
    assert (tmp_path / "g.json").read_text() == MARK
    assert the_only_files(tmp_path) == {"g.json"}, "a temporary file was left behind"


def test_the_same_log_resumed_twice_at_once(saved, tmp_path):
    """While one `play --resume` goes on with a log, a second one is refused at once (and the
    first plays on, its log whole)."""
    (tmp_path / "g.json").write_bytes((saved / "game.json").read_bytes())
    before = game_log(saved)["history"]
    first = Player(["--resume", "g.json"], tmp_path)
    try:
        first.wait_for(PROMPT, 1)
        for _ in range(2):  # before and after the first saves a move
            refused(cli(["play", "--resume", "g.json"], tmp_path, stdin="1\nq\n"), "another fishrules process")
            first.type("1")
            first.wait_for(PROMPT, 2 + _)
        first.type("q")
        rc1, err1 = first.finish()
    finally:
        first.p.kill()
    assert rc1 == 0, err1
    history = json.loads((tmp_path / "g.json").read_text())["history"]
    assert len(history) > len(before) and history[:len(before)] == before
    assert the_only_files(tmp_path) == {"g.json"}
    got = cli(["play", "--resume", "g.json"], tmp_path, stdin="q\n")  # once it has stopped, the log is free
    assert got["status"] == 0, got


def test_a_log_read_while_it_is_written_is_always_whole(tmp_path):
    player = Player(["fishfry-keeper", "--option", "rounds=9", "--seed", "4", "--log", "g.json"], tmp_path)
    seen = 0
    try:
        for i in range(1, 9):
            player.wait_for(PROMPT, i)
            player.type("1")
            for _ in range(3):  # while the game goes on and saves (in the harness's worker: no start-up)
                got = cli(["replay", "g.json"], tmp_path)
                assert got["status"] == 0 and "actions replayed" in got["out"], got
                seen += 1
        player.type("q")
        assert player.finish()[0] == 0
    finally:
        player.p.kill()
    assert seen == 24 and the_only_files(tmp_path) == {"g.json"}

"""Simulation as untrusted input (issue 25): `fishrules simulate` and `compare` with `--workers`,
`--dask`, `--report` and `--games` as a hurried or careless person types them.

What is promised (docs/security.md, "Simulation"): a number of workers that is not 1 to
`MAX_WORKERS`, a `--dask` address that is not `local` nor HOST:PORT, a `--report` path that
cannot be written (a folder where a page goes, a file where a folder goes, a folder that does not
exist, a pipe) and a `--games` past its bound are each refused at once, in one line, with exit
status 2, before any game is played or any process started; a scheduler that cannot be reached,
that does not answer or that is not a scheduler at all is said in one line within the time to
connect (`CONNECT_TIMEOUT`), never a hang; and an enormous run starts at once, holds the same
memory after millions of games as after thousands, and stops at Ctrl-C (to the command or to its
whole process group, as a terminal sends it) within seconds, with exit status 130 and the one line
`fishrules: interrupted`, leaving no worker process behind.

Refusals run in the hostile harness's worker (`scenarios.cli`: the command line with a timeout and
a memory limit); Ctrl-C is sent to a real `python -m fishrules` process and its process group.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import fishrules
from fishrules.simulation import CONNECT_TIMEOUT, MAX_GAMES, MAX_WORKER_DEATHS, MAX_WORKERS, STOP_GRACE

from . import scenarios as sc
from .contract import FAST, SLOW, readable, run

SRC = str(Path(fishrules.__file__).resolve().parent.parent)
LINUX = sys.platform.startswith("linux")
needs_proc = pytest.mark.skipif(not LINUX, reason="reads /proc")


def cli(args: list, cwd: Path | str | None = None, timeout: float = SLOW) -> dict:
    out = run(sc.cli, [str(a) for a in args], None if cwd is None else str(cwd), timeout=timeout)
    assert out.status == "ok", out  # not a timeout, a crash or a blow-up of the worker
    return out.value


def refused(value: dict, status: int = 2, *words: str) -> str:
    """A clean refusal: `status`, one line on standard error, readable, saying `words`, nothing
    printed as a result."""
    err = value["err"]
    assert value["status"] == status, value
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line of error, got:\n{err[-3000:]}"
    readable(err)
    assert "Traceback" not in value["out"] + err
    for w in words:
        assert w in err, f"{w!r} not in: {err}"
    return err


#: A run long enough that a refusal which played its games first would miss the time allowed.
LONG = ["simulate", "fishfry", "--games", "2000000"]
LONG_COMPARE = ["compare", "fishfry", "fishfry-keeper", "--games", "400000"]


# ---- --workers ---------------------------------------------------------------------------------------

#: Numbers of workers that are no number, or none, or absurd.
BAD_WORKERS = ["0", "-1", "-99999", "1.5", "", " ", "x", "2e3", "0x10", "1_0_0_0", str(MAX_WORKERS + 1), "1000000",
               "9" * 60, "9" * 5000]


@pytest.mark.parametrize("command", ["simulate", "compare"])
@pytest.mark.parametrize("workers", BAD_WORKERS, ids=lambda w: w[:12] or "empty")
def test_absurd_workers_are_refused_at_once(command, workers):
    args = LONG if command == "simulate" else LONG_COMPARE
    value = cli([*args, "--workers", workers], timeout=FAST)
    err = value["err"]
    assert value["status"] == 2 and "Traceback" not in err, value
    assert "--workers" in err or "workers must be" in err, err
    readable(err)
    assert len(err.splitlines()[-1]) < 200, err  # five thousand nines are not printed back


@pytest.mark.parametrize("workers", [True, 1.0, "2", None, -5, 0, MAX_WORKERS + 1, 10**100])
def test_the_runner_takes_a_whole_number_of_workers(workers):
    from fishrules.simulation import Runner

    with pytest.raises(fishrules.OptionError, match="workers must be"):
        Runner(workers)


def test_the_most_workers_start_no_more_processes_than_there_are_chunks():
    """`--workers 256` for three games starts three processes, not 256 (and plays them)."""
    value = cli(["simulate", "fishfry", "--games", "3", "--workers", str(MAX_WORKERS), "--json"], timeout=SLOW)
    assert value["status"] == 0, value
    assert '"games": 3' in value["out"]


# ---- a worker killed at any stage ----------------------------------------------------------------------

#: A game whose every record is large (it counts 400 named rules, which never fire: a game is
#: quick): a chunk's results take several pieces, and more than a pipe holds, so a worker is often
#: caught sending them.
MANY_RULES = 'game "Many rules"\nplayers 2 to 2\neach player has points: number\nphase game:\n  repeat 3 times:\n' \
             "    for each player:\n      player chooses poke\naction poke:\n  add 1 to your points\n" \
             "  if your points > 100:\n" \
             + "".join(f'    rule "r{i}":\n      add 1 to your points\n' for i in range(400)) + 'score "points": your points\n'
#: Where a worker may be when it is killed (`simulation._DIE_AT`).
STAGES = ["start", "job", "chunk", "playing", "sending", "torn", "sent"]


def _many_rules():
    from fishrules.simulation import game_of_spec, rules_spec

    # the Python kernel: no C compiler run for a test of processes
    game = fishrules.loads(MANY_RULES, "many.fish", backend="python")
    game_of_spec(rules_spec(game), "python")  # loaded once here: each worker started by fork has it
    return game, {"players": 2, "options": {}, "seed": 9, "bots": "random", "iterations": 0}


def killed_at(stage: str, once: bool, games: int, deadline: float = 60.0) -> dict:
    """In the harness's worker: `games` games on two worker processes, a worker killing itself at
    `stage` (the first to reach it, or every one); what came back, beside what one process plays.
    `deadline`: `SEND_DEADLINE`."""
    import tempfile

    from fishrules import simulation as sim
    from fishrules.simulation import Runner

    game, job = _many_rules()
    expected = Runner(1).play(game, job, games)
    sim._DIE_AT = (stage, os.path.join(tempfile.mkdtemp(), "died") if once else None)
    sim.SEND_DEADLINE = deadline
    runner = Runner(2)
    try:
        with runner:
            got = runner.play(game, job, games)
        return {"same": got == expected, "deaths": runner.deaths, "error": None}
    except fishrules.FishrulesError as e:
        return {"same": None, "deaths": runner.deaths, "error": str(e)}
    finally:
        sim._DIE_AT, sim.SEND_DEADLINE = None, 60.0


@pytest.mark.parametrize("stage", STAGES)
def test_a_worker_killed_at_any_stage_loses_no_game(stage):
    """A worker killed before it reads anything, with a job but no chunk, with a chunk not begun,
    while playing, halfway through sending its results, in the middle of a piece of them, or once
    it has sent them all: the run ends (Python's process pool waited for the rest of a message
    half sent for ever), the chunks it held are played again, and the records are those of one
    process."""
    out = run(killed_at, stage, True, 200, timeout=60)
    assert out.status == "ok", out
    assert out.value == {"same": True, "deaths": 1, "error": None}, out.value


def test_a_worker_that_stops_halfway_through_sending_is_replaced():
    """A worker that sends part of a chunk's results and then nothing (stopped, or stuck) is
    killed after `SEND_DEADLINE` seconds of silence, and its chunks are played again."""
    out = run(killed_at, "hang", True, 200, 1.0, timeout=60)
    assert out.status == "ok", out
    assert out.value == {"same": True, "deaths": 1, "error": None}, out.value
    out = run(killed_at, "hang", False, 200, 0.5, timeout=60)
    assert out.status == "ok", out
    assert "stopped after sending nothing for 0.5 s" in out.value["error"], out.value


@pytest.mark.parametrize("stage", ["start", "chunk", "sending", "torn"])
def test_workers_that_die_again_and_again_end_the_run_saying_so(stage):
    out = run(killed_at, stage, False, 200, timeout=60)
    assert out.status == "ok", out
    error = out.value["error"]
    assert error is not None and out.value["deaths"] == MAX_WORKER_DEATHS + 1, out.value
    assert f"died {MAX_WORKER_DEATHS + 1} times" in error and "killed by SIGKILL" in error and "\n" not in error, error
    readable(error)


def killed_while_sending(games: int) -> dict:
    """In the harness's worker: a run on two processes in which, once the first chunk is back, a
    worker caught writing its results to a full pipe is killed (SIGKILL) from outside."""
    import multiprocessing

    from fishrules.simulation import Runner

    game, job = _many_rules()
    expected = Runner(1).play(game, job, games)
    killed: list = []

    def kill_one(k):
        deadline = time.monotonic() + 10
        while not killed and time.monotonic() < deadline:
            for proc in multiprocessing.active_children():
                try:
                    wchan = Path(f"/proc/{proc.pid}/wchan").read_text()
                except OSError:
                    continue
                if wchan.endswith("pipe_write"):
                    os.kill(proc.pid, signal.SIGKILL)
                    killed.append(proc.pid)
                    return
            time.sleep(0.005)

    with Runner(2) as runner:
        got = runner.play(game, job, games, progress=kill_one)
    return {"killed": bool(killed), "same": got == expected, "deaths": runner.deaths}


@needs_proc
def test_a_worker_killed_while_it_sends_a_large_result_loses_no_game():
    sleeper = subprocess.Popen(["sleep", "10"])
    try:
        time.sleep(0.2)
        if Path(f"/proc/{sleeper.pid}/wchan").read_text() in ("", "0"):
            pytest.skip("this system does not say where a process waits")
    finally:
        sleeper.kill()
        sleeper.wait()
    out = run(killed_while_sending, 1600, timeout=90)
    assert out.status == "ok", out  # a hang is a timeout here
    assert out.value == {"killed": True, "same": True, "deaths": 1}, out.value


# ---- --dask: malformed --------------------------------------------------------------------------------

BAD_ADDRESSES = ["", " ", "tcp://", "tcp://host", "host:", "host:0", "host:65536", "host:99999999999", "http://host:80",
                 "inproc://x", "ucx://host:1", "tcp://a b:1", "tcp://host:1/path", "tcp://host:1?x=2", "host:1\n",
                 "h\x00st:1", "tcp://[zz::1]:1", "tcp://user@host:1", "../../etc/passwd", "local:", "LOCAL",
                 "x" * 300 + ":1", "host:-1", "host:+1"]


@pytest.mark.parametrize("command", ["simulate", "compare"])
@pytest.mark.parametrize("address", BAD_ADDRESSES, ids=lambda a: repr(a[:20]))
def test_a_malformed_dask_address_is_refused_at_once(command, address):
    """Said before Dask is imported, let alone asked to connect: no `distributed` needed."""
    args = LONG if command == "simulate" else LONG_COMPARE
    value = cli([*args, "--dask", address], timeout=FAST)
    err = refused(value, 2, "not the address of a Dask scheduler", "tcp://HOST:PORT")
    assert len(err) < 300, err


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://sched.example:8786",
                                     "tcp://[::1]:8786", "scheduler-1.internal:1", "local"])
def test_well_formed_addresses_pass_the_check(address):
    from fishrules.simulation import _dask_address

    assert _dask_address(address) in (address, "tcp://" + address)


# ---- --dask: unreachable, silent, or not a scheduler ---------------------------------------------------


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """A TCP server on 127.0.0.1 that answers every connection with `payload` (None: says nothing)
    and then holds it open for a minute, as a web server waiting for a request does."""

    def __init__(self, payload: bytes | None):
        self.payload = payload
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held: list = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            if self.payload is not None:
                try:
                    conn.sendall(self.payload)
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


#: What may answer at an address given to --dask.
ANSWERS = {
    "nothing (a web server waiting for a request)": None,
    "a web server's error": b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    "an SSH banner": b"SSH-2.0-OpenSSH_9.6\r\n",
    "a frame count of 2**63": (2**63).to_bytes(8, "little"),
    "a frame of 300 MB announced, one byte sent": (1).to_bytes(8, "little") + (300_000_000).to_bytes(8, "little") + b"x",
    "a gigabyte of frames announced": (10**6).to_bytes(8, "little"),
}


@pytest.fixture(scope="module")
def distributed():
    return pytest.importorskip("distributed")


@pytest.mark.parametrize("answer", ANSWERS)
def test_what_is_not_a_scheduler_is_said_within_the_time_to_connect(distributed, answer):
    server = Server(ANSWERS[answer])
    try:
        out = run(sc.cli_connecting, [*LONG, "--dask", f"tcp://127.0.0.1:{server.port}"], 2.0, timeout=SLOW)
    finally:
        server.close()
    assert out.status == "ok", out  # not a hang, not a blow-up of memory (the worker has 1.5 GiB)
    value = out.value
    refused(value, 2, "cannot reach the Dask scheduler at", str(server.port))
    assert value["seconds"] < 2.0 + 5, value  # connecting and its answer bounded by the time to connect


@pytest.mark.parametrize("where", ["a closed port", "a name that does not resolve"])
def test_an_unreachable_scheduler_is_said_within_the_time_to_connect(distributed, where):
    address = f"tcp://127.0.0.1:{_free_port()}" if where == "a closed port" else "tcp://no-such-host.invalid:8786"
    out = run(sc.cli_connecting, [*LONG, "--dask", address], 2.0, timeout=SLOW)
    assert out.status == "ok", out
    refused(out.value, 2, "cannot reach the Dask scheduler at")
    assert out.value["seconds"] < 2.0 + 5, out.value


def test_a_silent_server_is_given_up_on_after_the_documented_time(distributed):
    """The default time to connect, end to end, as a person runs the command: Dask bounds its
    connecting but not its wait for the first message, and a server that says nothing held it for
    as long as that server kept the connection open (here a minute)."""
    server = Server(None)
    started = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "fishrules", *LONG, "--dask", f"127.0.0.1:{server.port}"],
                           capture_output=True, text=True, timeout=CONNECT_TIMEOUT + 30, env=_env())
    finally:
        server.close()
    took = time.monotonic() - started
    assert p.returncode == 2 and p.stdout == "", p
    assert p.stderr.count("\n") == 1 and "cannot reach the Dask scheduler" in p.stderr and "no answer" in p.stderr, p
    assert CONNECT_TIMEOUT - 1 < took < CONNECT_TIMEOUT + 15, took


# ---- --report ----------------------------------------------------------------------------------------


@pytest.fixture
def places(tmp_path) -> Path:
    (tmp_path / "a-folder.html").mkdir()
    (tmp_path / "a-folder.htm").mkdir()
    (tmp_path / "a-file").write_text("keep me")
    (tmp_path / "pictures").mkdir()
    (tmp_path / "pictures" / "seats.png").mkdir()  # a folder where a picture goes
    (tmp_path / "svgs").mkdir()
    (tmp_path / "svgs" / "ties.svg").mkdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "a-pipe.html")
        os.mkfifo(tmp_path / "pipes")
    return tmp_path


#: --report paths that cannot be written, with what the refusal says.
BAD_REPORTS = {
    "a folder named .html": ("a-folder.html", [], "is a folder"),
    "a folder named .htm": ("a-folder.htm", [], "is a folder"),
    "a page in a missing folder": ("missing/report.html", [], "does not exist"),
    "a page two missing folders down": ("missing/deeper/report.html", [], "does not exist"),
    "pictures in a missing folder": ("missing/pictures", [], "does not exist"),
    "pictures where a file is": ("a-file", [], "not a folder"),
    "a picture that is a folder": ("pictures", [], "is a folder"),
    "an svg that is a folder": ("svgs", ["--report-format", "svg"], "is a folder"),
    "a page that is a pipe": ("a-pipe.html", [], "not a regular file"),
    "pictures where a pipe is": ("pipes", [], "not a folder"),
    "an empty path": ("", [], "--report"),
    "a page under a file": ("a-file/report.html", [], "does not exist"),
}


@pytest.mark.parametrize("case", BAD_REPORTS)
def test_a_report_that_cannot_be_written_is_refused_before_any_game(places, case):
    pytest.importorskip("matplotlib")
    path, extra, says = BAD_REPORTS[case]
    if "pipe" in path and not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    before = sorted(str(p.relative_to(places)) for p in places.rglob("*"))
    value = cli([*LONG_COMPARE, "--report", path, *extra], cwd=places, timeout=FAST)
    refused(value, 2, says)
    assert value["out"] == "", value  # no game was played: nothing to print
    assert sorted(str(p.relative_to(places)) for p in places.rglob("*")) == before  # nothing made, nothing left
    assert (places / "a-file").read_text() == "keep me"


@pytest.mark.parametrize("kind", ["page", "pictures"])
def test_a_report_is_written_whole_with_nothing_beside_it(tmp_path, kind):
    """Written whole (a temporary file renamed into place), and over the last report."""
    pytest.importorskip("matplotlib")
    target = tmp_path / ("r.html" if kind == "page" else "pics")
    for _ in range(2):
        value = cli(["compare", "fishfry", "fishfry-keeper", "--games", "4", "--report", target, "-q"], timeout=SLOW)
        assert value["status"] == 0 and value["err"] == "", value
    if kind == "page":
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]
        assert target.read_text().rstrip().endswith("</html>")
    else:
        assert sorted(p.name for p in target.iterdir()) == [f"{n}.png" for n in sorted(
            ["lengths", "seats", "scores", "rules", "ties"])]


def test_a_report_at_a_link_replaces_the_link_not_what_it_points_to(tmp_path):
    pytest.importorskip("matplotlib")
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not a report")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "r.html").symlink_to(elsewhere)
    value = cli(["compare", "fishfry", "fishfry-keeper", "--games", "4", "--report", tmp_path / "out" / "r.html", "-q"])
    assert value["status"] == 0, value
    assert elsewhere.read_text() == "not a report"
    assert not (tmp_path / "out" / "r.html").is_symlink() and "<html" in (tmp_path / "out" / "r.html").read_text()


@needs_proc
def test_a_folder_gone_while_playing_loses_only_the_plots(tmp_path):
    """The report is printed before the plots are drawn: a folder removed while the games are played
    loses nothing but the plots, and says so in one line (status 1, as for a log that cannot be
    written)."""
    pytest.importorskip("matplotlib")
    (tmp_path / "gone").mkdir()
    # games for a few seconds of two workers: the folder goes long before they end
    p = _start(["compare", "fishfry", "fishfry-keeper", "--games", "40000", "--workers", "2",
                "--report", str(tmp_path / "gone" / "r.html")])
    try:
        _workers_up(p, 2, within=20)  # the path was checked before the games began
        (tmp_path / "gone").rmdir()
        out, err = p.communicate(timeout=600)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert p.returncode == 1, (p.returncode, err)
    assert "decisions per game" in out  # the report itself, printed
    assert err.count("\n") == 1 and "cannot write the report" in err and "does not exist" in err, err
    readable(err)
    assert not (tmp_path / "gone").exists()  # not made again


# ---- --games -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("games", [str(MAX_GAMES + 1), "9" * 40, "9" * 4000])
def test_more_games_than_simulate_plays_are_refused_at_once(games):
    refused(cli(["simulate", "fishfry", "--games", games], timeout=FAST), 2, "games must be")


@pytest.mark.parametrize("games", ["500001", "1000000000", "9" * 4000])
def test_more_games_than_compare_keeps_are_refused_at_once(games):
    refused(cli(["compare", "fishfry", "fishfry-keeper", "--games", games], timeout=FAST), 2, "at most 1,000,000 games")


@pytest.mark.parametrize("games", [10**12, MAX_GAMES * 1000])
def test_playouts_of_an_enormous_number_of_games_start_at_once(games):
    """`Game.playouts(n)` gives one game at a time: it no longer lists n seeds first (10**12 of them
    ran the harness out of its 1.5 GiB)."""
    out = run(sc.first_playouts, "fishfry", games, 3, timeout=FAST)
    assert out.status == "ok", out
    assert out.value == run(sc.first_playouts, "fishfry", 3, 3, timeout=FAST).value  # game i is game i


# ---- an enormous run, and Ctrl-C -----------------------------------------------------------------------


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), "COLUMNS": "120"}


def _group(pgid: int) -> dict[int, str]:
    """The processes of a process group that are not zombies (a zombie has ended: it only waits
    for its parent, or for init, to collect its status): {pid: state}."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            out[int(entry)] = fields[0]
    return out


def _cpu_seconds(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # ended
        return 0.0
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _workers(parent: int) -> list[int]:
    """The worker processes `parent` started: its children that run Python (not a C compiler it
    runs for the kernel, nor multiprocessing's resource tracker)."""
    out = []
    for pid in _group(parent):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == parent and "python" in cmdline and "resource_tracker" not in cmdline:
            out.append(pid)
    return out


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _as_from_a_terminal() -> None:  # pragma: no cover - runs in the child
    """Ctrl-C as a terminal's command gets it: a command started from a shell script's background
    job (`make test &`) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args: list) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "fishrules", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=_env(), preexec_fn=_as_from_a_terminal)


def _workers_up(p: subprocess.Popen, count: int, within: float) -> list[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        assert p.poll() is None, p.communicate()
        kids = _workers(p.pid)
        if len(kids) >= count:
            return kids
        time.sleep(0.1)
    raise AssertionError(f"{count} worker processes were not started within {within} s")


def _playing(p: subprocess.Popen, pids: list[int], cpu: float, within: float = 60) -> None:
    """Wait until the processes `pids` have worked `cpu` seconds of CPU between them: a run is
    stopped in the middle of its games, however busy the machine (a fixed sleep played games for
    seconds on an idle machine, and on a loaded one might not have got past the start)."""
    deadline = time.monotonic() + within
    while sum(_cpu_seconds(pid) for pid in pids) < cpu:
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, f"{pids} did not work {cpu} s of CPU within {within} s"
        time.sleep(0.05)


def _stopped_cleanly(p: subprocess.Popen, within: float, status: int = 130, said: str = "interrupted") -> float:
    started = time.monotonic()
    try:
        out, err = p.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise AssertionError(f"still running {within} s after Ctrl-C") from None
    took = time.monotonic() - started
    assert p.returncode == status, (p.returncode, err[-3000:])
    assert err == f"fishrules: {said}\n", err[-3000:]
    assert out == "", out[-3000:]
    deadline = time.monotonic() + 5  # a process that ended may take a moment to be collected
    while _group(p.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _group(p.pid) == {}, f"left behind: {_group(p.pid)}"
    return took


@needs_proc
@pytest.mark.parametrize("to", ["the command", "its process group"])
def test_a_billion_games_start_at_once_hold_their_memory_and_stop_at_ctrl_c(to):
    p = _start(["simulate", "fishfry", "--workers", "2", "--games", str(10**9)])
    try:
        workers = _workers_up(p, 2, within=20)  # it starts at once: no list of a billion games first
        if to == "the command":
            # measured over an amount of games played (CPU seconds of its workers), not of time: a
            # fixed 4 s saw the workers play 0.4 s of CPU between them on a loaded machine
            _playing(p, workers, cpu=1.0)
            rss, cpu = _rss_mb(p.pid), sum(_cpu_seconds(w) for w in workers)
            _playing(p, workers, cpu=cpu + 4.0, within=120)
            grown = _rss_mb(p.pid) - rss
            # a record of every game kept grew it by some 25 MB a second of both workers' games here
            assert grown < 20, f"the command grew by {grown:.0f} MB in 4 s of CPU of games"
        else:  # the same run, its memory measured above: here only where Ctrl-C goes differs
            _playing(p, workers, cpu=1.0)
        (os.kill if to == "the command" else os.killpg)(p.pid, signal.SIGINT)
        assert _stopped_cleanly(p, within=STOP_GRACE + 20) < STOP_GRACE
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()


@needs_proc
@pytest.mark.parametrize("args", [
    ["simulate", "fishfry", "--games", str(10**9)],
    ["compare", "fishfry", "fishfry-keeper", "--games", "500000", "--workers", "2"],
    ["compare", "fishfish", "fishfish", "--games", "1000", "--bots", "mcts", "--iterations", "200", "--workers", "2"],
], ids=["one process", "compare on two workers", "search bots on two workers"])
def test_ctrl_c_stops_every_kind_of_run(args):
    p = _start(args)
    try:
        if "--workers" in args:
            _playing(p, _workers_up(p, 2, within=20), cpu=1.0)
        else:  # the command itself plays: past its start (under a second of CPU), into its games
            _playing(p, [p.pid], cpu=2.0)
        os.killpg(p.pid, signal.SIGINT)
        _stopped_cleanly(p, within=STOP_GRACE + 20)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()


@needs_proc
@pytest.mark.parametrize("delay", [0.03, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0, 1.3])
def test_ctrl_c_at_any_moment_of_the_start(delay):
    """From the moment the command's first line runs (its modules still loading, the rules being
    read, the pool starting its processes), Ctrl-C to the whole group ends it the same way: no
    traceback from the command or from a worker caught half started."""
    code = ("import sys; import fishrules.__main__ as m; print('ready', flush=True); "
            f"sys.exit(m.main(['simulate', 'fishfry', '--workers', '2', '--games', '{10**9}']))")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env=_env(), preexec_fn=_as_from_a_terminal)
    try:
        assert p.stdout.readline() == "ready\n"
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGINT)
        _stopped_cleanly(p, within=STOP_GRACE + 20)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()


#: A worker process's compiled kernel (`kernel.native`'s file name): mapped once it has been given games.
KERNEL_LIBRARY = re.compile(r"/k[0-9a-f]{32}\.(so|dylib)$", re.M)


def _has_games(pid: int) -> bool:
    try:
        return bool(KERNEL_LIBRARY.search(Path(f"/proc/{pid}/maps").read_text()))
    except OSError:  # ended
        return False


def _playing_on_dask(p: subprocess.Popen, workers: list[int], within: float = 120) -> None:
    """Wait until a local Dask cluster's workers play games: one of them has loaded the rules'
    compiled kernel (it is given games once the cluster has started and the command has
    connected to it), then a second of CPU more.  Without a C compiler (the kernel in Python),
    8 s of CPU between them, the start's 3 s and more."""
    deadline = time.monotonic() + within
    while True:
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, f"{workers} played no game within {within} s"
        if sum(_cpu_seconds(pid) for pid in workers) >= 8:
            return
        if any(_has_games(pid) for pid in workers):
            _playing(p, workers, cpu=sum(_cpu_seconds(w) for w in workers) + 1.0, within=within)
            return
        time.sleep(0.05)


def _under_way(p: subprocess.Popen, extra: list) -> None:
    """Wait until a run on two workers is playing its games (a local Dask cluster's: past its
    start, which the tests of a signal while it starts cover)."""
    workers = _workers_up(p, 2, within=60)
    if extra:
        _playing_on_dask(p, workers)
    else:
        _playing(p, workers, cpu=1.0, within=120)


@needs_proc
@pytest.mark.parametrize("extra", [[], ["--dask", "local"]], ids=["processes", "a local Dask cluster"])
def test_sigterm_stops_a_run_as_ctrl_c_does(extra, request):
    """`kill` (SIGTERM) of the command killed it alone, and its workers went on waiting for chunks
    for ever (holding its output open): now it stops them first, and says so (status 143)."""
    if extra:
        request.getfixturevalue("distributed")
    p = _start(["simulate", "fishfry", "--workers", "2", "--games", str(10**9), *extra])
    try:
        _under_way(p, extra)
        os.kill(p.pid, signal.SIGTERM)
        _stopped_cleanly(p, within=60, status=143, said="terminated")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()


@needs_proc
@pytest.mark.parametrize("extra", [[], ["--dask", "local"]], ids=["processes", "a local Dask cluster"])
def test_workers_of_a_killed_command_end_by_themselves(extra, request):
    """SIGKILL leaves the command no chance to stop anything: its workers notice they are
    orphaned, and end within seconds."""
    if extra:
        request.getfixturevalue("distributed")
    p = _start(["simulate", "fishfry", "--workers", "2", "--games", str(10**9), *extra])
    try:
        _under_way(p, extra)
        os.kill(p.pid, signal.SIGKILL)
        p.communicate(timeout=60)
        deadline = time.monotonic() + 20
        while _group(p.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _group(p.pid) == {}, f"left behind: {_group(p.pid)}"
    finally:
        for pid in _group(p.pid):
            os.kill(pid, signal.SIGKILL)


@needs_proc
def test_ctrl_c_stops_a_local_dask_cluster(distributed):
    """And says nothing else while another cluster is on the machine (Dask's port 8787 held here,
    if nothing else holds it: Dask warned that it is in use)."""
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:  # held already
        pass
    p = _start(["simulate", "fishfry", "--workers", "2", "--dask", "local", "--games", str(10**9)])
    try:
        _playing_on_dask(p, _workers_up(p, 2, within=60))
        os.kill(p.pid, signal.SIGINT)
        _stopped_cleanly(p, within=60)
    finally:
        held.close()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()


def _tracker(parent: int) -> bool:
    """Whether `parent` has started multiprocessing's resource tracker: a local Dask cluster's
    start has begun (its worker processes need it)."""
    for pid in _group(parent):
        try:
            if b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


#: Moments of a local Dask cluster's start, each told by what can be seen of it from outside.
CLUSTER_STARTING = {
    "begun": lambda p: _tracker(p.pid),
    "its first worker process started": lambda p: len(_workers(p.pid)) >= 1,
    "its workers importing": lambda p: (len(_workers(p.pid)) >= 2
                                        and sum(_cpu_seconds(w) for w in _workers(p.pid)) >= 0.5),
}


@needs_proc
@pytest.mark.parametrize("how,moment", [("Ctrl-C to the process group", moment) for moment in CLUSTER_STARTING]
                         # the command alone gets it: where its workers are in their start is Ctrl-C's question
                         + [("SIGTERM to the command", "its first worker process started")])
def test_a_signal_while_a_local_dask_cluster_starts_stops_the_run(distributed, moment, how):
    """A signal in the seconds a local Dask cluster takes to start stops the run as at any other
    moment: the command had Ctrl-C ignored then (so that its workers inherited it ignored), and
    the run went on; SIGTERM was raised inside Dask's start, and Dask printed its traceback as the
    command exited.  Now one line, the status of that signal, and no process left (a worker caught
    half started by the process group's Ctrl-C prints nothing either)."""
    p = _start(["simulate", "fishfry", "--workers", "2", "--dask", "local", "--games", str(10**9)])
    try:
        deadline = time.monotonic() + 60
        while not CLUSTER_STARTING[moment](p):
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline, f"the cluster's start was not seen ({moment}) within 60 s"
            time.sleep(0.01)
        assert not any(_has_games(w) for w in _workers(p.pid)), "too late: a worker plays games already"
        if how.startswith("Ctrl-C"):
            os.killpg(p.pid, signal.SIGINT)
            _stopped_cleanly(p, within=60)
        else:
            os.kill(p.pid, signal.SIGTERM)
            _stopped_cleanly(p, within=60, status=143, said="terminated")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()


def test_the_exit_status_of_ctrl_c_is_documented():
    cli_md = (Path(SRC).parent / "docs" / "cli.md").read_text()
    assert "130" in cli_md and "interrupted" in cli_md
    security = (Path(SRC).parent / "docs" / "security.md").read_text()
    for words in ("--workers", "--dask", "--report", "Ctrl-C", "130", f"{MAX_WORKERS}"):
        assert words in security, words

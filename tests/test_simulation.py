"""Many games past one process (issue 14, part 3), and the rule counts they carry (part 1): named
rules counted only when asked, the same results whatever the number of workers or where they run,
rules sent to workers as text, and a worker that dies losing no game."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal

import pytest

import fishrules
from fishrules.cli import main
from fishrules.simulation import Runner, game_of_spec, play_chunk, rules_spec

COUNTING = """game "Counting"
players 2 to 3
the game has turn: number
each player has points: number
phase game:
  repeat 3 times:
    for each player:
      add 1 to turn
      rule "every turn":
        add 1 to player's points
      rule "even turns":
        if turn is 2 or turn is 4 or turn is 6:
          add 1 to player's points
      rule "reached":
        if turn > 100:
          add 5 to player's points
        otherwise:
          add 0 to player's points
      rule "never":
        if turn > 100:
          add 5 to player's points
"""


# ---- which rule fired ----------------------------------------------------------------------------


def test_a_rule_fires_when_its_lines_run_and_a_guard_when_its_condition_holds():
    game = fishrules.loads(COUNTING, "counting.fish")
    s = game.start(players=2, seed=1, count_rules=True)
    assert s.is_over
    # 6 turns; a guard (one `if`, no `otherwise`) counts when it holds; an if/otherwise, when reached
    assert s.rules_fired == {"every turn": 6, "even turns": 3, "reached": 6, "never": 0}
    plain = game.start(players=2, seed=1)
    assert plain.rules_fired is None  # counting is off unless asked for
    assert plain == s and plain.to_json() == s.to_json()  # and is no part of the position


@pytest.mark.parametrize("name", fishrules.bundled())
def test_counting_rules_changes_no_game(name):
    game = fishrules.load(name)
    for seed in range(2):
        a = game.start(game.min_players, seed=seed).playout(random.Random(seed))
        counted = game.start(game.min_players, seed=seed, count_rules=True)
        assert counted.playout(random.Random(seed)) == a
        assert all(v >= 0 for v in counted.rules_fired.values())
        assert counted.clone().rules_fired is None  # a bot's trial counts nothing


def test_a_guard_counts_replays_after_a_tie():
    r = fishrules.simulate("fishfry", games=300, players=3, seed=1)
    tie = r["rules"]["one tie, all tie"]
    assert 0 < tie["games_share"] < 0.5 and tie["per_game"] >= tie["games_share"]
    assert r["rules"]["score the turn"]["per_game"] > 3  # at least a turn for each of 3 players, mostly


def test_compare_reports_rules_side_by_side():
    r = fishrules.compare(["fishfry", "fishfry-keeper,rounds=1"], players=3, games=80, seed=2)
    first, keeper = r["contenders"]
    assert set(first["rules"]) == {"one tie, all tie", "score the turn"}
    assert "done fishing" in keeper["rules"] and "one tie, all tie" not in keeper["rules"]
    d = keeper["versus_first"]["rules"]["score the turn"]
    assert d["test"] == "welch t" and d["significant"]  # Keeper scores a turn only when a fish is caught
    from fishrules.comparison import render_text

    text = render_text(r)
    assert 'rule "one tie, all tie"' in text and "(none)" in text


# ---- the same results anywhere ---------------------------------------------------------------------


def test_one_worker_two_workers_and_a_local_cluster_give_identical_reports():
    pytest.importorskip("distributed")
    args = (["fishfry", "fishfry-keeper,rounds=2"],)
    kw = dict(players=3, games=40, seed=5, bots="random")
    one = json.dumps(fishrules.compare(*args, **kw))
    assert json.dumps(fishrules.compare(*args, **kw, workers=2)) == one
    assert json.dumps(fishrules.compare(*args, **kw, workers=2, dask="local")) == one
    sim = fishrules.simulate("fatfish", games=30, players=3, seed=4)
    assert fishrules.simulate("fatfish", games=30, players=3, seed=4, workers=2) == sim


def test_a_worker_that_dies_loses_no_game():
    # A game long enough that chunks are still to play when the first one comes back (the kernel
    # plays 400 games of Fishfry in about a millisecond: all were played before the death was
    # noticed).  A worker killed at each stage of a chunk, sending its results included, is
    # tests/hostile/test_simulation.py's
    game = fishrules.load("fisheatfish")
    job = {"players": 3, "options": {}, "seed": 9, "bots": "random", "iterations": 0}
    games = 400
    expected = Runner(1).play(game, job, games)
    killed = []

    def kill_one(k):
        if not killed:
            victim = multiprocessing.active_children()[0]
            os.kill(victim.pid, signal.SIGKILL)
            killed.append(victim.pid)

    with Runner(2) as runner:
        got = runner.play(game, job, games, progress=kill_one)
        assert runner.deaths == 1
    assert killed and got == expected


def test_workers_load_the_rules_from_their_text(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.fish").write_text('extends "fishfry-total-points"\ngame "Base"\n'
                                                'replace option rounds: number from 1 to 9 = 2\n')
    (tmp_path / "mine.fish").write_text('extends "sub/base"\ngame "Mine"\n')
    game = fishrules.load(tmp_path / "mine.fish")
    spec = rules_spec(game)
    assert [name for name, _ in spec["files"]] == ["mine.fish", os.path.join("sub", "base.fish")]
    for p in (tmp_path / "mine.fish", tmp_path / "sub" / "base.fish"):
        p.unlink()  # nothing on this disk any more: the worker has the text
    job = {"players": 2, "options": {}, "seed": 1, "bots": "random", "iterations": 0, "rules": spec}
    assert play_chunk(job, 0, 5) == play_chunk(job, 0, 5, game)
    assert game_of_spec(spec).title == "Mine"
    other = {**spec, "hash": "0" * 64}
    with pytest.raises(fishrules.StateError, match="hash"):
        game_of_spec(other)
    with pytest.raises(fishrules.StateError, match="outside"):
        game_of_spec({**spec, "hash": "1" * 64, "files": [*spec["files"], ("../escape.fish", "x")]})


def test_a_rule_that_goes_wrong_on_a_worker_is_a_rule_error():
    game = fishrules.loads('game "Loop"\nplayers 2 to 2\nthe game has x: number\nphase game:\n  repeat:\n'
                           '    add 1 to x\n', "loop.fish")
    job = {"players": 2, "options": {}, "seed": 1, "bots": "random", "iterations": 0, "rules": rules_spec(game)}
    (record,) = play_chunk(job, 0, 3)
    assert record["kind"] == "rule" and record["error"].startswith("loop.fish:6:5: error:")
    with pytest.raises(fishrules.RuleError, match="loop.fish"):
        Runner(1).play(game, job, 3)


# ---- the command line ----------------------------------------------------------------------------------


def test_workers_and_report_from_the_command_line(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    args = ["compare", "fishfry", "fishfry-first-to", "--players", "2", "--games", "30", "--seed", "1", "--json"]
    assert main(args) == 0
    one = capsys.readouterr().out
    assert main([*args, "--workers", "2", "--report", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr()
    assert out.out == one and "report written" in out.err
    page = (tmp_path / "r.html").read_text()
    assert page.count("<svg") == 5 and "fishfry-first-to" in page and "Traceback" not in page
    for run in ("a", "b"):
        assert main([*args, "--report", str(tmp_path / run), "--report-format", "svg", "-q"]) == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == ["lengths.svg", "rules.svg", "scores.svg", "seats.svg", "ties.svg"]
    for name in names:  # the same report draws the same files
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "fishfry", "--games", "5", "--workers", "0"])
    assert stop.value.code == 2 and "at least 1" in capsys.readouterr().err


def test_a_missing_extra_is_said_plainly(monkeypatch, capsys, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    assert main(["compare", "fishfry", "--players", "2", "--games", "5", "--report", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "fishrules[report]" in err and "Traceback" not in err
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert main(["simulate", "fishfry", "--games", "5", "--dask", "local"]) == 2
    assert "fishrules[dask]" in capsys.readouterr().err


def test_play_seats_search_bots_and_a_resumed_game_goes_on_alike(tmp_path):
    """`play --bot ismcts`: the bot is seeded per decision, so stopping and resuming changes nothing."""
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(fishrules.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=src, COLUMNS="120")

    def play(*args, stdin):
        return subprocess.run([sys.executable, "-m", "fishrules", "play", *args], input=stdin, text=True,
                              capture_output=True, env=env, cwd=tmp_path, timeout=120)

    game = ["fishfish", "--players", "2", "--bot", "ismcts", "--seed", "5"]
    assert play(*game, "--log", "whole.json", stdin="1\n" * 400).returncode == 0
    assert play(*game, "--log", "part.json", stdin="1\n1\nq\n").returncode == 0
    p = play("--resume", "part.json", stdin="1\n" * 400)
    assert p.returncode == 0, p.stderr
    whole, part = (json.loads((tmp_path / f).read_text()) for f in ("whole.json", "part.json"))
    assert whole["seats"] == part["seats"] == ["human", "ismcts"]
    assert part["history"] == whole["history"] and part["over"]
    assert "bots: p1 mcts" in play(*game, "--bot", "1=mcts", stdin="q\n").stdout


def test_a_dask_worker_that_dies_loses_no_game():
    """A LocalCluster worker process killed mid-run: Dask reschedules the chunks it held, and the
    games come back the same as in one process."""
    pytest.importorskip("distributed")
    game = fishrules.load("fatfish")
    job = {"players": 3, "options": {}, "seed": 3, "bots": "random", "iterations": 0}
    expected = Runner(1).play(game, job, 48)
    killed = []

    with Runner(2, dask="local") as runner:
        def kill_one(k):
            if not killed:
                pid = sorted(runner._client.run(os.getpid).values())[0]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        got = runner.play(game, job, 48, progress=kill_one)
    assert killed and got == expected


def test_an_unreachable_dask_scheduler_is_said_plainly(monkeypatch):
    pytest.importorskip("distributed")
    import fishrules.simulation as sim

    monkeypatch.setattr(sim, "CONNECT_TIMEOUT", 1.0)
    with pytest.raises(fishrules.OptionError, match="cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"):
        fishrules.simulate("fishfry", games=4, players=2, dask="tcp://127.0.0.1:9")


def test_rules_from_a_string_that_extend_a_local_file_reach_the_workers(tmp_path):
    """`loads(text, base_dir=…)` whose text extends a file of that folder: the workers get that
    file's text too, and play the games one process plays."""
    (tmp_path / "base.fish").write_text('extends "fishfry"\ngame "Base"\n', encoding="utf-8")
    game = fishrules.loads('extends "base"\ngame "On top"\n', base_dir=tmp_path)
    spec = rules_spec(game)
    assert [name for name, _ in spec["files"]][1:] == ["base.fish"]
    one = fishrules.simulate(game, games=24, players=3, seed=2)
    assert fishrules.simulate(game, games=24, players=3, seed=2, workers=2) == one

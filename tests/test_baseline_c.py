"""The hand-written C baseline of Fisherman (benchmarks/baselines/fisherman.c) plays the engine's game.

Under the kernel's rules of chance and choice (`_twins.decided_playout`), game seed `s` of the C
baseline is the engine's game of seed `s` (`reference_playout(game, players, s)`, frozen in
tests/golden/engine/test_baseline_c.json by `freeze`, tests/tools/freeze_engine.py): equal scores,
winners and decisions for a few hundred seeds at 3 and 4 players, and for some of them the whole
history, text for text, as the game played so through the API writes it.  The
baseline is also built with -fsanitize=address,undefined and plays games with no report.  Without
a C compiler (or a sanitizer runtime) the tests skip, saying why.
"""

from __future__ import annotations

import os
import subprocess

import pytest

import fishrules
from benchmarks.baselines import cbaseline

from ._frozen import frozen, plain
from ._twins import decided_playout

# seeds: small ones, negative ones (the engine takes a seed mod 2^64), and ones near 2^64
SEEDS = list(range(120)) + [-1, -2, -(2**40), 2**63 - 1, 2**63, 2**64 - 1, 2**64 - 2, 0x9E3779B97F4A7C15,
                            20240601, 123456789012345]


@pytest.fixture(scope="module")
def lib():
    try:
        return cbaseline.library()
    except (cbaseline.CompilerMissing, cbaseline.BuildFailed) as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def game():
    return fishrules.load("fisherman")


@pytest.mark.parametrize("players", [3, 4])
def test_plays_the_engines_game(lib, game, players):
    """Scores, winners and decisions equal the engine's for every seed."""
    engine = frozen("test_baseline_c")[str(players)]
    assert len(engine) == len(SEEDS)
    for seed, want in zip(SEEDS, engine):
        got = cbaseline.play(players, seed)
        assert plain(got) == want, f"{players} players, seed {seed}"


@pytest.mark.parametrize("players", [3, 4])
def test_history_is_the_engines(lib, game, players):
    """Every draw and every choice, in order, as the engine's history writes them."""
    for seed in list(range(8)) + [-1, 2**64 - 1]:
        state = decided_playout(game.start(players=players, seed=seed), seed)
        assert cbaseline.history(players, seed) == state.history, f"{players} players, seed {seed}"


def test_play_many_totals_its_games(lib):
    for players in (3, 4):
        games = [cbaseline.play(players, 2**64 - 5 + i) for i in range(10)]  # seeds wrap past 2^64
        assert cbaseline.play_many(players, 2**64 - 5, 10) == (sum(sum(s) for s, _, _ in games),
                                                               sum(d for _, _, d in games))


def test_refuses_other_player_counts(lib):
    for players in (2, 5):
        with pytest.raises(ValueError, match="3 or 4 players"):
            cbaseline.play(players, 1)
    assert lib.fisherman_play_many(2, 0, 1, None, None) == -1


def test_measure_reports_games_per_second(lib):
    r = cbaseline.measure(3, seconds=0.01, windows=2)
    assert r["games_per_s"] > 0 and r["cpu_games_per_s"] >= 0 and r["decisions_per_game"] == 126


def test_clean_under_sanitizers(lib):
    """Built with -fsanitize=address,undefined: thousands of games through every entry point, no
    report (the program exits at the first one), and the same totals as the normal build."""
    try:
        exe = cbaseline.build(sanitize=True)
    except cbaseline.BuildFailed as e:
        pytest.skip(f"no sanitizer build here: {e}")
    probe = subprocess.run([str(exe), "3", "0", "0"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"the sanitizer runtime does not run here: {probe.stderr.strip()[:500]}")
    for players, seed0 in ((3, 0), (4, 2**64 - 700)):
        r = subprocess.run([str(exe), str(players), str(seed0), "1500"], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1"))
        assert r.returncode == 0 and not r.stderr, f"sanitizer build, {players} players: {r.stderr}"
        assert tuple(map(int, r.stdout.split())) == cbaseline.play_many(players, seed0, 1500)


def freeze(engine) -> dict:
    """The engine's games of `SEEDS` (run by tests/tools/freeze_engine.py while it lived)."""
    game = fishrules.load("fisherman")
    out = {}
    for players in (3, 4):
        out[str(players)] = []
        for seed in SEEDS:
            want = engine.playout(game, players, seed)
            out[str(players)].append([want.scores, want.winners, want.decisions])
    return out

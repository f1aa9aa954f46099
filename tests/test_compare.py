"""fishrules compare: the same seeds under several rulesets, with intervals and stated tests."""

from __future__ import annotations

import json

import pytest

import fishrules
from fishrules import comparison as cmp
from fishrules.cli import main


def test_the_statistics_against_known_values():
    assert cmp.t_two_sided(2.0, 10) == pytest.approx(0.07339, abs=1e-4)
    assert cmp.t_quantile(10) == pytest.approx(2.2281, abs=1e-3)
    assert cmp.chi_square([[10, 20], [20, 10]])[2] == pytest.approx(0.00982, abs=1e-4)
    assert cmp.chi_square_uniform([25, 25, 25, 25])[2] == pytest.approx(1.0)
    lo, hi = cmp.wilson(5, 10)
    assert (round(lo, 3), round(hi, 3)) == (0.237, 0.763)
    w = cmp.welch([1, 2, 3, 4], [1, 2, 3, 4])
    assert w["difference"] == 0 and not w["significant"]


def test_same_seed_same_report_and_a_real_difference_is_found():
    a = cmp.compare(["fishfry", cmp.parse_contender("fishfry-keeper,rounds=2")],
                    players=3, games=60, seed=4)
    b = cmp.compare(["fishfry", cmp.parse_contender("fishfry-keeper,rounds=2")], players=3, games=60, seed=4)
    assert json.dumps(a) == json.dumps(b)
    first, keeper = a["contenders"]
    assert keeper["options"] == {"rounds": 2}
    d = keeper["versus_first"]["decisions"]
    assert d["difference"] > 0 and d["significant"] and d["p_value"] < 0.001
    # a ruleset against itself: nothing differs, and the games are the very same ones
    same = cmp.compare(["fishfry", "fishfry"], players=2, games=40, seed=1)["contenders"][1]["versus_first"]
    assert same["decisions"]["difference"] == 0 and not same["decisions"]["significant"]
    assert same["win_rate_by_seat"]["p_value"] == 1.0


def test_bots_in_compare():
    r = cmp.compare(["fishfish"], players=2, games=4, seed=1, bots="mixed", iterations=4)
    c = r["contenders"][0]
    assert sum(b["seats_played"] for b in c["bots"].values()) == 8
    assert r["iterations"] == 4


def test_the_command(capsys):
    args = ["compare", "fishfry", "fishfry-keeper,rounds=2", "--players", "2", "--games", "30", "--seed", "3"]
    assert main([*args, "--json"]) == 0
    one = capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    assert capsys.readouterr().out == one  # identical bytes for the same seed
    assert json.loads(one)["format"] == "fishrules-compare/1"
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "decisions per game" in text and "fishfry-keeper,rounds=2" in text
    assert main(["compare", "fishfry", "--players", "9", "--games", "5"]) == 2
    assert "is for 2 to" in capsys.readouterr().err
    assert main(["compare", "fishfry-keeper,round=3", "--players", "2", "--games", "5"]) == 2
    assert "did you mean" in capsys.readouterr().err
    assert main(["compare", "fishfry", "--players", "2", "--games", "5", "--bots", "clever"]) == 2

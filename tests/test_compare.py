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


@pytest.mark.parametrize("backend", ["python", "auto"])
def test_the_backend_asked_for_plays_the_games(backend):
    """`compare --backend python` played on the kernel `auto` chose: the contender's game was
    loaded again without its backend."""
    c = cmp.parse_contender("fishfry-keeper,rounds=2", backend=backend)
    cmp.compare([c], players=2, games=2, seed=1)
    assert c.game.kernel.name == ("python" if backend == "python" else fishrules.load("fishfry-keeper").kernel.name)
    assert c.options == {"rounds": 2}


# ---- issue 23: the report answers "did my rule change the game?" ---------------------------------


def test_simulate_and_compare_with_one_seed_play_the_same_games():
    from fishrules.simulation import simulate

    sim = simulate("fishfry-total-points", games=60, players=3, seed=5, options={"rounds": 2})
    rep = cmp.compare([cmp.parse_contender("fishfry-total-points,rounds=2")], players=3, games=60, seed=5)
    c = rep["contenders"][0]
    for seat, s in zip(c["seats"], sim["seats"]):
        assert seat["win_rate"] == pytest.approx(s["win_rate"], abs=1e-4)
        assert seat["score"]["mean"] == pytest.approx(s["mean_score"], abs=1e-4)
    assert c["length"]["actions"]["mean"] == pytest.approx(sim["length"]["mean_actions"], abs=1e-4)
    assert c["ties"]["games"] == sim["ties"]["games"]


def test_every_figure_has_a_row_against_the_first_with_interval_and_test():
    rep = cmp.compare(["fishfry-total-points", cmp.parse_contender("fishfry-keeper,rounds=5")], players=3, games=80, seed=2)
    vs = rep["contenders"][1]["versus_first"]
    for d in [vs["decisions"], vs["actions"], vs["tie_rate"], *vs["win_rate"], *vs["score"]]:
        assert {"difference", "low", "high", "p_value", "significant", "test"} <= set(d)
        assert d["low"] <= d["difference"] <= d["high"]
    assert len(vs["win_rate"]) == len(vs["score"]) == 3
    text = cmp.render_text(rep).splitlines()
    for figure in ("decisions per game", "actions per game", "p0 wins", "p1 wins", "p2 wins", "ties", "p0 score",
                   "p1 score", "p2 score"):
        at = next(i for i, line in enumerate(text) if line.startswith(figure))
        under = text[at + 1]
        assert under.startswith("  vs first"), (figure, under)
        assert "[" in under and "p=" in under, under
    assert text[next(i for i, line in enumerate(text) if line.startswith("ties")) + 1].count("%") == 3


def test_a_deal_that_runs_out_is_counted(tmp_path):
    rules = tmp_path / "ten.fish"
    rules.write_text('extends "fatfish"\ngame "Ten"\nreplace players 2 to 10\n', encoding="utf-8")
    rep = cmp.compare(["fatfish", str(rules)], players=6, games=4, seed=1)
    assert "setup" not in rep["contenders"][0]["empty_draws"].get("deck", {})
    rep = cmp.compare([str(rules)], players=10, games=4, seed=1)
    assert rep["contenders"][0]["empty_draws"]["deck"]["setup"]["games"] == 4
    assert "`deck` ran out, set-up" in cmp.render_text(rep)
    from fishrules.simulation import simulate

    assert simulate(str(rules), games=3, players=10)["empty_draws"]["deck"]["setup_games"] == 3
    assert simulate("fatfish", games=3, players=6)["empty_draws"].get("deck") is None


def test_an_option_written_apart_is_told_the_form_it_takes(capsys):
    assert main(["compare", "fishfry-total-points", "rounds=3", "--players", "3", "--games", "5"]) == 2
    err = capsys.readouterr().err
    assert "`rounds=3` is an option, not a ruleset" in err and "fishfry-total-points,rounds=3" in err


def test_players_defaults_to_the_fewest_every_ruleset_allows(capsys):
    assert main(["compare", "fishfry", "fisherman", "--games", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == 3


def test_the_help_says_what_each_flag_is_and_its_default(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for flag, words in (("--players", "default: the fewest"), ("--games", "default 1000"), ("--seed", "default 0"),
                        ("--iterations", "default 50"), ("--bots", "default random"), ("--workers", "default 1")):
        assert flag in out and words in out, (flag, words)


def test_the_report_page_has_headings_captions_and_legends_in_words(tmp_path):
    pytest.importorskip("matplotlib")
    from fishrules import plots

    rep = cmp.compare(["fishfry-total-points", cmp.parse_contender("fishfry-total-points,rounds=3")], players=2,
                      games=20, seed=1)
    assert cmp.legends(rep) == ["Fishfry: Total Points tournament", "Fishfry: Total Points tournament, 3 rounds"]
    figs = plots.figures(rep)
    assert set(figs) == {"lengths", "seats", "scores", "rules", "ties"} == set(plots.CAPTIONS)
    for name, fig in figs.items():
        legend = fig.axes[0].get_legend()
        labels = [t.get_text() for t in legend.get_texts()] if legend is not None else \
            [t.get_text() for t in fig.axes[0].get_yticklabels()]
        if name != "rules":
            assert "Fishfry: Total Points tournament, 3 rounds" in labels, (name, labels)
        assert not any("," in x and "=" in x for x in labels), labels  # no raw command arguments
    page = tmp_path / "r.html"
    plots.write_report(rep, str(page))
    text = page.read_text(encoding="utf-8")
    assert text.count("<h2>") >= 4 and "<h1>" in text
    for caption in plots.CAPTIONS.values():
        assert f"<figcaption>{caption.replace('`', '`')}" in text.replace("&#x27;", "'")
    assert text.index('id="ties"') < text.index("</body>")

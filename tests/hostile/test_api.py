"""The rest of the public API on hostile arguments: players, options and seeds given to `start`
(a server passes what a client asked for), a player number given to `view` or `legal_actions`, odd
rule texts and names given to `loads` and `load`.

Bad players/options/seed raise OptionError; anything else wrong raises one of the library's own
errors (a FishrulesError); never KeyError, TypeError, ValueError of Python's own, etc.
"""

from __future__ import annotations

import pytest

from . import scenarios as sc
from .contract import FAST, TINY, assert_exc, assert_raised, assert_rule_error, run


def start_with(ruleset: str, **kw) -> dict:
    import fishrules

    s = fishrules.load(ruleset).start(**kw)
    return {"n": s.n, "current": s.current}


@pytest.mark.parametrize("kw", [
    {"players": "3"}, {"players": 2.0}, {"players": None}, {"players": True}, {"players": 0}, {"players": -1},
    {"players": 10**100}, {"players": [2]},
    {"seed": "x"}, {"seed": 1.5}, {"seed": [1]}, {"seed": float("nan")}, {"seed": True},
    {"chance": "nope"}, {"chance": None},
    {"options": [1, 2]}, {"options": "rounds=3"}, {"options": 5}, {"options": {None: 1}}, {"options": {1: 2}},
    {"options": {"rounds": "x"}}, {"options": {"rounds": 10**100}}, {"options": {"rounds": True}},
    {"options": {"rounds": 1.0}}, {"options": {"rounds": None}}, {"options": {"rounds": 0}},
    {"options": {"round": 3}}, {"options": {"fish_limit": -(10**20)}},
])
def test_start_with_bad_arguments(kw):
    out = run(start_with, "fishfry-keeper", **kw, timeout=FAST)
    assert_raised(out, "OptionError")


def player_call(ruleset: str, method: str, arg, steps: int = 0, simultaneous: bool = False):
    s = sc.position(ruleset, 1, steps)
    if simultaneous:
        s = sc.position(ruleset, 1, sc.find_steps(ruleset, 1, "simultaneous"))
    before = s.to_json()
    try:
        value = getattr(s, method)(arg)
        result = ("ok", sc._plain(value))
    except Exception as e:  # noqa: BLE001 - reported
        result = ("raised", sc.describe(e))
    assert s.to_json() == before
    return result


@pytest.mark.parametrize("arg", [99, 2, -1, -100, "0", 1.5, 10**30, [0], True])
def test_view_of_a_player_who_is_not_there(arg):
    out = run(player_call, "fishfry", "view", arg, timeout=FAST)
    assert out.status == "ok", out
    kind, value = out.value
    if kind == "raised":
        assert_exc(value, "FishrulesError")
    else:  # True is seat 1 to Python; anything else must not show anybody's view
        assert arg is True, f"view({arg!r}) returned a view: {str(value)[:300]}"


@pytest.mark.parametrize("simultaneous", [False, True])
@pytest.mark.parametrize("arg", [99, -1, "0", 1.5, 10**30, [0], None])
def test_legal_actions_of_a_player_who_is_not_there(arg, simultaneous):
    out = run(player_call, "fisheatfish", "legal_actions", arg, 0, simultaneous, timeout=FAST)
    assert out.status == "ok", out
    kind, value = out.value
    if kind == "raised":
        assert_exc(value, "FishrulesError")
    elif arg is not None:
        assert value == [], f"legal_actions({arg!r}) listed actions: {value[:5]}"


@pytest.mark.parametrize("text", ["", "\x00", "\ud800", "\ufeff", "\r", "\r\n" * 10, "\x0c", "\u2028", "game",
                                  'game "', 'game "\x00"\n', "#" * 1000, "\\\n" * 10, "\n\n\n   \n"])
def test_loads_of_odd_texts(text):
    out = run(sc.load_text, text, timeout=FAST)
    assert_rule_error(out)


def test_an_empty_file_points_at_line_one():
    out = run(sc.load_text, "", timeout=FAST)
    assert_rule_error(out, lines=1)


@pytest.mark.parametrize("ref", ["", ".", "/", "..", "./", "\x00", "a" * 5000, "/dev/null"])
def test_load_of_odd_names(ref):
    out = run(sc.load_path, ref, timeout=FAST)
    assert_raised(out, "RuleError")
    assert "PATH=" not in out.message


def test_load_of_a_name_that_is_both_bundled_and_a_local_file(tmp_path):
    (tmp_path / "fishfry").write_text("not rules")
    out = run(sc.load_path, "fishfry", timeout=FAST, cwd=tmp_path)
    assert out.status == "ok" and out.value["title"] == "Fishfry", out


@pytest.mark.parametrize("variant", ["", ".", "../x", "/etc/passwd", "a" * 5000, "\x00", "keeper/../../x"])
def test_load_with_odd_variants(variant):
    out = run(sc.load_path, "fishfry", variant, timeout=FAST)
    assert_raised(out, "RuleError")
    assert "root:x:0:0" not in out.message


def test_loads_with_odd_variants():
    for variant in ("", "\x00", "a" * 5000):
        assert_raised(run(sc.load_text, TINY, "x.fish", None, variant, timeout=FAST), "RuleError")

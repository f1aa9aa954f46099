"""The embedding API of docs/api.md: load, start, current, legal_actions, chance_outcomes, apply,
clone, scores, winners, view, history, replay, JSON, RuleError and IllegalAction."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

import fishrules

from .conftest import roll


def test_load_describes_the_game(fishfry):
    assert fishfry.title == "Fishfry"
    assert (fishfry.min_players, fishfry.max_players) == (2, 8)
    assert set(fishfry.variants) == {"tournament", "total-points", "first-to", "keeper"}
    assert fishfry.options == {}
    keeper = fishrules.load("fishfry", variant="keeper")
    assert keeper.title == "Fishfry: Keeper tournament"
    assert keeper.options["fish_limit"].default == 3 and keeper.options["fish_limit"].high == 20
    assert keeper.options["fry_up"].choices == ("roller_eats", "everyone_fries")
    assert fishrules.load("rulesets/fishfry.fish") is not None


def test_unknown_ruleset_is_a_rule_error():
    with pytest.raises(fishrules.RuleError, match="did you mean `fishfry`"):
        fishrules.load("fishfri")


def test_start_checks_players_and_options(fishfry, modes):
    with pytest.raises(fishrules.OptionError, match="2 to 8 players"):
        fishfry.start(players=9)
    with pytest.raises(fishrules.OptionError, match="no option"):
        fishfry.start(players=2, options={"rounds": 3})
    with pytest.raises(fishrules.OptionError, match="one of"):
        modes["fishfry-keeper"].start(players=2, options={"fry_up": "nobody"})
    with pytest.raises(fishrules.OptionError, match="manual"):
        fishfry.start(players=2, chance="dice")


def test_seeded_games_are_deterministic(fishfry):
    def play(seed):
        s = fishfry.start(players=4, seed=seed)
        rng = random.Random(3)
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
        return s.history

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_current_and_legal_actions_are_sorted_and_stable(fishfry):
    s = fishfry.start(players=2, seed=1)
    assert s.current == 0
    acts = s.legal_actions()
    assert [str(a) for a in acts] == [str(a) for a in s.legal_actions()]
    assert all(isinstance(a, fishrules.Action) and a.player == 0 for a in acts)
    assert s.legal_actions(player=1) == []
    assert s.chance_outcomes() == []


def test_apply_accepts_actions_and_texts(fishfry):
    a = fishfry.start(players=2, seed=3)
    b = a.clone()
    act = a.legal_actions()[-1]
    a.apply(act)
    b.apply(str(act))
    assert a == b


def test_illegal_actions_change_nothing(fishfry):
    s = fishfry.start(players=2, chance="manual")
    with pytest.raises(fishrules.IllegalAction, match="chance is to play"):
        s.apply("stay")
    roll(s, "PANFISH", "HEAD", "TAIL", "HEAD", "TAIL")
    before = (s.to_json(), s.clone())
    for bad in ["reroll 1", "reroll 7", "reroll", "reroll 2 2", "jump", "stay please", "eat p1 10", ""]:
        with pytest.raises(fishrules.IllegalAction):
            s.apply(bad)
        assert s.to_json() == before[0] and s == before[1]
    over = fishfry.start(players=2, seed=1)
    while not over.is_over:
        over.apply(over.legal_actions()[-1])
    with pytest.raises(fishrules.IllegalAction, match="over"):
        over.apply("stay")


def test_chance_outcomes_are_exact_fractions(fishfry):
    s = fishfry.start(players=2, chance="manual")
    outs = s.chance_outcomes()
    assert all(isinstance(p, Fraction) for _, p in outs) and sum(p for _, p in outs) == 1
    assert [str(a) for a in s.legal_actions()] == [str(a) for a, _ in outs]


def test_json_round_trip_mid_game(modes):
    g = modes["fishfry-keeper"]
    s = g.start(players=3, seed=9)
    rng = random.Random(9)
    for _ in range(15):
        s.apply(rng.choice(s.legal_actions()))
    text = s.to_json()
    json.loads(text)
    back = g.state_from_json(text)
    assert back == s and hash(back) == hash(s)
    # both go on identically: the generator's state is in the JSON
    r1, r2 = random.Random(4), random.Random(4)
    while not s.is_over:
        s.apply(r1.choice(s.legal_actions()))
        back.apply(r2.choice(back.legal_actions()))
    assert back == s and back.history == s.history
    with pytest.raises(fishrules.StateError, match="another game"):
        modes["fishfry"].state_from_json(text)


def test_replay_reproduces_and_rejects_a_bad_history(fishfry):
    s = fishfry.start(players=3, seed=2)
    rng = random.Random(2)
    while not s.is_over:
        s.apply(rng.choice(s.legal_actions()))
    assert fishfry.replay(s.history, players=3) == s
    with pytest.raises(fishrules.StateError, match=r"history entry 7 \('stay'\) is not allowed: chance is to play"):
        fishfry.replay(s.history[:5] + ["stay", "stay"], players=3)


def test_view_is_json_and_shows_what_is_public(fishfry):
    s = fishfry.start(players=3, seed=4)
    v = s.view(1)
    assert json.loads(json.dumps(v)) == v
    assert v["viewer"] == 1 and v["current"] == 0 and v["players"] == 3
    assert len(v["dice"]) == 5 and [r["player"] for r in v["seats"]] == [0, 1, 2]
    assert "legal_actions" not in v and "legal_actions" in s.view(0)
    assert s.view(None)["viewer"] is None
    with pytest.raises(ValueError):
        s.view(3)


def test_ranking_is_competition_style(modes):
    g = modes["fishfry-total-points"]
    s = g.start(players=4, chance="manual", options={"rounds": 1})
    for faces in (["HEAD", "TAIL", "BODY 20", "TAIL", "TAIL"], ["HEAD", "TAIL", "BODY 5", "TAIL", "TAIL"],
                  ["HEAD", "TAIL", "BODY 5", "TAIL", "TAIL"], ["TAIL"] * 5):
        roll(s, *faces)
        s.apply("stay")
    assert s.scores() == [30, 15, 15, 0]
    assert s.ranking() == [1, 2, 2, 4]  # "two tied for second: no third"


# ---- untrusted rule files at run time ---------------------------------------------------------


LOOP = '''game "Loop"
players 2 to 2
the game has x: number
phase game:
  repeat:
    add 1 to x
'''

RECURSE = '''game "Recurse"
players 2 to 2
phase game:
  play deeper
phase deeper:
  play deeper
'''

BAD_REMOVE = '''game "Bad remove"
players 2 to 2
each player has hand: list of numbers
phase game:
  for each player:
    remove 5 from player's hand
'''


def test_endless_loop_stops_with_a_clear_error():
    g = fishrules.loads(LOOP, "loop.fish")
    with pytest.raises(fishrules.RuleError) as e:
        g.start(players=2)
    d = e.value.diagnostics[0]
    assert "endless loop" in d.message and d.span.line in (5, 6)
    assert "loop.fish:" in str(e.value)


def test_endless_recursion_stops_with_a_clear_error():
    with pytest.raises(fishrules.RuleError, match="recurse without end") as e:
        fishrules.loads(RECURSE, "recurse.fish").start(players=2)
    assert e.value.diagnostics[0].span.line == 6


def test_runtime_rule_error_names_the_line():
    with pytest.raises(fishrules.RuleError, match="not in the list") as e:
        fishrules.loads(BAD_REMOVE, "bad.fish").start(players=2)
    assert e.value.diagnostics[0].span.line == 6


def test_oversized_rule_file_is_refused():
    with pytest.raises(fishrules.RuleError, match="larger than"):
        fishrules.loads("# " + "x" * 600_000 + "\n", "big.fish")


def test_ranking_agrees_with_the_rules_winners(fishfry):
    """An instant FISHFRY win leaves every score at 0; the roller is still the one winner, first."""
    s = fishfry.start(players=3, chance="manual")
    roll(s, "PANFISH", "PANFISH", "PANFISH", "PANFISH", "PANFISH")
    assert s.is_over and s.scores() == [0, 0, 0]
    assert s.winners() == [0]
    assert s.ranking() == [1, 2, 2]


def test_describe_is_the_rules_declarations_for_a_user_interface():
    """Game.describe(): what any table needs to draw a game, the same for every position, and
    every action's parameters in the order of its text, kind by kind."""
    import json
    import random

    for name in fishrules.bundled():
        game = fishrules.load(name)
        d = game.describe()
        assert json.loads(json.dumps(d)) == d
        state = game.start(players=game.min_players, seed=1)
        rng = random.Random(1)
        kinds = {(v["scope"], v["name"]): v for v in d["values"]}
        for _ in range(30):
            if state.is_over:
                break
            view = state.view(None)
            for k in view["values"]:  # every value a view shows is described
                assert ("game", k) in kinds
            for row in view["seats"]:
                assert all(("player", k) in kinds for k in row if k not in ("player", "score"))
            who = state.waiting[0]
            acts = state.legal_actions(who) if state.current == fishrules.SIMULTANEOUS else state.legal_actions()
            for a in acts:
                [decl] = [x for x in d["actions"] if x["name"] == a.name]
                assert [p["name"] for p in decl["params"]] == list(a.args)
                words = [a.name]
                for p in decl["params"]:  # the text is the name and the values, in order
                    v = a.args[p["name"]]
                    vs = v if p["kind"] == "some" else (v,)
                    words += [f"p{x}" if p["of"] == "player" else str(x) for x in vs]
                assert " ".join(words) == a.text.split(": ", 1)[-1]
            state.apply(rng.choice(acts))
        assert game.describe() == d
    board = fishrules.load("fisheatfish").describe()["board"]
    assert board["circles"] == [1, 25] and [1, 2, 3, 4, 5] in board["lines"]
    assert fishrules.load("fishfry").describe()["dice"]["faces"][0] == "HEAD"

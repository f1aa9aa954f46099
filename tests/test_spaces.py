"""Action ids and observation vectors (fishrules.spaces): every bundled ruleset numbers its
actions from the declared domains, ids are the same in another process, and an observation hides
what the view hides — twin states that differ only in what a player may not know give that player
identical observations."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

import fishrules
from fishrules.spaces import ActionSpaceError, MAX_ACTION_IDS

NAMES = fishrules.bundled()


def _counts(name):
    g = fishrules.load(name)
    return sorted({g.min_players, g.max_players})


@pytest.mark.parametrize("name", NAMES)
def test_ids_name_every_legal_action_once(name):
    g = fishrules.load(name)
    for n in _counts(name):
        space = g.action_space(n)
        spec = g.observation_spec(n)
        assert 0 < space.size <= MAX_ACTION_IDS
        s = g.start(players=n, seed=1, chance="manual")
        rng = random.Random(1)
        while not s.is_over and len(s.history) < 150:
            who = s.waiting[0] if s.current == fishrules.SIMULTANEOUS else None
            actions, ids = s.legal_actions(who), s.legal_action_ids(who)
            assert len(set(ids)) == len(ids) == len(actions)
            i = rng.randrange(len(actions))
            assert s.action_of_id(ids[i], who) == actions[i]
            if s.current != fishrules.CHANCE:
                name_, args = space.args(ids[i])
                assert name_ == actions[i].name
                if all(p.kind != "positions" for p in space.actions[[a.name for a in space.actions].index(name_)].params):
                    assert args == {k: (tuple(sorted(v, key=str)) if isinstance(v, tuple) else v)
                                    for k, v in actions[i].args.items()} or sorted(space.text(ids[i]).split()) == sorted(
                        actions[i].text.split(": ", 1)[-1].split())
            assert len(s.observation(0)) == spec.size
            s.apply(actions[i])


def test_action_args_are_typed():
    g = fishrules.load("fishfry")
    s = g.start(players=2, chance="manual")
    roll = s.legal_actions()[0]
    assert roll.args == {"die": 1, "face": "HEAD"}
    for die, face in enumerate(["HEAD", "TAIL", "PANFISH", "BODY 5", "BODY 10"], 1):
        s.apply(f"die {die} rolls {face}")
    a = next(a for a in s.legal_actions() if a.text == "reroll 1 4")
    assert a.args == {"chosen": (1, 4)}
    space = g.action_space(2)
    assert space.args(space.id_of(a)) == ("reroll", {"chosen": (1, 4)})
    assert space.text(space.id_of(a)) == "reroll 1 4"
    stay = next(a for a in s.legal_actions() if a.name == "stay")
    assert stay.args == {} and space.id_of(stay) == space.size - 1


def test_ids_are_stable_across_processes():
    """The ids of a ruleset are worked out from its declarations alone: another process agrees."""
    code = ("import fishrules, json; sp = fishrules.load('fisheatfish').action_space(3); "
            "print(json.dumps([sp.size] + [sp.text(i) for i in (0, 7, 30, 700, sp.size - 1)]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    sp = fishrules.load("fisheatfish").action_space(3)
    assert json.loads(out) == [sp.size] + [sp.text(i) for i in (0, 7, 30, 700, sp.size - 1)]
    assert sp.text(0) == "pick_colour red" and sp.text(sp.size - 1).startswith("challenge_card ")


HUGE = 'extends "fishfish"\ngame "huge bets"\nreplace action bet(tiles_bet: a number from 0 to {hi}):\n  set your bet to tiles_bet\n'


def test_a_number_the_rules_do_not_bound_is_refused_clearly():
    rules = fishrules.loads(HUGE.format(hi="your tiles"), "huge.fish")
    with pytest.raises(ActionSpaceError) as e:
        rules.action_space(3)
    assert "`tiles_bet` of `bet` is a number the rules do not bound" in str(e.value)
    assert isinstance(e.value, fishrules.OptionError)
    with pytest.raises(ActionSpaceError):  # and so do the ids of a state
        rules.start(players=3, seed=1).legal_action_ids()


def test_too_many_actions_are_refused_with_the_factors(monkeypatch):
    import fishrules.spaces as spaces

    rules = fishrules.loads(HUGE.format(hi="60000"), "huge.fish")
    assert rules.action_space(3).size == 8 + 60001
    monkeypatch.setattr(spaces, "MAX_ACTION_IDS", 60_005)
    with pytest.raises(ActionSpaceError, match=r"all actions together are 60,009 \(at most 60,005 are numbered\): set_line: 2 x 4 = 8; bet: 60,001 = 60,001"):
        spaces.ActionSpace(rules, 4, rules._options({}))


def test_a_set_too_large_to_number_by_value_is_numbered_by_position():
    space = fishrules.load("fatfish").action_space(2)
    keep = next(a for a in space.actions if a.name == "keep")
    assert keep.params[0].kind == "positions" and keep.size == (1 << 16) - 1
    assert space.args(keep.offset + 6)[1] == {"chosen": ("#1", "#2", "#3")}


def test_bad_ids_are_refused_as_illegal():
    s = fishrules.load("fishfry").start(players=2, chance="manual")
    for die, face in enumerate(["HEAD", "TAIL", "PANFISH", "PANFISH", "BODY 5"], 1):
        s.apply(f"die {die} rolls {face}")
    with pytest.raises(fishrules.IllegalAction, match="from 0 to 31"):
        s.action_of_id(99)
    legal = set(s.legal_action_ids())
    bad = next(i for i in range(32) if i not in legal)
    with pytest.raises(fishrules.IllegalAction, match="not one of the legal actions"):
        s.action_of_id(bad)
    with pytest.raises(fishrules.OptionError):
        fishrules.load("fishfry").action_space(1)


def test_observation_layout_names_its_fields():
    spec = fishrules.load("fishfish").observation_spec(3)
    f = spec.field("fishing_hand")
    assert f.kind == "counts" and f.labels[-1] == "unseen"
    assert spec.fields[0].name == "current" and spec.size == sum(x.size for x in spec.fields)
    with pytest.raises(fishrules.OptionError):
        spec.field("nope")


# ---- twins: what a player may not know never reaches their observation ----------------------------


def _seen(s, player):
    return s.history_for(player), s.events_for(player)


def _twins(g, n, player, seed):
    """Play A at random with manual chance; B follows, but wherever the outcome or the choice is
    hidden from `player` it picks its own.  Yield each pair of positions `player` cannot tell
    apart — the same `history_for` and `events_for`, all the player saw — and whether they
    really differ."""
    rng = random.Random(seed)
    a = g.start(players=n, seed=0, chance="manual")
    b = g.start(players=n, seed=0, chance="manual")
    while not a.is_over and len(a.history) < 120:
        who = a.waiting[0] if a.current == fishrules.SIMULTANEOUS else None
        choice = rng.choice(a.legal_actions(who))
        before = len(a.history)
        a.apply(choice)
        hidden = a.history_for(player)[before:] != a.history[before:]
        text = choice.text
        if hidden:
            options = [x for x in b.legal_actions(who) if x.player == choice.player]
            rng.shuffle(options)
            for x in options:
                trial = b.clone()
                try:
                    trial.apply(x)
                except fishrules.FishrulesError:
                    continue
                if _seen(trial, player) == _seen(a, player):
                    b = trial
                    break
            else:
                return
        else:
            try:
                b.apply(text)
            except fishrules.FishrulesError:
                return
        if _seen(b, player) != _seen(a, player):
            return
        yield a, b, a.history != b.history


@pytest.mark.parametrize("name", NAMES)
def test_twin_states_give_identical_observations(name):
    g = fishrules.load(name)
    differed = 0
    for n in _counts(name)[:1]:
        for player in range(n):
            for a, b, differ in _twins(g, n, player, seed=player):
                assert a.observation(player) == b.observation(player), (name, player, a.history[-1])
                differed += differ
    hidden = any(v.visibility not in ("public", "internal") for v in g._model.game_vars + g._model.player_vars)
    if hidden:
        assert differed > 0, f"{name}: no twin states were found; the test proved nothing"


def test_an_observation_does_show_what_the_player_may_see():
    """The converse: a change the player can see changes the observation (for the owner of a hand)."""
    g = fishrules.load("fishfish")
    s = g.start(players=3, seed=1)
    obs0 = s.observation(0)
    spec = g.observation_spec(3)
    f = spec.field("fishing_hand")
    assert sum(obs0[f.offset:f.offset + f.size - 1]) == 5  # the Fisherman sees the five cards
    assert obs0[f.offset + f.size - 1] == 0
    obs1 = s.observation(1)
    assert sum(obs1[f.offset:f.offset + f.size - 1]) == 0 and obs1[f.offset + f.size - 1] == 5

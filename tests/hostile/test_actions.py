"""Hostile actions (issue 11, section 3).

An action text comes from a player over a network: odd digits (`p²`, `３`, `١`), a 5,000-digit
number, NUL bytes, a megabyte of text.  `apply` raises IllegalAction with a reason, and the state is
unchanged; nothing else escapes.  A text longer than MAX_ACTION_TEXT (1000 characters) is refused
whatever it says.

An `Action` object is bound to its player and its game: one made for p1 (at another position, or at a
simultaneous choice) applied when p0 is to act, or one from another ruleset, is refused with
IllegalAction.  At a simultaneous choice a text must say who chooses (`p1: …`).
"""

from __future__ import annotations

import pytest

from . import scenarios as sc
from .contract import FAST, L, assert_exc, names_limit, run

#: A game whose actions take a player and a number, to be fed odd texts.
PARAMS = """\
game "Params"
players 2 to 3
each player has points: number
phase game:
  repeat:
    for each player:
      player chooses poke or bet or stay
action poke(victim: one of players other than you):
  add 1 to victim's points
action bet(n: a number from 0 to 5):
  add n to your points
action stay:
  nothing
"""


def illegal(ruleset: str, text, seed: int = 0, steps: int = 0, **kw) -> dict:
    out = run(sc.apply_text, ruleset, seed, steps, text, timeout=FAST, **kw)
    assert out.status == "ok", f"apply({text!r:.80}) did not raise IllegalAction: {out}"
    assert out.value["result"] == "illegal", f"apply({text!r:.80}) was accepted: {out.value}"
    info = assert_exc(out.value["error"], "IllegalAction")
    assert info["message"].strip(), "an IllegalAction without a reason"
    return info


def applied(ruleset: str, text, seed: int = 0, steps: int = 0) -> str:
    out = run(sc.apply_text, ruleset, seed, steps, text, timeout=FAST)
    assert out.status == "ok" and out.value["result"] == "applied", out
    return out.value["recorded"]


ODD = [
    "poke p²", "poke p¹", "poke p١", "poke p１", "poke p" + "1" * 5000, "poke p-1", "poke p+1", "poke p 1",
    "poke p1\x00", "poke \x00p1", "poke p\u200b1", "poke p1\u200b", "poke P1", "poke p01", "poke p3", "poke p99",
    "poke p" + "9" * 30, "poke nobody", "poke you", "poke",
    "bet ²", "bet ３", "bet ٣", "bet 𝟑", "bet ³", "bet ⅲ", "bet 1" + "0" * 5000, "bet 9" * 2, "bet -1", "bet +3",
    "bet 3.0", "bet 1e3", "bet 0x3", "bet 3_0", "bet " + "9" * 4301, "bet 3 3", "bet", "bet nan", "bet inf",
    "bet -0" + "0" * 5000, "bet \U0001d7d1", "bet ٠",
    "stay\x00", "st\x00ay", "\x00", "", " ", "\n", "\t\t", "stay stay", "STAY", "stay:", ":", "p0: stay",
    "p0:stay", "p²: stay", "\ufeffstay", "ｓｔａｙ", "stay\r\n", "\u2028stay", "stay\ud800", "\udcff",
]


@pytest.mark.parametrize("text", ODD)
def test_odd_texts(text):
    out = run(sc.apply_text, PARAMS, 0, 0, text, timeout=FAST)
    assert out.status == "ok", f"apply({text!r:.80}) raised something other than IllegalAction: {out}"
    if out.value["result"] == "illegal":
        assert_exc(out.value["error"], "IllegalAction")
        return
    # accepted: only whitespace may differ from a canonical text; never odd digits
    assert out.value["recorded"] in ("stay", "bet 3", "poke p1"), out.value
    assert not any(ch.isdigit() and not ch.isascii() for ch in text), f"unicode digits accepted: {text!r}"
    assert "\x00" not in text, f"a NUL byte accepted: {text!r}"


@pytest.mark.parametrize("text", ["poke p²", "bet ²", "bet 1" + "0" * 5000, "poke p" + "1" * 5000, "bet ３", "poke p١"])
def test_known_crashes_are_illegal_actions(text):
    illegal(PARAMS, text)


def test_action_text_length_limit():
    M = L["MAX_ACTION_TEXT"]
    assert applied(PARAMS, "stay" + " " * (M - 4)) == "stay"
    info = illegal(PARAMS, "stay" + " " * (M - 3))
    assert names_limit(info["message"], "MAX_ACTION_TEXT"), info["message"]


@pytest.mark.parametrize("text", ["stay" + " " * 10_000_000, "x" * 50_000_000, "bet " + "1 " * 1_000_000,
                                  "poke " + "p1 " * 300_000, "\x00" * 1_000_000])
def test_huge_texts_are_refused_fast(text):
    illegal(PARAMS, text)


@pytest.mark.parametrize("thing", [None, 3, 3.5, b"stay", ["stay"], ("stay",), {"stay": 1}, True])
def test_things_that_are_not_texts(thing):
    illegal(PARAMS, thing)


#: Odd texts for the bundled rulesets' actions (tests/test_backends_refuse_alike.py throws them too).
ODD_BUNDLED = ["reroll ²", "reroll 1" + "0" * 5000, "reroll ١ ٢", "play_card ²", "lay ² ²", "place ²", "set_line ² ²",
               "bet ²", "choose_size ²", "keep ²", "\x00"]
#: Ways of naming who chooses at a simultaneous choice that name nobody who may (`WHO: choice`).
WHO = ["p²", "p١", "p１", "p" + "1" * 5000, "p-1", "p5", "p99999999999999999999", "p", "p1p1", "\x00p1", "p1\x00",
       "nobody", ""]


@pytest.mark.parametrize("ruleset", ["fishfry", "fisheatfish", "fisherman", "fishfish", "fatfish"])
@pytest.mark.parametrize("text", ODD_BUNDLED)
def test_odd_texts_on_every_bundled_ruleset(ruleset, text):
    for steps in (0, 3, 9):
        out = run(sc.apply_text, ruleset, 1, steps, text, timeout=FAST)
        assert out.status == "ok", out
        assert out.value["result"] == "illegal", out.value
        assert_exc(out.value["error"], "IllegalAction")


# ---- simultaneous choices: who chooses --------------------------------------------------------------


@pytest.fixture(scope="module")
def simultaneous() -> tuple[int, int]:
    """(seed, steps) of a fisheatfish position at a simultaneous challenge."""
    for seed in range(10):
        out = run(sc.find_steps, "fisheatfish", seed, "simultaneous")
        assert out.status == "ok", out
        if out.value is not None:
            return seed, out.value
    pytest.fail("no simultaneous choice found in fisheatfish")


def _simul_legal(seed: int, steps: int) -> dict:
    s = sc.position("fisheatfish", seed, steps)
    return {p: [str(a) for a in s.legal_actions(p)] for p in s.waiting}


def test_simultaneous_text_must_say_who(simultaneous):
    seed, steps = simultaneous
    legal = run(_simul_legal, seed, steps).value
    text = legal[1][0]  # "p1: challenge_card …"
    bare = text.split(": ", 1)[1]
    illegal("fisheatfish", bare, seed, steps)
    for who in WHO:
        illegal("fisheatfish", f"{who}: {bare}", seed, steps)
    assert applied("fisheatfish", text, seed, steps) == text


@pytest.mark.parametrize("backend", ["python", "native"])
def test_simultaneous_choice_cannot_be_made_twice(simultaneous, backend):
    seed, steps = simultaneous
    out = run(_twice, seed, steps, backend)
    assert out.status == "ok" and out.value is True, out


def _twice(seed: int, steps: int, backend: str):
    import random

    import fishrules

    # the position of sc.position, on the backend asked for; nothing but deciding is asked of the
    # state before the second choice (looking at a state can take it off the native kernel, and
    # this very check once passed only because it looked: issue 31)
    game = fishrules.load("fisheatfish", backend=backend)
    s = game.start(players=game.min_players, seed=seed)
    rng = random.Random(seed * 7919 + steps)
    for _ in range(steps):
        s.apply(rng.choice(sc.legal_now(s)))
    first = s.legal_actions(0)
    s.apply(first[0])
    before = s.clone().to_json()
    try:
        s.apply(first[-1])
    except fishrules.IllegalAction as e:
        if "p0 has chosen already" not in str(e):
            return str(e)
        return s.to_json() == before
    return "accepted"


# ---- Action objects are bound to a player and a game ------------------------------------------------------


def refused_object(ruleset: str, seed: int, steps: int, source: dict) -> dict:
    out = run(sc.apply_object, ruleset, seed, steps, source, timeout=FAST)
    assert out.status == "ok", out
    v = out.value
    assert v["raised"] is not None, f"the Action {v['action']!r} for p{v['action_player']} was accepted when " \
                                    f"{v['current']!r} is to act: {v['history_tail']}"
    assert_exc(v["raised"], "IllegalAction")
    assert v["unchanged"], "a refused Action changed the state"
    return v


def _p1_steps(ruleset: str, seed: int) -> int:
    out = run(sc.find_steps, ruleset, seed, "p1")
    assert out.status == "ok" and out.value is not None, out
    return out.value


@pytest.mark.parametrize("ruleset", ["fishfry", "fishfry-keeper", "fisheatfish", "fatfish", "fishfish"])
def test_action_for_p1_applied_on_p0s_turn(ruleset):
    p0 = run(sc.find_steps, ruleset, 2, "p0").value
    p1 = _p1_steps(ruleset, 2)
    info = run(sc.position_info, ruleset, 2, p1).value
    # an action p1 may take there whose text p0 could also write now, if there is one
    mine = set(run(sc.position_info, ruleset, 2, p0).value["legal"])
    shared = [a for a in info["legal"] if a in mine]
    source = {"ruleset": ruleset, "seed": 2, "steps": p1}
    if shared:
        source["pick"] = shared[0]
    refused_object(ruleset, 2, p0, source)


def test_fishfry_stay_of_p1_is_not_p0s_stay():
    # the plainest case: "stay" is legal for both, and the Action says p1
    p1 = _p1_steps("fishfry", 0)
    v = refused_object("fishfry", 0, 0, {"ruleset": "fishfry", "seed": 0, "steps": p1, "pick": "stay"})
    assert v["action_player"] == 1 and v["current"] == 0


def test_action_from_a_simultaneous_choice_applied_on_a_players_turn(simultaneous):
    seed, steps = simultaneous
    p0 = run(sc.find_steps, "fisheatfish", seed, "p0").value
    refused_object("fisheatfish", seed, p0, {"ruleset": "fisheatfish", "seed": seed, "steps": steps, "player": 1})


@pytest.mark.parametrize("other", ["fishfry-keeper", "fishfry-total-points", "fishfry-tournament"])
def test_action_from_another_ruleset(other):
    # a Fishfry mode's "stay" for p0, applied to plain Fishfry where p0 may stay
    refused_object("fishfry", 0, 0, {"ruleset": other, "seed": 0, "steps": 0, "pick": "stay"})


def test_action_from_a_changed_copy_of_the_rules():
    text = (sc.RULESETS / "fishfry.fish").read_text().replace('game "Fishfry"', 'game "Fishfry, changed"')
    refused_object("fishfry", 0, 0, {"text": text, "players": 2, "seed": 0, "steps": 0, "pick": "stay"})


def test_chance_outcome_on_a_players_turn():
    # a die outcome from a manual-chance game, applied where p0 is to choose
    refused_object("fishfry", 0, 0, {"ruleset": "fishfry", "seed": 0, "steps": 0, "chance": "manual"})


def test_action_from_a_clone_at_the_same_position_is_fine():
    out = run(sc.apply_object, "fishfry", 0, 0, {"ruleset": "fishfry", "seed": 0, "steps": 0, "pick": "stay"})
    assert out.status == "ok" and out.value["raised"] is None, out
    assert out.value["history_tail"][0] == "stay"


def test_player_action_at_a_chance_node():
    out = run(_at_chance)
    assert out.status == "ok" and out.value is True, out


def _at_chance():
    import fishrules

    game = fishrules.load("fishfry")
    seeded = game.start(players=2, seed=0)
    stay = next(a for a in seeded.legal_actions() if str(a) == "stay")
    manual = game.start(players=2, seed=0, chance="manual")
    before = manual.to_json()
    try:
        manual.apply(stay)
        return "accepted"
    except fishrules.IllegalAction:
        return manual.to_json() == before


# ---- refusals are safe to relay ------------------------------------------------------------------------


def _refusal_leaks(seed: int, steps: int, texts: list) -> dict:
    """At a simultaneous choice, texts that name p0 sent by somebody else: which of p0's cards that
    p1 may not see does each refusal name?"""
    import fishrules

    s = sc.position("fisheatfish", seed, steps)
    mine = s.view(0)["seats"][0]["hand"]
    theirs = s.view(1)["seats"][0].get("hand") or []
    secret = {c for c in mine if c is not None and c not in theirs}
    out = {}
    for text in texts:
        try:
            s.clone().apply(text)
            out[text] = "accepted"
        except fishrules.IllegalAction as e:
            out[text] = sorted(c for c in secret if c in str(e))
    return out


def test_a_refusal_does_not_reveal_the_choosers_secret_hand(simultaneous):
    # a server relays the refusal to whoever sent the text: naming p0's choice must not list p0's hand
    seed, steps = simultaneous
    texts = ["p0: challenge_card zzz", "p0: challenge_card red-9", "p0: challenge_card yellow-1 extra"]
    out = run(_refusal_leaks, seed, steps, texts)
    assert out.status == "ok", out
    for text, leaked in out.value.items():
        assert leaked == [], f"the refusal of {text!r} names p0's secret cards {leaked}"

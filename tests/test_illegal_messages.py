"""What an IllegalAction says is true, complete or marked as cut, and names nothing the acting
player may not know: a server relays it to the player who sent the text."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.random_play import random_step


def refusal(s, text) -> str:
    with pytest.raises(fishrules.IllegalAction) as e:
        s.apply(text)
    return e.value.reason


def test_the_possible_values_are_those_the_rules_allow():
    """With 2 players purple is forbidden by a rule: it is not offered as possible."""
    s = fishrules.load("fisheatfish").start(players=2, seed=1)
    reason = refusal(s, "pick_colour orange")
    assert reason == "'orange' is not a possible `chosen` now (possible: red, yellow, green, blue)"
    s.apply("pick_colour red")
    reason = refusal(s, "pick_colour red")  # a choice taken already: the rule says so
    assert 'breaks the rule "a colour of one\'s own"' in reason


def test_a_long_list_of_possibilities_says_how_many_it_leaves_out():
    game = fishrules.load("fisherman")
    s = game.start(players=3, seed=1)
    rng = random.Random(1)
    while not any(a.name == "play_card" for a in s.legal_actions()):
        random_step(s, rng)
    me = s.current
    hand = s.view(me)["seats"][me]["hand"]
    assert len(hand) == 13
    reason = refusal(s, "play_card zz")
    listed = reason.split("possible: ", 1)[1].rstrip(")")
    assert listed.endswith(" and 3 more")
    assert set(listed[: -len(" and 3 more")].split(", ")) < set(hand)


def test_a_refusal_at_a_simultaneous_choice_lists_nothing():
    """The text names the chooser, but anybody may have sent it: no hand is listed."""
    game = fishrules.load("fisheatfish")
    s = game.start(players=2, seed=1)
    rng = random.Random(1)
    while s.current != SIMULTANEOUS:
        random_step(s, rng)
    reason = refusal(s, "p0: challenge_card red-99")
    assert reason == "'red-99' is not a possible `card` now (ask legal_actions(p0) for p0's choices)"
    assert not any(c in reason for c in s.view(0)["seats"][0]["hand"])


def test_a_chooser_must_be_named_and_the_hint_is_true():
    game = fishrules.load("fisheatfish")
    s = game.start(players=2, seed=1)
    rng = random.Random(1)
    while s.current != SIMULTANEOUS:
        random_step(s, rng)
    reason = refusal(s, "attack 1 2")
    assert reason == "several players choose at once here: say who, as in 'p0: …' (waiting for p0, p1)"
    assert refusal(s, "p2: challenge_card red-1") == "p2 is not in this game (there are 2 players); waiting for p0, p1"
    s.apply(s.legal_actions(0)[0])
    assert refusal(s, "p0: challenge_card red-1").startswith("p0 has chosen already")


def test_a_text_at_a_chance_node_names_no_outcome():
    """The outcomes of a draw name hidden cards; the message does not list them."""
    s = fishrules.load("fatfish").start(players=2, chance="manual")
    reason = refusal(s, "lay 1 red-1")
    assert reason == "chance is to play now, not a player (its outcomes: state.chance_outcomes())"


@pytest.mark.parametrize("backend", ["python", "native"])
@pytest.mark.parametrize("name, text", [("fatfish", "draw red-9"), ("fatfish", "draw"), ("fatfish", "draw red-1 (face up)"), ("fishfry", "die 1 rolls WHALE"),
                                        ("fishfry", "die 9 rolls PANFISH")])
def test_a_misspelt_or_impossible_outcome_is_called_so(name, text, backend):
    """Not "chance is to play now, not a player": the text is written as an outcome, and names none
    possible now (still without listing them: a draw's would name hidden cards)."""
    s = fishrules.load(name, backend=backend).start(players=2, chance="manual")
    while s.current != fishrules.CHANCE:
        s.apply(s.legal_actions()[0])
    assert refusal(s, text) == "not one of chance's possible outcomes now (state.chance_outcomes() lists them)"
    assert s.current == fishrules.CHANCE


@pytest.mark.parametrize("name, players", [("fishfish", 3), ("fatfish", 2), ("fisherman", 3)])
def test_refusals_are_the_same_in_twin_games_the_player_cannot_tell_apart(name, players):
    """A twin whose cards the player to act cannot see are dealt otherwise: every refusal the
    player gets for a batch of wrong texts is word for word the same in both."""
    game = fishrules.load(name)
    texts = ["lay 1 zz", "lay 1 red-1", "set_line zz bait-3", "set_line Catch zz", "bet 99", "play_card zz",
             "play_card goby-1", "nonsense", "stop now", "p1: x", "bet", "lay 4 red-1", "decide_target zz"]
    checked = 0
    for seed in range(4):
        a = game.start(players=players, seed=seed)
        rng = random.Random(seed)
        while not a.is_over and len(a.history) < 30 + 7 * seed:
            random_step(a, rng)
        if a.is_over or a.current in (fishrules.CHANCE, SIMULTANEOUS):
            continue
        me = a.current
        for twin in _twins(a, me, random.Random(seed)):
            for t in texts:
                got = []
                for s in (a, twin):
                    try:
                        s.clone().apply(t)
                        got.append("accepted")
                    except fishrules.IllegalAction as e:
                        got.append(e.reason)
                assert got[0] == got[1], f"{t!r}: {got}"
            checked += 1
    assert checked


def _twins(s, me, rng):
    """Clones of `s` where the face-down cards of one kind of zone `me` cannot see (every player's
    hand, say) are dealt again among those zones, each keeping its size; a clone is kept only if
    `me`'s view is unchanged (a shuffle that changes a public score or `me`'s choices is not a twin)."""
    prog = s.prog
    groups = []
    for v in prog.model.game_vars:
        if v.type.kind == "zone":
            groups.append([v.slot + i for i in range(v.family[1] if v.family else 1)])
    for v in prog.model.player_vars:
        if v.type.kind == "zone":
            groups.append([prog.G + v.slot * 64 + p for p in range(s.n)])
    for keys in groups:
        twin = s.clone()
        if _shuffle(twin, me, keys, rng) and twin.view(me) == s.view(me):
            yield twin
def _shuffle(s, me, keys, rng) -> bool:
    """Deal the face-down cards of the zones `keys` that `me` cannot see again among them."""
    prog = s.prog
    keys = [k for k in keys if (aud := prog.audience(s, k)) is not None and me not in aud]
    pool = [(k, i) for k in keys for i, c in enumerate(s._zget(k)) if not s.up[c]]
    cards = [s._zget(k)[i] for k, i in pool]
    if len(set(prog.card_labels[c] for c in cards)) < 2:
        return False
    rng.shuffle(cards)
    for (k, i), c in zip(pool, cards):
        z = list(s._zget(k))
        z[i] = c
        s._zset(k, tuple(z))
        s.where[c] = k
    s._legal = None
    s._dmemo.clear()
    return True


def test_a_draw_outcome_says_where_the_card_goes():
    s = fishrules.load("fisherman").start(players=3, chance="manual")
    outcomes = s.chance_outcomes()
    assert outcomes and {a.to for a, _ in outcomes} == {"hand of p1"}  # the deal starts left of the dealer
    assert all(a.to is None for a in fishrules.load("fishfry").start(players=2, chance="manual").legal_actions())

"""The rest of State's surface on the kernel (issue 32, step 5c): a state deciding on the native
kernel (`KState`) answers `phase`, `rules_fired`, `empty_draws` (and the engine's fields `fires`
and `empty_draws` simulations read), equality and hashing, and `playout(rng)` from its position
and its record, as its engine twin answers them, and is still a `KState` after each.

Every bundled ruleset at its fewest and most players, at positions of a seeded game and of a game
whose chance (dice) is the caller's; the twin is the engine's `State` played with the same texts."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules.kernel.apistate import KState
from fishrules.kernel.native import compiler
from fishrules.runtime import CHANCE, State

from .test_playout import ENDLESS
from ._twins import bundled_game, skip_without_compiler

skip_without_compiler()

RULESETS = fishrules.bundled()
game = bundled_game


def played(g, players: int, seed: int, manual: bool = False, most: int = 400, check=None) -> list:
    """(KState, engine twin) at each position of one random game (clones), both counting rules;
    `check(k, e)` is called with the two live states at each position, before its move."""
    chance = "manual" if manual else "seeded"
    k = g.start(players, seed=seed, chance=chance, count_rules=True)
    assert type(k) is KState
    e = State._new(g, players, g._options(None), seed, manual, count_rules=True)
    rng = random.Random(seed)
    out = []
    for _ in range(most):
        out.append((k.clone(), e.clone(), k, e))
        if check is not None:
            check(k, e)
        if e.is_over:
            break
        if e.current == CHANCE:
            outcomes = [a.text for a, _ in e.chance_outcomes()]
            text = outcomes[rng.randrange(len(outcomes))]
        else:
            p = e.waiting[0]
            text = e.legal_actions(p)[rng.randrange(len(e.legal_actions(p)))].text
        k.apply(text)
        e.apply(text)
    assert type(k) is KState
    return out


def cases():
    for name in RULESETS:
        g = game(name)
        for players in sorted({g.min_players, g.max_players}):
            yield name, players, False
    for name in RULESETS:  # chance given by hand, where it is dice only (a KState: see `manual_on_the_kernel`)
        g = game(name)
        if g.model.dice is not None:
            yield name, g.min_players, True


CASES = list(cases())  # (built while the tests are collected, in each of the suite's processes: no C compiled)


def manual_on_the_kernel(g, manual: bool) -> None:
    """A game with chance by hand is played on the kernel wherever its native code is built (which
    is not done while the tests are collected, in every process at once)."""
    if manual and not g.kernel.manual_chance:  # pragma: no cover - every machine the suite runs on has a C compiler
        pytest.skip("chance by hand is the engine's here")


@pytest.mark.parametrize("name,players,manual", CASES)
def test_phase_and_counts_are_the_engines(name, players, manual):
    manual_on_the_kernel(game(name), manual)
    def same(live_k, live_e):  # at every position of the game, as it is played
        assert live_k.phase == live_e.phase
        assert live_k.rules_fired == live_e.rules_fired
        assert live_k.fires == live_e.fires
        assert live_k.empty_draws == live_e.empty_draws
        assert type(live_k) is KState

    for k, e, _, _ in played(game(name), players, 3, manual, check=same):
        assert k.rules_fired is None and k.empty_draws is None  # a clone counts nothing, as the engine's
        assert type(k) is KState


@pytest.mark.parametrize("name,players,manual", CASES)
def test_equality_and_hash_are_the_engines(name, players, manual):
    g = game(name)
    manual_on_the_kernel(g, manual)
    states = played(g, players, 5, manual)[::3]
    for i, (a, ea, _, _) in enumerate(states):
        # against the engine's state at every third of these and the last: each comparison plays
        # the game again on the engine (KState._twin), the cost of this file
        if i % 3 == 0 or i == len(states) - 1:
            assert a == ea and ea == a and hash(a) == hash(ea)
        assert a == a.clone() and hash(a) == hash(a.clone())
        for b, eb, _, _ in states[i + 1:i + 4]:  # one or more moves on: unequal on both machines
            assert (a == b) == (ea == eb) and not (a == b)
            assert a != b
        assert type(a) is KState
    # the same position reached another way: replayed from its history (chance given by hand)
    last = states[-1][0]
    again = g.replay(last.history, players=players)
    assert again == last and last == again and hash(again) == hash(last)
    assert type(last) is KState


def test_equal_positions_from_different_seeds():
    # the history holds every chance outcome: two seeds that deal alike give equal states, and the
    # seed (how chance goes on) is not part of the position
    g = game("fishfry")
    a = g.start(2, seed=1)
    b = g.replay(a.history, players=2, seed=99)
    assert a == b and hash(a) == hash(b)
    p = a.waiting[0]
    a.apply(a.legal_actions(p)[0])
    assert a != b and b != a and type(a) is KState


@pytest.mark.parametrize("name", RULESETS)
def test_a_playout_on_the_kernel_is_a_game_the_engine_plays(name):
    g = game(name)
    for players in sorted({g.min_players, g.max_players}):
        for k, e, _, _ in played(g, players, 7)[::7]:
            out = k.playout(random.Random(1))  # (a simultaneous choice made in part too: in the position)
            assert type(k) is KState and k.is_over
            assert out.scores == k.scores() and out.winners == k.winners()
            assert out.decisions >= 0 and out.chances >= 0
            with pytest.raises(fishrules.OptionError, match="keeps no history"):
                k.history
            assert k.redact == ()
            assert k.playout(random.Random(2)) == (out.scores, out.winners, 0, out.chances)  # over: as the engine says
            # its twin on the engine: the same game played by the kernel's rules of chance and
            # choice (what it is if it must become the engine's)
            twin = k._twin()
            assert twin.scores() == k.scores() and twin.winners() == k.winners() and twin == k
            assert type(k) is KState


def test_a_playout_takes_its_seeds_from_the_generator():
    g = game("fatfish")
    s = g.start(3, seed=4)
    a, b, c = s.clone(), s.clone(), s.clone()
    assert a.playout(random.Random(5)) == b.playout(random.Random(5))
    assert type(a) is KState and a == b
    outs = {tuple(s.clone().playout(random.Random(i)).scores) for i in range(8)}
    assert len(outs) > 1  # other seeds, other games
    assert c.playout().scores == s.clone().playout(random.Random(4)).scores  # by default, from the state's seed
    with pytest.raises(fishrules.OptionError, match=r"playout\(rng\) takes a random.Random"):
        s.playout(3)  # type: ignore[arg-type]
    assert type(s) is KState and not s.is_over


def test_an_endless_playout_stops_with_the_rules_error(monkeypatch):
    import fishrules.runtime.playout as playout

    monkeypatch.setattr(playout, "MAX_PLAYOUT_DECISIONS", 500)
    g = fishrules.loads(ENDLESS, "endless.fish", backend="native")
    s = g.start(2, seed=1)
    assert type(s) is KState
    with pytest.raises(fishrules.RuleError, match="did not end within 500 random decisions") as e:
        s.playout(random.Random(1))
    assert "endless.fish:4:" in e.value.render()
    assert type(s) is KState and not s.is_over  # the state as it was


def test_a_rule_that_goes_wrong_in_a_playout_is_the_engines_error():
    g = fishrules.loads('game "Zero"\nplayers 2 to 2\neach player has n: number\n'
                        'score "s": your n\n'
                        'phase game:\n  repeat 3 times:\n    for each player:\n      player chooses pass or zero\n'
                        'action pass:\n  add 1 to your n\n'
                        'action zero:\n  add divide(10, your n - 1) to your n\n', "zero.fish", backend="native")
    errors = set()
    for seed in range(12):
        s = g.start(2, seed=seed)
        try:
            s.playout(random.Random(seed))
        except fishrules.RuleError as exc:
            errors.add(exc.render().splitlines()[0])
            assert type(s) is KState and not s.is_over
    assert errors and all("zero.fish:" in e for e in errors)

"""The rest of State's surface on the kernel (issue 32, step 5c): a state deciding on the native
kernel (`KState`) answers `phase`, `rules_fired`, `empty_draws` (and the engine's fields `fires`
and `empty_draws` simulations read), equality and hashing, and `playout(rng)` from its position
and its record, as the engine answered them, and is still a `KState` after each.

Every bundled ruleset at its fewest and most players, at positions of a seeded game and of a game
whose chance (dice) is the caller's.  The engine's answers are frozen in
tests/golden/engine/surface.json (tests/tools/freeze_engine.py, from the engine's own machine while
it lived)."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules.kernel.apistate import KState
from fishrules.kernel.native import compiler
from fishrules.runtime import CHANCE

from .test_playout import ENDLESS
from ._frozen import frozen, same_length, same_step
from ._twins import bundled_game, skip_without_compiler

skip_without_compiler()

RULESETS = fishrules.bundled()
game = bundled_game


def choose(s, rng: random.Random) -> str:
    """The text of the next move of a random game: a chance outcome, or an action of the first
    waiting seat, by its index (as the engine's game was played)."""
    if s.current == CHANCE:
        outcomes = [a.text for a, _ in s.chance_outcomes()]
        return outcomes[rng.randrange(len(outcomes))]
    p = s.waiting[0]
    return s.legal_actions(p)[rng.randrange(len(s.legal_actions(p)))].text


def played(g, players: int, seed: int, manual: bool = False, most: int = 400, check=None) -> list:
    """Clones of a KState at each position of one random game, counting rules; `check(k, step)` is
    called with the live state at each position, before its move."""
    chance = "manual" if manual else "seeded"
    k = g.start(players, seed=seed, chance=chance, count_rules=True)
    assert type(k) is KState
    rng = random.Random(seed)
    out = []
    for step in range(most):
        out.append(k.clone())
        if check is not None:
            check(k, step)
        if k.is_over:
            break
        k.apply(choose(k, rng))
    assert type(k) is KState
    return out


def counts(s) -> dict:
    """What a state counts and where it is (as the golden file holds it)."""
    return {"phase": s.phase, "rules_fired": s.rules_fired, "fires": s.fires, "empty_draws": s.empty_draws}


def case_key(name: str, players: int, manual: bool) -> str:
    return f"{name}/{players}/{'manual' if manual else 'seeded'}"


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


def test_the_engines_answers_cover_every_case():
    assert sorted(frozen("surface")["counts"]) == sorted(case_key(*c) for c in CASES)
    assert sorted(frozen("surface")["playouts"]) == sorted(RULESETS)


@pytest.mark.parametrize("name,players,manual", CASES)
def test_phase_and_counts_are_the_engines(name, players, manual):
    manual_on_the_kernel(game(name), manual)
    want = frozen("surface")["counts"][case_key(name, players, manual)]

    def same(live_k, step):  # at every position of the game, as it is played
        same_step(counts(live_k), want, step, f"step {step}")
        assert type(live_k) is KState

    states = played(game(name), players, 3, manual, check=same)
    same_length(len(states) - 1, want, f"{name} ({players} players)")
    for k in states:
        assert k.rules_fired is None and k.empty_draws is None  # a clone counts nothing, as the engine's
        assert type(k) is KState


@pytest.mark.parametrize("name,players,manual", CASES)
def test_equality_and_hash_of_positions(name, players, manual):
    """(The engine's states were equal to the kernel's at the same position, and hashed alike:
    a bridge between the two machines that goes with the engine.)"""
    g = game(name)
    manual_on_the_kernel(g, manual)
    states = played(g, players, 5, manual)[::3]
    for i, a in enumerate(states):
        assert a == a.clone() and hash(a) == hash(a.clone())
        for b in states[i + 1:i + 4]:  # one or more moves on: unequal, as on the engine
            assert not (a == b) and not (b == a)
            assert a != b
        assert type(a) is KState
    # the same position reached another way: replayed from its history (chance given by hand)
    last = states[-1]
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
        want = frozen("surface")["playouts"][name][str(players)]
        states = played(g, players, 7)[::7]
        assert len(states) == len(want)
        for at, k in enumerate(states):
            out = k.playout(random.Random(1))  # (a simultaneous choice made in part too: in the position)
            assert type(k) is KState and k.is_over
            assert out.scores == k.scores() and out.winners == k.winners()
            # the same game the engine played out from there, by the kernel's rules of chance and
            # choice from the same two seeds of `rng` (`apistate._played_on`)
            assert [out.scores, out.winners, out.decisions, out.chances] == want[at], (players, at * 7)
            with pytest.raises(fishrules.OptionError, match="keeps no history"):
                k.history
            assert k.redact == ()
            assert k.playout(random.Random(2)) == (out.scores, out.winners, 0, out.chances)  # over: as the engine says
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

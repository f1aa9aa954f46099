"""Manual chance on the kernel (issue 32, step 5a): a game whose chance is the caller's waits at
every die and at every card drawn from a shuffled zone (`CUR_CHANCE`, the die or the zones in the
header) on both spellings, takes the face or card the caller gives, and plays on as the engine's
manual game given the same outcomes; the seeded path plays as before (tests/test_kernel.py)."""

from __future__ import annotations

import copy
import random

import pytest

import fishrules
from fishrules.forms import forms_of
from fishrules.kernel import KFault
from fishrules.kernel import abi as A
from fishrules.kernel import ir
from fishrules.kernel.pyruntime import decision_seed
from fishrules.kernel.apistate import KState
from fishrules.runtime import CHANCE, SIMULTANEOUS, State

from ._twins import BACKENDS, NATIVE, decide_both, kernel


RULESETS = list(fishrules.bundled())
ROLLS = [n for n in RULESETS if any(isinstance(s, ir.Roll) for f in kernel(n, "python").program.functions
                                    for s in ir.walk_stmts(f.body))]
DRAWS = [n for n in RULESETS if any(isinstance(s, ir.Draw) for f in kernel(n, "python").program.functions
                                    for s in ir.walk_stmts(f.body))]


def manual_start(k, players: int, seed: int):
    """A position of `k` whose chance is the caller's, started."""
    S = k.backend.new(players, k.game._options(None), seed)
    S[A.H_MANUAL] = 1
    k.backend.start(S, False)
    return S


def test_the_bundled_rules_have_dice_and_shuffled_draws():
    assert len(ROLLS) >= 5 and len(DRAWS) >= 3 and set(ROLLS) | set(DRAWS) < set(RULESETS)


def _pick(outcomes, rng):
    """An outcome chosen by its probability (exact: the Fractions' common denominator)."""
    den = 1
    for _, p in outcomes:
        den = den * p.denominator // __import__("math").gcd(den, p.denominator)
    r = rng.randrange(den)
    for a, p in outcomes:
        r -= p.numerator * (den // p.denominator)
        if r < 0:
            return a
    raise AssertionError(outcomes)  # pragma: no cover


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", RULESETS)
def test_manual_chance_waits_and_plays_as_the_engines(name, backend):
    k = kernel(name, backend)
    g, be, bd = k.game, k.backend, k.boundary
    lay = k.program.layout
    for players in (g.min_players, g.max_players):
        rng = random.Random(players)
        seed = 5 + players
        ref = State._new(g, players, g._options(None), seed, True)
        S = manual_start(k, players, seed)
        ds, dd = decision_seed(seed), 0
        chances = 0
        while not ref.is_over:
            assert S[A.H_CUR] != A.CUR_OVER
            if ref.current == CHANCE:
                outcomes = ref.chance_outcomes()
                a = _pick(outcomes, rng)
                assert S[A.H_CUR] == A.CUR_CHANCE
                if a.name == "roll":
                    die, face = a._values
                    assert (S[A.H_CHANCE], S[A.H_CHANCE_A]) == (A.CHANCE_DIE, die)
                    be.play_chance(S, face)
                else:  # a card of the zone drawn from, which the header names with where it goes
                    (card,) = a._values
                    assert S[A.H_CHANCE] == A.CHANCE_DRAW
                    assert S[lay.where + card] == S[A.H_CHANCE_A]
                    assert a.to == forms_of(g.model).zone_name(*lay.zone_names[S[A.H_CHANCE_B]])
                    be.play_chance(S, card)
                ref.apply(a)
                chances += 1
            else:
                dd = decide_both(be, bd, S, ref, ds, dd)
        assert S[A.H_CUR] == A.CUR_OVER
        assert be.scores(S) == ref.scores() and be.winners(S) == ref.winners()
        assert S[A.H_CHANCES] == chances


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_face_that_is_no_face_is_refused_and_leaves_no_die_rolled(backend):
    k = kernel(ROLLS[0], backend)
    g, be = k.game, k.backend
    S = manual_start(k, g.min_players, 1)
    while S[A.H_CUR] != A.CUR_CHANCE:
        be.play(S, be.moves(S, S[A.H_CUR])[0])
    die = S[A.H_CHANCE_A]
    nfaces = len(k.program.model.dice.faces)
    for bad in (-1, nfaces, 1 << 40, A.NIL):
        T = copy.copy(S)
        with pytest.raises(KFault):
            be.play_chance(T, bad)
    assert S[A.H_CUR] == A.CUR_CHANCE and S[A.H_CHANCE_A] == die
    be.play_chance(S, 0)
    assert S[A.H_CUR] != A.CUR_CHANCE or S[A.H_CHANCE_A] != die
    if S[A.H_CUR] >= 0:  # a player to act: no chance outcome is taken there
        with pytest.raises(KFault):
            be.play_chance(S, 0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", DRAWS)
def test_a_card_that_is_not_in_the_zone_drawn_from_is_refused(name, backend):
    k = kernel(name, backend)
    g, be, lay = k.game, k.backend, k.program.layout
    S = manual_start(k, g.min_players, 1)
    drawn = 0  # to the second card drawn (the first is somewhere else then)
    while S[A.H_CUR] != A.CUR_CHANCE or S[A.H_CHANCE] != A.CHANCE_DRAW or not drawn:
        if S[A.H_CUR] == A.CUR_CHANCE and S[A.H_CHANCE] == A.CHANCE_DRAW:
            at = lay.zones[S[A.H_CHANCE_A]][0]
            be.play_chance(S, S[at + 1])
            drawn += 1
        elif S[A.H_CUR] == A.CUR_CHANCE:
            be.play_chance(S, 0)
        else:
            be.play(S, be.moves(S, S[A.H_CUR])[0])
    src = S[A.H_CHANCE_A]
    ncards = lay.ncards
    elsewhere = [c for c in range(ncards) if S[lay.where + c] != src]
    assert elsewhere  # (a card of another zone, or of none)
    for bad in (-1, ncards, 1 << 40, A.NIL, 1 << 70, -(1 << 70), True, 1.0, "0", None, *elsewhere[:3]):
        T = copy.copy(S)
        with pytest.raises(KFault):
            be.play_chance(T, bad)
    assert S[A.H_CUR] == A.CUR_CHANCE and S[A.H_CHANCE_A] == src
    at = lay.zones[src][0]
    inside = list(S[at + 1:at + 1 + S[at]])
    chances = S[A.H_CHANCES]
    be.play_chance(S, inside[-1])
    assert S[lay.where + inside[-1]] != src or any(  # (or a card nobody can tell from it went)
        S[lay.where + c] != src for c in inside if c != inside[-1])
    assert S[A.H_CHANCES] == chances + 1


# ---- through the API: Game.start(chance="manual") on the kernel -----------------------------


def _native(name):
    return fishrules.load(name, backend="native")


def _another_games_die(name: str = ROLLS[0]):
    """A game of `name` with chance by hand, at its first die: its outcomes are no outcome of another game."""
    other = _native(name).start(players=2, seed=4, chance="manual")
    while other.current != CHANCE:
        other.apply(other.legal_actions()[0])
    return other


def _same(k, e, players, record: bool = True):
    """The same position on both machines; with `record`, the same history and events for each
    seat too (the whole of them: asked at every step, the cost grows with the square of the game)."""
    assert type(k) is KState
    assert k.current == e.current and k.is_over == e.is_over and k.waiting == e.waiting
    ko, eo = k.chance_outcomes(), e.chance_outcomes()
    assert [(a.text, a.to, a.name, a.player, a.values if hasattr(a, "values") else None, p) for a, p in ko] == \
           [(a.text, a.to, a.name, a.player, a.values if hasattr(a, "values") else None, p) for a, p in eo]
    if e.current != SIMULTANEOUS:
        assert [a.text for a in k.legal_actions()] == [a.text for a in e.legal_actions()]
    assert k.history == e.history
    for p in [None, *range(players)]:
        if record:
            assert k.history_for(p) == e.history_for(p)
            assert k.events_for(p) == e.events_for(p)
        assert k.view(p) == e.view(p)


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("name", RULESETS)
def test_manual_chance_on_the_kernel_is_the_engines_game(name):
    g = _native(name)
    for players in (g.min_players, g.max_players):
        rng = random.Random(players * 7 + 1)
        k = g.start(players=players, seed=3, chance="manual")
        e = State._new(g, players, g._options(None), 3, True)
        steps = 0
        while not e.is_over and steps < 200:
            # each seat's history and events every fourth step and at the end: they hold every
            # step's record (tests/test_kernel_record.py compares them at every step of seeded games)
            _same(k, e, players, record=steps % 4 == 0)
            if e.current == CHANCE:
                a = _pick(k.chance_outcomes(), rng)
                # an outcome given as itself, as its text, or as the engine's own Action
                how = steps % 3
                mine = next(x for x, _ in e.chance_outcomes() if x.text == a.text)
                k.apply(a if how == 0 else a.text if how == 1 else mine)
                e.apply(mine)
            else:  # a decision (each of a simultaneous choice's players in turn): the same on both
                for p in (list(e.waiting) if e.current == SIMULTANEOUS else [None]):
                    acts = k.legal_actions(p)
                    j = rng.randrange(len(acts))
                    k.apply(acts[j])
                    e.apply(e.legal_actions(p)[j])
            steps += 1
        _same(k, e, players)
        assert k.scores() == e.scores()
        if e.is_over:
            assert k.winners() == e.winners()


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
def test_what_is_no_outcome_is_refused_in_the_engines_words_and_the_state_stays_on_the_kernel():
    g = _native(ROLLS[0])
    k = g.start(players=2, seed=4, chance="manual")
    e = State._new(g, 2, g._options(None), 4, True)
    while e.current != CHANCE:
        k.apply(k.legal_actions()[0])
        e.apply(e.legal_actions()[0])
    other = _another_games_die(ROLLS[1])
    for bad in ("die 1 rolls", "die 9 rolls HEAD", "x" * 100_000, "", 42, None,
                other.chance_outcomes()[0][0], "p0: pass"):
        with pytest.raises(fishrules.FishrulesError) as got:
            e.apply(bad)
        with pytest.raises(type(got.value)) as mine:
            k.apply(bad)
        assert str(mine.value) == str(got.value), bad
        assert type(k) is KState and k.current == CHANCE and k.history == e.history
    c = k.clone()  # a clone waits for the same die, and plays on alone
    c.apply(c.chance_outcomes()[-1][0])
    assert type(c) is KState and k.current == CHANCE and len(c.history) == len(k.history) + 1
    text = e.chance_outcomes()[1][0].text  # a text as a person types it: read as the engine reads it
    k.apply(f"  {text.replace(' ', '   ')} ")
    e.apply(f"  {text.replace(' ', '   ')} ")
    assert type(k) is KState and k.history == e.history


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("name", DRAWS)
def test_a_card_that_is_no_outcome_is_refused_in_the_engines_words(name):
    g = _native(name)
    k = g.start(players=g.min_players, seed=6, chance="manual")
    e = State._new(g, g.min_players, g._options(None), 6, True)
    drawn = 0  # to the second card drawn: the first is then in no zone drawn from
    while not (e.current == CHANCE and e.chance_outcomes()[0][0].name == "draw" and drawn):
        if e.current == CHANCE:
            drawn += e.chance_outcomes()[0][0].name == "draw"
            a = e.chance_outcomes()[-1][0]
            k.apply(a.text)
            e.apply(a)
        else:
            k.apply(k.legal_actions()[0])
            e.apply(e.legal_actions()[0])
    labels = {a.text for a, _ in e.chance_outcomes()}
    gone = [f"draw {lab}" for lab in forms_of(g.model).card_labels if f"draw {lab}" not in labels]
    other = _another_games_die()
    for bad in ("draw", "draw ", "draw ?", "draw -1", *gone[:3], "die 1 rolls 1", 7, -1, None, True,
                other.chance_outcomes()[0][0], "p0: pass", "x" * 100_000):
        with pytest.raises(fishrules.FishrulesError) as got:
            e.apply(bad)
        with pytest.raises(type(got.value)) as mine:
            k.apply(bad)
        assert str(mine.value) == str(got.value), bad
        _same(k, e, g.min_players)
    a = k.chance_outcomes()[0][0]
    k.apply(a)
    e.apply(a.text)
    _same(k, e, g.min_players)


@pytest.mark.parametrize("name", RULESETS)
def test_every_ruleset_plays_manual_chance_on_the_kernel(name):
    g = fishrules.load(name)
    # once its kernel is built (or found in the cache: with backend "auto", a start never compiles;
    # this passed only where an earlier test in the same process had built it)
    g.kernel
    s = g.start(players=g.min_players, seed=1, chance="manual")
    assert type(s) is KState and s.manual


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_playout_from_a_manual_position_rolls_with_the_generator(backend):
    k = kernel(ROLLS[0], backend)
    g, be = k.game, k.backend
    S = manual_start(k, g.min_players, 2)
    waited = 0
    while waited < 3:  # past a few dice, to a player's decision
        if S[A.H_CUR] == A.CUR_CHANCE:
            with pytest.raises(KFault):
                be.playout(copy.copy(S))  # the die is the caller's to give
            be.play_chance(S, 0)
            waited += 1
        else:
            be.play(S, be.moves(S, S[A.H_CUR])[0])
    while S[A.H_CUR] < 0:
        be.play_chance(S, 0)
    T = copy.copy(S)
    be.playout(T)
    assert T[A.H_CUR] == A.CUR_OVER and T[A.H_MANUAL] == 0 and T[A.H_CHANCES] > S[A.H_CHANCES]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", [ROLLS[0], DRAWS[0]])
def test_chance_handed_to_the_generator_while_the_kernel_waits_is_the_engines(name, backend):
    """`H_MANUAL` cleared at a wait (the API's `state.manual = False`): the kernel reads it again
    at each die and card, so the waited outcome given by hand (or none: `NO_OUTCOME`, the engine's
    `_run`) is followed by the rest of the roll or draw from the generator, with the engine's draws
    (one for the dice left of a group), and the game goes on as the engine's."""
    from fishrules.kernel.arms import NO_OUTCOME

    k = kernel(name, backend)
    g, be, bd = k.game, k.backend, k.boundary
    players = g.min_players
    for when in range(6):
        for by_hand in (True, False):
            rng = random.Random(when)
            ref = State._new(g, players, g._options(None), 11, True)
            S = manual_start(k, players, 11)
            ds, dd = decision_seed(11), 0
            waits = 0
            while not ref.is_over and S[A.H_DECISIONS] < 60:
                if ref.current == CHANCE:
                    if ref.manual:
                        waits += 1
                    if ref.manual and waits == when + 1:
                        S[A.H_MANUAL] = 0
                        ref.manual = False
                        if not by_hand:
                            be.play_chance(S, NO_OUTCOME)
                            ref._run()
                            assert S[A.H_DRAWS] == ref.draws
                            continue
                    a = _pick(ref.chance_outcomes(), rng)
                    be.play_chance(S, a._values[-1])
                    ref.apply(a)
                else:
                    dd = decide_both(be, bd, S, ref, ds, dd)
                assert S[A.H_DRAWS] == ref.draws
            assert (S[A.H_CUR] == A.CUR_OVER) == ref.is_over
            assert be.scores(S) == ref.scores()

"""Manual chance on the kernel (issue 32, step 5a): a game whose chance is the caller's waits at
every die and at every card drawn from a shuffled zone (`CUR_CHANCE`, the die or the zones in the
header) on both spellings, takes the face or card the caller gives, and plays on as the engine's
manual game given the same outcomes; the seeded path plays as before (tests/test_kernel.py).  The
engine's games are frozen in tests/golden/engine/test_kernel_chance.json (`freeze`, run by
tests/tools/freeze_engine.py while the engine lived)."""

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
from fishrules.kernel.pyruntime import below
from fishrules.runtime import CHANCE, SIMULTANEOUS

from ._frozen import digest, digests, frozen, plain, same_step
from ._twins import BACKENDS, NATIVE, kernel


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


def decide(be, bd, S, trace, ds: int, dd: int) -> int:
    """The player decision the engine made next (`trace`'s entries: [player, together, a digest
    of the legal texts]), chosen by the kernel's decision generator (`ds`, `dd`) and played on the kernel
    position `S`, after checking that the kernel offers exactly the engine's actions; the
    generator's next `dd`."""
    if S[A.H_CUR] == A.CUR_SIMUL:
        chosen = []
        for p in be.who_together(S):
            moves = be.moves(S, p)
            assert [p, 1, digest([bd.text(mv, True) for mv in moves])] == next(trace)
            j, dd = below(ds, dd, len(moves))
            chosen.append(moves[j])
        be.play_together(S, tuple(chosen))
        return dd
    moves = be.moves(S, S[A.H_CUR])
    assert [S[A.H_CUR], 0, digest([bd.text(mv) for mv in moves])] == next(trace)
    j, dd = below(ds, dd, len(moves))
    be.play(S, moves[j])
    return dd


def decided(e, trace: list, ds: int, dd: int) -> int:
    """(for `freeze`) The engine's state `e` plays its next decision as `decide` plays it, each
    decision written to `trace`."""
    together = e.current == SIMULTANEOUS
    for p in list(e.waiting) if together else [e.current]:
        acts = e.legal_actions(p if together else None)
        trace.append([p, int(together), digest([a.text for a in acts])])
        j, dd = below(ds, dd, len(acts))
        e.apply(acts[j])
    return dd


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", RULESETS)
def test_manual_chance_waits_and_plays_as_the_engines(name, backend):
    k = kernel(name, backend)
    g, be, bd = k.game, k.backend, k.boundary
    lay = k.program.layout
    for players in (g.min_players, g.max_players):
        want = frozen("test_kernel_chance")["waits"][f"{name}/{players}"]
        seed = 5 + players
        S = manual_start(k, players, seed)
        ds, dd = decision_seed(seed), 0
        chances = 0
        trace = iter(want["trace"])
        while S[A.H_CUR] != A.CUR_OVER:
            if S[A.H_CUR] == A.CUR_CHANCE:
                what, values, to = next(trace)
                if what == "roll":
                    die, face = values
                    assert (S[A.H_CHANCE], S[A.H_CHANCE_A]) == (A.CHANCE_DIE, die)
                    be.play_chance(S, face)
                else:  # a card of the zone drawn from, which the header names with where it goes
                    assert what == "draw"
                    (card,) = values
                    assert S[A.H_CHANCE] == A.CHANCE_DRAW
                    assert S[lay.where + card] == S[A.H_CHANCE_A]
                    assert to == forms_of(g.model).zone_name(*lay.zone_names[S[A.H_CHANCE_B]])
                    be.play_chance(S, card)
                chances += 1
            else:
                dd = decide(be, bd, S, trace, ds, dd)
        assert next(trace, None) is None, "the engine's game went on"
        assert [be.scores(S), be.winners(S)] == want["end"]
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


def seen(s, players: int, record: bool = True) -> dict:
    """A position as the engine's answers are frozen: who is waited for, the chance outcomes with
    their probabilities, the legal texts, the history, and each seat's view; with `record`, each
    seat's history and events too (the whole of them: asked at every step, the cost grows with
    the square of the game)."""
    seats = [None, *range(players)]
    out = {"where": [s.current, s.is_over, s.waiting],
           "outcomes": [(a.text, a.to, a.name, a.player, a.values if hasattr(a, "values") else None, str(p))
                        for a, p in s.chance_outcomes()],
           "legal": None if s.current == SIMULTANEOUS else [a.text for a in s.legal_actions()],
           "history": s.history, "views": [s.view(p) for p in seats]}
    if record:
        out["record"] = [[s.history_for(p), s.events_for(p)] for p in seats]
    return out


def _same(k, want: dict, step: int, players: int, record: bool = True) -> None:
    """The kernel's state `k` is the engine's at `step` (frozen)."""
    assert type(k) is KState
    same_step(seen(k, players, record), want, step, f"step {step}")


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("name", RULESETS)
def test_manual_chance_on_the_kernel_is_the_engines_game(name):
    g = _native(name)
    for players in (g.min_players, g.max_players):
        want = frozen("test_kernel_chance")["api"][f"{name}/{players}"]
        rng = random.Random(players * 7 + 1)
        k = g.start(players=players, seed=3, chance="manual")
        steps = 0
        while not k.is_over and steps < 200:
            # each seat's history and events every fourth step and at the end: they hold every
            # step's record (tests/test_kernel_record.py compares them at every step of seeded games)
            _same(k, want, steps, players, record=steps % 4 == 0)
            if k.current == CHANCE:
                a = _pick(k.chance_outcomes(), rng)
                k.apply(a if steps % 3 == 0 else a.text)  # an outcome given as itself, or as its text
            else:  # a decision (each of a simultaneous choice's players in turn)
                for p in (list(k.waiting) if k.current == SIMULTANEOUS else [None]):
                    acts = k.legal_actions(p)
                    k.apply(acts[rng.randrange(len(acts))])
            steps += 1
        _same(k, want, steps, players)
        assert steps == len(want["steps"]) - 1
        assert plain([k.scores(), k.winners() if k.is_over else None]) == want["end"]


#: what is no chance outcome (and, by `_refused`, an outcome of another game's die)
NO_OUTCOMES = ("die 1 rolls", "die 9 rolls HEAD", "x" * 100_000, "", 42, None, "p0: pass")
NO_CARDS = ("draw", "draw ", "draw ?", "draw -1", "die 1 rolls 1", 7, -1, None, True, "p0: pass", "x" * 100_000)


def _refused(s, bad) -> list:
    """How `s.apply(bad)` is refused: the error's class and words."""
    with pytest.raises(fishrules.FishrulesError) as got:
        s.apply(bad)
    return [type(got.value).__name__, str(got.value)]


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
def test_what_is_no_outcome_is_refused_in_the_engines_words_and_the_state_stays_on_the_kernel():
    want = frozen("test_kernel_chance")["no outcome"]
    g = _native(ROLLS[0])
    k = g.start(players=2, seed=4, chance="manual")
    while k.current != CHANCE:
        k.apply(k.legal_actions()[0])
    history = k.history
    other = _another_games_die(ROLLS[1])
    for bad, engine in zip([*NO_OUTCOMES, other.chance_outcomes()[0][0]], want["refused"], strict=True):
        assert _refused(k, bad) == engine, bad
        assert type(k) is KState and k.current == CHANCE and k.history == history
    assert history == want["history"]
    c = k.clone()  # a clone waits for the same die, and plays on alone
    c.apply(c.chance_outcomes()[-1][0])
    assert type(c) is KState and k.current == CHANCE and len(c.history) == len(k.history) + 1
    text = k.chance_outcomes()[1][0].text  # a text as a person types it: read as the engine reads it
    k.apply(f"  {text.replace(' ', '   ')} ")
    assert type(k) is KState and k.history == want["then"]


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("name", DRAWS)
def test_a_card_that_is_no_outcome_is_refused_in_the_engines_words(name):
    want = frozen("test_kernel_chance")["no card"][name]
    g = _native(name)
    k = g.start(players=g.min_players, seed=6, chance="manual")
    _to_the_second_draw(k)
    other = _another_games_die()
    for bad, engine in zip([*NO_CARDS, *_gone(k, g), other.chance_outcomes()[0][0]], want["refused"], strict=True):
        assert _refused(k, bad) == engine, bad
    _same(k, want, 0, g.min_players)
    k.apply(k.chance_outcomes()[0][0])
    _same(k, want, 1, g.min_players)


def _to_the_second_draw(s) -> None:
    """Play `s` to the second card drawn (the first is then in no zone drawn from), the last
    outcome at every chance, the first action at every decision."""
    drawn = 0
    while not (s.current == CHANCE and s.chance_outcomes()[0][0].name == "draw" and drawn):
        if s.current == CHANCE:
            drawn += s.chance_outcomes()[0][0].name == "draw"
            s.apply(s.chance_outcomes()[-1][0].text)
        else:
            s.apply(s.legal_actions()[0])


def _gone(s, g) -> list:
    """Three cards that are no outcome of this draw."""
    labels = {a.text for a, _ in s.chance_outcomes()}
    return [f"draw {lab}" for lab in forms_of(g.model).card_labels if f"draw {lab}" not in labels][:3]


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
            want = frozen("test_kernel_chance")["handed"][f"{name}/{when}/{by_hand}"]
            trace = iter(want["trace"])
            S = manual_start(k, players, 11)
            ds, dd = decision_seed(11), 0
            waits = 0
            while S[A.H_CUR] != A.CUR_OVER and S[A.H_DECISIONS] < 60:
                if S[A.H_CUR] == A.CUR_CHANCE:
                    entry = next(trace)
                    if S[A.H_MANUAL]:
                        waits += 1
                    if S[A.H_MANUAL] and waits == when + 1:
                        S[A.H_MANUAL] = 0
                        if not by_hand:
                            be.play_chance(S, NO_OUTCOME)
                            assert entry == ["generator", S[A.H_DRAWS]]
                            continue
                    assert entry[0] == "chance"
                    be.play_chance(S, entry[1])
                    assert S[A.H_DRAWS] == entry[2]
                else:
                    dd = decide(be, bd, S, trace, ds, dd)
            assert next(trace, None) is None or S[A.H_DECISIONS] >= 60, "the engine's game went on"
            assert [S[A.H_CUR] == A.CUR_OVER, be.scores(S)] == want["end"]


# ---- the engine's answers, frozen (tests/tools/freeze_engine.py) -------------------------------------


def freeze(engine) -> dict:
    """What the engine answered in the games above (run by tests/tools/freeze_engine.py while the
    engine lived)."""
    from fishrules.runtime import CHANCE

    out: dict = {"waits": {}, "api": {}, "no card": {}, "handed": {}}
    for name in RULESETS:
        g = fishrules.load(name, backend="python")
        for players in (g.min_players, g.max_players):
            seed = 5 + players
            e = engine.start(g, players, seed, "manual")
            rng, ds, dd, trace = random.Random(players), decision_seed(seed), 0, []
            while not e.is_over:
                if e.current == CHANCE:
                    a = _pick(e.chance_outcomes(), rng)
                    trace.append([a.name, list(a._values), a.to])
                    e.apply(a)
                else:
                    dd = decided(e, trace, ds, dd)
            out["waits"][f"{name}/{players}"] = {"trace": trace, "end": [e.scores(), e.winners()]}
            # through the API
            rng = random.Random(players * 7 + 1)
            e = engine.start(g, players, 3, "manual")
            steps, frozen_steps = 0, []
            while True:
                at = plain(seen(e, players, record=steps % 4 == 0 or e.is_over or steps >= 200))
                frozen_steps.append(digests(at))  # (the whole of a step: in "no card")
                if e.is_over or steps >= 200:
                    break
                if e.current == CHANCE:
                    e.apply(_pick(e.chance_outcomes(), rng))
                else:
                    for p in (list(e.waiting) if e.current == SIMULTANEOUS else [None]):
                        acts = e.legal_actions(p)
                        e.apply(acts[rng.randrange(len(acts))])
                steps += 1
            out["api"][f"{name}/{players}"] = {"steps": frozen_steps, "whole": {},
                                               "end": [e.scores(), e.winners() if e.is_over else None]}
    # what is no outcome
    g = fishrules.load(ROLLS[0], backend="python")
    e = engine.start(g, 2, 4, "manual")
    while e.current != CHANCE:
        e.apply(e.legal_actions()[0])
    other = _another_games_die(ROLLS[1])
    refused = [_refused(e, bad) for bad in [*NO_OUTCOMES, other.chance_outcomes()[0][0]]]
    history = e.history
    text = e.chance_outcomes()[1][0].text
    e.apply(f"  {text.replace(' ', '   ')} ")
    out["no outcome"] = {"refused": refused, "history": history, "then": e.history}
    for name in DRAWS:
        g = fishrules.load(name, backend="python")
        e = engine.start(g, g.min_players, 6, "manual")
        _to_the_second_draw(e)
        refused = [_refused(e, bad) for bad in [*NO_CARDS, *_gone(e, g), _another_games_die().chance_outcomes()[0][0]]]
        first = plain(seen(e, g.min_players))
        e.apply(e.chance_outcomes()[0][0].text)
        then = plain(seen(e, g.min_players))
        out["no card"][name] = {"refused": refused, "steps": [digests(first), digests(then)], "whole": {"0": first}}
    # chance handed to the generator
    for name in (ROLLS[0], DRAWS[0]):
        g = fishrules.load(name, backend="python")
        for when in range(6):
            for by_hand in (True, False):
                rng = random.Random(when)
                ref = engine.start(g, g.min_players, 11, "manual")
                ds, dd, trace, waits = decision_seed(11), 0, [], 0
                while not ref.is_over:
                    if ref.current == CHANCE:
                        if ref.manual:
                            waits += 1
                        if ref.manual and waits == when + 1:
                            ref.manual = False
                            if not by_hand:
                                ref._run()
                                trace.append(["generator", ref.draws])
                                continue
                        a = _pick(ref.chance_outcomes(), rng)
                        ref.apply(a)
                        trace.append(["chance", a._values[-1], ref.draws])
                    else:
                        dd = decided(ref, trace, ds, dd)
                out["handed"][f"{name}/{when}/{by_hand}"] = {"trace": trace, "end": [ref.is_over, ref.scores()]}
    return out

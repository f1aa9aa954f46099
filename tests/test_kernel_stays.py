"""A state on the kernel stays one (issue 32): what used to replay it onto the engine's machine and
change its class (`KState._become_state`, `_as_state`) is answered from its position and record.

Each test plays a KState beside its engine twin (`State._new` with the same seed, the same texts
applied) and checks that the KState answers as the twin does and is still a `KState`; where the
answer must not cost a replay on the engine, `KState._twin` is made to fail."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import OptionError
from fishrules.kernel.apistate import KState
from fishrules.runtime import CHANCE, State

from ._twins import bundled_game, skip_without_compiler

skip_without_compiler()

RULESETS = fishrules.bundled()


def _players(g) -> list:
    return sorted({g.min_players, g.max_players})


def _step(k, e, rng) -> None:
    """One random step (a chance outcome, or one waiting player's action) on both."""
    if e.current == CHANCE:
        acts = [a for a, _ in e.chance_outcomes()]
    else:
        acts = e.legal_actions(e.waiting[0])
    text = acts[rng.randrange(len(acts))].text
    k.apply(text)
    e.apply(text)


def _pair(g, players: int, seed: int, manual: bool = False, count_rules: bool = False) -> tuple:
    k = g.start(players, seed=seed, chance="manual" if manual else "seeded", count_rules=count_rules)
    assert type(k) is KState
    e = State._new(g, players, g._options(None), seed, manual, count_rules=count_rules)
    return k, e


@pytest.fixture
def no_twin(monkeypatch):
    """The engine's machine may not be asked (a KState's twin replayed there)."""
    def twin(self):  # pragma: no cover - what the tests check is not reached
        raise AssertionError("the state was replayed on the engine")

    monkeypatch.setattr(KState, "_twin", twin)


# ---- 1. the engine's fields a simulation sets ---------------------------------------------------

@pytest.mark.parametrize("name", RULESETS)
def test_counters_and_redactions_set_on_a_kernel_state_stay_on_the_kernel(name):
    # `fires` and `empty_draws` set go on counting from the value set, as the engine's do; None
    # stops counting; `redact` set is the record's (history_for reads it)
    g = bundled_game(name)
    for players in _players(g):
        k, e = _pair(g, players, 4, count_rules=True)
        rng = random.Random(players)
        for step in range(60):
            if step == 2:
                for s in (k, e):
                    s.fires = [3] * len(s.fires)
                    s.empty_draws = {12345: 2}
            if step == 4:
                for s in (k, e):
                    s.redact = tuple(s.redact) + ((0, "hidden", (0,)),)
            assert k.fires == e.fires and k.rules_fired == e.rules_fired
            assert k.empty_draws == e.empty_draws
            assert k.redact == e.redact and k.history_for(1) == e.history_for(1)
            assert type(k) is KState
            if e.is_over:
                break
            _step(k, e, rng)
        for s in (k, e):
            s.fires = None
            s.empty_draws = None
        assert k.fires is None and k.empty_draws is None and k.rules_fired is None
        assert type(k) is KState


def test_counters_set_on_a_clone_count_from_then():
    g = bundled_game("fishfry")
    k, e = _pair(g, 3, 1)
    assert k.fires is None
    k.fires, e.fires = [0] * len(e.prog.rules), [0] * len(e.prog.rules)
    k.empty_draws, e.empty_draws = {}, {}
    rng = random.Random(2)
    while not e.is_over:
        _step(k, e, rng)
        assert k.fires == e.fires and k.empty_draws == e.empty_draws
    assert type(k) is KState


def test_bad_values_for_the_counters_are_refused_in_words():
    k = bundled_game("fishfry").start(2, seed=1, count_rules=True)
    for name, value in (("fires", [1] * 999), ("fires", "x"), ("empty_draws", [1]), ("empty_draws", {"a": 1}),
                        ("redact", 5), ("redact", ((0, 1, (0,)),))):
        with pytest.raises(OptionError):
            setattr(k, name, value)
    assert type(k) is KState


# ---- 2. equality with a state of the engine's ----------------------------------------------------

@pytest.mark.parametrize("name", RULESETS)
def test_a_kernel_state_compares_with_an_engine_state_without_replaying(name, no_twin):
    g = bundled_game(name)
    cases = [(p, False) for p in _players(g)] + ([(g.min_players, True)] if g.model.dice is not None else [])
    for players, manual in cases:
        k, e = _pair(g, players, 4, manual)
        rng = random.Random(1)
        before = None
        for step in range(80):
            if step % 5 == 0:
                assert k == e and e == k
                if before is not None:
                    assert k != before and before != k
                before = e.clone()
            if e.is_over:
                break
            _step(k, e, rng)
        assert k == e and e == k
        assert type(k) is KState


# ---- 4. saving a state played out -----------------------------------------------------------------

@pytest.mark.parametrize("manual", [False, True])
def test_a_played_out_kernel_state_refuses_to_be_saved_in_the_engines_words(manual, no_twin):
    import pickle

    g = bundled_game("fatfish")
    k, e = _pair(g, 3, 2, manual)
    k.playout(random.Random(1))
    e.playout(random.Random(1))
    for save in (lambda s: s.to_dict(), lambda s: s.to_json(), lambda s: pickle.dumps(s)):
        said = []
        for s in (k, e):
            with pytest.raises(OptionError) as got:
                save(s)
            said.append(str(got.value))
        assert said[0] == said[1] and "keeps no history" in said[0]
        assert type(k) is KState
    d = g.start(3, seed=2).determinize(0, random.Random(1))
    d.playout(random.Random(3))
    with pytest.raises(OptionError, match="is a determinization"):  # (as the engine's: that first)
        d.to_json()
    assert type(d) is KState

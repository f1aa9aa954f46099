"""The API's State on the game kernel (fishrules.kernel.apistate) is the engine's State to every
caller: the same legal actions in the same order, the same scores, winners and histories, the
same errors and views, whenever and however the caller looks.

Each test plays a state deciding on the kernel (`KState`) beside the engine's own `State` from the
same seed, applying the same actions, and compares what the API says of both."""

from __future__ import annotations

import copy
import random

import pytest

import fishrules
from fishrules.errors import IllegalAction, RuleError
from fishrules.kernel.apistate import KState
from fishrules.runtime import State

from ._twins import bundled_game, skip_without_compiler

skip_without_compiler()

RULESETS = fishrules.bundled()
game = bundled_game


def pair(g, players: int, seed: int, **kw):
    k = g.start(players, seed=seed, **kw)
    assert type(k) is KState
    return k, State._new(g, players, g._options(None), seed, False, count_rules=kw.get("count_rules", False))


def same_decision(k, e) -> None:
    assert k.is_over == e.is_over
    assert k.current == e.current
    assert k.waiting == e.waiting
    for p in e.waiting or [None]:
        assert [(a.text, a.player, a.name) for a in k.legal_actions(p)] == \
               [(a.text, a.player, a.name) for a in e.legal_actions(p)]


def play_beside(k, e, rng: random.Random, steps: int = 10**6):
    """Apply the same random actions (the kernel's own Action objects to `k`, texts to `e`)."""
    for _ in range(steps):
        if e.is_over:
            break
        same_decision(k, e)
        p = e.waiting[0]
        i = rng.randrange(len(e.legal_actions(p)))
        k = k.apply(k.legal_actions(p)[i])
        e = e.apply(e.legal_actions(p)[i].text)
    return k, e


@pytest.mark.parametrize("name", RULESETS)
def test_a_whole_game_on_the_kernel_is_the_engines_game(name):
    g = game(name)
    for players in (g.min_players, g.max_players):
        for seed in range(3):
            k, e = pair(g, players, seed)
            k, e = play_beside(k, e, random.Random(seed))
            assert type(k) is KState  # deciding and applying never left the kernel
            same_decision(k, e)
            assert k.scores() == e.scores() and k.winners() == e.winners()
            assert k.history == e.history and k.redact == e.redact  # the kernel's own record
            assert type(k) is KState
            assert k == e and e == k and type(k) is KState  # equality on the kernel: it stays there
            assert k.to_json() == e.to_json()


@pytest.mark.parametrize("name", RULESETS)
def test_looking_at_anything_else_midway_changes_nothing(name):
    g = game(name)
    players = g.max_players
    rng = random.Random(7)
    for look in ("view", "history", "events", "observation", "phase", "to_dict", "equality", "text"):
        k, e = pair(g, players, 11)
        k, e = play_beside(k, e, rng, steps=rng.randrange(1, 40))
        if e.is_over:
            continue
        if look == "view":
            assert [k.view(p) for p in range(players)] == [e.view(p) for p in range(players)]
        elif look == "history":
            assert k.history == e.history and k.history_for(0) == e.history_for(0)
        elif look == "events":
            assert k.events_for(0) == e.events_for(0)
        elif look == "observation":
            assert (k.observation(0) == e.observation(0)).all() if hasattr(e.observation(0), "all") \
                else k.observation(0) == e.observation(0)
        elif look == "phase":
            assert k.phase == e.phase
        elif look == "to_dict":
            assert k.to_dict() == e.to_dict()
        elif look == "equality":
            assert k == e and hash(k) == hash(e)
        else:  # an action given as its text
            p = e.waiting[0]
            text = e.legal_actions(p)[0].text
            k, e = k.apply(text), e.apply(text)
        k, e = play_beside(k, e, rng)
        assert k.scores() == e.scores() and k.history == e.history


def test_clones_go_their_own_ways():
    g = game("fisherman")
    k, e = pair(g, 3, 5)
    k, e = play_beside(k, e, random.Random(1), steps=20)
    c = k.clone()
    d = copy.deepcopy(k if type(k) is State else k.clone())
    c2, e2 = play_beside(c, e.clone(), random.Random(2))
    assert c2.history == e2.history
    k, e = play_beside(k, e, random.Random(3))
    assert k.history == e.history != c2.history
    assert d.game is g  # a copied state shares its (unchanging) game


def test_an_action_of_another_position_is_refused_as_the_engine_refuses_it():
    g = game("fisherman")
    k, e = pair(g, 3, 2)
    old_k, old_e = k.legal_actions()[0], e.legal_actions()[0]
    k, e = play_beside(k, e, random.Random(0), steps=6)
    with pytest.raises(IllegalAction) as got:
        k.apply(old_k)
    with pytest.raises(IllegalAction) as want:
        e.apply(old_e)
    assert str(got.value) == str(want.value)
    assert k.history == e.history  # and nothing changed


def test_the_actions_of_a_state_look_like_the_engines():
    g = game("fatfish")
    k, e = pair(g, 4, 3)
    for a, b in zip(k.legal_actions(), e.legal_actions()):
        assert a == b and hash(a) == hash(b) and str(a) == str(b) and repr(a) == repr(b)
        assert a.args == b.args and a.breaks == b.breaks


def test_rules_fired_are_counted_as_the_engine_counts_them():
    g = game("fishfish")
    k, e = pair(g, 3, 4, count_rules=True)
    k, e = play_beside(k, e, random.Random(4))
    assert k.rules_fired == e.rules_fired


def test_a_rule_that_goes_wrong_is_the_engines_error_and_the_state_is_unchanged():
    g = fishrules.loads('game "Zero"\nplayers 2 to 2\neach player has n: number\n'
                        'score "s": your n\n'
                        'phase game:\n  for each player:\n    player chooses pass or zero\n'
                        'action pass:\n  add 1 to your n\n'
                        'action zero:\n  add divide(10, your n) to your n\n', backend="native")
    k, e = pair(g, 2, 1)
    zero_k = [a for a in k.legal_actions() if a.name == "zero"][0]
    with pytest.raises(RuleError) as got:
        k.apply(zero_k)
    with pytest.raises(RuleError) as want:
        e.apply("zero")
    assert got.value.render() == want.value.render()
    same_decision(k, e)
    assert k.history == e.history == []


def test_a_game_asked_to_run_as_python_decides_on_the_kernels_python_spelling():
    # (issue 32, step 6: the Python kernel's API loop and playouts no slower than the engine's)
    for name in ("fishfry", "fatfish"):
        g = fishrules.load(name, backend="python")
        for chance in ("seeded", "manual"):  # (manual chance is the kernel's, draws too)
            s = g.start(2, seed=1, chance=chance)
            assert type(s) is KState and g.kernel.name == "python" and s._ks[0] is g.kernel
            s.apply(s.legal_actions()[0])
            assert type(s) is KState


# ---- whether a first start decides on the kernel: by the rules' hash, nothing lowered ----------------


def _no_lowering(*args, **kwargs):
    raise AssertionError("the rules were lowered")


def test_a_first_start_lowers_nothing_and_decides_on_the_kernel_once_one_was_built(tmp_path, monkeypatch):
    import fishrules.kernel as K
    from fishrules.kernel import Kernel

    monkeypatch.setenv("FISHRULES_CACHE", str(tmp_path))
    text = _text("fishfry")
    real_lower = K.lower
    monkeypatch.setattr(K, "lower", _no_lowering)
    s = fishrules.loads(text, name="fishfry").start(2, seed=1)  # an empty cache: the engine, at once
    assert type(s) is State
    monkeypatch.setattr(K, "lower", real_lower)
    Kernel(fishrules.loads(text, name="fishfry"), "native")  # a simulation, in another process say
    monkeypatch.setattr(K, "lower", _no_lowering)
    g = fishrules.loads(text, name="fishfry")
    assert K.native_is_cached(g)  # known by its hash, nothing lowered
    monkeypatch.setattr(K, "lower", real_lower)
    assert type(g.start(2, seed=1)) is KState
    other = fishrules.loads(text.replace('score "', '# a house rule that changes nothing\nscore "', 1), name="fishfry")
    assert not K.native_is_cached(other)  # other rules, other hash
    assert type(other.start(2, seed=1)) is State


@pytest.mark.parametrize("note", ["", "garbage", "../../../etc/passwd", "k" + "0" * 32 + ".so", "\x00" * 64,
                                  "k" + "f" * 32 + ".so" + "x" * 1000])
def test_a_note_in_the_cache_that_is_not_whole_is_not_believed(tmp_path, monkeypatch, note):
    from fishrules.kernel import Kernel
    from fishrules.kernel import native

    monkeypatch.setenv("FISHRULES_CACHE", str(tmp_path))
    g = fishrules.load("fishfry")
    Kernel(g, "native")
    assert native.is_known(g._identity)
    notes = [p for p in (tmp_path / "kernels").iterdir() if p.name.startswith("r")]
    assert len(notes) == 1
    notes[0].write_bytes(note.encode("utf-8", "surrogatepass"))
    assert not native.is_known(g._identity)
    fresh = fishrules.loads(_text("fishfry"), name="fishfry")
    assert type(fresh.start(2, seed=3)) is State


def test_a_library_changed_after_its_note_was_written_is_not_believed(tmp_path, monkeypatch):
    from fishrules.kernel import Kernel
    from fishrules.kernel import native

    monkeypatch.setenv("FISHRULES_CACHE", str(tmp_path))
    g = fishrules.loads(_text("fishfry"), name="fishfry")
    lib = Kernel(g, "native").backend.path
    assert native.is_known(g._identity)
    with open(lib, "ab") as f:
        f.write(b"\0")
    assert not native.is_known(g._identity)


def _text(name: str) -> str:
    from fishrules.variants import find_ruleset

    return find_ruleset(name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["apply", "legal_actions", "scores", "winners", "clone"])
def test_a_method_bound_before_the_state_became_the_engines(name):
    # `state.apply(bot.choose(state, p))` looks `state.apply` up before the bot runs, and a bot that
    # reads the view (or determinizes) makes the KState a plain State in between: the method bound
    # to the KState must still do what the State's does
    g = game("fishfish")
    k, e = pair(g, 3, 1)
    k, e = play_beside(k, e, random.Random(2), steps=5)
    k.stack  # what the kernel does not answer (the engine's own fields) makes it the engine's
    text = k.legal_actions()[0].text
    bound = getattr(k, name)
    k.phase  # what the kernel does not answer yet (the phases by name, JSON, ...) makes it the engine's
    assert type(k) is State
    if name == "apply":
        assert bound(k.legal_actions()[0]) is k and k == e.apply(text)
    elif name == "clone":
        c = bound()
        assert type(c) is State and c == e
    else:
        assert bound() == getattr(e, name)()

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


# ---- 5. the record, wherever the kernel cannot work it out -----------------------------------------

def test_a_played_out_kernel_state_answers_its_record_as_the_engine(no_twin):
    g = bundled_game("fatfish")
    k, e = _pair(g, 3, 2)
    k.playout(random.Random(1))
    e.playout(random.Random(1))

    def said(call):
        try:
            return ("ok", call())
        except OptionError as x:
            return ("refused", str(x))

    for call in (lambda s: s.history, lambda s: s.redact, lambda s: s.history_for(0), lambda s: s.history_for(None),
                 lambda s: s.view(1), lambda s: s.events_for(0), lambda s: s.events_for(None, 3), repr):
        assert said(lambda: call(k)) == said(lambda: call(e))
        assert type(k) is KState


@pytest.mark.parametrize("name", ["fatfish", "fisheatfish", "fisherman"])
def test_a_record_the_recorder_cannot_keep_is_the_engines_in_a_kernel_state(name, monkeypatch):
    # (no rules the checker passes have one today: a `seen by` value of a player's, a value the
    # kernel holds otherwise than the engine; the recorder is told it cannot)
    from fishrules.kernel.record import Recorder

    g = fishrules.load(name, backend="native")
    rc = Recorder(g.kernel)
    rc.can = False
    monkeypatch.setattr(g.kernel, "recorder", rc)  # (put back after: the kernel may be shared)
    for players in _players(g):
        k, e = _pair(g, players, 3)
        rng = random.Random(players)
        for step in range(40):
            if step % 4 == 0:
                assert k.history == e.history and k.redact == e.redact
                for p in (None, 0):
                    assert k.history_for(p) == e.history_for(p) and k.events_for(p) == e.events_for(p)
                    assert k.view(p) == e.view(p)
                assert repr(k) == repr(e) and k == e and hash(k) == hash(e)
            if e.is_over:
                break
            _step(k, e, rng)
        assert type(k) is KState


def test_a_determinization_whose_record_is_lost_reads_its_engine_twins():
    # a determinization plays its moves again from where it was drawn (its three-item start):
    # without a record kept it is its engine twin's, the player's record as it was drawn
    from fishrules.kernel.apistate import _REC

    g = bundled_game("fatfish")
    k = g.start(3, seed=5)
    rng = random.Random(2)
    for _ in range(6):
        k.apply(k.legal_actions(k.waiting[0])[rng.randrange(len(k.legal_actions(k.waiting[0])))])
    d = k.determinize(1, random.Random(7))
    want = (d.history, d.redact, d.events_for(1))
    d._ks[_REC] = None
    assert (d.history, d.redact, d.events_for(1)) == want
    assert type(d) is KState


# ---- 6. determinization of a choice made together in part, and Determinizer(kstate) -----------------

def _same_world(d, e, rng, steps: int = 12) -> None:
    """The KState world `d` and the engine's world `e` are the same position: every seat sees the
    same, the same actions are legal, and they play on alike (a draw from a deck, a choice
    unveiled, would show a card or a choice placed otherwise)."""
    assert type(d) is KState and type(e) is State
    for _ in range(steps):
        assert d.history == e.history and d.redact == e.redact
        assert d.current == e.current and d.waiting == e.waiting
        for p in [None, *range(e.n)]:
            assert d.view(p) == e.view(p)
        if e.is_over:
            break
        if e.current == CHANCE:
            acts = [a.text for a, _ in e.chance_outcomes()]
            assert acts == [a.text for a, _ in d.chance_outcomes()]
        else:
            for p in e.waiting:
                assert [a.text for a in d.legal_actions(p)] == [a.text for a in e.legal_actions(p)]
            acts = [a.text for a in e.legal_actions(e.waiting[0])]
        text = acts[rng.randrange(len(acts))]
        d.apply(text)
        e.apply(text)
    assert type(d) is KState


@pytest.mark.parametrize("players", [2, 3, 5])
def test_a_choice_made_in_part_is_drawn_again_on_the_kernel_as_the_engine_draws_it(players, no_twin):
    g = bundled_game("fisheatfish")
    seen = 0
    for seed in range(3):
        k, e = _pair(g, players, seed)
        rng = random.Random(seed)
        for step in range(60):
            if e.is_over:
                break
            if e.current == "simultaneous" and len(e.waiting) < len(k._ks[0].backend.who_together(k._ks[1])):
                seen += 1
                for v in [None, *range(players)]:
                    d, w = k.determinize(v, random.Random(step)), e.determinize(v, random.Random(step))
                    _same_world(d, w, random.Random(v or 0))
                    assert type(k) is KState
            _step(k, e, rng)
    assert seen  # (choices made in part were met)


def test_a_choice_drawn_again_differs_from_the_real_one_and_is_the_players_own_else():
    g = bundled_game("fisheatfish")
    k = g.start(2, seed=1)
    rng = random.Random(1)
    while k.current != "simultaneous":
        k.apply(k.legal_actions(k.waiting[0])[rng.randrange(len(k.legal_actions(k.waiting[0])))])
    k.apply(k.legal_actions(0)[-1])
    drawn = {k.determinize(1, random.Random(i)).history[-1] for i in range(40)}
    assert len(drawn) > 1 and all(t.startswith("p0: ") and t != "p0: ?" for t in drawn)
    assert k.determinize(0, random.Random(3)).history == k.history_for(0)  # p0 knows its own
    assert type(k) is KState


@pytest.mark.parametrize("name", ["fatfish", "fisheatfish", "fisherman", "fishfish"])
def test_a_determinizer_of_a_kernel_state_draws_on_the_kernel(name, no_twin):
    from fishrules.determinize import Determinizer

    g = bundled_game(name)
    players = g.min_players + 1
    k, e = _pair(g, players, 6)
    rng = random.Random(6)
    for _ in range(15):
        if e.is_over:
            break
        _step(k, e, rng)
    for v in (0, None):
        dk, de = Determinizer(k, v), Determinizer(e, v)
        assert dk.groups == de.groups and dk.choices == de.choices
        for i in range(3):
            d = dk.sample(random.Random(i))
            assert d.history == k.determinize(v, random.Random(i)).history
            _same_world(d, de.sample(random.Random(i)), random.Random(i), steps=6)
    assert type(k) is KState


@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_choice_made_is_put_in_place_of_another_on_both_spellings(backend):
    # (what a determinization draws again: the k-th choice made, replaced in the position)
    from fishrules.kernel import Kernel
    from fishrules.kernel import abi as A
    from fishrules.kernel.determinize import rechoose

    g = bundled_game("fisheatfish")
    kernel = g.kernel if backend == "native" else Kernel(g, "python")
    be = kernel.backend
    S = be.new(3, g._options(None), 2)
    be.start(S, False)
    rng = random.Random(2)
    while S[A.H_CUR] != A.CUR_SIMUL:
        be.play(S, rng.choice(be.moves(S, S[A.H_CUR])))
    who = be.who_together(S)
    assert len(who) > 1
    made = [rng.choice(be.moves(S, p)) for p in who[:-1]]  # all but the last
    for m in made:
        be.choose(S, m)
    for k, p in enumerate(who[:-1]):
        other = be.moves(S, p)[-1 - k % 2]
        rechoose(be, S, k, other)
        made[k] = other
        assert be.chosen_together(S) == tuple(tuple(m) for m in made) and be.waiting_together(S) == [who[-1]]
    from fishrules.kernel import KFault

    for k in (-1, len(made)):  # no such choice made: refused, the position untouched
        before = list(S)
        with pytest.raises(KFault):
            be.rechoose(S, k, made[0])
        assert list(S) == before
    T = kernel.copy_state(S)
    be.choose(S, be.moves(S, who[-1])[0])  # the last: the game runs on, with the choices put in place
    be.play_together(T, tuple(made) + (be.moves(T, who[-1])[0],))
    assert list(S) == list(T)


# ---- 7. what a seat sees, where the kernel cannot work it out -----------------------------------------

#: a value and a zone seen by a seat that is nobody's until somebody peeks (the seat after nobody:
#: the engine's RuleError for a seat that asks, nothing to a spectator)
PEEK = """\
game "Peek"
players 2 to 3
cards tile: kind in Red x 2, Blue x 2
the game has watcher: player
the game has tally: number seen by left of watcher
the game has vault: zone of tile seen by left of watcher
the game has pool: zone of tile
each player has mark: number
phase game:
  move tile to pool face down
  shuffle pool
  repeat 3 times:
    for each player:
      player chooses pass or peek
action pass:
  add 1 to your mark
action peek:
  set watcher to you
  add 1 to tally
  draw from pool to vault
score "s": your mark
"""


@pytest.mark.parametrize("players", [2, 3])
def test_what_the_kernel_cannot_show_is_the_engines_and_the_state_stays(players):
    g = fishrules.loads(PEEK, "peek.fish", backend="native")
    k, e = _pair(g, players, 1)

    def said(call):
        try:
            return ("ok", call())
        except fishrules.FishrulesError as x:
            return (type(x).__name__, str(x))

    step = 0
    while not e.is_over:
        for p in [None, *range(players)]:
            for call in (lambda s: s.observation(p), lambda s: s.view(p)):
                assert said(lambda: call(k)) == said(lambda: call(e))
            assert type(k) is KState
        text = e.legal_actions()[0 if step < 2 else 1].text  # (passing first: nobody watches yet)
        k.apply(text)
        e.apply(text)
        step += 1
    assert type(k) is KState


def test_a_spectator_sees_a_value_seen_by_nobody_yet_on_the_kernel(request):
    # (the engine asks who sees a `seen by` value only for a seat; the view's history is the
    # record's, which the kernel cannot trace while the seat cannot be worked out: the engine's)
    g = fishrules.loads(PEEK, "peek.fish", backend="native")
    g.observation_spec(2)  # (the layout made first: fishrules.spaces starts a throwaway game to count dice)
    k, e = _pair(g, 2, 1)
    request.getfixturevalue("no_twin")
    assert k.observation(None) == e.observation(None)
    assert type(k) is KState


def test_a_played_out_kernel_state_has_no_observation_as_the_engines(request):
    g = bundled_game("fishfry")
    g.observation_spec(2)  # (made first: see above)
    k, e = _pair(g, 2, 1)
    request.getfixturevalue("no_twin")
    k.playout(random.Random(1))
    e.playout(random.Random(1))
    for s in (k, e):
        with pytest.raises(OptionError, match="keeps no history"):
            s.observation(0)
    assert type(k) is KState


# ---- 8. the search's worlds at a choice made together in part --------------------------------------

def _in_part(players: int, seed: int):
    """A fisheatfish KState waiting at a choice made together, all but the last made."""
    k = bundled_game("fisheatfish").start(players, seed=seed)
    rng = random.Random(seed)
    while True:
        if k.current == "simultaneous" and len(k.waiting) > 1:
            for p in k.waiting[:-1]:
                k.apply(k.legal_actions(p)[rng.randrange(len(k.legal_actions(p)))])
            return k
        k.apply(k.legal_actions(k.waiting[0])[rng.randrange(len(k.legal_actions(k.waiting[0])))])


def test_the_search_draws_its_worlds_on_the_kernel_at_a_choice_made_in_part():
    from fishrules.kernel.search import Worlds

    k = _in_part(3, 1)
    g, last = k.game, k.waiting[-1]
    worlds = Worlds(g.kernel, k, last)
    be = g.kernel.backend
    real = be.chosen_together(worlds.base)
    drawn = {be.chosen_together(worlds.sample(random.Random(i))) for i in range(30)}
    assert len(drawn) > 1  # the others' choices, which `last` has not seen, are drawn again
    for chosen in drawn:
        assert [m[1] for m in chosen] == [m[1] for m in real]  # by the same players, in the same order
    assert type(k) is KState


@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_a_search_bot_at_a_choice_made_in_part_searches_on_the_kernel(kind, monkeypatch):
    from fishrules.bots import MCTSBot, make_bot

    def engine(*args):  # pragma: no cover - what the test checks is not reached
        raise AssertionError("searched on the engine's machine")

    monkeypatch.setattr(MCTSBot, "_choose_on_engine", engine)
    for players, seed in ((2, 3), (3, 1), (5, 2)):
        k = _in_part(players, seed)
        p = k.waiting[-1]
        a = make_bot(kind, seed=1, iterations=60).choose(k, p)
        assert a.text in {b.text for b in k.legal_actions(p)}
        k.apply(a)
        assert type(k) is KState


def test_the_search_keeps_its_choices_made_together_in_the_position(monkeypatch):
    # (no choices held beside the position and played together at the end: each is `choose`n)
    from fishrules.bots import MCTSBot, make_bot

    g = bundled_game("fisheatfish")
    k = g.start(3, seed=4)
    rng = random.Random(4)
    while k.current != "simultaneous":
        k.apply(k.legal_actions(k.waiting[0])[rng.randrange(len(k.legal_actions(k.waiting[0])))])

    def refused(*args, **kwargs):  # pragma: no cover - what the test checks is not reached
        raise AssertionError("choices played together from beside the position")

    def engine(*args):  # pragma: no cover
        raise AssertionError("searched on the engine's machine")

    monkeypatch.setattr(g.kernel.backend, "play_together", refused)
    monkeypatch.setattr(MCTSBot, "_choose_on_engine", engine)
    for p in list(k.waiting):
        k.apply(make_bot("mcts", seed=p, iterations=80).choose(k, p))
    assert type(k) is KState


@pytest.mark.parametrize("name", ["fishfry", "fatfish", "fisheatfish"])
def test_a_games_own_history_replayed_with_its_seed_stays_on_the_kernel(name, no_twin):
    """`Game.replay(history, seed=…)` of a seeded game's own history: the seeded game plays it on the
    kernel (it replayed by hand, and moved onto the engine at the first chance entry), equal to the
    original and going on as it would (its generator where the original's is)."""
    g = bundled_game(name)
    players = g.max_players
    for seed in (3, 4):
        s = g.start(players, seed=seed)
        rng = random.Random(seed)
        for _ in range(25):
            if s.is_over:
                break
            acts = s.legal_actions(s.waiting[0]) if s.current == fishrules.SIMULTANEOUS else s.legal_actions()
            s.apply(acts[rng.randrange(len(acts))])
        r = g.replay(s.history, players=players, seed=seed)
        assert type(r) is KState and r == s and (r.seed, r.draws, r.manual) == (s.seed, s.draws, False)
        for _ in range(10):
            if s.is_over:
                break
            acts = s.legal_actions(s.waiting[0]) if s.current == fishrules.SIMULTANEOUS else s.legal_actions()
            text = acts[rng.randrange(len(acts))].text
            s.apply(text)
            r.apply(text)
            assert r.history == s.history and r == s


@pytest.mark.parametrize("name", RULESETS)
def test_an_action_space_and_an_observation_layout_ask_no_engine(name, no_twin):
    """The spaces count the dice of a game started for the purpose (`dice_ids`, from the position's
    header): that state no longer replays onto the engine's machine."""
    g = fishrules.load(name, backend="native")
    for players in _players(g):
        e = State._new(g, players, g._options(None), 0, True)
        k = g.start(players, seed=0, chance="manual")
        assert k.dice_ids == e.dice_ids and type(k) is KState
        g.action_space(players)
        g.observation_spec(players)

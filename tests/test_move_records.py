"""A move crosses between the game kernel and the engine as a typed record, both ways, with no text
written or read to find it (issue 32, step 2).

The record is `fishrules.runtime.Move`: the action by number, the actor, the values as the engine
keeps them, the rule broken, whether it is a choice made together.  The kernel's `Boundary` turns a
kernel move into one and back; the engine keeps each move's Action beside its text in its history
(`recorded_moves`) and applies one (`play_move`) exactly as `apply` takes the Action it names,
refusals included.  What is counted here is the writing of texts: replaying a game into the kernel writes
none, a state leaving the kernel writes each move's text once (its history), a search writes only
its answer's."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules.errors import FishrulesError, RuleError
from fishrules.forms import ActionForm
from fishrules.kernel import Kernel, NativeError
from fishrules.kernel import abi as A
from fishrules.kernel.native import compiler
from fishrules.runtime import CHANCE, SIMULTANEOUS, Move, State, move_of, play_move, recorded_moves

from .hostile.test_actions import PARAMS
from .test_backends_refuse_alike import SECRET_BIDS

#: House rules with shapes the bundled ones lack: players and numbers as values, a secret number
#: chosen together after a die is rolled (PARAMS never ends: its games are cut).
HOUSE = {"params": PARAMS, "secret-bids": SECRET_BIDS}
RULESETS = fishrules.bundled() + list(HOUSE)
#: the most decisions a game of these tests plays
MOST = 400
_kernels: dict = {}

try:
    compiler()
    NATIVE = True
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    NATIVE = False


def load(name: str):
    return fishrules.loads(HOUSE[name], name=f"{name}.fish") if name in HOUSE else fishrules.load(name)


def kernel(name: str) -> Kernel:
    """The kernel's Python spelling (nothing to compile): the boundary is the same on both."""
    if name not in _kernels:
        _kernels[name] = Kernel(load(name), "python")
    return _kernels[name]


def engine_state(g, players: int, seed: int, **kw) -> State:
    return State._new(g, players, g._options(None), seed, kw.get("manual", False))


def played(g, players: int, seed: int, steps: int) -> State:
    """An engine state after `steps` random moves (or the game's end)."""
    st = engine_state(g, players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if st.is_over:
            break
        for p in (st.waiting if st.current == SIMULTANEOUS else [None]):
            acts = st.legal_actions(p)
            st.apply(acts[rng.randrange(len(acts))])
    return st


@pytest.fixture
def texts_written(monkeypatch):
    """How many action texts are written (`ActionForm.render`, which every text goes through) from now on."""
    count = [0]
    render = ActionForm.render

    def counting(self, values):
        count[0] += 1
        return render(self, values)

    monkeypatch.setattr(ActionForm, "render", counting)
    return count


@pytest.mark.parametrize("name", RULESETS)
def test_every_legal_move_crosses_typed_both_ways(name):
    """At every decision of a game, at the fewest and the most players: each kernel move is the
    engine's legal action's typed record, in the same order, and back; its text is the engine's.
    The kernel is stepped by the moves the engine's actions become (no text between them)."""
    k = kernel(name)
    g, be, bd = k.game, k.backend, k.boundary
    for players in (g.min_players, g.max_players):
        st = engine_state(g, players, 1)
        S = be.new(players, g._options(None), 1)
        be.start(S, False)
        rng = random.Random(players)
        for _ in range(MOST):
            if st.is_over:
                break
            together = st.current == SIMULTANEOUS
            assert (S[A.H_CUR] == A.CUR_SIMUL) == together and (together or S[A.H_CUR] == st.current)
            chosen = []
            for p in (st.waiting if together else [st.current]):
                kms = be.moves(S, p)
                acts = st.legal_actions(p if together else None)
                records = [move_of(a) for a in acts]
                assert [bd.move(m, together) for m in kms] == records
                assert [bd.kernel_move(r) for r in records] == kms
                assert [bd.text(m, together) for m in kms] == [a.text for a in acts]
                a = acts[rng.randrange(len(acts))]
                chosen.append(bd.kernel_move(move_of(a)))
                st.apply(a)
            if together:
                be.play_together(S, tuple(chosen))
            else:
                be.play(S, chosen[0])
        assert (S[A.H_CUR] == A.CUR_OVER) == st.is_over and be.scores(S) == st.scores()


@pytest.mark.parametrize("name", RULESETS)
def test_the_history_keeps_each_move_typed_beside_its_text(name):
    """Every move of the history has its `Move` (chance has none), and applying those records
    to a new game (`play_move`) is the same game: the same history, texts byte for byte."""
    g = load(name)
    for players in (g.min_players, g.max_players):
        st = played(g, players, 2, MOST)
        texts, moves = st.history, recorded_moves(st)
        assert len(moves) == len(texts)
        again = engine_state(g, players, 2)
        for move in moves:
            if move is not None:  # chance entries come again from the same seeded generator
                assert isinstance(move, Move)
                play_move(again, move)
        assert again.history == texts and again == st
        assert recorded_moves(again) == moves
        # a state read back from its record keeps the same typed moves
        assert recorded_moves(g.replay(texts, players=players)) == moves


@pytest.mark.parametrize("name", RULESETS)
def test_replaying_a_game_into_the_kernel_writes_no_text(name, texts_written):
    k = kernel(name)
    g = k.game
    for players in (g.min_players, g.max_players):
        st = played(g, players, 3, 40)
        if st.current == CHANCE:
            continue
        st.history  # noqa: B018 - the record's list, made before counting
        texts_written[0] = 0
        S = k.state_of(st)
        assert texts_written[0] == 0
        if not st.is_over and st.current != SIMULTANEOUS:
            assert [k.boundary.text(m) for m in k.backend.moves(S, st.current)] == [a.text for a in st.legal_actions()]


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("name", ["fatfish", "fisheatfish", "fishfry"])
def test_a_state_leaving_the_kernel_writes_each_move_s_text_once(name, texts_written):
    """A state deciding on the kernel keeps its record there (its history is asked for), then
    becomes the engine's (one of the engine's own fields is asked for): either way its moves cross as
    records, and each move's text is written once, for the history."""
    g = fishrules.load(name, backend="native")
    for players in (g.min_players, g.max_players):
        s = g.start(players, seed=4)
        rng = random.Random(4)
        moves = 0
        for _ in range(60):
            if s.is_over:
                break
            p = s.waiting[0]
            acts = s.legal_actions(p)
            s = s.apply(acts[rng.randrange(len(acts))])
            moves += 1
        assert s._ks is not None  # still on the kernel
        texts_written[0] = 0
        history = list(s.history)
        assert s._ks is not None  # the kernel keeps the record
        assert texts_written[0] <= moves
        texts_written[0] = 0
        s.stack
        assert s._ks is None  # the engine's now
        assert texts_written[0] <= moves
        assert s.history == history == played_like(g, players, 4, moves)


def played_like(g, players: int, seed: int, moves: int) -> list:
    """The history of the engine's own game with the same random choices as the test above."""
    st = engine_state(g, players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        p = st.waiting[0]
        acts = st.legal_actions(p)
        st.apply(acts[rng.randrange(len(acts))].text)
    return st.history


def _refusal(fn):
    try:
        fn()
    except FishrulesError as exc:
        return type(exc).__name__, str(exc)
    return None


def _refused_alike(st: State, move: Move) -> str:
    """`play_move` refuses `move` in the words `apply` refuses the `Action` it names with (an
    action of this game, for its actor), and changes nothing."""
    before = st.to_dict()
    action = st.clone()._action_of(move)
    want = _refusal(lambda: st.clone().apply(action))
    got = _refusal(lambda: play_move(st, move))
    assert want is not None and got == want, (move, action)
    assert st.to_dict() == before
    return got[1]


def test_a_typed_move_that_is_not_legal_is_refused_as_apply_refuses_it():
    g = fishrules.load("fisheatfish")
    pick = list(g.model.actions).index("pick_colour")
    st = engine_state(g, 2, 1)
    me = st.current
    assert _refused_alike(st, Move(pick, me, ("orange",))).endswith(
        "'orange' is not a possible `chosen` now (possible: red, yellow, green, blue)")
    assert _refused_alike(st, Move(pick, 1 - me, ("red",))).endswith(f"this is p{1 - me}'s action, but p{me} is to act")
    assert "there is no action" in _refused_alike(st, Move(pick, me, ("red",), together=True))  # `p0: pick_colour red`
    with pytest.raises(fishrules.IllegalAction, match="there is no such action in these rules"):
        play_move(st, Move(99, me, ()))
    play_move(st, Move(pick, me, ("red",)))
    assert st.history[-1] == "pick_colour red"
    assert 'breaks the rule "a colour of one\'s own"' in _refused_alike(st, Move(pick, st.current, ("red",)))
    # at a simultaneous choice: a player who has chosen already
    rng = random.Random(1)
    while st.current != SIMULTANEOUS:
        acts = st.legal_actions()
        st.apply(acts[rng.randrange(len(acts))])
    first = st.waiting[0]
    card = move_of(st.legal_actions(first)[0])
    assert card.together and card.actor == first
    play_move(st, card)
    assert st.history[-1].startswith(f"p{first}: ") and first not in st.waiting
    assert "has chosen already" in _refused_alike(st, card)
    # chance to play, and a game over
    manual = engine_state(fishrules.load("fishfry"), 2, 1, manual=True)
    assert manual.current == CHANCE
    stay = list(manual.game.model.actions).index("stay")
    assert "chance is to play now" in _refused_alike(manual, Move(stay, 0, ()))
    over = played(g, 2, 5, 10**6)
    assert over.is_over
    assert _refused_alike(over, Move(pick, 0, ("red",))).endswith("the game is over")


def test_a_rule_that_goes_wrong_under_a_typed_move_is_the_engines_error():
    g = fishrules.loads('game "Zero"\nplayers 2 to 2\neach player has n: number\n'
                        'score "s": your n\n'
                        'phase game:\n  for each player:\n    player chooses pass or zero\n'
                        'action pass:\n  add 1 to your n\n'
                        'action zero:\n  add divide(10, your n) to your n\n', backend="python")
    st = engine_state(g, 2, 1)
    zero = Move(list(g.model.actions).index("zero"), 0, ())
    with pytest.raises(RuleError) as got:
        play_move(st, zero)
    with pytest.raises(RuleError) as want:
        st.clone().apply("zero")
    assert got.value.render() == want.value.render()
    assert st.history == [] and st == engine_state(g, 2, 1)


def test_a_determinization_s_record_keeps_no_typed_moves_and_still_replays():
    """What one player saw holds no typed moves (they could tell identical cards apart where the
    texts do not); a determinization played on is still replayed into the kernel, by its texts."""
    k = kernel("fisheatfish")
    st = played(k.game, 2, 6, 12)
    d = st.determinize(st.waiting[0], random.Random(1), chance="seeded")
    assert d.history == st.history_for(st.waiting[0])
    assert set(recorded_moves(d)) == {None}
    p = d.waiting[0]
    d.apply(d.legal_actions(p if d.current == SIMULTANEOUS else None)[0])
    S = k.state_of(d)
    if d.current != SIMULTANEOUS and not d.is_over:
        assert [k.boundary.text(m) for m in k.backend.moves(S, d.current)] == [a.text for a in d.legal_actions()]


def test_a_search_on_the_kernel_writes_only_its_answer_s_texts(texts_written):
    from fishrules.kernel.search import Worlds, uct

    k = kernel("fisherman")
    st = played(k.game, 3, 7, 30)
    me = st.current
    worlds = Worlds(k, st, me)
    texts_written[0] = 0
    stats = uct(worlds, me, 3, 200, None, 0.7, random.Random(1), True, lambda w, s: [float(p in w) for p in range(3)])
    assert texts_written[0] <= len(stats)
    assert set(stats) <= {a.text for a in st.legal_actions()}

"""A choice made together (simultaneous and secret) is kept in the kernel's position.

Each player's move is appended to the waiting frame's `chosen` as it is made (`choose`, both
spellings: `fk_choose` in C); the last one runs the block.  So a state holding a choice in part is
a kernel position like any other: it stays on the kernel for its record, views, equality, JSON,
clones and playouts, and agrees with the engine twin on each of them; and what a seat may not see
of another's choice is hidden from it at every moment.
"""

from __future__ import annotations

import json
import random

import pytest

import fishrules
from fishrules import SIMULTANEOUS, IllegalAction
from fishrules.kernel import Kernel
from fishrules.kernel import abi as A
from fishrules.kernel.apistate import KState, position_of
from fishrules.kernel.pyruntime import KFault
from fishrules.runtime import State

from ._twins import bundled_game

def _players(g) -> list:
    return sorted({g.min_players, g.max_players})


@pytest.mark.parametrize("backend", ["python", "native"])
def test_both_spellings_keep_each_choice_in_the_position(backend):
    # choices made one at a time, in any order, come to the very position of all of them given at
    # once; a second choice of one player, and a choice of a player not choosing, are refused
    # with the position untouched
    g = bundled_game("fisheatfish")
    k = g.kernel if backend == "native" else Kernel(g, "python")
    be = k.backend
    for players in _players(g):
        for seed in range(3):
            S = be.new(players, g._options(None), seed)
            be.start(S, False)
            T = k.copy_state(S)
            rng = random.Random(seed)
            groups = 0
            while S[A.H_CUR] != A.CUR_OVER:
                if S[A.H_CUR] != A.CUR_SIMUL:
                    m = rng.choice(be.moves(S, S[A.H_CUR]))
                    be.play(S, m)
                    be.play(T, m)
                    continue
                groups += 1
                who = be.who_together(S)
                picks = {p: rng.choice(be.moves(S, p)) for p in who}
                be.play_together(T, tuple(picks[p] for p in who))
                order = list(who)
                rng.shuffle(order)
                for n, p in enumerate(order):
                    be.choose(S, picks[p])
                    if n + 1 == len(order):
                        break
                    assert [m[1] for m in be.chosen_together(S)] == order[:n + 1]
                    before = list(S)
                    for again in (picks[p], picks[order[0]]):  # chosen already
                        with pytest.raises(KFault):
                            be.choose(S, again)
                        assert list(S) == before
                    outsider = [q for q in range(players) if q not in who]
                    if outsider:  # a player not choosing here
                        with pytest.raises(KFault):
                            be.choose(S, (picks[p][0], outsider[0]) + tuple(picks[p][2:]))
                        assert list(S) == before
                assert list(S) == list(T)
            assert list(S) == list(T) and groups


def _engine(g, players, seed):
    return State._new(g, players, g._options(None), seed, False)


def _at_a_choice(g, players, seed, rng, made=1):
    """A KState and its engine twin at a choice made together, `made` of its players chosen."""
    k = g.start(players, seed=seed)
    e = _engine(g, players, seed)
    for _ in range(400):
        if k.current == SIMULTANEOUS or k.is_over:
            break
        text = rng.choice(e.legal_actions()).text
        k.apply(text)
        e.apply(text)
    assert k.current == SIMULTANEOUS
    for _ in range(made):
        p = k.waiting[0]
        text = rng.choice(e.legal_actions(p)).text
        k.apply(text)
        e.apply(text)
    return k, e


def _same_as_engine(k, e):
    n = k.n
    assert type(k) is KState
    assert k.current == e.current and k.waiting == e.waiting
    assert k.history == e.history and k.redact == e.redact
    for p in [None, *range(n)]:
        assert k.view(p) == e.view(p)
        assert k.history_for(p) == e.history_for(p)
        assert k.events_for(p) == e.events_for(p)
        if p is not None:
            assert [a.text for a in k.legal_actions(p)] == [a.text for a in e.legal_actions(p)]
    data = k.to_dict()
    assert data["position"] is not None and data == e.to_dict()
    assert k == e and e == k
    assert type(k) is KState


@pytest.mark.parametrize("players", [2, 5])
def test_a_choice_held_in_part_stays_on_the_kernel_and_is_the_engines(players):
    g = bundled_game("fisheatfish")
    rng = random.Random(players)
    k, e = _at_a_choice(g, players, 3, rng)
    while not k.is_over:
        _same_as_engine(k, e)
        c = k.clone()
        assert c == k and hash(c) == hash(k) and type(c) is KState
        back = g.state_from_json(k.to_json())
        assert type(back) is KState and back == k and back.to_dict() == k.to_dict()
        assert back.waiting == k.waiting
        p = k.waiting[0] if k.current == SIMULTANEOUS else None
        text = rng.choice(e.legal_actions(p)).text
        k.apply(text)
        e.apply(text)
        assert back != k or back.history == k.history
    _same_as_engine(k, e)


def test_a_second_choice_is_refused_in_the_engines_words():
    g = bundled_game("fisheatfish")
    rng = random.Random(5)
    k, e = _at_a_choice(g, 3, 5, rng)
    chose = next(p for p in range(3) if p not in k.waiting)
    outsider = k.waiting[0]
    attempts = [f"p{chose}: " + k.legal_actions(outsider)[0].text.split(": ", 1)[1],
                f"p{outsider + 7}: x", f"p{chose}: nonsense"]
    for text in attempts:
        with pytest.raises(IllegalAction) as got:
            k.apply(text)
        with pytest.raises(IllegalAction) as want:
            e.apply(text)
        assert str(got.value) == str(want.value)
        assert type(k) is KState
    assert "has chosen already" in str(pytest.raises(IllegalAction, k.apply, attempts[0]).value)
    # an action object of the chooser's, listed before it chose, is refused too
    k2, e2 = _at_a_choice(g, 3, 5, random.Random(5), made=0)
    p = k2.waiting[0]
    act, eact = k2.legal_actions(p)[0], e2.legal_actions(p)[0]
    k2.apply(act)
    e2.apply(eact)
    with pytest.raises(IllegalAction) as got:
        k2.apply(act)
    with pytest.raises(IllegalAction) as want:
        e2.apply(eact)
    assert str(got.value) == str(want.value) and type(k2) is KState
    _same_as_engine(k2, e2)


def _seen(s, q):
    out = [s.view(q), s.history_for(q), s.events_for(q), s.current, s.waiting]
    if q is not None:
        out += [s.observation(q), [a.text for a in s.legal_actions(q)]]
    return out


#: three or four players bid together, three times: the second and third choices are held too
SECRET = """\
game "Secret bids"
players 3 to 4
each player has points: number
score "points": your points
winners: players with the highest score

phase game:
  repeat 3 times:
    each of players secretly chooses bid

action bid(n: a number from 1 to 3):
  add n to your points
"""


def _secret_games():
    yield "fisheatfish", bundled_game("fisheatfish")
    yield "secret bids", fishrules.loads(SECRET, "secret.fish", backend="native")


@pytest.mark.parametrize("which", ["fisheatfish", "secret bids"])
def test_a_secret_choice_cannot_be_learned_by_another_seat(which):
    # Twins alike but in one secret choice of a choice made together (the first, the second, ...
    # but the last): every other seat (and a spectator) sees the same in both -- view, history,
    # events, observation, legal actions, who is waited for -- after a clone and after a JSON
    # round trip, until everybody has chosen.  The choice is in the position (the whole state),
    # so the twins are not equal, and each one's JSON reads back as itself.
    g = dict(_secret_games())[which]
    players = g.max_players
    tried = 0
    for seed in range(8):
        base, _ = _at_a_choice(g, players, seed, random.Random(seed), made=0)
        who = list(base.waiting)
        for held in range(len(who) - 1):  # the choice that differs is the held-th made
            a, b = base.clone(), base.clone()
            for s in (a, b):
                for p in who[:held]:
                    s.apply(s.legal_actions(p)[0].text)
            chooser = who[held]
            options = [x.text for x in a.legal_actions(chooser)]
            if len(options) < 2:
                continue
            tried += 1
            a.apply(options[0])
            b.apply(options[-1])
            assert a.current == SIMULTANEOUS and a != b and type(a) is KState and type(b) is KState
            assert position_of(a._ks[0], a._ks[1]) != position_of(b._ks[0], b._ks[1])
            ja, jb = (g.state_from_json(json.dumps(s.to_dict())) for s in (a, b))
            assert ja == a and jb == b and type(ja) is KState
            others = [None] + [q for q in range(players) if q != chooser]
            for q in others:
                assert _seen(a, q) == _seen(b, q), (seed, held, q)
                assert _seen(a.clone(), q) == _seen(b.clone(), q), (seed, held, q)
                assert _seen(ja, q) == _seen(jb, q), (seed, held, q)
                assert f"p{chooser}: ?" in a.history_for(q)
            assert a.history_for(chooser) != b.history_for(chooser)
            # the others choose alike: hidden until the last has chosen
            for p in who[held + 1:-1]:
                for s in (a, b):
                    s.apply(s.legal_actions(p)[0].text)
                for q in others:
                    assert _seen(a, q) == _seen(b, q), (seed, held, q)
            assert type(a) is KState and type(b) is KState
    assert tried >= 3


def test_a_playout_from_a_choice_held_in_part_is_the_kernels():
    g = bundled_game("fisheatfish")
    for players in _players(g):
        for seed in range(3):
            k, _ = _at_a_choice(g, players, seed, random.Random(seed))
            assert len(k.waiting) < len(k._ks[0].backend.who_together(k._ks[1]))
            out = k.playout(random.Random(seed))
            assert type(k) is KState and k.is_over
            assert out.scores == k.scores() and out.winners == k.winners()
            twin = k._twin()  # the same game played by the kernel's rules of chance and choice
            assert twin.scores() == k.scores() and twin == k and type(k) is KState


def test_the_c_entry_point_refuses_a_position_it_cannot_read():
    # fk_choose reads where the waiting frame keeps `who` and `chosen` from the position itself:
    # a position changed by hand (its depth, the waiting block, the lengths of the buffers) is
    # refused, FAULT_RULE, never read past its frames
    g = bundled_game("fisheatfish")
    be = g.kernel.backend
    S = be.new(2, g._options(None), 1)
    be.start(S, False)
    while S[A.H_CUR] != A.CUR_SIMUL:
        be.play(S, be.moves(S, S[A.H_CUR])[0])
    move = be.moves(S, be.who_together(S)[0])[0]
    top = be.top_frame(S)
    who_at, _ = be._together(S, "who")
    chosen_at, _ = be._together(S, "chosen")
    lay = g.kernel.program.layout
    edits = [(A.H_DEPTH, 10 ** 6), (A.H_DEPTH, 0), (A.H_DEPTH, -5), (top, -1), (top, 10 ** 9), (A.H_SITE, 10 ** 9),
             (who_at, 10 ** 9), (who_at, -1), (chosen_at, 10 ** 9), (chosen_at, 3), (chosen_at, -lay.move_width),
             (A.H_CUR, A.CUR_OVER)]
    for at, value in edits:
        T = g.kernel.copy_state(S)
        T[at] = value
        before = list(T)
        with pytest.raises(KFault) as got:
            be.choose(T, move)
        assert got.value.code == A.FAULT_RULE and list(T) == before, (at, value)
    be.choose(S, move)  # the position as the kernel wrote it takes it
    assert S[A.H_CUR] == A.CUR_SIMUL and be.waiting_together(S) == [p for p in be.who_together(S) if p != move[1]]

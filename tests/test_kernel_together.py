"""A choice made together (simultaneous and secret) is kept in the kernel's position.

Each player's move is appended to the waiting frame's `chosen` as it is made (`choose`, both
spellings: `fk_choose` in C); the last one runs the block.  So a state holding a choice in part is
a kernel position like any other: it stays on the kernel for its record, views, equality, JSON,
clones and playouts, and agrees with the engine on each of them (its answers frozen in
tests/golden/engine/test_kernel_together.json by `freeze`, tests/tools/freeze_engine.py, while the
engine lived); and what a seat may not see of another's choice is hidden from it at every moment.
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

from ._frozen import digests, frozen, plain, same_step
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


def _at_a_choice(g, players, seed, rng, made=1, start=None):
    """A KState (or what `start(g, players, seed)` gives) at a choice made together, `made` of
    its players chosen."""
    k = g.start(players, seed=seed) if start is None else start(g, players, seed)
    for _ in range(400):
        if k.current == SIMULTANEOUS or k.is_over:
            break
        k.apply(rng.choice(k.legal_actions()).text)
    assert k.current == SIMULTANEOUS
    for _ in range(made):
        p = k.waiting[0]
        k.apply(rng.choice(k.legal_actions(p)).text)
    return k


def _record(s) -> dict:
    """A state as the engine's answers are frozen: who is waited for, the record, every seat's view,
    history, events and legal texts, and its data (`to_dict`)."""
    seats = [None, *range(s.n)]
    return {"where": [s.current, s.waiting], "history": [s.history, s.redact],
            "seats": [[s.view(p), s.history_for(p), s.events_for(p),
                       None if p is None else [a.text for a in s.legal_actions(p)]] for p in seats],
            "dict": s.to_dict()}


def _same_as_engine(k, want: dict, step: int):
    assert type(k) is KState
    assert k.to_dict()["position"] is not None
    same_step(_record(k), want, step, f"step {step}")
    assert type(k) is KState


def _held_game(s, rng, check) -> int:
    """Play `s` (at a choice held in part) to its end, `check(s, step)` at every step; how many."""
    step = 0
    while not s.is_over:
        check(s, step)
        p = s.waiting[0] if s.current == SIMULTANEOUS else None
        s.apply(rng.choice(s.legal_actions(p)).text)
        step += 1
    check(s, step)
    return step


@pytest.mark.parametrize("players", [2, 5])
def test_a_choice_held_in_part_stays_on_the_kernel_and_is_the_engines(players):
    g = bundled_game("fisheatfish")
    want = frozen("test_kernel_together")["held"][str(players)]
    rng = random.Random(players)
    k = _at_a_choice(g, players, 3, rng)

    def check(k, step):
        _same_as_engine(k, want, step)
        if k.is_over:
            return
        c = k.clone()
        assert c == k and hash(c) == hash(k) and type(c) is KState
        back = g.state_from_json(k.to_json())
        assert type(back) is KState and back == k and back.to_dict() == k.to_dict()
        assert back.waiting == k.waiting

    steps = _held_game(k, rng, check)
    assert steps == len(want["steps"]) - 1


def _attempts(s) -> list:
    """Texts that are no choice of anybody's now, at a choice made together with one chosen."""
    chose = next(p for p in range(s.n) if p not in s.waiting)
    outsider = s.waiting[0]
    return [f"p{chose}: " + s.legal_actions(outsider)[0].text.split(": ", 1)[1], f"p{outsider + 7}: x",
            f"p{chose}: nonsense"]


def _refused(call) -> str:
    with pytest.raises(IllegalAction) as got:
        call()
    return str(got.value)


def test_a_second_choice_is_refused_in_the_engines_words():
    g = bundled_game("fisheatfish")
    want = frozen("test_kernel_together")["second choice"]
    k = _at_a_choice(g, 3, 5, random.Random(5))
    attempts = _attempts(k)
    for text, engine in zip(attempts, want["refused"], strict=True):
        assert _refused(lambda: k.apply(text)) == engine
        assert type(k) is KState
    assert "has chosen already" in str(pytest.raises(IllegalAction, k.apply, attempts[0]).value)
    # an action object of the chooser's, listed before it chose, is refused too
    k2 = _at_a_choice(g, 3, 5, random.Random(5), made=0)
    act = k2.legal_actions(k2.waiting[0])[0]
    k2.apply(act)
    assert _refused(lambda: k2.apply(act)) == want["again"] and type(k2) is KState
    _same_as_engine(k2, want, 0)


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
        base = _at_a_choice(g, players, seed, random.Random(seed), made=0)
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
            k = _at_a_choice(g, players, seed, random.Random(seed))
            assert len(k.waiting) < len(k._ks[0].backend.who_together(k._ks[1]))
            out = k.playout(random.Random(seed))
            assert type(k) is KState and k.is_over
            assert out.scores == k.scores() and out.winners == k.winners()
            # the game the engine played from there by the kernel's rules of chance and choice
            assert plain(out) == frozen("test_kernel_together")["playout"][f"{players}/{seed}"]


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


# ---- the engine's answers, frozen (tests/tools/freeze_engine.py) -------------------------------------


def freeze(engine) -> dict:
    """What the engine answered in the games above (run by tests/tools/freeze_engine.py while it lived)."""
    from fishrules.limits import MAX_PLAYOUT_DECISIONS

    g = bundled_game("fisheatfish")
    out: dict = {"held": {}, "playout": {}}
    for players in (2, 5):
        rng = random.Random(players)
        e = _at_a_choice(g, players, 3, rng, start=engine.start)
        steps: list = []
        _held_game(e, rng, lambda e, step: steps.append(digests(plain(_record(e)))))
        out["held"][str(players)] = {"steps": steps, "whole": {}}
    e = _at_a_choice(g, 3, 5, random.Random(5), start=engine.start)
    refused = [_refused(lambda: e.apply(text)) for text in _attempts(e)]
    e2 = _at_a_choice(g, 3, 5, random.Random(5), made=0, start=engine.start)
    act = e2.legal_actions(e2.waiting[0])[0]
    e2.apply(act)
    out["second choice"] = {"refused": refused, "again": _refused(lambda: e2.apply(act)),
                            "steps": [digests(plain(_record(e2)))], "whole": {}}
    for players in _players(g):
        for seed in range(3):
            e = _at_a_choice(g, players, seed, random.Random(seed), start=engine.start)
            rng = random.Random(seed)  # the two seeds `KState.playout(rng)` draws, played as it plays them
            cseed, dseed = rng.getrandbits(63), rng.getrandbits(63)
            e.seed, e.draws = cseed, 0
            got = engine.playout(g, players, cseed, state=e, dseed=dseed, limit=MAX_PLAYOUT_DECISIONS + 1)
            out["playout"][f"{players}/{seed}"] = [got.scores, got.winners, got.decisions, got.chances]
    return out

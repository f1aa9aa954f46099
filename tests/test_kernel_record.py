"""The record of a game on the kernel (fishrules.kernel.record) is the engine's: the history's texts,
what each player may not read of it (`redact`), each seat's history, at every step of random games
of every bundled ruleset at its fewest and most players and of house rules with secret and
simultaneous choices, `seen by` values, reveals and `play again`; and a state that is asked for
it stays on the kernel (no replay onto the engine).

The engine's records of these games are frozen in tests/golden/engine/record.json
(tests/tools/freeze_engine.py, from the engine's own machine while it lived): a digest of each part
at every step, the whole of the first step.  On the native backend through the API's
`KState`; on the Python kernel by driving the backend directly with the record kept, move by move.
Twin positions that differ only in cards a seat may not see give that seat the same record."""

from __future__ import annotations

import random
from typing import Optional

import pytest

import fishrules
from fishrules.kernel import abi as A
from fishrules.kernel.apistate import KState
from fishrules.runtime import State

from .test_backends_refuse_alike import SECRET_BIDS
from ._frozen import frozen, same_length, same_step
from ._twins import skip_without_compiler

skip_without_compiler()

RULESETS = fishrules.bundled()

#: House rules with what the bundled ones lack: a zone and a number `seen by` a role that moves on,
#: a face-up draw into a secret hand, a secret parameter at a simultaneous choice and at a turn,
#: lists, a yes or no, a choice of words, reveals, and `play again` when both dice show LOW.
LEDGER = """\
game "Ledger"
players 2 to 3
dice: 2 with faces LOW 1, HIGH 2

cards tile: kind in Red x 3, Blue x 3, Gold x 2, Jade x 2

the game has watcher: player
the game has vault: zone of tile seen by watcher
the game has tally: number seen by watcher
the game has hidden pool: zone of tile
the game has table: zone of tile
the game has mood: one of calm, angry
the game has notes: list of numbers
the game has alarm: yes or no
the game has internal rounds: number
each player has secret hand: zone of tile
each player has secret bid: number
each player has shown: number
each player has marks: list of numbers

phase game:
  set watcher to first(players)
  move tile to pool face down
  shuffle pool
  for each player:
    draw 2 from pool to player's hand
  draw 2 from pool to vault
  draw from pool to table face up
  repeat 3 times:
    roll all dice
    each of players secretly chooses offer or hold
    set watcher to left of watcher
    add sum(value of dice) to tally
    add sum(value of dice) to notes
    draw from pool to vault
    for each player:
      player chooses pass or peek or give or flip
  set alarm to yes
  reveal vault
  if every die shows LOW:
    play again
  move vault to table

action offer(secret n: a number from 1 to 3):
  set your bid to n
  add n to your marks

action hold:
  set your bid to 0
  clear your marks

action pass:
  add 1 to your shown

action peek(card: one of your hand):
  move card to table face down
  draw from pool to your hand face up

action give(secret card: one of your hand):
  move card to vault
  set mood to angry

action flip:
  reveal your hand
  move your hand to table face down
  set mood to calm

score "shown": your shown + count(your hand)
"""

HOUSE = {"ledger": LEDGER, "secret-bids": SECRET_BIDS}
_games: dict = {}


def game(name: str, backend: str = "native"):
    if (name, backend) not in _games:
        if name in HOUSE:
            g = fishrules.loads(HOUSE[name], f"{name}.fish", backend=backend)
        else:
            g = fishrules.load(name, backend=backend)
        g.kernel  # built: `start` gives states on the native kernel
        _games[(name, backend)] = g
    return _games[(name, backend)]


def whole_at(step: int, s) -> bool:
    """Whether all the events are compared at `step` (not only those since the last apply)."""
    return step % 8 == 0 or s.is_over


def record_of(s, since: int, whole: bool) -> dict:
    """The record of `s` for every seat and a spectator: the events `since` (a client that
    remembered the length of the history before the last apply), and all of them if `whole`."""
    seats = [None, *range(s.n)]
    seen = {"history": s.history, "redact": s.redact, "history_for": [s.history_for(p) for p in seats],
            "events since": [s.events_for(p, since) for p in seats], "views": [s.view(p) for p in seats]}
    if whole:
        seen["events"] = [s.events_for(p) for p in seats]
    return seen


def same_record(k: KState, want: dict, step: int, where: str, since: int, whole: bool) -> None:
    """The kernel's record of `k` is the engine's (frozen), and reading it leaves `k` on the kernel."""
    same_step(record_of(k, since, whole), want, step, where)
    assert type(k) is KState, f"{where}: reading the record made the state the engine's"


def play(g, players: int, seed: int, want: dict, check=same_record) -> None:
    """A random game on the kernel (a KState), `check`ed against the engine's at every step (the
    events since the last apply; all of them every 8th step and at the end)."""
    k = g.start(players, seed=seed)
    assert type(k) is KState
    rng = random.Random(seed)
    step, since = 0, 0
    where = f"{g.title} ({players} players, seed {seed})"
    while True:
        check(k, want, step, f"{where}, step {step}", since, whole_at(step, k))
        if k.is_over:
            break
        since = len(k.history)
        p = k.waiting[0]
        k = k.apply(k.legal_actions(p)[rng.randrange(len(k.legal_actions(p)))])
        step += 1
    same_length(step, want, where)
    assert type(k) is KState and k.winners() == want["winners"]


def test_the_engines_records_cover_every_game():
    assert sorted(frozen("record")["api"]) == sorted(frozen("record")["python"]) == sorted(RULESETS + sorted(HOUSE))


@pytest.mark.parametrize("name", RULESETS)
def test_the_record_of_every_bundled_ruleset_is_the_engines(name):
    g = game(name)
    for players in (g.min_players, g.max_players):
        seed = players + 11
        play(g, players, seed, frozen("record")["api"][name][f"{players}/{seed}"])


@pytest.mark.parametrize("name", sorted(HOUSE))
def test_the_record_of_house_rules_is_the_engines(name):
    g = game(name)
    kinds: set = set()

    def check(k, want, step, where, since, whole):
        same_record(k, want, step, where, since, whole)
        kinds.update(x["event"] for x in k.events_for(None))

    for players in (g.min_players, g.max_players):
        for seed in range(4):
            play(g, players, seed, frozen("record")["api"][name][f"{players}/{seed}"], check)
    if name == "ledger":  # what these rules are here for
        assert kinds == {"move", "set", "reveal", "restart", "over"}


def test_a_record_asked_for_now_and_then_is_the_same():
    """The record is worked out when asked for, from where it was last asked: asked at every third
    step, at the end only, and of clones, it is the same record."""
    g = game("fisheatfish")
    want = frozen("record")["now and then"]
    seed, players = 4, 3
    k = g.start(players, seed=seed)
    rng = random.Random(seed)
    step = 0
    while not k.is_over:
        if step % 3 == 0:
            c = k.clone()
            same_record(c, want, step, f"a clone, step {step}", 0, step % 9 == 0)
            same_record(k, want, step, f"step {step}", 0, step % 9 == 0)
        p = k.waiting[0]
        k = k.apply(k.legal_actions(p)[rng.randrange(len(k.legal_actions(p)))])
        step += 1
    same_record(k, want, step, "the end", 0, True)
    same_length(step, want, "fisheatfish")


# ---- driving a backend directly, with the record kept ------------------------------------------------


def traced(be, rc, rec, n: int, run, *args) -> None:
    rc.traced(be, rec, n, run, *args)


def drive(g, players: int, seed: int):
    """A random game played on the kernel's backend with the record kept: yields (S, record) at
    every step."""
    from fishrules.kernel.record import KRecord, Recorder  # (imported here: on main, the tests above fail one by one)

    kernel = g.kernel
    be = kernel.backend
    rc = Recorder(kernel)
    assert rc.can
    opts = g._options(None)
    S = be.new(players, opts, seed)
    rec = KRecord()
    traced(be, rc, rec, players, be.start, S, False)
    rng = random.Random(seed)
    while True:
        yield S, rec
        cur = S[A.H_CUR]
        if cur == A.CUR_OVER:
            return
        if cur == A.CUR_SIMUL:
            who = be.who_together(S)
            chosen = tuple(rng.choice(be.moves(S, q)) for q in who)
            for m in chosen:
                rc.move(rec, m, True)
            rc.unveil(rec, list(chosen))
            traced(be, rc, rec, players, be.play_together, S, chosen)
        else:
            m = rng.choice(be.moves(S, cur))
            rc.move(rec, m, False)
            traced(be, rc, rec, players, be.play, S, m)


def driven_record_of(s, since: Optional[int]) -> dict:
    """What the record of a game driven on a backend is compared in: the history, what each player
    may not read, and each seat's history and events `since` (all of them: None)."""
    seats = [None, *range(s.n)]
    return {"history": s.history, "redact": s.redact, "history_for": [s.history_for(p) for p in seats],
            "events": [s.events_for(p, since) for p in seats]}


class _Driven:
    """A game driven on a backend, read as a state's record is read (what `driven_record_of` asks)."""

    def __init__(self, g, S, rec, n: int):
        from fishrules.kernel.record import events_for

        be = g.kernel.backend
        self.n, self.history, self.redact = n, rec.history.list(), rec.redact
        self.history_for = rec.history_for
        self.events_for = lambda p, since: events_for(rec, g.program, n, p, since, lambda: be.winners(S),
                                                      lambda: be.scores(S))


@pytest.mark.parametrize("name", RULESETS + sorted(HOUSE))
def test_the_python_kernel_keeps_the_same_record(name):
    g = game(name, "python")
    assert g.kernel.backend.name == "python"
    for players in (g.min_players, g.max_players):
        want = frozen("record")["python"][name][str(players)]
        since = 0
        for step, (S, rec) in enumerate(drive(g, players, players + 5)):
            over = S[A.H_CUR] == A.CUR_OVER
            whole = step % 8 == 0 or over
            d = _Driven(g, S, rec, players)
            same_step(driven_record_of(d, None if whole else since), want, step, f"{name} ({players} players), step {step}")
            since = len(d.history)
        same_length(step, want, f"{name} ({players} players)")


# ---- hidden information: what a seat may not see cannot change its record ----------------------------


@pytest.mark.parametrize("backend", ["native", "python"])
@pytest.mark.parametrize("name", ["fatfish", "fisherman", "fishfish", "ledger"])
def test_a_card_a_seat_may_not_see_does_not_change_its_record(name, backend):
    """Twin games on the kernel, alike but for two face-down cards swapped after the set-up between
    zones a seat may not see (another seat's secret hand, a pile nobody sees, a zone `seen by`
    another): played on with the same moves while neither card comes where the seat sees it, the
    seat and a spectator read the same history, events and view in both; the seat who sees the
    first zone does not."""
    from fishrules.kernel.record import KRecord, Recorder, events_for
    from fishrules.kernel.views import Sight

    from .test_kernel_views import _hidden_pairs, _swap

    g = game(name, backend)
    kernel = g.kernel
    be, bd = kernel.backend, kernel.boundary
    rc, sight = Recorder(kernel), Sight(kernel)
    players, opts = g.max_players, g._options(None)
    found = told = 0
    def play(T, R, cur, moves) -> list:
        """Play `moves` (of the seat to act, or of everybody choosing together) with the record kept."""
        if cur == A.CUR_SIMUL:
            for m in moves:
                rc.move(R, m, True)
            rc.unveil(R, moves)
            run, args = be.play_together, (T, tuple(moves))
        else:
            rc.move(R, moves[0], False)
            run, args = be.play, (T, moves[0])
        return rc.traced(be, R, players, run, *args)

    for seed in range(8):
        S = be.new(players, opts, seed)
        rec = KRecord()
        traced(be, rc, rec, players, be.start, S, False)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 6)):
            cur = S[A.H_CUR]
            if cur == A.CUR_OVER:
                break
            who = be.who_together(S) if cur == A.CUR_SIMUL else (cur,)
            play(S, rec, cur, [rng.choice(be.moves(S, q)) for q in who])
        if S[A.H_CUR] == A.CUR_OVER:
            continue
        seat, pair = next(((q, got) for q in range(players) if (got := _hidden_pairs(g, S, q)) is not None), (0, None))
        if pair is None:
            continue
        za, zb, owner, x, y = pair
        twins = [(S, rec), (kernel.copy_state(S), rec.copy())]
        _swap(g, twins[1][0], za, zb, x, y)
        found += 1

        def seen_by_seat(trace) -> bool:
            """Whether x or y came where the seat sees it (or face up) in this trace."""
            for r in trace:
                if r[0] == 3 and any(c in (x, y) for c in r[4]) and (r[2] == 1 or rc._sees(r[1], seat, r[3])):
                    return True
                if r[0] == 4 and any(c in (x, y) for c in r[1]):
                    return True
            return False

        def read(T, R, p):
            cur = T[A.H_CUR]
            together = cur == A.CUR_SIMUL
            waiting = list(be.who_together(T)) if together else [cur] if cur >= 0 else []
            current = cur if cur >= 0 else fishrules.SIMULTANEOUS if together else None
            v = sight.view(T, players, opts, p, current, waiting, lambda: be.scores(T), lambda: be.winners(T),
                           lambda q: [bd.text(m, together) for m in be.moves(T, q)])
            v["history"] = R.history_for(p)
            return v, events_for(R, g.program, players, p, None, lambda: be.winners(T), lambda: be.scores(T))

        for step in range(40):
            for p in (seat, None):
                assert read(*twins[0], p) == read(*twins[1], p), f"seed {seed}, step {step}: viewer {p} tells the twins apart"
            told += read(*twins[0], owner) != read(*twins[1], owner)
            T0 = twins[0][0]
            cur = T0[A.H_CUR]
            if cur == A.CUR_OVER:
                break
            who = be.who_together(T0) if cur == A.CUR_SIMUL else (cur,)
            listed = [{q: be.moves(T, q) for q in who} for T, _ in twins]
            if [{q: [bd.text(m) for m in ms] for q, ms in x.items()} for x in listed] != \
                    [{q: [bd.text(m) for m in ms] for q, ms in listed[0].items()}] * 2:
                break  # the seats who see the cards may play them: the twins part
            picks = {q: rng.randrange(len(listed[0][q])) for q in who}
            chosen = [[x[q][picks[q]] for q in who] for x in listed]
            traces = [play(T, R, cur, moves) for (T, R), moves in zip(twins, chosen)]
            if any(seen_by_seat(t) for t in traces):
                break
    assert found, f"no twin positions were found in {name}"
    assert told, f"the owner of the swapped cards never told the twins apart in {name}"


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_call_that_fails_leaves_no_trace(backend):
    """A step the kernel cannot finish (here a value about to be changed by a division by zero: its
    old value is traced, the new never comes) leaves nothing of itself in the trace, as the engine
    undoes a failed call's record; the trace goes on whole after it."""
    from .test_backends_refuse_alike import ZERO_TOGETHER

    from fishrules.kernel import KFault

    g = fishrules.loads(ZERO_TOGETHER, "zero.fish", backend=backend)
    be = g.kernel.backend
    S = be.new(2, g._options(None), 1)
    be.start(S, False)
    zero = [m for m in be.moves(S, 0) if g.kernel.boundary.text(m) == "zero"][0]
    passing = [m for m in be.moves(S, 1) if g.kernel.boundary.text(m) == "pass"][0]
    T = g.kernel.copy_state(S)
    be.trace_on()
    try:
        with pytest.raises((KFault, ZeroDivisionError)):  # (the Python kernel's own way of going wrong)
            be.play_together(T, (passing, zero))
        assert be.trace_off() == []
    finally:
        be.trace_off()
    be.trace_on()
    try:
        be.play_together(S, (passing, passing))
    finally:
        trace = be.trace_off()
    assert [r[0] for r in trace] == [5, 5]  # each player's n changed, and nothing else


#: An action that changes a value 110,000 times (its record: 110,000 events).
BUSY = """\
game "Busy"
players 2 to 2
the game has n: number
phase game:
  for each player:
    player chooses done
  for each player:
    player chooses busy
action done:
  add 1 to n
action busy:
  repeat 110000 times:
    add 1 to n
score "n": n
"""


def test_a_record_the_kernel_cannot_work_out_is_the_engines(monkeypatch):
    """Deciding and applying stay on the kernel, and so does the record while the kernel can work it
    out; past that (a step whose record the kernel cannot keep: its trace's room, REC_MAX — here a
    fault while recording, made so, since the kernel counts a step's work alike recorded or not),
    the record is the engine twin's, read into the kernel's (what the kernel had recorded before is
    put back as it was, not kept half-written), and the state stays a KState, recording on the
    kernel from there."""
    from fishrules.kernel.pyruntime import KFault
    from fishrules.kernel.record import Recorder

    g = fishrules.loads(BUSY, "busy.fish", backend="native")
    g.kernel
    k = g.start(2, seed=1)
    e = State._new(g, 2, g._options(None), 1, False, count_rules=False)
    for _ in range(2):
        k.apply(k.legal_actions()[0])
        e.apply(e.legal_actions()[0].text)
    assert k.history == e.history and k.events_for(0) == e.events_for(0)
    assert type(k) is KState  # the record of the first moves, on the kernel
    c = k.clone()
    k.apply(k.legal_actions()[0])
    e.apply(e.legal_actions()[0].text)
    assert type(k) is KState  # the busy move played on the kernel

    def full(self, *args):
        raise KFault(A.FAULT_CAPACITY)

    monkeypatch.setattr(Recorder, "traced", full)
    assert k.history_for(0) == e.history_for(0) and k.events_for(1, 2) == e.events_for(1, 2)
    assert type(k) is KState  # the engine's record, read into the kernel's: the state stays a KState
    assert c.history == e.history[:2] and type(c) is KState  # a clone's record is its own
    monkeypatch.undo()  # (the kernel can record again)
    while not e.is_over:  # recorded on the kernel again from the engine's record on
        k.apply(k.legal_actions()[0])
        e.apply(e.legal_actions()[0].text)
        assert k.history == e.history and k.redact == e.redact and k.events_for(None) == e.events_for(None)
        assert k.view(1) == e.view(1) and repr(k) == repr(e) and k == e
    assert type(k) is KState

"""Wide moves (issue 32, step 5f): a move's record in the kernel is its block, the actor, then each
parameter where the action's offsets put it (`Layout.params_at`; a `some` parameter takes a count
and room for MAX_SUBSET things), as wide as the widest action's.  Rules whose moves are wider than
64 numbers (four `some` parameters are) were too large for the kernel (`layout.TooLarge`) and
played on the engine's own machine; they play on the kernel now, on both spellings, the API's
state a `KState` that answers exactly as the engine did (legal actions, history, views, scores),
chosen alone or together (its answers frozen while it lived:
tests/golden/engine/test_kernel_wide_moves.json).  The native kernel's lists of moves are bounded
in bytes (`abi.MOVE_BYTES`, grown up to `abi.MOVE_BYTES_MAX`), not in a count of moves of any width.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import fishrules
from fishrules.errors import FishrulesError
from fishrules.kernel import KFault, Kernel
from fishrules.kernel import abi as A
from fishrules.kernel import native
from fishrules.kernel.apistate import KState
from fishrules.kernel.apistate import start as kernel_start
from fishrules.runtime import SIMULTANEOUS

from ._frozen import digest, frozen, plain
from ._twins import BACKENDS, NATIVE, outcome, watched_fallback, watched_twins

#: four `some` parameters (70 numbers a move), a choice made together of three more; piles of a
#: few chips, so that a decision lists tens to hundreds of moves (also played under the sanitizers
#: and counted against the engine's work: tests/_sanitizers.py, tests/test_kernel_work.py)
RULES = (Path(__file__).parent / "games" / "wide-moves.fish").read_text()

_games: dict = {}
_kernels: dict = {}


def game(backend: str = "native") -> fishrules.Game:
    if backend not in _games:
        _games[backend] = fishrules.loads(RULES, "wide.fish", backend=backend)
    return _games[backend]


def kernel(backend: str) -> Kernel:
    if backend not in _kernels:
        _kernels[backend] = Kernel(game("python"), backend)
    return _kernels[backend]


@pytest.fixture
def twins(monkeypatch):
    return watched_twins(monkeypatch)


def begin(backend: str, players: int, seed: int) -> KState:
    """A game of the wide rules through the API: native, the game's own states; python, a KState
    on the kernel's Python spelling."""
    if backend == "native":
        return game("native").start(players, seed=seed)
    return kernel_start(game("python"), players, game("python")._options(None), seed, False, False,
                        kernel=kernel("python"))


def choices(s) -> list:
    return s.legal_actions(s.waiting[0]) if s.current == SIMULTANEOUS else s.legal_actions()


@pytest.mark.parametrize("backend", BACKENDS)
def test_rules_of_wide_moves_have_a_kernel(backend):
    k = kernel(backend)
    lay = k.program.layout
    assert k.name == backend and lay.move_width == 2 + 4 * (1 + lay.max_subset) > 64
    # each action's parameters where its records keep them: after the block and the actor
    assert lay.params_at == {"take": (2, 19, 36, 53), "pass": (), "bid": (2, 3, 20, 37)}


def _play(s, players: int, seed: int, check=lambda s: None) -> dict:
    """A random game of `s` (chosen texts and actions; at every decision two legal texts with a chip
    more, less or changed tried on a clone): at each step a digest of the legal texts, what the
    changed texts ended in, and then whose turn, history, scores and every seat's view."""
    rng, listed, steps = random.Random(seed), 0, []
    while not s.is_over:
        its = choices(s)
        listed = max(listed, len(its))
        tried = []
        for _ in range(2):  # a legal text with a chip more, less or changed: read, and refused
            words = rng.choice(its).text.split()  # or played, as the engine does
            at = rng.randrange(1, len(words) + 1)
            words[at:at + rng.randint(0, 1)] = [f"chip-{rng.randint(1, 12)}"] * rng.randint(0, 1)
            text = " ".join(words)
            s2 = s.clone()
            tried.append([text, outcome(lambda: s2.apply(text), FishrulesError), s2.history])
        i = rng.randrange(len(its))
        s.apply(its[i].text if rng.random() < 0.3 else its[i])  # (a text, and the state's own actions)
        check(s)
        steps.append(digest(plain([[a.text for a in its], tried, s.current, s.history, s.scores(),
                                   [s.view(p) for p in (None, *range(players))]])))
    return {"steps": steps, "listed": listed, "end": plain([s.winners(), s.score_parts()])}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("players", [2, 3])
def test_wide_moves_play_on_the_kernel_as_the_engine_plays_them(players, backend, twins):
    def on_kernel(s):
        assert type(s).__name__ == "KState" and s._ks[0].name == backend

    for seed in range(3):
        want = frozen("test_kernel_wide_moves")["games"][f"{players}/{seed}"]
        s = begin(backend, players, seed)
        on_kernel(s)
        got = _play(s, players, seed, on_kernel)
        for step, (mine, engine) in enumerate(zip(got["steps"], want["steps"])):
            assert mine == engine, f"seed {seed}: unlike the engine's game at step {step}"
        assert len(got["steps"]) == len(want["steps"]), f"seed {seed}: the engine's game was as long"
        assert got["end"] == want["end"]
        assert got["listed"] > 20  # (decisions of many wide moves were played)
    assert not twins  # the engine was never asked


@pytest.mark.parametrize("backend", BACKENDS)
def test_whole_games_of_wide_moves_play_on_the_kernel_as_on_the_engine(backend):
    k = kernel(backend)
    engine = watched_fallback(k)
    for seed in range(6):
        assert plain(list(k.playout(3, {}, seed).outcome)) == frozen("test_kernel_wide_moves")["playouts"][seed]
    assert game(backend).backend == backend
    sims = [p.scores for p in game(backend).simulate(20, 3, seed=4)]
    if NATIVE:  # the two spellings play the same games
        other = game("python" if backend == "native" else "native")
        assert sims == [p.scores for p in other.simulate(20, 3, seed=4)]
    assert not engine


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
def test_the_native_lists_of_moves_grow_within_their_bytes(monkeypatch):
    """A context keeps room for MOVE_BYTES of moves at first and grows it as a decision lists more,
    up to MOVE_BYTES_MAX: room for 3 moves at first lists the same 163 as the engine did; room for at
    most 100 is the kernel's capacity fault, not a write past the buffer."""
    w = kernel("native").program.layout.move_width
    monkeypatch.setattr(native, "MOVE_BYTES", 8 * w * 3)
    be = native.NativeBackend(kernel("native").program)
    assert be.moves_max == min(A.MOVES_CAP, A.MOVE_BYTES_MAX // (8 * w))
    S = be.new(2, {}, 0)
    be.start(S, False)
    texts = [kernel("native").boundary.text(mv) for mv in be.moves(S, 0)]
    assert digest(texts) == frozen("test_kernel_wide_moves")["first"] and len(texts) == 163
    for seed in range(5):  # playouts list into the grown room
        S = be.new(2, {}, seed)
        be.playout(S)
        assert S[A.H_CUR] == A.CUR_OVER
    monkeypatch.setattr(native, "MOVE_BYTES_MAX", 8 * w * 100)
    small = native.NativeBackend(kernel("native").program)
    assert small.moves_max == 100
    S = small.new(2, {}, 0)
    small.start(S, False)
    with pytest.raises(KFault) as got:
        small.moves(S, 0)
    assert got.value.code == A.FAULT_CAPACITY


def freeze(engine) -> dict:
    """What the engine answered (run by tests/tools/freeze_engine.py while it lived): its random
    games (`_play`), its playouts, and the legal texts at the start of a game of two."""
    g = game("python")
    return {"games": {f"{players}/{seed}": _play(engine.start(g, players, seed), players, seed)
                      for players in (2, 3) for seed in range(3)},
            "playouts": [plain(list(engine.playout(g, 3, seed))) for seed in range(6)],
            "first": digest([a.text for a in engine.start(g, 2, 0).legal_actions()])}

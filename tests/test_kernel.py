"""The game kernel plays exactly the engine's games, on both backends.

Every bundled ruleset and overlay (the hostile corpus: tests/hostile/test_kernel_rules.py): the
kernel (native code and Python), choosing by the kernel's choice generator
(`fishrules.kernel.pyruntime.decision_seed`), reaches the scores, winners, number of decisions and
of chance outcomes the engine's API loop reached from the same seed, or its error.  Stepped one
decision at a time, the kernel offers exactly the engine's legal actions, in the engine's order.  A
position played part-way plays on exactly as the engine's state did.

The engine's answers are frozen in tests/golden/engine/playouts.json (tests/tools/freeze_engine.py,
written from the engine's own machine while it lived).

The slow tier (`FISHRULES_SLOW_TESTS=1`) plays 10,000 games per ruleset against the engine (live:
it dies with the engine, plan §3 item 5).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import fishrules
from fishrules.errors import RuleError
from fishrules.kernel import Kernel, KFault
from fishrules.kernel import layout as L
from fishrules.kernel.pyruntime import below, decision_seed

from ._frozen import digest, frozen, plain
from ._twins import BACKENDS, NATIVE, kernel

RULESETS = fishrules.bundled()
SLOW = os.environ.get("FISHRULES_SLOW_TESTS") == "1"
#: the seeds of every ruleset's playouts at every player count
PLAYOUT_SEEDS = (1, 2, 3)
#: rules whose score divides by zero at the end of every game
ZERO = ('game "Zero"\nplayers 2 to 2\neach player has n: number\nscore "s": divide(10, your n)\n'
        'phase game:\n  for each player:\n    player chooses pass\naction pass:\n  add 0 to your n\n')


def decision_game_seed(players: int) -> int:
    """The seed of the game stepped one decision at a time."""
    return 11 + players


def outcome(k: Kernel, players: int, seed: int, options=None):
    """The kernel's outcome of a game (as the golden file holds it), or the text of its error."""
    try:
        return plain(list(k.playout(players, k.game._options(options), seed).outcome))
    except RuleError as e:
        return ["error", e.render()]


def test_the_engines_answers_cover_every_ruleset():
    for part in ("games", "decisions", "replayed"):
        assert sorted(frozen("playouts")[part]) == sorted(RULESETS), part


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", RULESETS)
def test_playouts_are_the_engines_games(name, backend):
    k = kernel(name, backend)
    g = k.game
    want = frozen("playouts")["games"][name]
    assert len(want) == (g.max_players - g.min_players + 1) * len(PLAYOUT_SEEDS)
    for players in range(g.min_players, g.max_players + 1):
        for seed in PLAYOUT_SEEDS:
            assert outcome(k, players, seed) == want[f"{players}/{seed}"], (players, seed)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", RULESETS)
def test_every_decision_offers_the_engines_actions(name, backend):
    k = kernel(name, backend)
    g, be, bd = k.game, k.backend, k.boundary
    for players in (g.min_players, g.max_players):
        want = frozen("playouts")["decisions"][name][str(players)]
        seed = want["seed"]
        assert seed == decision_game_seed(players)
        S = be.new(players, g._options(None), seed)
        be.start(S, False)
        ds, dd = decision_seed(seed), 0
        trace = iter(want["trace"])
        at = 0
        while S[L.H_CUR] != L.CUR_OVER:
            if S[L.H_CUR] == L.CUR_SIMUL:
                chosen = []
                for p in be.who_together(S):
                    moves = be.moves(S, p)
                    assert [p, 1, [bd.text(mv, True) for mv in moves]] == next(trace), (players, at)
                    j, dd = below(ds, dd, len(moves))
                    chosen.append(moves[j])
                    at += 1
                be.play_together(S, tuple(chosen))
                continue
            moves = be.moves(S, S[L.H_CUR])
            assert [S[L.H_CUR], 0, [bd.text(mv) for mv in moves]] == next(trace, None), (players, at)
            j, dd = below(ds, dd, len(moves))
            be.play(S, moves[j])
            at += 1
        assert next(trace, None) is None, f"{players} players: the engine's game went on after decision {at}"
        assert be.scores(S) == want["scores"] and be.winners(S) == want["winners"]


@pytest.mark.skipif(not NATIVE, reason="no C compiler here")
@pytest.mark.parametrize("name", RULESETS)
def test_both_backends_simulate_the_same_games(name):
    g = fishrules.load(name)
    py, native = kernel(name, "python"), kernel(name, "native")
    for players in (g.min_players, g.max_players):
        seeds = [fishrules.api.game_seed_of(5, i) for i in range(120)]
        opts = g._options(None)
        assert list(py.simulate(players, opts, seeds)) == list(native.simulate(players, opts, seeds))


def _play_text(k: Kernel, S, prefix: list) -> None:
    """Play `prefix` ([player or None, text] a decision, a choice made together one entry per
    waiting player) on the kernel position S, each move found by its text."""
    be, bd = k.backend, k.boundary
    i = 0
    while i < len(prefix):
        if S[L.H_CUR] == L.CUR_SIMUL:
            who = list(be.who_together(S))
            chosen = []
            for p, (q, text) in zip(who, prefix[i:i + len(who)]):
                assert p == q
                chosen.append(next(m for m in be.moves(S, p) if bd.text(m, True) == text))
            be.play_together(S, tuple(chosen))
            i += len(who)
        else:
            text = prefix[i][1]
            be.play(S, next(m for m in be.moves(S, S[L.H_CUR]) if bd.text(m) == text))
            i += 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", RULESETS)
def test_a_position_played_part_way_plays_on_as_the_engines(name, backend):
    k = kernel(name, backend)
    g, be, bd = k.game, k.backend, k.boundary
    for players in (g.min_players, g.max_players):
        want = frozen("playouts")["replayed"][name][str(players)]
        S = be.new(players, g._options(None), want["seed"])
        be.start(S, False)
        _play_text(k, S, want["prefix"])
        assert (S[L.H_CUR] == L.CUR_OVER) == want["over"]
        if want["over"]:
            continue
        if want["legal"] is not None:
            assert [bd.text(m) for m in be.moves(S, S[L.H_CUR])] == want["legal"]
        S[L.H_DSEED], S[L.H_DDRAWS] = want["dseed"], 0
        be.playout(S)
        assert (be.scores(S), be.winners(S)) == (want["scores"], want["winners"])


def test_a_state_waiting_for_chance_is_not_replayed_but_one_with_manual_chance_is():
    """(`Kernel.state_of` is the bridge from the engine's state: it goes at step 6 with it.)"""
    import random

    k = kernel("fishfry", "python")
    st = k.game.start(players=2, chance="manual")
    with pytest.raises(KFault):
        k.state_of(st)  # the dice are in the air: the kernel does not wait for chance
    rng = random.Random(3)
    while st.current == fishrules.CHANCE:
        outcomes = st.chance_outcomes()
        st.apply(outcomes[rng.randrange(len(outcomes))][0])
    S = k.state_of(st)  # the dice as the record says, not as any seed would roll them
    assert [k.boundary.text(m) for m in k.backend.moves(S, st.current)] == [a.text for a in st.legal_actions()]
    lay = k.program.layout
    assert list(S[lay.dice:lay.dice + S[L.H_NDICE]]) == st.dice


def test_a_rule_that_goes_wrong_in_a_simulation_is_the_engines_error():
    g = fishrules.loads(ZERO, backend="python")
    with pytest.raises(RuleError) as got:
        g.simulate(3, players=2)
    assert got.value.render() == frozen("playouts")["zero"]


#: the slow tier's games are compared with the engine's a chunk of seeds at a time (a digest each)
SLOW_CHUNK = 500


def slow_tier(g) -> dict:
    """The slow tier's seeds of `g`, by player count: 10,000 games in all."""
    counts = list(range(g.min_players, g.max_players + 1))
    per = 10_000 // len(counts) + 1
    return {players: [fishrules.api.game_seed_of(20261203, i) for i in range(per)] for players in counts}


def slow_digests(outcomes: list) -> list:
    """What the golden file keeps of the slow tier's outcomes: a digest of each chunk of seeds."""
    return [digest(plain(outcomes[at:at + SLOW_CHUNK])) for at in range(0, len(outcomes), SLOW_CHUNK)]


@pytest.mark.skipif(not SLOW, reason="the slow tier: FISHRULES_SLOW_TESTS=1")
@pytest.mark.parametrize("name", RULESETS)
def test_slow_tier_ten_thousand_games_per_ruleset(name):
    """10,000 games of every ruleset end as the engine's did (its outcomes, frozen a chunk of seeds
    at a time: tests/golden/engine/test_kernel.json)."""
    backend = "native" if NATIVE else "python"
    k = kernel(name, backend)
    g = k.game
    want = frozen("test_kernel")["slow"][name]
    for players, seeds in slow_tier(g).items():
        got = slow_digests([list(played.outcome) for played in k.simulate(players, g._options(None), seeds)])
        assert len(got) == len(want[str(players)]), players
        for chunk, (mine, engine) in enumerate(zip(got, want[str(players)])):
            assert mine == engine, (f"{players} players: a game of seeds {chunk * SLOW_CHUNK}.."
                                    f"{(chunk + 1) * SLOW_CHUNK - 1} ended unlike the engine's")


GOLDEN = Path(__file__).with_name("golden")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", RULESETS)
def test_the_golden_games_replay_in_the_kernel(name, backend):
    """Every golden record (tests/golden: seeded and manual chance, non-default options) replays
    into the kernel (`Kernel.state_of`, chance taken from the record) to the record's end: the
    same scores and winners, and a finished game where the record's game ended."""
    k = kernel(name, backend)
    g = k.game
    for rec in json.loads((GOLDEN / f"{name}.json").read_text())["games"]:
        if "history" not in rec or "scores" not in rec:
            continue  # a start() the rules refused: nothing to replay
        st = g.replay(rec["history"], players=rec["players"], options=rec["options"])
        try:
            S = k.state_of(st)
        except KFault:
            assert st.current == fishrules.CHANCE, rec["seed"]  # waiting for chance: the engine's way
            continue
        assert (S[L.H_CUR] == L.CUR_OVER) == rec["over"]
        assert k.backend.scores(S) == rec["scores"], (rec["players"], rec["seed"])
        if rec["over"]:
            assert k.backend.winners(S) == rec["winners"]


def _leaders(depth: int) -> str:
    """A ruleset whose score reads a `best` of a `best` of ... `depth` deep."""
    lead = "players"
    for i in range(depth):
        lead = f"({lead}) with the {'highest' if i % 2 == 0 else 'lowest'} points"
    return ('game "Best"\nplayers 2 to 4\neach player has points: number\n\nphase game:\n  repeat 3 times:\n'
            '    for each player:\n      player chooses poke\n\naction poke(n: a number from 1 to 3):\n'
            f'  add n to your points\n\ndefine leaders: {lead}\nscore "lead": if you in leaders then 1 otherwise 0\n')


def test_a_best_of_a_best_is_lowered_once_per_level():
    """`players with the highest …` of `players with the highest …`: the kernel lowered its
    collection twice (once for the elements, once for their keys), so its program doubled at
    every level (67 levels never finished lowering).  It grows by a constant a level."""
    from fishrules.kernel.emit_c import emit_c
    from fishrules.kernel.lower import lower

    def size(depth: int) -> int:
        g = fishrules.loads(_leaders(depth), name="best.fish")
        return len(emit_c(lower(g.model)))

    base, six, twelve = size(0), size(6), size(12)
    assert twelve - base < 2.5 * (six - base)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_best_of_a_best_plays_the_engines_games(backend):
    g = fishrules.loads(_leaders(9), name="best.fish")
    k = Kernel(g, backend)
    assert len(frozen("playouts")["best"]) == 15
    for players in (2, 3, 4):
        for seed in range(1, 6):
            assert outcome(k, players, seed) == frozen("playouts")["best"][f"{players}/{seed}"], (players, seed)


def freeze(engine) -> dict:
    """What the engine answered (run by tests/tools/freeze_engine.py while it lived): the slow
    tier's 10,000 games of every ruleset (the rest of this file's engine answers are the
    `playouts` part)."""
    slow: dict = {}
    for name in RULESETS:
        g = fishrules.load(name, backend="python")
        slow[name] = {str(players): slow_digests([list(engine.playout(g, players, seed)) for seed in seeds])
                      for players, seeds in slow_tier(g).items()}
    return {"slow": slow}

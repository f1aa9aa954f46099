"""The engine's answers frozen as data (issue 32, step 6, plan §3 item 1).

The kernel's tests held it to the engine's own machine live (an engine `State` beside every kernel
game, `reference_playout`).  Step 6 deletes that machine, so what it answered is recorded here once,
into `tests/golden/engine/<part>.json`, and the tests compare the kernel with these files:

    cd <checkout> && PYTHONPATH=src .venv/bin/python tests/tools/freeze_engine.py [part ...]

writes every part (or those named) FROM THE ENGINE (`fishrules.runtime.State._new`,
`fishrules.kernel.reference.reference_playout`), never from the kernel.  AFTER STEP 6 THIS SCRIPT
CANNOT RUN (the engine is gone): the files are then the engine's last word, and changing one is
changing what a game is, to be argued in review like any golden record (tests/test_golden.py).

The parts, and the tests that read them:

    corpus     tests/hostile/test_kernel_rules.py: every corpus rule file's playout outcome or error
    playouts   tests/test_kernel.py: playouts of every bundled ruleset, seeds 1-3, every player count;
               the legal texts at every decision of one game per ruleset and player count; a state
               played part-way then played out by the decision generator; a `best` of a `best`; a
               rule that goes wrong in a simulation
    views      tests/test_kernel_views.py: every seat's view, observation and legal ids at every step
               of random games (digests at each step, the whole of the first and the last)

Every file is deterministic (sorted keys, no time, no paths): regenerating with an unchanged engine
changes nothing.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "golden" / "engine"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

import fishrules  # noqa: E402
from fishrules.errors import FishrulesError, RuleError  # noqa: E402
from tests._frozen import plain  # noqa: E402


def engine_state(game: Any, players: int, seed: int, manual: bool = False, options: Any = None,
                 count_rules: bool = False) -> Any:
    """A game on the engine's own machine, whatever the game's backend."""
    from fishrules.runtime import State

    return State._new(game, players, game._options(options), seed, manual, count_rules=count_rules)


def engine_outcome(play: Callable[[], Any]) -> Any:
    """What an engine playout ended in, as tests/hostile/kernel_agreement.py words the kernel's."""
    try:
        return ["ok", plain(list(play()))]
    except RuleError as e:
        return ["error", e.render()]
    except FishrulesError as e:
        return ["refused", f"{type(e).__name__}: {e}"]


# ---- corpus ------------------------------------------------------------------------------------


def corpus() -> dict:
    from fishrules.kernel.reference import reference_playout
    from tests.hostile import kernel_agreement as KA

    out: dict = {}
    for path in KA.FILES:
        try:
            g = fishrules.load(str(path))
        except FishrulesError:
            out[path.name] = None
            continue
        row: dict = {}
        for players in sorted({g.min_players, g.max_players}):
            for seed in KA.SEEDS:
                row[f"{players}/{seed}"] = engine_outcome(
                    lambda: reference_playout(g, players, seed, g._options(None), limit=KA.LIMIT))
        out[path.name] = row
    return out


# ---- playouts ----------------------------------------------------------------------------------


def playouts() -> dict:
    from fishrules.kernel.pyruntime import below, decision_seed
    from fishrules.kernel.reference import reference_playout
    from fishrules.runtime import SIMULTANEOUS
    from tests import test_kernel as T

    def outcome(g, players, seed, **kw):
        try:
            return plain(list(reference_playout(g, players, seed, g._options(None), **kw)))
        except RuleError as e:
            return ["error", e.render()]

    games, decisions, replayed = {}, {}, {}
    for name in fishrules.bundled():
        g = fishrules.load(name, backend="python")
        games[name] = {f"{p}/{seed}": outcome(g, p, seed) for p in range(g.min_players, g.max_players + 1)
                       for seed in T.PLAYOUT_SEEDS}
        # the legal texts at every decision, as the kernel's decision generator plays
        decisions[name] = {}
        for players in (g.min_players, g.max_players):
            seed = T.decision_game_seed(players)
            e = engine_state(g, players, seed)
            ds, dd = decision_seed(seed), 0
            trace = []
            while not e.is_over:
                together = e.current == SIMULTANEOUS
                for p in list(e.waiting) if together else [e.current]:
                    acts = e.legal_actions(p if together else None)
                    trace.append([p, int(together), [a.text for a in acts]])
                    j, dd = below(ds, dd, len(acts))
                    e.apply(acts[j])
            decisions[name][str(players)] = {"seed": seed, "trace": trace, "scores": e.scores(),
                                             "winners": e.winners()}
        # a state played part-way at random, then played out by the decision generator
        rng = random.Random(name)
        replayed[name] = {}
        for players in (g.min_players, g.max_players):
            seed = rng.randrange(1 << 40)
            e = engine_state(g, players, seed)
            prefix = []
            for _ in range(rng.randrange(1, 40)):
                if e.is_over:
                    break
                together = e.current == SIMULTANEOUS
                for p in (e.waiting if together else [None]):
                    a = rng.choice(e.legal_actions(p))
                    prefix.append([p, a.text])
                    e.apply(a)
            rec: dict = {"seed": seed, "prefix": prefix, "over": e.is_over}
            if not e.is_over:
                rec["legal"] = None if e.current == SIMULTANEOUS else [a.text for a in e.legal_actions()]
                dseed = rng.randrange(1 << 62)
                ref = reference_playout(g, players, seed, state=e.clone(), dseed=dseed)
                rec.update(dseed=dseed, scores=ref.scores, winners=ref.winners)
            replayed[name][str(players)] = rec
    best = fishrules.loads(T._leaders(9), name="best.fish", backend="python")
    zero = fishrules.loads(T.ZERO, backend="python")
    return {"games": games, "decisions": decisions, "replayed": replayed,
            "best": {f"{p}/{s}": outcome(best, p, s) for p in (2, 3, 4) for s in range(1, 6)},
            "zero": outcome(zero, 2, fishrules.api.game_seed_of(0, 0))[1]}


# ---- views -------------------------------------------------------------------------------------


def views() -> dict:
    from fishrules.runtime import SIMULTANEOUS
    from tests import test_kernel_views as T

    def seen(e: Any) -> dict:
        return T.sight_of(e, lambda p: T.without_history(e.view(p)), e.observation, e.legal_action_ids)

    def game(e: Any, choose: Callable[[Any], Any], ids: bool = True) -> dict:
        steps, whole = [], {}
        while True:
            at = seen(e)
            if not ids:  # (the Python kernel driven move by move has no action ids)
                del at["ids"]
            if not steps or e.is_over:
                whole[str(len(steps))] = at
            steps.append(T.digests(at))
            if e.is_over:
                return {"steps": steps, "whole": whole, "winners": e.winners()}
            e = choose(e)

    api: dict = {}
    python: dict = {}
    for name in fishrules.bundled():
        g = fishrules.load(name, backend="python")
        api[name] = {}
        for players in (g.min_players, g.max_players):
            rng = random.Random(players)

            def one_seat(e: Any, rng: random.Random = rng) -> Any:
                p = e.waiting[0]
                return e.apply(e.legal_actions(p)[rng.randrange(len(e.legal_actions(p)))].text)

            api[name][str(players)] = {"seed": players, **game(engine_state(g, players, players), one_seat)}
        rng = random.Random(7)

        def every_seat(e: Any, rng: random.Random = rng) -> Any:
            if e.current == SIMULTANEOUS:
                for a in [rng.choice(e.legal_actions(q)) for q in e.waiting]:
                    e = e.apply(a)
                return e
            return e.apply(rng.choice(e.legal_actions()))

        python[name] = {"players": g.max_players, "seed": 7, **game(engine_state(g, g.max_players, 7), every_seat, False)}
    return {"api": api, "python": python}


PARTS = {"corpus": corpus, "playouts": playouts, "views": views}


def main(argv: list) -> None:
    os.chdir(ROOT)  # an error names its file relative to the checkout, as the tests see it
    OUT.mkdir(parents=True, exist_ok=True)
    for part in argv or list(PARTS):
        data = PARTS[part]()
        path = OUT / f"{part}.json"
        path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])

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
               of random games (digests at each step, the whole of the first)
    record     tests/test_kernel_record.py: the history, what each seat may not read, each seat's
               history, events and view at every step of random games (bundled and house rules)
    surface    tests/test_kernel_surface.py: phase and counts at every step; playouts from positions
    test_*     the test module of that name, by its own `freeze(engine)` (`MODULES`)

Every file is deterministic (sorted keys, no time, no absolute paths: the script runs from the
checkout, as the tests do): regenerating with an unchanged engine changes nothing.  Where a whole
answer is large (views, records, every decision's legal texts), a file keeps a 16-hex digest of it
(tests/_frozen.py) and the whole of the first step only.  tests/test_frozen_engine.py holds the
files to the parts written here, and their size (3.6 MB in all).
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
from tests._frozen import freeze_game, plain  # noqa: E402


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


def one_seat(rng: random.Random) -> Callable[[Any], Any]:
    """A move of the first waiting seat, by its index among that seat's legal actions (as the
    tests choose on the kernel's state)."""
    def choose(e: Any) -> Any:
        p = e.waiting[0]
        return e.apply(e.legal_actions(p)[rng.randrange(len(e.legal_actions(p)))].text)
    return choose


def every_seat(rng: random.Random) -> Callable[[Any], Any]:
    """A move of the seat to act, or of every seat choosing together in turn (`rng.choice` each, as
    the tests choose among the moves of the kernel's backend)."""
    from fishrules.runtime import SIMULTANEOUS

    def choose(e: Any) -> Any:
        if e.current == SIMULTANEOUS:
            for a in [rng.choice(e.legal_actions(q)) for q in e.waiting]:
                e = e.apply(a)
            return e
        return e.apply(rng.choice(e.legal_actions()))
    return choose


def views() -> dict:
    from tests import test_kernel_views as T

    def look(e: Any, step: int) -> dict:
        return T.sight_of(e, lambda p: T.without_history(e.view(p)), e.observation, e.legal_action_ids)

    def look_python(e: Any, step: int) -> dict:  # (the Python kernel driven move by move has no action ids)
        seen = look(e, step)
        del seen["ids"]
        return seen

    api: dict = {}
    python: dict = {}
    for name in fishrules.bundled():
        g = fishrules.load(name, backend="python")
        api[name] = {str(players): {"seed": players, **freeze_game(engine_state(g, players, players), look,
                                                                   one_seat(random.Random(players)))}
                     for players in (g.min_players, g.max_players)}
        python[name] = {"players": g.max_players, "seed": 7,
                        **freeze_game(engine_state(g, g.max_players, 7), look_python, every_seat(random.Random(7)))}
    return {"api": api, "python": python}


def record() -> dict:
    from tests import test_kernel_record as T

    out: dict = {"api": {}, "python": {}}
    for name in T.RULESETS + sorted(T.HOUSE):
        g = T.game(name, "python")
        seeds = (lambda players: [players + 11]) if name in T.RULESETS else (lambda players: list(range(4)))
        out["api"][name] = {}
        for players in (g.min_players, g.max_players):
            for seed in seeds(players):
                e = engine_state(g, players, seed)
                history = [0]  # the history's length before the last apply

                def choose(e: Any, pick: Any = one_seat(random.Random(seed)), history: list = history) -> Any:
                    history[0] = len(e.history)
                    return pick(e)

                out["api"][name][f"{players}/{seed}"] = freeze_game(
                    e, lambda e, step, history=history: T.record_of(e, history[0], T.whole_at(step, e)), choose)
        out["python"][name] = {}
        for players in (g.min_players, g.max_players):
            seed = players + 5
            history = [0]

            def choose(e: Any, pick: Any = every_seat(random.Random(seed)), history: list = history) -> Any:
                history[0] = len(e.history)
                return pick(e)

            out["python"][name][str(players)] = freeze_game(
                engine_state(g, players, seed),
                lambda e, step, history=history: T.driven_record_of(e, None if T.whole_at(step, e) else history[0]),
                choose)
    g = T.game("fisheatfish", "python")
    out["now and then"] = freeze_game(engine_state(g, 3, 4), lambda e, step: T.record_of(e, 0, step % 9 == 0 or e.is_over),
                                      one_seat(random.Random(4)))
    return out


def surface() -> dict:
    from fishrules.kernel.reference import reference_playout
    from fishrules.limits import MAX_PLAYOUT_DECISIONS
    from tests import test_kernel_surface as T

    def texts(seed: int) -> Callable[[Any], Any]:
        rng = random.Random(seed)
        return lambda e: e.apply(T.choose(e, rng))

    out: dict = {"counts": {}, "playouts": {}}
    for name, players, manual in T.CASES:
        g = fishrules.load(name, backend="python")
        out["counts"][T.case_key(name, players, manual)] = freeze_game(
            engine_state(g, players, 3, manual, count_rules=True), lambda e, step: T.counts(e), texts(3))
    for name in T.RULESETS:
        g = fishrules.load(name, backend="python")
        out["playouts"][name] = {}
        for players in sorted({g.min_players, g.max_players}):
            e, pick, outs = engine_state(g, players, 7, count_rules=True), texts(7), []
            for step in range(400):
                if step % 7 == 0:
                    ref = e.clone()
                    rng = random.Random(1)  # the two seeds `KState.playout(rng)` draws, played as it plays them
                    cseed, dseed = rng.getrandbits(63), rng.getrandbits(63)
                    ref.seed, ref.draws = cseed, 0
                    got = reference_playout(g, players, cseed, state=ref, dseed=dseed, limit=MAX_PLAYOUT_DECISIONS + 1)
                    outs.append(plain([got.scores, got.winners, got.decisions, got.chances]))
                if e.is_over:
                    break
                e = pick(e)
            out["playouts"][name][str(players)] = outs
    return out


class Engine:
    """The engine's own machine, as a test module's `freeze(engine)` asks it (the parts a test
    module freezes itself: it names what it played, this plays it on the engine)."""

    @staticmethod
    def start(game: Any, players: int, seed: int, chance: str = "seeded", options: Any = None,
              count_rules: bool = False) -> Any:
        return engine_state(game, players, seed, chance == "manual", options, count_rules)

    @staticmethod
    def playout(game: Any, players: int, seed: int, options: Any = None, **kw: Any) -> Any:
        from fishrules.kernel.reference import reference_playout

        return reference_playout(game, players, seed, game._options(options), **kw)

    @staticmethod
    def fallback(kernel: Any, players: int, options: dict, seed: int, limit: int) -> Any:
        """The game a kernel handed to the engine's machine (`Kernel._fallback`)."""
        return kernel._fallback(players, options, seed, limit)


#: test modules that freeze their own part (a function `freeze(engine)`): the part is the module's name
MODULES = ["test_kernel_capacity_growth", "test_kernel_capacity", "test_kernel_zone_expressions",
           "test_kernel_chance", "test_kernel_reasons",
           "test_kernel_budget", "test_kernel_words",
           "test_kernel_faults", "test_kernel_manual_playout",
           "test_kernel_together", "test_kernel_stuck", "test_kernel_unavailable",
           "test_kernel_score_parts", "test_baseline_c", "test_native",
           "test_determinize", "test_bots", "test_kernel",
           "test_kernel_reseed", "test_kernel_wide_moves", "test_kernel_fallbacks"]


PARTS = {"corpus": corpus, "playouts": playouts, "views": views, "record": record, "surface": surface}


def main(argv: list) -> None:
    import importlib

    os.chdir(ROOT)  # an error names its file relative to the checkout, as the tests see it
    OUT.mkdir(parents=True, exist_ok=True)
    for part in argv or [*PARTS, *MODULES]:
        if part in PARTS:
            data = PARTS[part]()
        else:
            data = plain(importlib.import_module(f"tests.{part}").freeze(Engine()))
        path = OUT / f"{part}.json"
        path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])

"""What runs in a hostile worker for tests/hostile/test_kernel_rules.py: one rule file of the
corpus played by the game kernel (each backend) from the same seeds, returned as plain data for the
test to compare with the engine's outcomes, frozen in tests/golden/engine/corpus.json
(tests/tools/freeze_engine.py, while the engine lived)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import fishrules
from fishrules.errors import FishrulesError, RuleError

HERE = Path(__file__).resolve().parent
#: the rule files played: the hostile corpus and the test games
FILES = sorted((HERE / "corpus" / "rules").glob("*.fish")) + sorted((HERE.parent / "games").glob("*.fish"))
#: the seeds each is played from, at its fewest and most players
SEEDS = (1,)
#: Hostile games may never end: a playout is cut at this many decisions (as the engine's was).
LIMIT = 300


def _outcome(play) -> list:
    try:
        return ["ok", json.loads(json.dumps(list(play())))]
    except RuleError as e:
        return ["error", e.render()]
    except FishrulesError as e:
        return ["refused", f"{type(e).__name__}: {e}"]


def outcomes(path: str, backends: tuple = ("python", "native")) -> Optional[dict]:
    """{"players/seed": {backend: outcome, ...}}, or None if the rules do not load."""
    from fishrules.kernel import Kernel

    try:
        g = fishrules.load(path)
    except FishrulesError:
        return None
    kernels = {b: Kernel(g, b) for b in backends}
    out: dict = {}
    for players in sorted({g.min_players, g.max_players}):
        for seed in SEEDS:
            opts = g._options(None)
            out[f"{players}/{seed}"] = {b: _outcome(lambda: k.playout(players, opts, seed, limit=LIMIT).outcome)
                                        for b, k in kernels.items()}
    return out

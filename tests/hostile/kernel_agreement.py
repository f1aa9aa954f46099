"""What runs in a hostile worker for tests/hostile/test_kernel_rules.py: one rule file of the
corpus played by the game kernel (each backend) and by the engine's API loop, from the same seeds,
returned as plain data for the test to compare."""

from __future__ import annotations

from typing import Optional

import fishrules
from fishrules.errors import FishrulesError, RuleError


def _outcome(play) -> tuple:
    try:
        return ("ok", tuple(play()))
    except RuleError as e:
        return ("error", e.render())
    except FishrulesError as e:
        return ("refused", f"{type(e).__name__}: {e}")


#: Hostile games may never end: a playout is cut at this many decisions (the same in both machines).
LIMIT = 300


def agree(path: str, backends: tuple = ("python", "native"), seeds: tuple = (1,)) -> Optional[dict]:
    """{(players, seed): {"engine": outcome, backend: outcome, ...}}, or None if the rules do not load."""
    from fishrules.kernel import Kernel
    from fishrules.kernel.reference import reference_playout

    try:
        g = fishrules.load(path)
    except FishrulesError:
        return None
    kernels = {b: Kernel(g, b) for b in backends}
    out: dict = {}
    for players in sorted({g.min_players, g.max_players}):
        for seed in seeds:
            opts = g._options(None)
            row = {"engine": _outcome(lambda: reference_playout(g, players, seed, opts, limit=LIMIT))}
            for b, k in kernels.items():
                row[b] = _outcome(lambda: k.playout(players, opts, seed, limit=LIMIT).outcome)
            out[f"{players}/{seed}"] = row
    return out

"""How much one client address may ask of `fishrules serve`: rates, counted per address.

A check of a house rule, a new table: each is rule work a stranger's text decides the cost of, done
in a worker under limits (workers.py).  The limits bound one job; these bound how many jobs one
address can start, so that one visitor cannot keep every worker busy.  Counted in memory (a
restarted server starts counting afresh), for at most `MOST_KEYS` addresses (the longest unseen
are forgotten first).
"""

from __future__ import annotations

import collections
import time
from typing import Hashable

__all__ = ["Rate"]

MOST_KEYS = 10_000


class Rate:
    """At most `burst` events at once for each key, refilled at `per_second` (a token bucket)."""

    def __init__(self, per_second: float, burst: float):
        self.per_second = per_second
        self.burst = burst
        self._buckets: "collections.OrderedDict[Hashable, tuple[float, float]]" = collections.OrderedDict()

    def take(self, key: Hashable, now: "float | None" = None) -> bool:
        """Count one event of `key`: False (and nothing counted) when its rate is used up."""
        now = time.monotonic() if now is None else now
        tokens, since = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - since) * self.per_second)
        ok = tokens >= 1
        self._buckets[key] = (tokens - 1 if ok else tokens, now)
        while len(self._buckets) > MOST_KEYS:
            self._buckets.popitem(last=False)
        return ok

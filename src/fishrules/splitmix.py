"""The random generator every stage draws from: splitmix64, counter-based.

The n-th draw of a generator seeded `seed` is `mix(seed, n)`, so a generator is two integers and a
state that holds them is plain data.  The engine's states (`runtime/chance.py`) and the kernel
(`kernel/abi.py`, which also writes the C spelling from the constants below) draw from this one
function: a game played on either machine, from the same seed, meets the same chance.  It is a
module of its own, before every stage, because the runtime may not import the kernel (the kernel
is built on the runtime).
"""

from __future__ import annotations

__all__ = ["M64", "GAMMA", "MUL1", "MUL2", "mix", "below"]

M64 = (1 << 64) - 1
#: What each draw adds to the seed (2**64 over the golden ratio), then the two multipliers of
#: splitmix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number generators").
GAMMA = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB


def mix(seed: int, n: int) -> int:
    """The n-th draw (n from 0) of the generator seeded `seed`: 64 random bits."""
    z = (seed + (n + 1) * GAMMA) & M64
    z = ((z ^ (z >> 30)) * MUL1) & M64
    z = ((z ^ (z >> 27)) * MUL2) & M64
    return z ^ (z >> 31)


def below(seed: int, draws: int, k: int) -> tuple[int, int]:
    """(a number 0 <= r < k, the draws used so far): exactly uniform, by rejection (a draw at or
    past the largest multiple of k below 2**64 is drawn again)."""
    limit = (1 << 64) - ((1 << 64) % k)
    while True:
        r = mix(seed, draws)
        draws += 1
        if r < limit:
            return r % k, draws

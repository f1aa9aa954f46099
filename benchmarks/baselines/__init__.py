"""Hand-written baselines of the five bundled games, for measuring the engine's speed as a ratio.

Each module (`fishfry`, `fishfish`, `fisherman`, `fatfish`, `fisheatfish`) is one game at its
default options, written directly in plain Python from the ruleset's reading of the rulebook:

- `play(players, rng) -> (scores, winners, decisions)`: a fast random playout - uniformly random
  among exactly the moves the engine's `legal_actions()` offers at each decision, chance by the
  rules' probabilities.  `decisions` counts player choices (each secret choice of a simultaneous
  challenge counts one), as `apply` calls on a seeded engine game do.
- `Game(players) -> Step`: the same rules as a slower step API whose action texts are the engine's
  (`legal()`, `apply(text)`, chance outcomes fed as the engine's history texts); see `_step.py`.
- `NAME`, `MIN_PLAYERS`, `MAX_PLAYERS`.

Lines of `play()` marked `# trace: NAME` are where tests/test_baselines.py reads the deal and the
choices made (with sys.settrace) to replay each fast game through the step API; keep the markers
when editing `play()`.  They are comments: the fast path pays nothing for them.

Fat Fish takes `fiasco_plays_legal` (default True, the engine's legal actions; False: only the
lays that keep the rules); see `fatfish.py`.  `python -m benchmarks.baselines` prints each one's games/s.

`fisherman.c` is Fisherman once more, by hand in plain C, playing exactly the engine's game for a seed
under the kernel's rules of chance and choice; `cbaseline` builds, loads and times it
(`python -m benchmarks.baselines.cbaseline`).  See benchmarks/README.md.
"""

from . import fatfish, fisheatfish, fisherman, fishfish, fishfry

GAMES = {
    "fishfry": fishfry,
    "fishfish": fishfish,
    "fisherman": fisherman,
    "fatfish": fatfish,
    "fisheatfish": fisheatfish,
}

__all__ = ["GAMES", "fatfish", "fisheatfish", "fisherman", "fishfish", "fishfry"]

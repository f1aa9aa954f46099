"""A zone named by a choice (`if C then pile(1) otherwise pile(2)`) or by a define, wherever the
rules may read one: the kernel lowers it as the engine plays it (a review found the kernel's
lowering crash with a Python `AssertionError` on a parameter drawn from such a zone, and on
`count` or `first` of a define's zone, from `Game.start` and `Game.simulate`).  The engine's games
are frozen in tests/golden/engine/test_kernel_zone_expressions.json (`freeze`, run by
tests/tools/freeze_engine.py while the engine lived)."""

from __future__ import annotations

import random

import pytest

import fishrules
from ._frozen import digest, frozen, plain
from ._twins import skip_without_compiler

skip_without_compiler()

HEAD = """\
game "Chosen zones"
players 2 to 3
the game has x: number
tokens chip: colour in red, blue x 3
the game has pile: zones from 1 to 2 of chip
each player has stash: zone of chip
each player has points: number
define fuller: if count(pile(1)) >= count(pile(2)) then pile(1) otherwise pile(2)

phase game:
  move chip to pile(1) face up
  repeat 6 times:
    for each player:
      player chooses {actions}
"""

ACTIONS = {
    # a parameter drawn from the zone chosen
    "one of": """
action take(c: one of (if x < 3 then pile(1) otherwise pile(2))):
  add 1 to x
  if x < 4:
    move c to pile(2) face up
  otherwise:
    move c to your stash face up
""",
    "some": """
action take(cs: some (if x < 3 then pile(1) otherwise pile(2))):
  add 1 to x
  move cs to your stash face up
""",
    # counted, tested for, moved from, named through a define
    "count and in": """
action take:
  add count(if x < 2 then pile(1) otherwise pile(2)) to your points
  if first(fuller) in pile(1):
    add 1 to x
  move first(fuller) to your stash face up
""",
}


def rules(where: str) -> str:
    return (HEAD.format(actions="take or pass") + ACTIONS[where] + "\naction pass:\n  nothing\n"
            + 'score "points": your points + count(your stash)\n')


def played(s, rng: random.Random) -> dict:
    """A game played to its end by `rng`: the legal texts at every step (a digest), the scores and
    the history."""
    legal = []
    while not s.is_over:
        acts = s.legal_actions()
        legal.append([a.text for a in acts])
        s.apply(acts[rng.randrange(len(acts))])
    return plain({"legal": digest(legal), "scores": s.scores(), "history": s.history})


@pytest.mark.parametrize("where", sorted(ACTIONS))
def test_a_zone_chosen_by_a_condition_plays_as_on_the_engine(where):
    kernel = fishrules.loads(rules(where), "zones.fish", backend="native")
    for players in (2, 3):
        want = frozen("test_kernel_zone_expressions")[f"{where}/{players}"]
        k = kernel.start(players, seed=5)
        assert type(k).__name__ == "KState"
        assert played(k, random.Random(players)) == want["game"]
        assert [p.scores for p in kernel.simulate(5, players, seed=1)] == want["simulated"]


def freeze(engine) -> dict:
    """The engine's games of these rules (run by tests/tools/freeze_engine.py while it lived)."""
    out = {}
    for where in sorted(ACTIONS):
        g = fishrules.loads(rules(where), "zones.fish", backend="python")
        for players in (2, 3):
            out[f"{where}/{players}"] = {
                "game": played(engine.start(g, players, 5), random.Random(players)),
                "simulated": [engine.playout(g, players, fishrules.api.game_seed_of(1, i)).scores for i in range(5)]}
    return out

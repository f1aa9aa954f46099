"""A zone named by a choice (`if C then pile(1) otherwise pile(2)`) or by a define, wherever the
rules may read one: the kernel lowers it as the engine plays it (a review found the kernel's
lowering crash with a Python `AssertionError` on a parameter drawn from such a zone, and on
`count` or `first` of a define's zone, from `Game.start` and `Game.simulate`)."""

from __future__ import annotations

import random

import pytest

import fishrules
from ._twins import engine_start, skip_without_compiler

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


@pytest.mark.parametrize("where", sorted(ACTIONS))
def test_a_zone_chosen_by_a_condition_plays_alike_on_both_machines(where):
    text = (HEAD.format(actions="take or pass") + ACTIONS[where] + "\naction pass:\n  nothing\n"
            + 'score "points": your points + count(your stash)\n')
    engine = fishrules.loads(text, "zones.fish", backend="python")
    kernel = fishrules.loads(text, "zones.fish", backend="native")
    for players in (2, 3):
        rng = random.Random(players)
        e, k = engine_start(engine, players, 5), kernel.start(players, seed=5)
        assert type(k).__name__ == "KState"
        while not e.is_over:
            ea, ka = e.legal_actions(), k.legal_actions()
            assert [a.text for a in ka] == [a.text for a in ea]
            pick = rng.randrange(len(ea))
            e.apply(ea[pick])
            k.apply(ka[pick])
        assert k.is_over and k.scores() == e.scores() and k.history == e.history
        assert [p.scores for p in kernel.simulate(5, players, seed=1)] == \
               [p.scores for p in engine.simulate(5, players, seed=1)]

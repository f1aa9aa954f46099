"""Values of defines are kept until what they read changes (the compiler works out what each
define reads; a move forgets only the defines that read the zones it touched, and a define of one
argument only its value for the zone it reads at that argument).  A kept value that outlived a
change would make a view, a legal list or a score differ from a state that works everything out
afresh: at every step of seeded random games of every ruleset, a clone (which keeps no values)
must see exactly what the state sees."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules import CHANCE, SIMULTANEOUS


def observe(s):
    seen = [s.view(p) for p in [None, *range(s.n)]]
    if s.current == SIMULTANEOUS:
        seen += [[a.text for a in s.legal_actions(p)] for p in s.waiting]
    elif s.current not in (None, CHANCE):
        seen.append([a.text for a in s.legal_actions()])
    return seen, s.scores(), s.winners() if s.is_over else None


@pytest.mark.parametrize("name", sorted(fishrules.bundled()))
def test_kept_define_values_never_outlive_a_change(name):
    game = fishrules.load(name)
    for players, seed in ((game.min_players, 1), (game.max_players, 2)):
        s = game.start(players, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not s.is_over and steps < 400:
            assert observe(s) == observe(s.clone()), (players, seed, steps)
            p = s.waiting[0] if s.current == SIMULTANEOUS else None
            acts = s.legal_actions(p)
            s.apply(acts[rng.randrange(len(acts))])
            steps += 1
        assert observe(s) == observe(s.clone())



# A define may be called `score`, and another define may read both it and the players' score:
# what that one reads is then both, and a change of either makes its kept value stale.  (The
# analysis once kept the define and the score under one name, and missed what the second read:
# `seen` below stayed 0 on the engine and on the kernel.)
NAMED_LIKE_THE_SCORE = """
game "Named like the score"
players 2 to 2
the game has pot: number
the game has seen: number
each player has chips: number
score "chips": your chips
winners: players with the highest score

define score: pot + 0
define ahead: count(players where it's score > 0) + score

phase game:
  set seen to ahead
  first(players) chooses take
  set seen to ahead
  if seen = 1:
    add 10 to last(players)'s chips

action take:
  add 1 to your chips
"""


@pytest.mark.parametrize("backend", ["auto", "python"])
def test_a_define_named_score_and_the_score_are_both_read(backend):
    game = fishrules.loads(NAMED_LIKE_THE_SCORE, backend=backend)
    s = game.start(2, seed=1)
    s.apply("take")
    assert s.view(None)["values"]["seen"] == 1 and s.scores() == [1, 10]
    assert [list(p.scores) for p in game.simulate(3, seed=1)] == [[1, 10]] * 3  # the kernel too

"""Fishfry, the single game (rulesets/fishfry.fish), written by hand.

Rules as the ruleset reads them: five dice, each face HEAD, TAIL, PANFISH, BODY 5, BODY 10, BODY 20
equally likely; a turn rolls all five, then up to twice the roller re-rolls any nonempty set of
dice not showing PANFISH, or stays.  Five PANFISH (gathered over the rolls) is a FISHFRY: the others'
catch is cleared and the roller wins at once, the game ends.  Otherwise the turn scores
10 x fish + the 3 x fish largest bodies + 1 per PANFISH, fish = min(heads, tails, 2).  After one
turn each, a tie for the highest score replays the whole game (scores wiped, seat 0 first).

`play(players, rng)` is the fast random playout; `Game(players)` the step API (see _step.py).
"""

from __future__ import annotations

from itertools import combinations

from ._step import CHANCE, PLAYER, Step, highest

NAME = "fishfry"
MIN_PLAYERS, MAX_PLAYERS = 2, 8

HEAD, TAIL, PANFISH, B5, B10, B20 = range(6)
FACES = ("HEAD", "TAIL", "PANFISH", "BODY 5", "BODY 10", "BODY 20")
BODY = (0, 0, 0, 5, 10, 20)


def turn_points(dice) -> int:
    """10 x fish + the best 3 x fish bodies + the PANFISH (the ruleset's `turn_points`)."""
    fish = min(dice.count(HEAD), dice.count(TAIL), 2)
    bodies = sorted((BODY[f] for f in dice if f >= B5), reverse=True)
    return 10 * fish + sum(bodies[:3 * fish]) + dice.count(PANFISH)


# ---- the fast random playout -------------------------------------------------------------------
#
# A turn only depends on the dice as a multiset, so the dice are kept as one number: the sum over
# the dice of 6**face ("counts in base 6"; five dice fit).  A roll of k dice is one random index
# into the 6**k equally likely ordered outcomes, each precomputed as its code.  The choice among
# the 2**k ways (k dice not showing PANFISH: 2**k - 1 nonempty sets to re-roll, and `stay`) is one
# random k-bit mask, 0 meaning stay; which dice a mask takes is precomputed per code (the code of
# the dice kept, and how many are re-rolled).  The turn's points are precomputed per code.

_W = (1, 6, 36, 216, 1296, 7776)


def _code(dice) -> int:
    return sum(_W[f] for f in dice)


def _tables():
    from itertools import product

    roll = [[0]]  # roll[k][i]: the code of the i-th of the 6**k ordered outcomes of k dice
    for k in range(1, 6):
        roll.append([_code(t) for t in product(range(6), repeat=k)])
    points = {}
    free = {}  # code of five dice -> how many do not show PANFISH
    masks = {}  # code -> [None (stay)] + [(code kept, how many re-rolled)] for each nonzero mask
    for t in product(range(6), repeat=5):
        c = _code(t)
        if c in points:
            continue
        dice = sorted(t)
        points[c] = turn_points(dice)
        movable = [f for f in dice if f != PANFISH]
        fixed = [f for f in dice if f == PANFISH]
        free[c] = len(movable)
        row = [None]
        for m in range(1, 1 << len(movable)):
            kept = fixed + [f for j, f in enumerate(movable) if not (m >> j) & 1]
            row.append((_code(kept), 5 - len(kept)))
        masks[c] = row
    size = 5 * _W[5] + 1
    points_t = [0] * size
    free_t = [0] * size
    masks_t = [None] * size
    for c in points:
        points_t[c], free_t[c], masks_t[c] = points[c], free[c], masks[c]
    roll = tuple(tuple(r) for r in roll)
    # a mask's entry: the code of the dice kept, and the table of the re-rolled dice's outcomes
    masks_t = [row and [None] + [(kept, roll[k]) for kept, k in row[1:]] for row in masks_t]
    return roll, points_t, free_t, masks_t


ROLL, POINTS, FREE, MASKS = _tables()
FISHFRY = 5 * _W[PANFISH]  # the code of five PANFISH


def play(players: int, rng) -> tuple[list[int], list[int], int]:
    """One whole game with uniformly random choices: (scores, winners, decisions)."""
    rnd = rng.random
    bits = rng.getrandbits
    roll5 = ROLL[5]
    points, free, masks = POINTS, FREE, MASKS
    fishfry = FISHFRY
    decisions = 0
    while True:  # "one tie, all tie": a tie for the win plays the whole game again
        scores = [0] * players
        for p in range(players):
            c = roll5[int(rnd() * 7776)]
            if c != fishfry:  # trace: rolled
                for _ in (0, 1):
                    decisions += 1
                    m = bits(free[c])
                    if not m:  # stay; trace: chose
                        break
                    kept, outcomes = masks[c][m]
                    c = kept + outcomes[int(rnd() * len(outcomes))]
                    if c == fishfry:  # trace: rerolled
                        break
            if c == fishfry:  # FISHFRY: the others fry up, the roller wins at once
                return [0] * players, [p], decisions
            scores[p] = points[c]
        best = max(scores)
        if scores.count(best) == 1:
            return scores, [scores.index(best)], decisions


# ---- the step API --------------------------------------------------------------------------------


def _die_outcomes(i: int) -> list[str]:
    return [f"die {i + 1} rolls {f}" for f in FACES]


def flow(players: int):
    """The rules as a generator, for the step API (see _step.py)."""
    face_of = {f: i for i, f in enumerate(FACES)}
    while True:
        catch = [[] for _ in range(players)]
        fryer = None
        for p in range(players):
            dice = [None] * 5
            for i in range(5):
                t = yield CHANCE, None, _die_outcomes(i)
                dice[i] = face_of[t.split(" rolls ", 1)[1]]
            for _ in range(2):
                if all(f == PANFISH for f in dice):
                    break
                movable = [i for i in range(5) if dice[i] != PANFISH]
                legal = ["reroll " + " ".join(str(i + 1) for i in combo)
                         for k in range(1, len(movable) + 1) for combo in combinations(movable, k)]
                legal.append("stay")
                t = yield PLAYER, p, legal
                if t == "stay":
                    break
                for w in t.split()[1:]:
                    i = int(w) - 1
                    o = yield CHANCE, None, _die_outcomes(i)
                    dice[i] = face_of[o.split(" rolls ", 1)[1]]
            if all(f == PANFISH for f in dice):
                for q in range(players):
                    if q != p:
                        catch[q].clear()
                fryer = p
                break
            catch[p].append(turn_points(dice))
        scores = [sum(c) for c in catch]
        if fryer is not None:
            return scores, [fryer]
        winners = highest(scores)
        if len(winners) == 1:
            return scores, winners


def Game(players: int) -> Step:
    return Step(flow(players))

"""Fish Fish (rulesets/fishfish.fish), written by hand.

Rules as the ruleset reads them: 2 to 8 players; 2n rounds with 2 or 3 players, n rounds with more.
Seat 0 is the first Fisherman, then the player to the left (seat + 1).  Each round the Fisherman
holds the Fishing cards (Catch x 2, Empty_handed x 3) and the Bait cards (2, 3, 3, 4, 5); every other
player is a Fish with 4 tiles.  Up to five lines: the Fisherman sets one Fishing card and one Bait
card (each distinct pair is one choice); then each Fish bets 0 to its tiles left (on the fifth line,
exactly its tiles left), in turn from the left of the Fisherman clockwise in odd rounds, from the
right counterclockwise in even rounds.  Checking: no tile bet - nothing happens; a Catch - the
Fisherman captures every tile bet; Empty_handed - each tile bet scores the line's bait for its Fish.
When the second Catch is revealed, every Fish scores its tiles left at the largest bait value left in
the Fisherman's hand (0 if none) and the round ends; it also ends when no Fish has a tile left.
Scoring: the Fisherman 4 per tile captured, a Fish its loot.  Winners: the highest score, ties share.
There is no chance.

`play(players, rng)` is the fast random playout; `Game(players)` the step API (see _step.py).
"""

from __future__ import annotations

from ._step import PLAYER, Step, highest

NAME = "fishfish"
MIN_PLAYERS, MAX_PLAYERS = 2, 8

FISHING = ("Catch", "Catch", "Empty_handed", "Empty_handed", "Empty_handed")
BAIT = (2, 3, 3, 4, 5)


def _bet_orders(n: int) -> list[list[int]]:
    """For each round, the Fish in betting order."""
    rounds = 2 * n if n <= 3 else n
    out = []
    for r in range(rounds):
        f = r % n
        if r % 2 == 0:  # clockwise: the left of the Fisherman first
            out.append([(f + i) % n for i in range(1, n)])
        else:  # counterclockwise: the right of the Fisherman first
            out.append([(f - i) % n for i in range(1, n)])
    return out


# ---- the fast random playout -------------------------------------------------------------------


def play(players: int, rng) -> tuple[list[int], list[int], int]:
    """One whole game with uniformly random choices: (scores, winners, decisions)."""
    rnd = rng.random
    n = players
    points = [0] * n
    decisions = 0
    for r, order in enumerate(_bet_orders(n)):
        f = r % n
        tiles = [4] * n
        tiles[f] = 0
        loot = [0] * n
        bet = [0] * n
        captured = 0
        catches_in_hand, empties_in_hand = 2, 3
        baits = [2, 3, 4, 5]  # the distinct bait values in hand, ascending
        threes = 2  # how many 3s are in hand
        catches_revealed = 0
        left = 4 * (n - 1)  # tiles the Fish hold, in all
        for line in (1, 2, 3, 4, 5):
            # the Fisherman: one of (distinct Fishing card) x (distinct Bait value)
            nb = len(baits)
            if catches_in_hand and empties_in_hand:
                i = int(rnd() * 2 * nb)
                catch = i < nb
                if not catch:
                    i -= nb
            else:
                i = int(rnd() * nb)
                catch = catches_in_hand > 0
            if catch:
                catches_in_hand -= 1
            else:
                empties_in_hand -= 1
            bait = baits[i]
            if bait == 3 and threes == 2:
                threes = 1
            else:
                del baits[i]
            decisions += n  # the Fisherman and every Fish; trace: line
            # the Fish bet: 0 to their tiles left; on the fifth line all of them
            total = 0
            if line < 5:
                for p in order:
                    t = tiles[p]
                    if t:
                        b = int(rnd() * (t + 1))
                        tiles[p] = t - b  # trace: bet
                        bet[p] = b
                        total += b
                    else:
                        bet[p] = 0  # trace: bet0
            else:
                for p in order:
                    b = bet[p] = tiles[p]
                    tiles[p] = 0  # trace: bet
                    total += b
            if not total:
                continue  # the cards are discarded unrevealed
            left -= total
            if catch:
                captured += total
                catches_revealed += 1
                if catches_revealed == 2:  # the round ends: the tiles left eat the largest bait
                    if left:
                        top = baits[-1] if baits else 0
                        for p in order:
                            loot[p] += tiles[p] * top
                    break
            else:
                for p in order:
                    loot[p] += bet[p] * bait
            if not left:
                break
        points[f] += 4 * captured
        for p in order:
            points[p] += loot[p]
    best = max(points)
    return points, [p for p in range(n) if points[p] == best], decisions


# ---- the step API --------------------------------------------------------------------------------


def flow(players: int):
    """The rules as a generator, for the step API (see _step.py)."""
    n = players
    points = [0] * n
    for r, order in enumerate(_bet_orders(n)):
        fisherman = r % n
        fishing_hand = list(FISHING)
        bait_hand = list(BAIT)
        tiles = [0 if p == fisherman else 4 for p in range(n)]
        loot = [[] for _ in range(n)]
        captured = [0] * n
        catches_revealed = 0
        for line_number in range(1, 6):
            legal = [f"set_line {k} bait-{v}" for k in dict.fromkeys(fishing_hand) for v in dict.fromkeys(bait_hand)]
            t = yield PLAYER, fisherman, legal
            _, kind, bait_label = t.split()
            bait = int(bait_label.split("-")[1])
            fishing_hand.remove(kind)
            bait_hand.remove(bait)
            bets = [0] * n
            for p in order:
                legal = [f"bet {b}" for b in range(min(4, tiles[p]) + 1) if line_number < 5 or b == tiles[p]]
                t = yield PLAYER, p, legal
                bets[p] = int(t.split()[1])
                tiles[p] -= bets[p]
            # checking
            on_line = sum(bets)
            if on_line > 0:
                if kind == "Catch":
                    captured[fisherman] += on_line
                    catches_revealed += 1
                else:
                    for p in order:
                        loot[p].extend([bait] * bets[p])
                if catches_revealed == FISHING.count("Catch"):
                    for p in order:
                        loot[p].extend([max(bait_hand, default=0)] * tiles[p])
                        tiles[p] = 0
                    break
            if not any(tiles):
                break
        for p in range(n):
            points[p] += 4 * captured[p] + sum(loot[p])
    return points, highest(points)


def Game(players: int) -> Step:
    return Step(flow(players))

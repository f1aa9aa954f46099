"""Fisherman (rulesets/fisherman.fish), written by hand.

Rules as the ruleset reads them: 3 or 4 players, one round per player, seat 0 deals first and the
deal passes left (seat + 1).  Cards: suits horse_mackerel, puffer_fish, sea_bream, goby, squid x
numbers 1 to 10; squid is out with 3 players.  The shuffled cards are dealt evenly (13 each of 40,
12 each of 50), starting left of the dealer; the extra cards are unused.  Rules, each one decision:
the player left of the dealer picks the Target suit; the next the Valuation (large or small) and,
with 4 players, the one after the Size (1 to 9, meaning it and the next number) - with 3 players the
second player picks both at once; the dealer picks the Not Target suit, not the Target.  Tricks: the
dealer leads the first; a player holding the lead suit must play it, otherwise any card.  The highest
Not Target card wins (strength = number if large, 11 - number if small), else the highest card of
the lead suit; the winner takes the cards and leads.  Round points: +1 per Target card, -1 per Not
Target card, +1 per card of the Size not Not Target, -1 per Not Target card of the Size.  Shields by
competition place (1 + how many have more points): 5, 3, 1, 0 VP.  Winners: the most VP, ties share.

`play(players, rng)` is the fast random playout; `Game(players)` the step API (see _step.py).
"""

from __future__ import annotations

from ._step import CHANCE, PLAYER, Step, highest

NAME = "fisherman"
MIN_PLAYERS, MAX_PLAYERS = 3, 4

SUITS = ("horse_mackerel", "puffer_fish", "sea_bream", "goby", "squid")
SHIELD = (0, 5, 3, 1, 0)  # by place 1..4


# ---- the fast random playout -------------------------------------------------------------------
#
# A card is suit * 16 + number.  Hands are kept split by suit (a list per suit), so following suit
# is one random index into one list; a free choice walks the suit lists.


def _value(target: int, not_target: int, low: int) -> list[int]:
    """A card's round points under these rules, by card code."""
    out = [0] * 80
    for s in range(5):
        for k in range(1, 11):
            v = (s == target) - (s == not_target)
            if k == low or k == low + 1:
                v += -1 if s == not_target else 1
            out[s * 16 + k] = v
    return out


def _strength(large: bool, not_target: int) -> list[int]:
    """A card's strength in a trick (+100 for the Not Target suit), by card code."""
    out = [0] * 80
    for s in range(5):
        for k in range(1, 11):
            out[s * 16 + k] = (k if large else 11 - k) + (100 if s == not_target else 0)
    return out


VALUE = [[[_value(t, nt, low) if low else None for low in range(10)] for nt in range(5)] for t in range(5)]
STRENGTH = {large: [_strength(large, nt) for nt in range(5)] for large in (False, True)}


def play(players: int, rng) -> tuple[list[int], list[int], int]:
    """One whole game with uniformly random choices: (scores, winners, decisions)."""
    rnd = rng.random
    shuffle = rng.shuffle
    n = players
    nsuits = 4 if n == 3 else 5
    suits = list(range(nsuits))
    all_cards = [s * 16 + k for s in suits for k in range(1, 11)]
    hand_size = len(all_cards) // n
    vp = [0] * n
    decisions = 0
    seats = list(range(n)) * 2
    for dealer in range(n):
        deck = all_cards[:]
        shuffle(deck)
        hands = [[[] for _ in suits] for _ in range(n)]
        i = 0  # trace: dealt
        for j in range(1, n + 1):  # dealt from the left of the dealer
            h = hands[(dealer + j) % n]
            for c in deck[i:i + hand_size]:
                h[c >> 4].append(c)
            i += hand_size
        # the rule decision phase
        target = int(rnd() * nsuits)
        if n == 4:
            large = rnd() < 0.5
            low = int(rnd() * 9) + 1
        else:
            k = int(rnd() * 18)
            large = k < 9
            low = k % 9 + 1
        not_target = int(rnd() * (nsuits - 1))
        if not_target >= target:
            not_target += 1
        decisions += n  # trace: rules
        value = VALUE[target][not_target][low]
        strength = STRENGTH[large][not_target]
        # the tricks
        points = [0] * n
        leader = dealer
        left = hand_size  # cards in every hand at the start of a trick
        nt = not_target
        for _ in range(hand_size):
            # the leader plays any card
            h = hands[leader]
            r = int(rnd() * left)
            for lst in h:
                if r < len(lst):
                    c = lst.pop(r)
                    break
                r -= len(lst)
            lead = c >> 4  # trace: led
            best = strength[c]
            winner = leader
            total = value[c]
            for p in seats[leader + 1:leader + n]:
                h = hands[p]
                lst = h[lead]
                if lst:  # follow the lead suit
                    c = lst.pop(int(rnd() * len(lst)))
                else:
                    r = int(rnd() * left)
                    for lst in h:
                        if r < len(lst):
                            c = lst.pop(r)
                            break
                        r -= len(lst)
                total += value[c]  # trace: followed
                s = c >> 4
                if s == lead or s == nt:
                    st = strength[c]
                    if st > best:
                        best = st
                        winner = p
            points[winner] += total
            leader = winner
            left -= 1
        decisions += n * hand_size
        for p in range(n):
            mine = points[p]
            place = 1
            for q in points:
                if q > mine:
                    place += 1
            vp[p] += SHIELD[place]
    best = max(vp)
    return vp, [p for p in range(n) if vp[p] == best], decisions


# ---- the step API --------------------------------------------------------------------------------


def _label(card) -> str:
    return f"{SUITS[card[0]]}-{card[1]}"


def flow(players: int):
    """The rules as a generator, for the step API (see _step.py)."""
    n = players
    cards = [(s, k) for s in range(5) for k in range(1, 11)]
    by_label = {_label(c): c for c in cards}
    vp = [0] * n
    dealer = 0
    for _ in range(n):
        # distribution
        deck = [c for c in cards if not (n == 3 and c[0] == 4)]
        hand_size = len(deck) // n
        hands = [[] for _ in range(n)]
        for j in range(1, n + 1):
            p = (dealer + j) % n
            for _ in range(hand_size):
                t = yield CHANCE, None, ["draw " + _label(c) for c in deck]
                c = by_label[t.split()[1]]
                deck.remove(c)
                hands[p].append(c)
        in_play = list(dict.fromkeys(SUITS[s] for s, _ in sorted(c for h in hands for c in h)))
        # rule decision
        t = yield PLAYER, (dealer + 1) % n, [f"choose_target {s}" for s in in_play]
        target = SUITS.index(t.split()[1])
        if n == 4:
            t = yield PLAYER, (dealer + 2) % n, ["choose_valuation large", "choose_valuation small"]
            valuation = t.split()[1]
            t = yield PLAYER, (dealer + 3) % n, [f"choose_size {k}" for k in range(1, 10)]
            size_low = int(t.split()[1])
        else:
            t = yield PLAYER, (dealer + 2) % n, [f"choose_valuation_and_size {v} {k}"
                                                 for v in ("large", "small") for k in range(1, 10)]
            valuation, size_low = t.split()[1], int(t.split()[2])
        t = yield PLAYER, dealer, [f"choose_not_target {s}" for s in in_play if s != SUITS[target]]
        not_target = SUITS.index(t.split()[1])
        # fishing
        leader = dealer
        catch = [[] for _ in range(n)]
        for _ in range(hand_size):
            played = [None] * n
            lead_suit = None
            for j in range(n):
                p = (leader + j) % n
                hand = hands[p]
                if p == leader or not any(c[0] == lead_suit for c in hand):
                    options = hand
                else:
                    options = [c for c in hand if c[0] == lead_suit]
                t = yield PLAYER, p, ["play_card " + _label(c) for c in options]
                c = by_label[t.split()[1]]
                hand.remove(c)
                played[p] = c
                if p == leader:
                    lead_suit = c[0]

            def trick_strength(c):
                cs = c[1] if valuation == "large" else 11 - c[1]
                return 100 + cs if c[0] == not_target else cs if c[0] == lead_suit else 0

            st = [trick_strength(played[p]) for p in range(n)]
            leader = st.index(max(st))
            catch[leader].extend(played)
        # results
        round_points = []
        for p in range(n):
            size = [c for c in catch[p] if c[1] in (size_low, size_low + 1)]
            round_points.append(sum(c[0] == target for c in catch[p]) - sum(c[0] == not_target for c in catch[p])
                                + sum(c[0] != not_target for c in size) - sum(c[0] == not_target for c in size))
        for p in range(n):
            place = 1 + sum(q > round_points[p] for q in round_points)
            vp[p] += SHIELD[place]
        dealer = (dealer + 1) % n
    return vp, highest(vp)


def Game(players: int) -> Step:
    return Step(flow(players))

"""Fat Fish (rulesets/fatfish.fish, default options: fiasco = penalty), written by hand.

Rules as the ruleset reads them: 2 to 6 players; 100 cards, colours red, yellow, green, blue,
purple x values 1,1,1,1,2,2,2,2,3,3,3,4,4,4,5,5,5,6,6,6.  Setup from the shuffled cards: each player
a stack of 12 and takes its top 4 into hand; one card face up starts each of three rows; a reserve
of 3 x (players - 1); the rest is out of the game.  Turns go round in seat order, skipping players
who have left.  A turn lays 1 to 4 cards (each lay one decision, `stop` after at least one) into one
row, each card the colour of the row's last card or a colour on which no row ends (an empty row
ends on no colour).  A row's fifth card ends the laying: the player takes the row and keeps one
card of each colour face up (two if all five are one colour; identical cards are one choice), the
rest face down.  At the end of the turn the player draws from their stack up to 4 cards, each empty
row takes the reserve's top card (if any), and a player with an empty hand leaves.  Score: kept
values - face-down values - 5 for the fiasco card's holder.  Winners: the highest score, ties share.

The fiasco (`when ... is broken`): a lay that breaks "one row a turn" or "a matching colour" is
accepted; the cards laid this turn go back to the hand (at its end), the player takes the fiasco
card and lays again from the start.

`fiasco_plays_legal`:

- True (default) - the engine's `legal_actions()`: every lay of a (row, distinct card) is one of
  the moves (the rule-breaking ones after the others), and the rule-breaking ones trigger the
  fiasco; not in the turn taken again after a fiasco ("this time following all the rules").
- False - only the lays that keep the rules: a random player that never breaks one.

`play(players, rng, fiasco_plays_legal=True)` is the fast random playout;
`Game(players, fiasco_plays_legal=True)` the step API (see _step.py).
"""

from __future__ import annotations

from itertools import combinations

from ._step import CHANCE, PLAYER, Step, highest

NAME = "fatfish"
MIN_PLAYERS, MAX_PLAYERS = 2, 6

COLOURS = ("red", "yellow", "green", "blue", "purple")
VALUES = (1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6)

# ---- the fast random playout -------------------------------------------------------------------
#
# A card is colour * 8 + value.  Rows are lists; `end[r]` is the colour of row r's last card (-1
# when the row is empty).  Hands hold at most 4 cards, so their distinct cards are a small set.

DECK = tuple(c * 8 + v for c in range(5) for v in VALUES)


_PAIRS: dict = {}


def _pair_sums(values: tuple) -> list[int]:
    """Five cards of one colour (their values, sorted): the sum of each distinct pair kept."""
    sums = _PAIRS.get(values)
    if sums is None:
        sums = _PAIRS[values] = [a + b for a, b in {(a, values[j]) for i, a in enumerate(values)
                                                    for j in range(i + 1, 5)}]
    return sums


def play(players: int, rng, fiasco_plays_legal: bool = True) -> tuple[list[int], list[int], int]:
    """One whole game with uniformly random choices: (scores, winners, decisions)."""
    rnd = rng.random
    n = players
    # the cards dealt, from the shuffled deck: a partial Fisher-Yates shuffle of what is used
    deck = list(DECK)
    used = 15 * n
    for i in range(used):
        j = i + int(rnd() * (100 - i))
        deck[i], deck[j] = deck[j], deck[i]
    stacks = [deck[12 * p:12 * p + 8] for p in range(n)]  # trace: dealt
    hands = [deck[12 * p + 8:12 * p + 12] for p in range(n)]
    i = 12 * n
    rows = [[deck[i]], [deck[i + 1]], [deck[i + 2]]]
    reserve = deck[i + 3:used]
    end = [deck[i] >> 3, deck[i + 1] >> 3, deck[i + 2] >> 3]
    score = [0] * n
    holder = -1  # who has the fiasco card
    decisions = 0
    playing = list(range(n))
    while playing:
        for p in playing:
            hand = hands[p]
            retaking = False  # after a fiasco the turn is taken again "following all the rules"
            while True:  # a fiasco starts the laying again
                laid = 0
                trow = -1
                fiasco = False
                while hand and laid < 4:
                    decisions += 1
                    if fiasco_plays_legal and not retaking:  # every (row, distinct card), and stop
                        cards = list(set(hand))
                        nd = len(cards)
                        k = int(rnd() * (3 * nd + (laid > 0)))
                        if k == 3 * nd:
                            break  # stop; trace: stop
                        r = k // nd
                        c = cards[k - r * nd]
                        col = c >> 3
                        if (laid and r != trow) or (col != end[r] and col in end):
                            fiasco = True  # trace: lay
                            break
                    elif laid:  # the same row: its colour or a colour no row ends on; or stop
                        et = end[trow]
                        cards = [c for c in set(hand) if (c >> 3) == et or (c >> 3) not in end]
                        k = int(rnd() * (len(cards) + 1))
                        if k == len(cards):
                            break  # stop; trace: stop
                        c = cards[k]
                        r = trow
                    else:  # any row: a lay is row * 64 + card
                        e0, e1, e2 = end
                        lays = []
                        for c in set(hand):
                            col = c >> 3
                            if col == e0 or col == e1 or col == e2:
                                if col == e0:
                                    lays.append(c)
                                if col == e1:
                                    lays.append(c | 64)
                                if col == e2:
                                    lays.append(c | 128)
                            else:
                                lays += (c, c | 64, c | 128)
                        c = lays[int(rnd() * len(lays))]
                        r = c >> 6
                        c &= 63
                    hand.remove(c)  # trace: lay
                    row = rows[r]
                    row.append(c)
                    end[r] = c >> 3
                    trow = r
                    laid += 1
                    if len(row) == 5:  # the big catch: keep one of each colour (two of one)
                        decisions += 1
                        first = row[0] >> 3
                        if (row[1] >> 3 == first and row[2] >> 3 == first and row[3] >> 3 == first
                                and row[4] >> 3 == first):
                            sums = _pair_sums(tuple(sorted([c & 7 for c in row])))
                            kept = sums[int(rnd() * len(sums))]
                        else:  # one of the distinct cards of each colour
                            d = sorted(set(row))
                            kept = 0
                            i, nd = 0, len(d)
                            while i < nd:
                                col = d[i] >> 3
                                j = i + 1
                                while j < nd and d[j] >> 3 == col:
                                    j += 1
                                k = d[i + int(rnd() * (j - i))]
                                kept += k & 7  # trace: keep_card
                                i = j
                        score[p] += (2 * kept - (row[0] & 7) - (row[1] & 7) - (row[2] & 7)
                                     - (row[3] & 7) - (row[4] & 7))
                        rows[r] = []  # trace: kept
                        end[r] = -1
                        break
                if not fiasco:
                    break
                retaking = True
                if laid:  # the cards laid this turn go back to the hand
                    row = rows[trow]
                    hand += row[-laid:]
                    del row[-laid:]
                    end[trow] = row[-1] >> 3 if row else -1
                holder = p
            stack = stacks[p]
            while len(hand) < 4 and stack:
                hand.append(stack.pop())
            for r in (0, 1, 2):
                if not rows[r] and reserve:
                    c = reserve.pop()
                    rows[r].append(c)
                    end[r] = c >> 3
        playing = [p for p in playing if hands[p]]
    if holder >= 0:
        score[holder] -= 5
    best = max(score)
    return score, [p for p in range(n) if score[p] == best], decisions


# ---- the step API --------------------------------------------------------------------------------


def _label(card) -> str:
    return f"{COLOURS[card[0]]}-{card[1]}"


def flow(players: int, fiasco_plays_legal: bool = True):
    """The rules as a generator, for the step API (see _step.py)."""
    n = players
    cards = [(c, v) for c in range(5) for v in VALUES]
    by_label = {_label(c): c for c in cards}
    deck = list(cards)

    def draw():
        t = yield CHANCE, None, ["draw " + _label(c) for c in deck]
        c = by_label[t.split()[1]]
        deck.remove(c)
        return c

    stacks, hands = [], []
    for p in range(n):
        stack = []
        for _ in range(12):
            stack.append((yield from draw()))
        hands.append([stack.pop() for _ in range(4)])  # the top 4, one at a time
        stacks.append(stack)
    rows = []
    for _ in range(3):
        rows.append([(yield from draw())])
    reserve = []
    for _ in range(3 * (n - 1)):
        reserve.append((yield from draw()))
    victory = [[] for _ in range(n)]
    penalty = [[] for _ in range(n)]
    left = [False] * n
    state = {"fiasco_holder": None}

    def laying(p, retaking):
        """One try at laying; returns True when a fiasco calls for another.  In the turn taken
        again after a fiasco ("this time following all the rules") no wrong lay is listed."""
        hand = hands[p]
        laid, turn_row = 0, 0
        for _ in range(4):
            if not hand:
                return False
            ends = [r[-1][0] if r else None for r in rows]

            def keeps_rules(r, c):
                return (laid == 0 or r == turn_row) and (c[0] == ends[r - 1] or c[0] not in ends)

            lays = [(r, c) for r in (1, 2, 3) for c in dict.fromkeys(hand)]
            legal = [f"lay {r} {_label(c)}" for r, c in lays if keeps_rules(r, c)]
            if laid > 0:
                legal.append("stop")
            if fiasco_plays_legal and not retaking:  # the wrong lays, listed after all the others
                legal += [f"lay {r} {_label(c)}" for r, c in lays if not keeps_rules(r, c)]
            t = yield PLAYER, p, legal
            if t == "stop":
                return False
            _, r, label = t.split()
            r, c = int(r), by_label[label]
            if not keeps_rules(r, c):  # the fiasco: the cards laid go back, lay again
                if laid > 0:
                    row = rows[turn_row - 1]
                    hand.extend(row[-laid:])
                    del row[-laid:]
                state["fiasco_holder"] = p
                return True
            hand.remove(c)
            rows[r - 1].append(c)
            turn_row = r
            laid += 1
            if len(rows[r - 1]) == 5:
                taken, rows[r - 1] = rows[r - 1], []
                yield from big_catch(p, taken)
                return False
        return False

    def big_catch(p, taken):
        colours_taken = len(set(c[0] for c in taken))
        legal, seen = [], set()
        for k in range(1, 6):
            for combo in combinations(range(5), k):
                chosen = [taken[i] for i in combo]
                if colours_taken == 1:
                    ok = len(chosen) == 2
                else:
                    ok = len(chosen) == colours_taken and len(set(c[0] for c in chosen)) == colours_taken
                key = tuple(sorted(_label(c) for c in chosen))
                if ok and key not in seen:
                    seen.add(key)
                    legal.append("keep " + " ".join(_label(c) for c in chosen))
        t = yield PLAYER, p, legal
        kept = [by_label[w] for w in t.split()[1:]]
        for c in kept:
            taken.remove(c)
        victory[p].extend(kept)
        penalty[p].extend(taken)

    while not all(left):
        for p in range(n):
            if left[p]:
                continue
            retaking = False
            while (yield from laying(p, retaking)):
                retaking = True
            hand, stack = hands[p], stacks[p]
            for _ in range(4 - len(hand)):
                if stack:
                    hand.append(stack.pop())
            for r in range(3):
                if not rows[r] and reserve:
                    rows[r].append(reserve.pop())
            if not hand:
                left[p] = True
    scores = [sum(v for _, v in victory[p]) - sum(v for _, v in penalty[p])
              - (5 if state["fiasco_holder"] == p else 0) for p in range(n)]
    return scores, highest(scores)


def Game(players: int, fiasco_plays_legal: bool = True) -> Step:
    return Step(flow(players, fiasco_plays_legal))

"""Fish Eat Fish (rulesets/fisheatfish.fish), written by hand.

Rules as the ruleset reads them: 2 to 5 players on a 5 x 5 board of circles joined along its rows
and columns.  Seat 0 holds the Starfish.  Each player in seat order picks a colour (red, yellow,
green, blue; purple only with 5 players) and takes challenge cards of it: Fish 1 to 9, a Shark, an
Octopus.  Five rounds of placing, in seat order: one fish on an empty circle not next to one's own
colour, unless every empty circle is next to it.  The circles left empty get one neutral fish each.
A stack belongs to the player whose colour is on top (neutral: nobody).  Turns go round from seat 0;
a player with no stack is skipped.  On a turn one of one's stacks either attacks an adjacent
occupied circle, or slides along a line through empty circles and attacks an occupied circle next to
where it stops (not the circle it came from); if neither is possible it drifts (slides) to a circle
that a stack of another player could attack - next to it, or next to where it could slide - and
the Starfish passes to the left; if that is not possible either, the player passes.  A fight on a
neutral or own stack: the attacker goes on top.  Otherwise both players choose a challenge card in
secret: an Octopus cancels (a slide stands); two Sharks remove both stacks; one Shark wins; two Fish
cards add their stack's height, the higher wins, a tie removes both.  The winner's stack goes on
top of the loser's, on the loser's circle.  A player out of cards takes their stacks into their
catch.  The game ends when at most one player has stacks (they join that player's catch with the
Starfish), or when a whole round of players on the board passed in a row (stacks join their owners'
catches).  Score: fish in the catch.  Winners: most fish; on a tie the Starfish holder if tied,
otherwise the tied with the most cards in hand (ties share).

`play(players, rng)` is the fast random playout; `Game(players)` the step API (see _step.py).
"""

from __future__ import annotations

from ._step import PLAYER, SIMULTANEOUS, Step

NAME = "fisheatfish"
MIN_PLAYERS, MAX_PLAYERS = 2, 5

COLOURS = ("red", "yellow", "green", "blue", "purple")
LINES = [list(range(r * 5 + 1, r * 5 + 6)) for r in range(5)] + [list(range(c + 1, 26, 5)) for c in range(5)]


def _board():
    adj: dict = {}
    runs: dict = {}
    for line in LINES:
        for x, y in zip(line, line[1:]):
            adj.setdefault(x, set()).add(y)
            adj.setdefault(y, set()).add(x)
        for i, c in enumerate(line):
            runs.setdefault(c, []).append(tuple(line[i + 1:]))
            runs.setdefault(c, []).append(tuple(reversed(line[:i])))
    adjacent = {c: tuple(sorted(v)) for c, v in adj.items()}
    runs = {c: tuple(r for r in rs if r) for c, rs in runs.items()}
    return adjacent, runs


ADJACENT, RUNS = _board()  # circles 1 to 25

# ---- the fast random playout -------------------------------------------------------------------
#
# Circles are 0 to 24.  A stack is its height `h[c]` (0: empty) and its owner `own[c]` (a seat,
# -1 for a neutral stack, -2 for no stack); colours only decide who owns a stack, so they are not kept.  A move is
# one number, from * 625 + to * 25 + target (an attack has to = from), a drift from * 25 + to.
# Challenge cards: Fish 1 to 9, SHARK, OCTOPUS.

ADJ = tuple(tuple(a - 1 for a in ADJACENT[c]) for c in range(1, 26))
RUN = tuple(tuple(tuple(x - 1 for x in r) for r in RUNS[c]) for c in range(1, 26))
SHARK, OCTOPUS = 10, 11
HAND = (1, 2, 3, 4, 5, 6, 7, 8, 9, SHARK, OCTOPUS)
# The moves from a circle, precomputed with their numbers: ATTACKS[fr] = ((target, move), ...);
# SLIDES[fr] = one run per line direction, each ((to, ((target, move), ...)), ...) nearest first.
ATTACKS = tuple(tuple((t, fr * 650 + t) for t in ADJ[fr]) for fr in range(25))
SLIDES = tuple(tuple(tuple((to, tuple((t, fr * 625 + to * 25 + t) for t in ADJ[to] if t != fr)) for to in r)
                     for r in RUN[fr]) for fr in range(25))


def play(players: int, rng) -> tuple[list[int], list[int], int]:
    """One whole game with uniformly random choices: (scores, winners, decisions)."""
    rnd = rng.random
    n = players
    adj, run, attacks, slides = ADJ, RUN, ATTACKS, SLIDES
    decisions = 0
    # colours: each picks one of those left (purple only with 5); they only tell stacks apart, so
    # which is picked is not kept (the tests read `picks` to replay the game)
    free = 5 if n == 5 else 4
    picks = [int(rnd() * (free - p)) for p in range(n)]  # noqa: F841
    decisions += n  # trace: colours
    # placing: 5 rounds in seat order, not next to one's own fish unless every empty circle is
    h = [0] * 25
    own = [-2] * 25  # -2: empty, -1: neutral
    empty = list(range(25))
    near = [[False] * 25 for _ in range(n)]  # next to one of p's fish
    circles = [set() for _ in range(n)]  # the circles of each player's stacks
    for _ in range(5):
        for p in range(n):
            np_ = near[p]
            ok = [c for c in empty if not np_[c]] or empty
            c = ok[int(rnd() * len(ok))]
            empty.remove(c)  # trace: place
            h[c] = 1
            own[c] = p
            circles[p].add(c)
            for a in adj[c]:
                np_[a] = True
    decisions += 5 * n
    for c in empty:  # neutral fish
        h[c] = 1
        own[c] = -1
    nb = n  # how many players have stacks
    hands = [list(HAND) for _ in range(n)]
    catch = [0] * n
    starfish = 0
    mover = 0
    passes = 0
    while True:
        if nb <= 1 or passes >= nb:  # the end: stacks join their owners' catches
            for c in range(25):
                if own[c] >= 0:
                    catch[own[c]] += h[c]
            if nb == 1:
                starfish = next(p for p in range(n) if circles[p])
            break
        f = mover
        mover = mover + 1 if mover + 1 < n else 0
        mine = circles[f]
        if not mine:
            continue
        # the turn
        passes = 0
        moves = []
        add = moves.append
        for fr in mine:
            for t, m in attacks[fr]:
                if h[t]:
                    add(m)
            for r in slides[fr]:
                for to, targets in r:
                    if h[to]:
                        break
                    for t, m in targets:
                        if h[t]:
                            add(m)
        if not moves:  # drift: to a circle another player's stack could attack
            reach = set()
            for o in range(25):
                if own[o] >= 0 and own[o] != f:
                    reach.update(adj[o])
                    for r in run[o]:
                        for d in r:
                            if h[d]:
                                break
                            reach.update(adj[d])
            for fr in mine:
                for r in run[fr]:
                    for to in r:
                        if h[to]:
                            break
                        if to in reach:
                            moves.append(fr * 25 + to)
            if not moves:
                passes += 1
                continue
            decisions += 1
            fr, to = divmod(moves[int(rnd() * len(moves))], 25)
            h[to] = h[fr]  # trace: drift
            own[to] = f
            h[fr] = 0
            own[fr] = -2
            mine.remove(fr)
            mine.add(to)
            starfish = starfish + 1 if starfish + 1 < n else 0
            continue
        decisions += 1
        m = moves[int(rnd() * len(moves))]
        fr, to, t = m // 625, m // 25 % 25, m % 25
        if to != fr:  # move, then attack from there; trace: move
            h[to] = h[fr]
            own[to] = f
            h[fr] = 0
            own[fr] = -2
            mine.remove(fr)
            mine.add(to)
        d = own[t]
        if d == -1 or d == f:  # neutral or one's own: on top, no challenge
            h[t] += h[to]
            own[t] = f
            h[to] = 0
            own[to] = -2
            mine.remove(to)
            mine.add(t)
            continue
        decisions += 2
        ha, hd = hands[f], hands[d]
        a = ha.pop(int(rnd() * len(ha)))
        b = hd.pop(int(rnd() * len(hd)))
        if a == OCTOPUS or b == OCTOPUS:  # trace: cards
            win = 0
        elif a == SHARK:
            win = 2 if b == SHARK else 1
        elif b == SHARK:
            win = -1
        else:
            a += h[to]
            b += h[t]
            win = 1 if a > b else -1 if a < b else 2
        if win == 1:  # the attacker on top of the defender
            h[t] += h[to]
            own[t] = f
            h[to] = 0
            own[to] = -2
            mine.remove(to)
            mine.add(t)
            circles[d].remove(t)
        elif win == -1:  # the defender on top of the attacker
            h[to] += h[t]
            own[to] = d
            h[t] = 0
            own[t] = -2
            mine.remove(to)
            circles[d].remove(t)
            circles[d].add(to)
        elif win == 2:  # both removed
            h[to] = h[t] = 0
            own[to] = own[t] = -2
            mine.remove(to)
            circles[d].remove(t)
        for p in (f, d):
            if not hands[p] and circles[p]:  # out of cards: their stacks go to their catch
                for c in circles[p]:
                    catch[p] += h[c]
                    h[c] = 0
                    own[c] = -2
                circles[p].clear()
        if not (mine and circles[d]):
            nb = sum([1 for c in circles if c])
    best = max(catch)
    most = [p for p in range(n) if catch[p] == best]
    if len(most) > 1:
        if starfish in most:
            most = [starfish]
        else:
            cards = max(len(hands[p]) for p in most)
            most = [p for p in most if len(hands[p]) == cards]
    return catch, most, decisions


# ---- the step API --------------------------------------------------------------------------------


def _slide(c: int, occupied) -> list[int]:
    out = set()
    for r in RUNS[c]:
        for x in r:
            if x in occupied:
                break
            out.add(x)
    return sorted(out)


def flow(players: int):
    """The rules as a generator, for the step API (see _step.py)."""
    n = players
    starfish = 0
    colour = [None] * n
    # colours
    for p in range(n):
        legal = [f"pick_colour {c}" for c in COLOURS if c not in colour and (c != "purple" or n == 5)]
        t = yield PLAYER, p, legal
        colour[p] = t.split()[1]
    supply = [[colour[p]] * 7 for p in range(n)]
    hands = [[f"{colour[p]}-{k}" for k in range(1, 10)] + [f"{colour[p]}-shark", f"{colour[p]}-octopus"]
             for p in range(n)]
    neutral = []
    if "purple" not in colour:
        neutral += ["purple"] * 7
    neutral += [c for c in COLOURS if c != "purple" and c not in colour for _ in range(7)]
    stack = {c: [] for c in range(1, 26)}  # bottom first
    catch = [[] for _ in range(n)]

    def top(c):
        return stack[c][-1] if stack[c] else None

    seat_of = {colour[p]: p for p in range(n)}

    def owner(c):
        return seat_of.get(top(c))

    def circles_of(p):
        return [c for c in range(1, 26) if owner(c) == p]

    def occupied():
        return {c for c in range(1, 26) if stack[c]}

    # placing
    for _ in range(5):
        for p in range(n):
            empty = [c for c in range(1, 26) if not stack[c]]

            def next_to_own(c):
                return any(top(a) == colour[p] for a in ADJACENT[c])

            legal = [f"place {c}" for c in empty if not next_to_own(c) or all(next_to_own(e) for e in empty)]
            t = yield PLAYER, p, legal
            stack[int(t.split()[1])].append(supply[p].pop(0))
    for c in range(1, 26):
        if not stack[c]:
            stack[c].append(neutral.pop(0))

    def attackable_at(t, p, occ):
        return any(owner(o) is not None and owner(o) != p
                   and (t in ADJACENT[o] or any(t in ADJACENT[d] for d in _slide(o, occ))) for o in sorted(occ))

    def fight(attacker, frm, to):
        defender = owner(to)
        if defender is None or defender == attacker:
            stack[to] += stack[frm]
            stack[frm] = []
        else:
            who = [p for p in range(n) if p in (attacker, defender)]
            chosen = yield SIMULTANEOUS, who, {p: [f"p{p}: challenge_card {c}" for c in hands[p]] for p in who}
            played = {}
            for p in who:
                card = chosen[p].split()[-1]
                hands[p].remove(card)
                played[p] = card.split("-")[1]
            a, d = played[attacker], played[defender]
            if "octopus" in (a, d):
                pass
            elif a == "shark" and d == "shark":
                stack[frm], stack[to] = [], []
            elif a == "shark":
                stack[to] += stack[frm]
                stack[frm] = []
            elif d == "shark":
                stack[frm] += stack[to]
                stack[to] = []
            else:
                at, dt = int(a) + len(stack[frm]), int(d) + len(stack[to])
                if at > dt:
                    stack[to] += stack[frm]
                    stack[frm] = []
                elif at < dt:
                    stack[frm] += stack[to]
                    stack[to] = []
                else:
                    stack[frm], stack[to] = [], []
        for p in range(n):
            if not hands[p]:
                for c in circles_of(p):
                    catch[p] += stack[c]
                    stack[c] = []

    # fishing
    mover = starfish
    passes = 0
    while True:
        on_board = [p for p in range(n) if circles_of(p)]
        if len(on_board) <= 1:
            for p in on_board:
                for c in circles_of(p):
                    catch[p] += stack[c]
                    stack[c] = []
                starfish = p
            break
        if passes >= len(on_board):
            for p in on_board:
                for c in circles_of(p):
                    catch[p] += stack[c]
                    stack[c] = []
            break
        f = mover
        if circles_of(f):
            passes = 0
            occ = occupied()
            legal = [f"attack {fr} {t}" for fr in circles_of(f) for t in ADJACENT[fr] if stack[t]]
            legal += [f"move_and_attack {fr} {to} {t}" for fr in circles_of(f) for to in _slide(fr, occ)
                      for t in ADJACENT[to] if stack[t] and t != fr]
            if legal:
                t = yield PLAYER, f, legal
                words = t.split()
                if words[0] == "attack":
                    frm, to = int(words[1]), int(words[2])
                else:
                    frm, via, to = int(words[1]), int(words[2]), int(words[3])
                    stack[via] += stack[frm]
                    stack[frm] = []
                    frm = via
                yield from fight(f, frm, to)
            else:
                legal = [f"drift {fr} {to}" for fr in circles_of(f) for to in _slide(fr, occ)
                         if attackable_at(to, f, occ)]
                if legal:
                    t = yield PLAYER, f, legal
                    frm, to = int(t.split()[1]), int(t.split()[2])
                    stack[to] += stack[frm]
                    stack[frm] = []
                    starfish = (starfish + 1) % n
                else:
                    passes += 1
        mover = (mover + 1) % n
    scores = [len(c) for c in catch]
    best = max(scores)
    most = [p for p in range(n) if scores[p] == best]
    if len(most) == 1:
        winners = most
    elif starfish in most:
        winners = [starfish]
    else:
        cards = max(len(hands[p]) for p in most)
        winners = [p for p in most if len(hands[p]) == cards]
    return scores, winners


def Game(players: int) -> Step:
    return Step(flow(players))

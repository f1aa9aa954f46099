"""The helpers the Python kernel calls, and loading a program's Python source.

`load(kp)` runs the source `emit_python` wrote in a namespace of its own, with the helpers below
bound to the program's layout (where zones, cards and dice are in the state).  Each helper does
what the engine's machine does at the same point (fishrules.runtime, fishrules.compiler.program):
the same order, the same work counted, the same random draws.  Anything that goes wrong raises
(a `KFault` of the kernel's own, or Python's error on nothing where a value is needed, which the
backend words as C's: `fail`): a rule that goes wrong says what went wrong in S[H_WHY] (and
S[H_WHY_ARG]) at S[H_AT], as the C spelling does, for kernel/faults.py to word.

`HELPERS` names every helper generated code may call (tests/test_kernel.py holds the emitted
source to it).
"""

from __future__ import annotations

from itertools import combinations, takewhile

from ..limits import MAX_CHOICES, MAX_DICE, MAX_LIST_LENGTH, MAX_NUMBER, MAX_SUBSET
from .abi import (
    FAULT_BUDGET, FAULT_CAPACITY, FAULT_RULE, H_AT, H_CHANCE, H_CHANCES, H_DDRAWS, H_DECISIONS, H_DRAWS, H_DSEED, H_MANUAL, H_MOVE, H_N, H_SEED,
    H_WHY, H_WHY_ARG, H_WORK, KERNEL_BUDGET, MAX_STACK, NIL, WHY_LIST, WHY_NOT_IN_LIST, WHY_NUMBER, WHY_SEAT,
    WHY_ZONE_NOBODY, below, decision_seed,
)
from .lower import KernelProgram

__all__ = ["KFault", "load", "HELPERS", "below", "decision_seed"]


class KFault(Exception):
    """The kernel stopped (`code`: a FAULT_*): the position says what went wrong, for
    kernel/faults.py to word (or, past the kernel's own limits, the engine's machine plays on)."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def fail(S, why, arg=0):
    """A rule went wrong: what (abi.WHY_*, packed with its own position by abi.why) and the value
    its words name, in the header, as the C spelling's `k_fail`."""
    S[H_WHY] = why
    S[H_WHY_ARG] = NIL if arg is None else arg
    raise KFault(FAULT_RULE)


def over_budget():
    raise KFault(FAULT_BUDGET)


def checked(S, v):
    """A value about to be kept: a number within ±MAX_NUMBER (nothing passes)."""
    if v is None or v.__class__ is not int or -MAX_NUMBER <= v <= MAX_NUMBER:
        return v
    fail(S, WHY_NUMBER)


def divide(S, a, d, why):
    if d == 0:  # (before anything else, as the engine's `divide`)
        fail(S, why)
    return a // d


def seat_at(S, base, p, stride, why):
    if p is None:
        fail(S, why)
    return base + p * stride


def zone_of_seat(S, base, p):
    if p is None:
        fail(S, WHY_ZONE_NOBODY)
    return base + p


def ch(S, items):
    w = S[H_WORK] + len(items)
    S[H_WORK] = w
    if w > KERNEL_BUDGET:
        raise KFault(FAULT_BUDGET)
    return items


def charge(S, n):
    w = S[H_WORK] + n
    S[H_WORK] = w
    if w > KERNEL_BUDGET:
        raise KFault(FAULT_BUDGET)


def one(v):
    return () if v is None else (v,)


def attr(table, c):
    return None if c is None else table[c]


def seat(S, p):
    if p is None:
        fail(S, WHY_SEAT)
    return p


def total(S, v):
    return sum(ch(S, v))


def least(S, v):
    return min(ch(S, v)) if v else 0


def most(S, v):
    return max(ch(S, v)) if v else 0


def first_of(v, empty):
    return v[0] if v else empty


def last_of(v, empty):
    return v[-1] if v else empty


def top(S, k, v):
    v = tuple(v)
    return v[len(v) - k:] if k > 0 else ()


def distinct(S, v):
    return list(dict.fromkeys(ch(S, v)))


def largest(S, k, v, reverse):
    if k <= 0:
        return ()
    return sorted(ch(S, v), reverse=bool(reverse))[:k]


def best_of(S, pairs, highest):
    """The elements of (element, key) pairs with the highest (or lowest) key, in order (the
    pairs' work is counted where they are made: `emit_python`'s `b_BestBuf`)."""
    best_value = None
    out: list = []
    for x, v in pairs:
        if best_value is None or (v > best_value if highest else v < best_value):
            best_value, out = v, [x]
        elif v == best_value:
            out.append(x)
    return out


def without_one(S, items, v):
    return [x for x in ch(S, items) if x != v]


def without_all(S, items, xs):
    out = set(ch(S, xs))
    return [x for x in ch(S, items) if x not in out]


def rotate(S, items, first):
    n = S[H_N]
    return sorted(ch(S, items), key=lambda p: (p - first) % n)


def direction(S, items, d, ccw):
    items = tuple(items)
    if not items:
        return items
    ch(S, items)
    first, n = items[0], S[H_N]
    if d == ccw:
        return sorted(items, key=lambda p: (first - p) % n)
    return sorted(items, key=lambda p: (p - first) % n)


def numbers(S, low, high, why):
    if high - low + 1 > MAX_CHOICES:
        fail(S, why, high - low + 1)
    return range(low, high + 1)


def unmask(S, pool, x):  # a subset is its own elements in Python
    return x


def distinct_seats(S, items):
    return tuple(dict.fromkeys(p for p in items if p is not None))


def sorted_set(S, items):
    return tuple(sorted(set(items)))


def same_items(S, a, b):
    return tuple(a) == tuple(b)


def minus_one(S, c):
    return c - 1


def plus_one(S, c):
    return c + 1


def at_line(S, pos):
    """S[H_AT] = pos, as an expression (None): the position of a link of a long `otherwise if`
    chain, set in its test (emit_python's `s_If`)."""
    S[H_AT] = pos


HELPERS = (
    "KFault", "fail", "divide", "seat_at", "zone_of_seat", "over_budget", "checked", "ch", "charge", "one", "attr", "seat", "total", "least", "most", "first_of",
    "last_of", "top", "distinct", "largest", "best_of", "without_one", "without_all", "rotate", "direction", "numbers",
    "unmask", "distinct_seats", "sorted_set", "same_items", "minus_one", "plus_one", "at_line", "choose", "zone",
    "zone_in_family", "family_start", "adjacent", "slide", "card_choices", "subsets", "set_list", "list_append",
    "list_extend", "list_remove", "move_one", "move", "draw", "shuffle", "reveal", "roll", "roll_one",
    "roll_rest", "roll_start", "roll_face", "draw_step", "draw_card", "note_old", "note_new", "stale_all", "forget", "BUDGET", "MAX_CHOICES", "MAX_STACK", "MISSING", "KEPT", "TRACE",
)


def load(kp: KernelProgram, source: str) -> dict:
    """The namespace of the program: its functions, and the helpers bound to its layout."""
    ns: dict = {name: globals()[name] for name in HELPERS if name in globals()}
    ns.update(_bound(kp))
    ns["BUDGET"] = KERNEL_BUDGET
    ns["MAX_CHOICES"] = MAX_CHOICES
    ns["MAX_STACK"] = MAX_STACK
    ns["__builtins__"] = {"len": len, "range": range, "tuple": tuple, "int": int, "min": min, "max": max, "abs": abs, "any": any,
                          "all": all, "sum": sum, "sorted": sorted, "set": set, "list": list, "map": map, "True": True,
                          "False": False, "None": None}
    exec(compile(source, "<fishrules kernel>", "exec"), ns)  # the lowering's own code: no rule text in it
    ns["SEEN"][:] = [ns[fn] for key, fn in kp.looks if key[0] == "seen by"]
    return ns


def _bound(kp: KernelProgram) -> dict:
    """The helpers that need to know where things are in the state.  (Long, and kept whole: a flat
    list of the helpers generated code calls, each a short closure over this program's layout and
    tables, bound once per program so that the hot path reads them as closure variables rather
    than attributes; they are returned together at the end.)"""
    lay = kp.layout
    prog_labels = _labels(kp)
    ZB = tuple(start for start, _ in lay.zones)
    ZC = tuple(cap for _, cap in lay.zones)
    WHERE, UP, MIXED, DICE, EMPTY = lay.where, lay.up, lay.mixed, lay.dice, lay.empty
    LABEL = prog_labels
    NCARDS = lay.ncards
    faces = kp.model.dice.faces if kp.model.dice is not None else ()
    nfaces = len(faces)
    first_face: dict = {}
    for i, f in enumerate(faces):
        first_face.setdefault(f.label, i)
    CANON = tuple(first_face[f.label] for f in faces)
    UNROLLED = nfaces
    adjacency, runs = _board(kp)
    # kept defines: a dict of values each, by arguments (emit_python's `kept`), emptied by a write
    # of what it reads (keep.py), or its value for one argument forgotten (`Keep.by_arg`); all
    # emptied when the kernel is called on another position (`forget`, PyBackend._enter)
    keep = kp.keep
    KEPT: list = [{} for _ in (keep.index if keep is not None else ())]
    arg_of: dict = {}  # an argument version's offset -> (the define's values, the argument)
    if keep is not None:
        for fn, (low, count, off) in keep.by_arg.items():
            for i in range(count):
                arg_of[off + i] = (KEPT[keep.index[fn]], low + i)
    ZSTALE = tuple(tuple(KEPT[d] for d in keep.of_zone(z)) if keep is not None else () for z in range(len(lay.zones)))
    ZARG = tuple(tuple(arg_of[a] for a in keep.args_of_zone(z)) if keep is not None else () for z in range(len(lay.zones)))
    DSTALE = tuple(KEPT[d] for d in keep.of("dice")) if keep is not None else ()

    def forget():
        """Every kept value forgotten (a shuffle; another position; a game set up again)."""
        for k in KEPT:
            if k:
                k.clear()

    stale_all = forget  # (a shuffle, cards shown: the engine forgets every value, keep.py)

    def zstale(z):
        for k in ZSTALE[z]:
            if k:
                k.clear()
        for k, a in ZARG[z]:
            k.pop(a, None)

    # The record being kept (kernel/record.py): a list of trace records while a caller keeps one,
    # else None (a playout pays one test of this cell at each move, reveal and roll).
    TRACE: list = [None]
    SEEN: list = []  # who sees each `seen by` value now: the program's functions (set by `load`)
    NOTED = kp.noted  # the values whose changes are events: (game?, slot, kind, S index, stride, is a list)

    def seen(S):
        return tuple([f(S) for f in SEEN])

    OLD: list = [()]  # what the noted value being written held (note_old, note_new)

    def note_old(S, v, at):
        """Before a value the players may see is written (outside a playout): what it holds (a
        list: its items)."""
        OLD[0] = tuple(S[at + 1:at + 1 + S[at]]) if NOTED[v][5] else (S[at],)

    def note_new(S, v, at):
        """After: a change is work, as the engine counts the event it keeps (`note_set`), and an
        event (`set`) while a record is kept, with who sees each `seen by` value now."""
        old = OLD[0]
        new = tuple(S[at + 1:at + 1 + S[at]]) if NOTED[v][5] else (S[at],)
        if new != old:
            charge(S, 2)
            t = TRACE[0]
            if t is not None:
                t.append((5, v, at, old, new, seen(S) if SEEN else ()))

    def choose(S, k):
        r, S[H_DDRAWS] = below(S[H_DSEED], S[H_DDRAWS], k)
        return r

    def randbelow(S, k):
        r, S[H_DRAWS] = below(S[H_SEED], S[H_DRAWS], k)
        return r

    def zone(S, start):
        return S[start + 1:start + 1 + S[start]]

    def zone_in_family(S, first, i, low, count, why):
        if i is None or not (low <= i < low + count):
            fail(S, why, i)
        return first + i - low

    def family_start(S, start, i, low, count, stride, why):
        if i is None or not (low <= i < low + count):
            fail(S, why, i)
        return start + (i - low) * stride

    def adjacent(S, c):
        return adjacency.get(c, ())

    def slide(S, c, blocked):
        stop = set(blocked)
        from_c = runs.get(c, ())
        ch(S, stop)
        ch(S, from_c)
        out = set()
        for run in from_c:
            for x in run:
                if x in stop:
                    break
                out.add(x)
        return sorted(out)

    def card_choices(S, items):
        at: dict = {}
        out: list = []
        for v in ch(S, items):
            lab = LABEL[v]
            i = at.get(lab)
            if i is None:
                at[lab] = len(out)
                out.append(v)
            elif S[UP + v] and not S[UP + out[i]]:
                out[i] = v
        return out

    def subsets(S, items, cards, why):
        items = tuple(items)
        if len(items) > MAX_SUBSET:
            fail(S, why, len(items))
        charge(S, 1 << len(items))
        out: list = []
        for k in range(1, len(items) + 1):
            out.extend(combinations(items, k))
        if cards:
            seen, kept = set(), []
            for combo in out:
                key = tuple(sorted(LABEL[c] for c in combo))
                if key not in seen:
                    seen.add(key)
                    kept.append(combo)
            out = kept
        return out

    # ---- lists -------------------------------------------------------------------------------

    # `cap`: the room the layout keeps for the list (`Layout.list_cap`); a list the rules add to
    # past it stops the step (FAULT_CAPACITY), after the engine's own checks

    def set_list(S, at, items, cap):
        items = tuple(items)
        n = len(items)
        if n > MAX_LIST_LENGTH:
            fail(S, WHY_LIST)
        if n > cap:
            raise KFault(FAULT_CAPACITY)
        S[at] = n
        S[at + 1:at + 1 + cap] = items + (0,) * (cap - n)

    def list_append(S, at, v, cap):
        v = checked(S, v)
        n = S[at]
        if n >= MAX_LIST_LENGTH:
            fail(S, WHY_LIST)
        if n >= cap:
            raise KFault(FAULT_CAPACITY)
        S[at + 1 + n] = v
        S[at] = n + 1

    def list_extend(S, at, items, cap):
        items = tuple(items)
        n = S[at]
        if n + len(items) > MAX_LIST_LENGTH:
            fail(S, WHY_LIST)
        for x in items:
            checked(S, x)
        if n + len(items) > cap:
            raise KFault(FAULT_CAPACITY)
        S[at + 1 + n:at + 1 + n + len(items)] = items
        S[at] = n + len(items)

    def list_remove(S, at, v):
        n = S[at]
        for i in range(n):
            if S[at + 1 + i] == v:
                S[at + 1 + i:at + n] = S[at + 2 + i:at + 1 + n]
                S[at + n] = 0
                S[at] = n - 1
                return
        fail(S, WHY_NOT_IN_LIST, v)

    # ---- cards -------------------------------------------------------------------------------

    def _take(S, c):
        """Take card c out of its zone (if any): the work is 1 + the zone's size, as the engine's."""
        src = S[WHERE + c]
        if src >= 0:
            zstale(src)
            b = ZB[src]
            n = S[b]
            i = S.index(c, b + 1, b + 1 + n)
            S[i:b + n] = S[i + 1:b + n + 1]
            S[b + n] = 0
            S[b] = n - 1
            return src, n
        return src, 0

    def move_one(S, c, dest, facing):
        if c is None:
            return
        t = TRACE[0]
        if t is not None:
            t.append((3, dest, facing, seen(S) if SEEN else (), (c,), (S[WHERE + c],), (S[UP + c],)))
        src, n = _take(S, c)
        if src >= 0:
            charge(S, 1 + n)
        zstale(dest)
        d = ZB[dest]
        m = S[d]
        if m >= ZC[dest]:
            raise KFault(FAULT_CAPACITY)
        S[d + 1 + m] = c
        S[d] = m + 1
        S[WHERE + c] = dest
        if facing:
            S[UP + c] = facing == 1

    def move(S, cards, dest, facing):
        if not cards:
            return
        cards = tuple(dict.fromkeys(cards))
        if len(cards) == 1:
            move_one(S, cards[0], dest, facing)
            return
        t = TRACE[0]
        if t is not None:
            t.append((3, dest, facing, seen(S) if SEEN else (), cards, tuple(S[WHERE + c] for c in cards),
                      tuple(S[UP + c] for c in cards)))
        moving = set(cards)
        sources = {S[WHERE + c] for c in cards if S[WHERE + c] >= 0}
        charge(S, len(cards) + sum(S[ZB[k]] for k in sources))
        zstale(dest)
        for k in sources:
            zstale(k)
            b = ZB[k]
            n = S[b]
            kept = [x for x in S[b + 1:b + 1 + n] if x not in moving]
            S[b + 1:b + 1 + n] = kept + [0] * (n - len(kept))
            S[b] = len(kept)
        d = ZB[dest]
        m = S[d]
        if m + len(cards) > ZC[dest]:
            raise KFault(FAULT_CAPACITY)
        S[d + 1 + m:d + 1 + m + len(cards)] = cards
        S[d] = m + len(cards)
        for c in cards:
            S[WHERE + c] = dest
        if facing:
            u = facing == 1
            for c in cards:
                S[UP + c] = u

    def draw(S, count, src, dest, facing):
        b = ZB[src]
        while count > 0:
            n = S[b]
            if not n:  # counted for simulations: a deal that ran out of cards
                S[EMPTY + 2 * src + (1 if S[H_DECISIONS] else 0)] += 1
                break
            if S[MIXED + src]:
                card = S[b + 1 + randbelow(S, n)]
                lab, u = LABEL[card], S[UP + card]
                for c in S[b + 1:b + 1 + n]:  # the first card nobody can tell from it
                    if LABEL[c] == lab and S[UP + c] == u:
                        card = c
                        break
                S[H_CHANCES] += 1
            else:
                card = S[b + n]  # the top card: no chance involved
                move_one(S, card, dest, facing)
                count -= 1
                continue
            if TRACE[0] is not None:
                TRACE[0].append((2, card))  # a chance outcome: its move follows
            move_one(S, card, dest, facing)
            count -= 1

    # chance left to the caller (S[H_MANUAL]): a draw takes its cards one at a time
    def draw_step(S, count, src, dest, facing):
        """The next card of a draw: 0 when it is done (no more to draw, or the zone is empty), 1 when
        the top card of a zone not shuffled was taken, 2 when the caller is to say which card of
        the shuffled zone `src` is drawn."""
        b = ZB[src]
        if count <= 0:
            return 0
        n = S[b]
        if not n:  # counted for simulations: a deal that ran out of cards
            S[EMPTY + 2 * src + (1 if S[H_DECISIONS] else 0)] += 1
            return 0
        if S[MIXED + src]:
            if S[H_MANUAL]:
                return 2
            draw(S, 1, src, dest, facing)  # chance handed to the generator since the draw began
            return 1
        move_one(S, S[b + n], dest, facing)  # the top card: no chance involved
        return 1

    def draw_card(S, src, dest, facing):
        """The card the caller wrote into the first move slot is drawn (one of zone `src`, else a
        fault): the first card nobody can tell from it, as the generator's draw takes."""
        card = S[H_MOVE]
        if card.__class__ is not int or not 0 <= card < NCARDS or S[WHERE + card] != src:
            raise KFault(FAULT_CAPACITY)
        b = ZB[src]
        lab, u = LABEL[card], S[UP + card]
        for c in S[b + 1:b + 1 + S[b]]:
            if LABEL[c] == lab and S[UP + c] == u:
                card = c
                break
        S[H_CHANCES] += 1
        S[H_CHANCE] = 0
        if TRACE[0] is not None:
            TRACE[0].append((2, card))  # a chance outcome: its move follows
        move_one(S, card, dest, facing)

    def shuffle(S, zid):
        S[MIXED + zid] = 1

    def reveal(S, cards):
        t = TRACE[0]
        if t is not None:
            cards = tuple(cards)
            shown = tuple(c for c in cards if not S[UP + c])
            if shown:
                t.append((4, shown, tuple(S[WHERE + c] for c in shown)))
        for c in cards:
            if not S[UP + c]:
                S[UP + c] = True

    # ---- dice --------------------------------------------------------------------------------

    # nfaces ** k for each count of dice k rolled in one draw (the engine's `roll_faces`: one draw
    # below nfaces ** k while that is at most 2 ** 62, else one draw a die)
    ONE_DRAW = tuple(takewhile(lambda t: t <= 1 << 62, (nfaces ** k for k in range(MAX_DICE + 1))))

    def roll(S, dice):
        for k in DSTALE:
            if k:
                k.clear()
        if dice.__class__ is not tuple:
            dice = tuple(dice)
        k = len(dice)
        if not k:
            return
        if k < len(ONE_DRAW):
            r, S[H_DRAWS] = below(S[H_SEED], S[H_DRAWS], ONE_DRAW[k])
            for d in dice:
                r, f = divmod(r, nfaces)
                S[DICE + d] = CANON[f]
        else:  # (more dice than a game has: a list of dice that names some twice)
            total = nfaces ** k
            if total <= 1 << 62:
                r = randbelow(S, total)
                faces = []
                for _ in range(k):
                    r, f = divmod(r, nfaces)
                    faces.append(f)
            else:
                faces = [randbelow(S, nfaces) for _ in range(k)]
            for d, f in zip(dice, faces):
                S[DICE + d] = CANON[f]
        S[H_CHANCES] += k
        if TRACE[0] is not None:
            TRACE[0].extend((1, d, S[DICE + d]) for d in dice)

    def roll_one(S, d):
        if d is None:
            fail(S, 0)
        roll(S, (d,))

    def roll_rest(S, dice, i):
        """The dice of a group from the i-th on, rolled together by the generator (chance handed
        to it while the group waited: the engine's `roll_wait`)."""
        roll(S, tuple(dice)[i:])

    # chance left to the caller (S[H_MANUAL]): the group's dice show no face, then each die gets
    # the face the caller wrote into the first move slot (a face that stands for its kind)
    def roll_start(S, dice):
        for k in DSTALE:
            if k:
                k.clear()
        for d in dice:
            S[DICE + d] = UNROLLED

    def roll_face(S, d):
        f = S[H_MOVE]
        if f.__class__ is not int or not 0 <= f < nfaces or CANON[f] != f:
            raise KFault(FAULT_CAPACITY)
        for k in DSTALE:
            if k:
                k.clear()
        S[DICE + d] = f
        S[H_CHANCES] += 1
        S[H_CHANCE] = 0
        if TRACE[0] is not None:
            TRACE[0].append((1, d, f))

    return {
        "choose": choose, "zone": zone, "zone_in_family": zone_in_family, "family_start": family_start,
        "adjacent": adjacent, "slide": slide, "card_choices": card_choices, "subsets": subsets,
        "set_list": set_list, "list_append": list_append, "list_extend": list_extend, "list_remove": list_remove,
        "move_one": move_one, "move": move, "draw": draw, "shuffle": shuffle, "reveal": reveal, "roll": roll,
        "roll_one": roll_one, "roll_rest": roll_rest, "roll_start": roll_start, "roll_face": roll_face, "draw_step": draw_step, "draw_card": draw_card, "randbelow": randbelow, "KEPT": KEPT, "forget": forget,
        "note_old": note_old, "note_new": note_new, "stale_all": stale_all, "TRACE": TRACE, "SEEN": SEEN,
    }


def _labels(kp: KernelProgram) -> tuple:
    """Each card's label as a number (cards with the same label: the same number)."""
    ids: dict = {}
    return tuple(ids.setdefault(c.label, len(ids)) for c in kp.model.cards)


def _board(kp: KernelProgram) -> tuple[dict, dict]:
    if kp.model.board is None:
        return {}, {}
    from ..analysis import board_adjacency, board_runs

    return board_adjacency(kp.model.board), board_runs(kp.model.board)

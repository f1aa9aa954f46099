"""Stage 4, the program: what a compiled ruleset is made of, as the runtime sees it.

`Program` holds everything needed to run one ruleset: the generated functions of its blocks,
expressions and legal actions (written by `fishrules.compiler`), the pauses where the rules wait for
a player or for chance, the actions with their parameters, and the tables that describe dice, cards
and zones.  It is built once per ruleset and shared, read-only, by every state of the game.  How an
action is written and read, and those tables, are the model's (`fishrules.forms`): the program
holds them, and its actions delegate their texts to their forms.

This module is also the generated code's library: the helpers it calls (`charge`, `bounded`,
`checked_value`, `Fail`, ..., all in `HELPERS`) live here.  Which attributes of the state the
generated code and these helpers may touch (`g`, `p`, `dice`, `stack`, `_work`, `_dmemo`,
`events`, ...) is the runtime's side of the contract, named in `fishrules.runtime.contract` and
held by tests/test_runtime_contract.py.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Callable, Optional

from .. import model as m
from .. import reasons
from ..errors import Span
from ..forms import ActionForm, ParamForm, forms_of
from ..limits import MAX_CHOICES, MAX_LIST_LENGTH, MAX_NUMBER, MAX_PHASE_DEPTH, MAX_SUBSET, WORK_BUDGET

__all__ = ["HELPERS", "Located", "Program", "ActionProgram", "ParamProgram", "ChoosePause", "SimulPause", "RollPause", "DrawPause",
           "Fail", "Unplayable", "CHANCE", "SIMULTANEOUS", "charge", "bounded", "checked_value", "roll_faces",
           "MEMO_LIMIT", "MAX_SEATS", "MAX_STACK", "OVER_BUDGET"]

Fn = Callable

CHANCE = "chance"
SIMULTANEOUS = "simultaneous"

#: Phases calling phases deeper than this is a runaway recursion in the rules.
MAX_STACK = MAX_PHASE_DEPTH



class Fail(Exception):
    """A rule went wrong while running.  `span` is where, when the failing piece knows it;
    otherwise the runtime names the instruction, action or score that was being worked out."""

    def __init__(self, message: str, span: Optional[Span] = None):
        super().__init__(message)
        self.span = span


OVER_BUDGET = reasons.OVER_BUDGET


def charge(s, n: int) -> None:
    """Count `n` more things looked at (or steps run) against the work budget of this call."""
    w = s._work + n
    s._work = w
    if w > WORK_BUDGET:
        raise Fail(OVER_BUDGET)


def bounded(v):
    """A number that a rule worked out, checked to lie within ±MAX_NUMBER."""
    if -MAX_NUMBER <= v <= MAX_NUMBER:
        return v
    raise Fail(reasons.NUMBER_TOO_LARGE)


def checked_value(v):
    """A value about to be stored in the state: numbers within bounds, lists within length."""
    t = type(v)
    if t is int:
        return bounded(v)
    if t is tuple and len(v) > MAX_LIST_LENGTH:
        raise Fail(reasons.LIST_TOO_LONG)
    return v


class Unplayable(Exception):
    """`unavailable "…"`: the rules cannot be played as asked."""


# ---- program pieces -------------------------------------------------------------------------------


class ParamProgram:
    """A parameter as the engine runs it: its domain (what it may be now, in a fixed order) and
    for `some` the things chosen from; how its values are written and read is its `form`
    (`fishrules.forms.ParamForm`)."""

    __slots__ = ("form", "name", "kind", "slot", "domain", "span", "elements")

    def __init__(self, form: ParamForm, domain, span, elements=None):
        self.form = form
        self.name = form.name
        self.kind = form.kind
        self.slot = form.slot
        self.domain = domain
        self.span = span
        self.elements = elements  # for `some`: the things chosen from, in their order


class ActionProgram(ActionForm):
    """An action as the engine runs it: its block, its parameters' programs, its rules.  It is an
    ActionForm with its form's writers, so its texts (`render`, `render_redacted`) are written by
    the form's code, with no call more (a kernel state's actions are written through these);
    `args` and `parse_token` are its form's (`form`)."""

    __slots__ = ("block", "nlocals", "requires", "checks", "span", "broken", "enumerate", "form")

    def __init__(self, name, block, nlocals, params, requires, span, form: ActionForm):
        self.name = name
        self.block = block
        self.nlocals = nlocals
        self.params: list[ParamProgram] = params
        self.requires: list[tuple[str, Span, Fn]] = requires
        # the requires that enumeration must still test (others are built into a domain)
        self.checks: list[Fn] = [f for _, _, f in requires]
        self.span = span
        # rule name -> (condition or None, block): a violation accepted instead of refused
        self.broken: dict[str, tuple] = {}
        # enumerate(state, actor, ok, bad): every choice, generated code (`write_enumerator`)
        self.enumerate: Optional[Fn] = None
        self.form = form
        self.number, self.secret, self.card_labels = form.number, form.secret, form.card_labels
        self.writers, self.redacted = form.writers, form.redacted

    def args(self, values: tuple) -> dict:
        return self.form.args(values)

    def parse_token(self, i: int, tok: str):
        return self.form.parse_token(i, tok)


class ChoosePause:
    __slots__ = ("actions", "slot", "span", "key", "memo", "lookups", "hits")

    def __init__(self, actions, slot, span):
        self.actions: list[ActionProgram] = actions
        self.slot = slot
        self.span = span
        # key(state, actor): everything the legality of these actions reads, or None when that
        # cannot be known; legal lists are then shared by all positions with the same key.
        self.key: Optional[Fn] = None
        self.memo: dict = {}
        # Measured as the games run: where positions seldom repeat (a card game's hands), working
        # out the key costs more than the memo saves, and the memo is switched off (see MEMO_TRIAL).
        self.lookups = 0
        self.hits = 0


#: Positions remembered per decision point; a full memo starts again empty, keeping what recurs
#: now.  Small on purpose: a memo of tens of thousands of legal lists per decision point is
#: millions of objects for Python's garbage collector to walk again and again (measured: a quarter
#: to a half of a long simulation's time), for hits that mostly come from a few common positions.
MEMO_LIMIT = 2_000
#: Lookups after which a decision point's memo is kept only if at least MEMO_MIN_HITS of them hit.
#: Switching it off changes no result: a legal list is the same worked out or remembered.
MEMO_TRIAL = 400
MEMO_MIN_HITS = 0.25


class DrawPause:
    __slots__ = ("slot", "facing", "span")

    def __init__(self, slot, facing, span):
        self.slot = slot
        self.facing = facing
        self.span = span


#: Zone keys: a game zone is its slot; a player's zone is G + slot * MAX_SEATS + player.
MAX_SEATS = 64


class SimulPause(ChoosePause):
    """`each of PLAYERS secretly chooses …`: L[slot] who chooses, L[slot + 1] their choices so far,
    as (player, action, values) in the order they were made."""

    __slots__ = ()


class RollPause:
    __slots__ = ("slot", "span")

    def __init__(self, slot, span):
        self.slot = slot
        self.span = span


class Program:
    """Everything needed to run a game, compiled once."""

    def __init__(self, model: m.Model):
        self.model = model
        self.model_span = model.span  # where a fault with no better position is reported
        self.winners_span = getattr(model.winners, "span", None) or model.span
        self.identity = ""  # the game's rule hash, set by `Game`
        self.blocks: list[Fn] = []  # block id -> its function (s, fr) -> waits
        self.source = ""  # the Python source the rules compiled to
        self.block_names: list[str] = []
        self.block_is_phase: list[bool] = []
        self.block_nlocals: list[int] = []
        self.pauses: dict[tuple[int, int], object] = {}
        self.phase_block: dict[str, int] = {}
        self.actions: dict[str, ActionProgram] = {}
        self.defines: dict[str, Fn] = {}
        self.score: Fn = lambda s, p: 0
        #: each score term's function (s, p) -> its value, in the rules' order: `score` is their sum
        self.score_terms: list[Fn] = []
        self.winners: Fn = lambda s: ()
        self.game_inits: list[tuple[int, Fn]] = []
        self.player_inits: list[Fn] = []
        self.dice_count: Optional[Fn] = None
        #: how actions are written and read, and the tables below: from the model (fishrules.forms)
        self.forms = forms = forms_of(model)
        self.faces: list[m.FaceInfo] = list(model.dice.faces) if model.dice is not None else []
        self.face_kinds: list = list(forms.face_kinds)
        self.face_values: list[int] = list(forms.face_values)
        self.face_labels: list[str] = list(forms.face_labels)
        self.face_canonical: list[int] = list(forms.face_canonical)
        self.unrolled = forms.unrolled
        self.chance_outcomes: list[tuple[str, int, Fraction]] = list(forms.chance_outcomes)
        #: roll_text(die, face): a roll's outcome as the history writes it
        self.roll_text: Callable[[int, int], str] = forms.roll_text
        self.option_slots = {o.name: o.slot for o in model.options}
        self.G = model.n_game_slots
        # The memoised defines a change of a zone makes stale, by the zone's key (see
        # `State._move`): game zone k -> stale_g[k], a player's zone in slot k -> stale_p[k]; each a
        # tuple of memo indices, or None for all of them.  Filled in by the compiler.
        self.stale_g: list = []
        self.stale_p: list = []
        self.cards = list(model.cards)
        self.card_labels = list(forms.card_labels)
        self.card_values: dict[str, list] = forms.card_values
        # visibility of every variable: vis(state, viewer, owner) -> may the viewer see it
        self.game_vis: dict[int, Fn] = {}
        self.player_vis: dict[int, Fn] = {}
        # who sees a value or a zone now: aud(state, owner) -> None (everybody) or a tuple of players
        self.game_audience: dict[int, Fn] = {}
        self.player_audience: dict[int, Fn] = {}
        self.game_zone_names: dict[int, str] = forms.game_zone_names
        self.game_var_names: dict[int, str] = forms.game_var_names
        self.player_var_names: dict[int, str] = forms.player_var_names
        self.public_defines: frozenset[str] = forms.public_defines
        #: the named rules (`rule "…":` blocks), numbered (`fishrules.analysis.rule_numbers`): the
        #: index of each in a state's counts of firings (`State.rules_fired`)
        self.rules: dict[str, int] = {}

    def zone_of_key(self, key: int) -> tuple[bool, int, int]:
        """(is a game zone, slot, owner) of a zone key."""
        if key < self.G:
            return True, key, -1
        k = key - self.G
        return False, k // MAX_SEATS, k % MAX_SEATS

    def can_see_zone(self, s, key: int, viewer) -> bool:
        is_game, slot, owner = self.zone_of_key(key)
        vis = self.game_vis[slot] if is_game else self.player_vis[slot]
        return vis(s, viewer, owner)

    def audience(self, s, key: int) -> Optional[tuple]:
        """Who sees what is in the zone `key` now: None for everybody, else a tuple of players
        (the cards' faces aside).  -1, cards in no zone (the box), is seen by nobody."""
        if key < 0:
            return ()
        is_game, slot, owner = self.zone_of_key(key)
        f = self.game_audience[slot] if is_game else self.player_audience[slot]
        return f(s, owner)

    def zone_name(self, key: int) -> str:
        """A zone as the rules name it: `deck`, `rows(2)`, `hand of p1`; `the box` for -1."""
        if key < 0:
            return "the box"
        return self.forms.zone_name(*self.zone_of_key(key))


# ---- the compiler ---------------------------------------------------------------------------------



def roll_faces(s, k: int, nfaces: int) -> list[int]:
    """The faces (indices) of k dice rolled together by the seeded generator: one draw for the
    group when its outcomes fit in 62 bits, exactly uniform thanks to the generator's rejection."""
    total = nfaces**k
    if total <= 1 << 62:
        r = s._randbelow(total)
        out = []
        for _ in range(k):
            r, f = divmod(r, nfaces)
            out.append(f)
        return out
    return [s._randbelow(nfaces) for _ in range(k)]



# ---- helpers the generated code calls ------------------------------------------------------------
# Each takes and returns plain values; those that look at a collection count it against the work
# budget first.  `HELPERS` is what the generated code sees of them, under these names.


def ch(s, items):
    """`items`, counted against the work budget (every loop over a collection goes through here)."""
    w = s._work + len(items)
    s._work = w
    if w > WORK_BUDGET:
        raise Fail(OVER_BUDGET)
    return items


def seat(p):
    if p is None:
        raise Fail(reasons.SEAT_OF_NOBODY)
    return p


def top(k, v):
    v = tuple(v)
    return v[len(v) - k:] if k > 0 else ()


def distinct(s, v):
    return tuple(dict.fromkeys(ch(s, v)))


def divide(a, d, span):
    if d == 0:
        raise Fail(reasons.DIVIDE, span)
    return a // d


def total(s, v):
    return sum(ch(s, v))


def least(s, v):
    return min(ch(s, v)) if v else 0


def most(s, v):
    return max(ch(s, v)) if v else 0


def largest(s, k, v, reverse):
    if k <= 0:
        return ()
    return tuple(sorted(ch(s, v), reverse=reverse)[:k])


def slide(s, c, blocked, runs):
    stop = set(blocked)
    from_c = runs.get(c, ())
    ch(s, stop)
    ch(s, from_c)
    out = set()
    for run in from_c:
        for x in run:
            if x in stop:
                break
            out.add(x)
    return tuple(sorted(out))


def best(s, items, key, highest):
    best_value = None
    out: list = []
    for x in ch(s, items):
        v = key(x)
        if best_value is None or (v > best_value if highest else v < best_value):
            best_value, out = v, [x]
        elif v == best_value:
            out.append(x)
    return tuple(out)


def without_one(s, items, v):
    return tuple([x for x in ch(s, items) if x != v])


def without_all(s, items, xs):
    out = set(ch(s, xs))
    return tuple([x for x in ch(s, items) if x not in out])


def rotate(s, items, first):
    n = s.n
    return tuple(sorted(ch(s, items), key=lambda p: (p - first) % n))


def direction(s, items, d):
    items = tuple(items)
    if not items:
        return items
    ch(s, items)
    first, n = items[0], s.n
    if d == "counterclockwise":
        return tuple(sorted(items, key=lambda p: (first - p) % n))
    return tuple(sorted(items, key=lambda p: (p - first) % n))


def member(s, a, b):
    return a in ch(s, b)


def zone_slot(i, base, lo, count, name):
    """The game slot of zone `name(i)` of a family."""
    if i is None or not (lo <= i < lo + count):
        raise Fail(reasons.no_such_zone(name, i, lo, count))
    return base + i - lo


def player_zone(base, p):
    if p is None:
        raise Fail(reasons.ZONE_OF_NOBODY)
    return base + p


def one_card(c):
    return () if c is None else (c,)


def card_value(c, values):
    return None if c is None else values[c]


def first_of(v, empty):
    return v[0] if v else empty


def last_of(v, empty):
    return v[-1] if v else empty


class Located(Exception):
    """An exception raised by a block's generated code, with where the statement that raised it is
    written (the runtime turns it into a RuleError at that line)."""

    def __init__(self, exc: BaseException, span: Optional[Span]):
        super().__init__(str(exc))
        self.exc = exc
        self.span = span


def note_set(s, p: int, k: int, old, new) -> None:
    """A value changed: an event, seen by whoever may see the value now (p < 0: a game value).
    Recording it is work, counted: a loop of changes fills memory as fast as it spends time."""
    w = s._work + 2
    s._work = w
    if w > WORK_BUDGET:
        raise Fail(OVER_BUDGET)
    prog = s.prog
    aud = prog.game_audience[k](s, -1) if p < 0 else prog.player_audience[k](s, p)
    s.events.append(("set", len(s._history), p, k, old, new, aud))


def extended(old: tuple, v) -> tuple:
    new = checked_value(old + tuple(v))
    for x in v:
        bounded(x)
    return new


def removed(old: tuple, v) -> tuple:
    try:
        i = old.index(v)
    except ValueError:
        raise Fail(reasons.not_in_list(v)) from None
    return old[:i] + old[i + 1:]


def reveal(s, cards) -> None:
    up = s.up
    cards = tuple(c for c in cards if not up[c])
    for c in cards:
        up[c] = True
    if cards and s.events is not None:
        s.events.append(("reveal", len(s._history), cards, tuple(s.where[c] for c in cards)))


def push(s, block: int, L: list) -> None:
    """Play a phase: its frame goes on top of the stack."""
    st = s.stack
    st.append([block, 0, L])
    if len(st) > MAX_STACK:
        raise Fail(reasons.TOO_DEEP)


def push_for(s, block: int, nlocals: int, p, phase: str) -> None:
    if p is None:
        raise Fail(reasons.phase_for_nobody(phase))
    L = [None] * nlocals
    L[0] = p
    push(s, block, L)


def end_phase(s, block: int, phase: str) -> None:
    """`end PHASE`: that phase's frame and every frame above it go."""
    st = s.stack
    for i in range(len(st) - 1, -1, -1):
        if st[i][0] == block:
            del st[i:]
            return
    raise Fail(reasons.end_not_played(phase))


def start_roll(s, L: list, ls: int, d, single: bool) -> None:
    """`roll`: the dice to roll, none rolled yet; a die in the air shows no face (a view at the chance
    node must not show the face it had before it was picked up)."""
    rolled = L[ls] = (d,) if single else tuple(d)
    L[ls + 1] = 0
    faces, unrolled = s.dice, s.prog.unrolled
    for x in rolled:
        faces[x] = unrolled
    if s._dmemo:
        s._dmemo.clear()


def roll_wait(s, L: list, ls: int) -> bool:
    """Roll what is left to roll: True to wait for chance (manual), else every die is rolled by the
    seeded generator and each outcome recorded in the history."""
    dice, i = L[ls], L[ls + 1]
    if i < len(dice):
        if s.manual:
            s.cur = CHANCE
            return True
        prog = s.prog
        canonical, faces, hist, text = prog.face_canonical, s.dice, s._history, prog.roll_text
        if hist is None:  # a playout keeps no history: it counts the outcomes
            s._chances += len(dice) - i
        for d, f in zip(dice[i:], roll_faces(s, len(dice) - i, len(prog.faces))):
            f = canonical[f]
            faces[d] = f
            if hist is not None:
                hist.append(text(d, f))
        L[ls + 1] = len(dice)
        s._dmemo.clear()
    return False


def draw_wait(s, L: list, ls: int, facing) -> bool:
    """Draw what is left to draw (L[ls] cards from zone L[ls+1] to zone L[ls+2]): True to wait for
    chance (manual, from a shuffled zone); at most what the zone holds."""
    while L[ls] > 0:
        src = L[ls + 1]
        cards = s._zget(src)
        if not cards:
            if s.empty_draws is not None:  # counted for simulations: a deal that ran out of cards
                s.empty_draws[src] = s.empty_draws.get(src, 0) + 1
            break
        if src in s.mixed:
            if s.manual:
                s.cur = CHANCE
                return True
            card = s._same_card(cards, cards[s._randbelow(len(cards))])
            s._draw(card, L[ls + 2], facing)
        else:
            s._move((cards[-1],), L[ls + 2], facing)  # the top card: no chance involved
        L[ls] -= 1  # (_move forgot the defines that read either zone)
    return False


def number_choices(low: int, high: int, name: str, span):
    if high - low + 1 > MAX_CHOICES:
        raise Fail(reasons.too_many_numbers(name, high - low + 1), span)
    return range(low, high + 1)


def card_choices(s, items, labels) -> list:
    """Identical cards are one choice.  The one that stands for them is a face-up copy if there is
    one: moving it never shows more than the table saw before (moving a face-down copy would leave
    the face-up twin on show)."""
    at, out = {}, []
    up = s.up
    for v in ch(s, items):
        lab = labels[v]
        i = at.get(lab)
        if i is None:
            at[lab] = len(out)
            out.append(v)
        elif up[v] and not up[out[i]]:
            out[i] = v
    return out


def distinct_choices(s, items) -> list:
    return list(dict.fromkeys(ch(s, items)))


def subsets(s, items, labels, span) -> list:
    """Every nonempty subset of `items` (for `some X`), smallest first; identical cards make one
    choice per different set of labels."""
    items = tuple(items)
    if len(items) > MAX_SUBSET:
        raise Fail(reasons.too_many_subsets(len(items)), span)
    charge(s, 1 << len(items))
    out = []
    for k in range(1, len(items) + 1):
        out.extend(combinations(items, k))
    if labels is not None:
        seen, kept = set(), []
        for combo in out:
            key = tuple(sorted(labels[c] for c in combo))
            if key not in seen:
                seen.add(key)
                kept.append(combo)
        out = kept
    return out


HELPERS = {
    "MAX_CHOICES": MAX_CHOICES, "number_choices": number_choices, "card_choices": card_choices,
    "distinct_choices": distinct_choices, "subsets": subsets,
    "Located": Located, "Unplayable": Unplayable, "SIMULTANEOUS": SIMULTANEOUS, "note_set": note_set,
    "extended": extended, "removed": removed, "reveal": reveal, "push": push, "push_for": push_for,
    "end_phase": end_phase, "start_roll": start_roll, "roll_wait": roll_wait, "draw_wait": draw_wait,
    "Fail": Fail, "bounded": bounded, "checked_value": checked_value, "charge": charge, "ch": ch, "seat": seat,
    "top": top, "distinct": distinct, "divide": divide, "total": total, "least": least, "most": most,
    "largest": largest, "slide": slide, "best": best, "without_one": without_one, "without_all": without_all,
    "rotate": rotate, "direction": direction, "member": member, "zone_slot": zone_slot,
    "player_zone": player_zone, "one_card": one_card, "card_value": card_value, "first_of": first_of,
    "last_of": last_of,
}

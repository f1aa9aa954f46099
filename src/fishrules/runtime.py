"""Stage 5: running a compiled program.  `State` is one position of one game.

A state is plain data: game-wide values `g` (options first), per-player values `p`, the faces the
dice show, a stack of frames `[block, pc, locals]` saying where the rules are, the history of action
texts, and the random generator (a seed and a count of draws).  Values inside are ints, strings,
booleans, None and tuples only, so `clone` is a few list copies and JSON round-trips exactly.

The interpreter runs instructions until the rules wait for a decision (`current` is a player) or
for chance (`current` is CHANCE).  With a seeded generator chance is resolved on the spot, and still
recorded in the history; with `chance="manual"` the caller picks each outcome.
"""

from __future__ import annotations

import json
import random
import reprlib
from fractions import Fraction
from typing import Any, Callable, Mapping, NamedTuple, Optional, Union

from .compiler import (
    CHANCE, MEMO_LIMIT, MEMO_MIN_HITS, MEMO_TRIAL, OVER_BUDGET, SIMULTANEOUS, DrawPause, Fail, Located, Program, RollPause, SimulPause,
    Unplayable,
    charge, roll_faces,
)
from .errors import Diagnostic, FishrulesError, IllegalAction, OptionError, RuleError, StateError
from .limits import MAX_ACTION_TEXT, MAX_DICE, MAX_HISTORY, MAX_REPLAY_WORK, WORK_BUDGET

__all__ = ["State", "Action", "CHANCE", "SIMULTANEOUS"]

_M64 = (1 << 64) - 1


def _mix(seed: int, n: int) -> int:
    """splitmix64 of the n-th draw: a counter-based generator, so its state is two integers."""
    z = (seed + (n + 1) * 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class Action:
    """One thing that can be done now.  `str(action)` is its canonical text; `apply` takes either.

    `name` is the action's name in the rules (`"reroll"`), `text` its canonical text
    (`"reroll 1 3"`, or `"p1: challenge_card red-7"` at a simultaneous choice, `"die 2 rolls HEAD"`
    for chance) and `player` the player it is for (None for chance); a drawn card's outcome says
    where the card goes in `to` (`"hand of p1"`).  `breaks` names the rule the
    action breaks when the rules accept that with a consequence (a card laid against the rules is
    legal, and costs a penalty); it is None for an action that keeps every rule.  Two actions are
    equal when their texts and players are."""

    __slots__ = ("name", "player", "breaks", "to", "_values", "_text", "_render", "_origin", "_prefix", "_prog")

    def __init__(self, name: str, text: Optional[str], player: Optional[int], values: tuple = (), render: Any = None,
                 origin: Any = None, prefix: str = "", prog: Any = None, breaks: Optional[str] = None):
        self.name = name
        self.player = player
        # The rule this action breaks, when the rules accept breaking it with a consequence (their
        # `when "RULE" is broken` block runs instead of the action's effects): a bot may choose it
        # or leave it.  None for an action that keeps every rule.
        self.breaks = breaks
        # For a chance outcome that draws a card: the zone it goes to (`hand of p1`), so whoever
        # picks outcomes by hand can deal a chosen hand.  None otherwise.
        self.to: Optional[str] = None
        self._values = values
        self._text = text
        self._render = render  # the ActionProgram, to write the text only when somebody asks
        self._origin = origin  # the legal list this came from: applying it needs no re-checking
        self._prefix = prefix  # "p1: " at a simultaneous choice, where the text says who chooses
        self._prog = prog  # the compiled rules it belongs to: another game's action is refused

    @property
    def args(self) -> dict[str, Any]:
        """The parameter values by name, typed: a player is their seat (0 first), a die its number
        (1 first), a card its label, a number an int, a choice its word, `some X` a tuple of them.
        A chance outcome has `die` and `face`, or `card`.  An action with no parameters: {}."""
        if self.player is None:  # chance
            prog = self._prog
            if self.name == "roll":
                return {"die": self._values[0] + 1, "face": prog.face_labels[self._values[1]]}
            return {"card": prog.card_labels[self._values[0]]}
        ap = self._render
        if ap is None:
            return {}
        labels = self._prog.card_labels if self._prog is not None else ()
        out: dict[str, Any] = {}
        for p, v in zip(ap.params, self._values):
            kind = p.element.kind if p.element is not None else "number"
            if p.kind == "some":
                out[p.name] = tuple(_typed(kind, x, labels) for x in v)
            else:
                out[p.name] = v if p.kind == "choice" else _typed(kind, v, labels)
        return out

    @property
    def text(self) -> str:
        t = self._text
        if t is None:
            t = self._text = self._prefix + self._render.render(self._values)
        return t

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Action({self.text!r})"

    def __eq__(self, other) -> bool:
        if isinstance(other, Action):
            return self.text == other.text and self.player == other.player
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)


def _typed(kind: str, v: Any, labels: Any) -> Any:
    """A parameter's value as `Action.args` gives it."""
    if kind == "die":
        return v + 1
    if kind == "card":
        return labels[v]
    return v


def _normalize(text: str) -> str:
    return " ".join(text.split())


def _seat(word: str) -> Optional[int]:
    """The player a word such as `p1` names (ASCII digits only), or None."""
    word = word.lower()
    if len(word) < 2 or len(word) > 3 or word[0] != "p" or not word[1:].isascii() or not word[1:].isdigit():
        return None
    return int(word[1:])


def _tuplify(x):
    if isinstance(x, list):
        return tuple(_tuplify(i) for i in x)
    return x


def _zones_of(s):
    """(key, cards) of every zone of a state."""
    model = s.prog.model
    for v in model.game_vars:
        if v.type.kind == "zone":
            for i in range(v.family[1] if v.family else 1):
                yield v.slot + i, s.g[v.slot + i]
    for v in model.player_vars:
        if v.type.kind == "zone":
            for p in range(s.n):
                yield s.prog.G + v.slot * 64 + p, s.p[p][v.slot]


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 40, 40

#: The fields of a saved state; the position ones must be what replaying its history gives.
_STATE_FIELDS = ("format", "game", "players", "g", "p", "dice", "stack", "history", "redact", "up", "mixed",
                 "current", "seed", "draws", "manual")
_POSITION_FIELDS = ("g", "p", "dice", "stack", "redact", "up", "mixed", "current")


def _listed(items: list, most: int = 10) -> str:
    """`possible: a, b, c`, at most `most` of them and how many more there are."""
    if not items:
        return "none is possible"
    shown = ", ".join(items[:most])
    more = len(items) - most
    return f"possible: {shown}" + (f" and {more} more" if more > 0 else "")


def _short(x) -> str:
    """A value from outside, shown in a message without flooding it (however deep it is nested)."""
    r = _REPR.repr(x)
    return r if len(r) <= 60 else r[:57] + "…"


def _json(x) -> Optional[str]:
    """A value as canonical JSON text, for comparing what a saved state says; None if it is not
    JSON-able (too deep, say)."""
    try:
        return json.dumps(x, sort_keys=True, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return None


def _listify(x):
    if isinstance(x, tuple):
        return [_listify(i) for i in x]
    return x


class Log:
    """An append-only record that copies share: appending and copying take constant time, so a
    state's `clone()` does not grow with the length of its history.  Entries are kept as a chain
    of pairs; the list view is made once per copy when first asked for, then kept up to date."""

    __slots__ = ("_chain", "_len", "_view")

    def __init__(self, chain: Optional[tuple] = None, length: int = 0):
        self._chain = chain
        self._len = length
        self._view: Optional[list] = None if length else []

    def append(self, x) -> None:
        self._chain = (self._chain, x)
        self._len += 1
        view = self._view
        if view is not None:
            view.append(x)

    def __len__(self) -> int:
        return self._len

    def copy(self) -> "Log":
        return Log(self._chain, self._len)

    def list(self) -> list:
        view = self._view
        if view is None:
            view, chain = [], self._chain
            while chain is not None:
                chain, x = chain
                view.append(x)
            view.reverse()
            self._view = view
        return view

    def truncate(self, n: int) -> None:
        """Forget the entries past the first n (a failed call undone)."""
        chain: Any = self._chain
        for _ in range(self._len - n):
            chain = chain[0]
        self._chain, self._len = chain, n
        if self._view is not None:
            del self._view[n:]


class Legal:
    """The legal actions of one player at one decision, shared by every position with the same
    legality key: the moves (action program, values, rule broken or None) in order, and the
    `Action` objects and their texts, made only when somebody asks for them."""

    __slots__ = ("moves", "actor", "prefix", "prog", "_actions", "_by_text")

    def __init__(self, moves: list, actor: int, prefix: str, prog):
        self.moves = moves
        self.actor = actor
        self.prefix = prefix
        self.prog = prog
        self._actions: Optional[list] = None
        self._by_text: Optional[dict] = None

    def actions(self) -> list:
        out = self._actions
        if out is None:
            out = self._actions = []
            actor, prefix, prog = self.actor, self.prefix, self.prog
            for ap, values, breaks in self.moves:
                if ap.params:
                    out.append(Action(ap.name, None, actor, values, ap, out, prefix, prog, breaks))
                else:
                    out.append(Action(ap.name, prefix + ap.name, actor, (), None, out, prefix, prog, breaks))
        return out

    def by_text(self) -> dict:
        by = self._by_text
        if by is None:
            by = self._by_text = {a.text: a for a in self.actions()}
        return by


class Playout(NamedTuple):
    """What `State.playout` returns: the final scores and winners, how many player decisions and
    how many chance outcomes (dice rolled, cards drawn at random) the playout took (the two add up
    to the length a history of the same game would have, from the playout's start)."""

    scores: list
    winners: list
    decisions: int
    chances: int


class State:
    """A position in a game.  Create one with `Game.start` (or `Game.replay`,
    `Game.state_from_json`).

    Everything that makes the position is plain data — values, zones, dice, where the rules are
    (a stack of frames), the random generator (seed and draws) — so `clone` is cheap and JSON is
    exact.  `history` is the full record of every action's text, chance included, for replays; a
    player may only be shown `view(player)` and `history_for(player)`.  `n` is the number of
    players and `game` the `Game` this is a state of."""

    __slots__ = (
        "game", "prog", "n", "seats", "dice_ids", "g", "p", "dice", "stack", "_history", "cur",
        "seed", "draws", "manual", "where", "up", "mixed", "redact", "events", "_legal", "_work", "_dmemo", "_fast",
        "_chances", "fires", "empty_draws", "_kernel_origin",
    )
    # (declared for type checkers)
    game: Any
    prog: Program
    n: int
    seats: tuple
    dice_ids: tuple
    g: list
    p: list
    dice: list
    stack: list
    _history: Any  # a Log, or None after a playout
    cur: Any
    seed: Any  # an int (None only while a state is being built)
    draws: int
    manual: bool
    where: list
    up: list
    mixed: frozenset
    redact: tuple
    events: Any  # a Log, or None while a playout runs
    _legal: Any
    _work: int
    _dmemo: dict
    _fast: Optional[Callable[..., int]]
    _chances: int
    fires: Optional[list]
    _kernel_origin: Any  # a determinization: (its Determinizer, the cards' orders, its record's length)
    empty_draws: Optional[dict]

    # ---- creation ----------------------------------------------------------------------------

    @classmethod
    def _new(cls, game, players: int, options: dict, seed: Optional[int], manual: bool,
             quiet: Optional[random.Random] = None, count_rules: bool = False) -> "State":
        """A new game.  With `quiet` (a playout's generator) it is set up for a playout at once:
        no history or events, chance from that generator, the first legal actions not listed."""
        prog: Program = game._program
        s = cls.__new__(cls)
        s.game = game
        s.prog = prog
        s.n = players
        s.seats = tuple(range(players))
        s.g = [None] * prog.model.n_game_slots
        for name, value in options.items():
            s.g[prog.option_slots[name]] = value
        s.dice_ids = ()
        s.dice = []
        s._work = 0
        if prog.dice_count is not None:
            count = prog.dice_count(s, ())
            if not isinstance(count, int) or count < 0 or count > MAX_DICE:
                span = prog.model.dice.span if prog.model.dice is not None else None
                raise RuleError(Diagnostic(span, f"the number of dice must be 0 to {MAX_DICE:,}, not {count:,}"))
            s.dice_ids = tuple(range(count))
        s._history = Log() if quiet is None else None
        s.redact = ()  # (history index, what others read, who reads the real text), in order
        s.events = Log() if quiet is None else None  # what happened, as raw records: see `events_for`
        s._fast = None if quiet is None else quiet.randrange  # a playout's generator, not the seeded one
        s._chances = 0  # chance outcomes a playout resolved
        s.fires = [0] * len(prog.rules) if count_rules else None  # see `rules_fired`
        s._kernel_origin = None  # a determinization: how to build its kernel state (see determinize.py)
        # with count_rules, the draws that found their zone empty, by zone key (see compiler.program.draw_wait)
        s.empty_draws = {} if count_rules else None
        s.seed = seed
        s.draws = 0
        s.manual = manual
        s._legal = None
        s._dmemo = {}  # values of defines, until the state next changes (not part of the state)
        s.cur = None
        try:
            s._init_values()
            s._run()
            if quiet is None:
                s._can_act()
        except FishrulesError:
            raise
        except Exception as exc:  # a starting value that cannot be worked out
            raise s._fault(exc, None, "while setting up the game") from None
        return s

    def _init_values(self) -> None:
        prog = self.prog
        for slot, f in prog.game_inits:
            self.g[slot] = f(self, ())
        self.p = [[f(self, ()) for f in prog.player_inits] for _ in range(self.n)]
        self.dice = [prog.unrolled] * len(self.dice_ids)
        ncards = len(prog.cards)
        self.where = [-1] * ncards  # the zone key of every card; -1: in the box
        self.up = [False] * ncards  # face up: everybody sees it, whatever zone it is in
        self.mixed = frozenset()  # keys of shuffled zones, drawn from at random
        game_block = prog.phase_block["game"]
        self.stack = [[game_block, 0, [None] * prog.block_nlocals[game_block]]]

    def _restart(self) -> None:
        """`play again`: everything back to the start but the options and the history.  Setting up
        a game is work, counted as one step per value and card (an endless `play again` ends at
        the budget in a moment, not after a million set-ups)."""
        prog = self.prog
        charge(self, 16 + prog.G + len(prog.cards) + self.n * len(self.p[0]) if self.p else 16)
        self._init_values()
        self._dmemo.clear()
        # the caller's frame is gone; the new game frame runs next

    # ---- the interpreter ---------------------------------------------------------------------

    def _run(self) -> None:
        """Run the rules until they wait for somebody (or chance), or the game ends.  Steps count
        against the work budget of the call, with what expressions look at (`charge`)."""
        blocks = self.prog.blocks
        stack = self.stack
        steps = 0
        budget = WORK_BUDGET - self._work
        fr = None
        try:
            while stack:
                fr = stack[-1]
                if blocks[fr[0]](self, fr):
                    self._work += steps
                    return
                stack = self.stack  # `play again` replaces it
                steps += 1
                if steps > budget:
                    raise Fail(OVER_BUDGET)
        except FishrulesError:
            raise
        except Unplayable as exc:
            raise OptionError(f"{self.prog.model.title}: {exc}") from None
        except Exception as exc:  # a rule went wrong at run time: report where
            context = f"while playing {self.prog.block_names[fr[0]]}" if fr is not None else "while playing"
            raise self._fault(exc, None, context) from None
        self._work += steps
        self.cur = None
        if self.events is not None:
            self.events.append(("over", len(self._history)))

    def _fault(self, exc: BaseException, span, context: str) -> RuleError:
        """The RuleError for a rule that went wrong while running: the failing piece's own
        position when it knows it, else `span` (what was being worked out)."""
        if isinstance(exc, Located):  # from a block: where its statement is written
            span = exc.span or span
            exc = exc.exc
        if isinstance(exc, Fail):
            msg = str(exc)
            span = exc.span or span
        elif isinstance(exc, RecursionError):
            msg = "the rules are nested too deeply to work out"
        elif isinstance(exc, TypeError) and "NoneType" in str(exc):
            msg = "a rule used `nobody` where a player is needed"
        elif isinstance(exc, ZeroDivisionError):
            msg = "divide by zero"
        elif isinstance(exc, MemoryError):
            msg = "the rules ran out of memory"
        else:
            msg = f"the rules went wrong here ({type(exc).__name__}: {exc})"
        if span is None:
            span = self.prog.model_span
        return RuleError(Diagnostic(span, msg, context))

    # ---- undoing a call that failed ------------------------------------------------------------

    def _snapshot(self) -> tuple:
        """Everything a call may change, copied, so a call that fails leaves the state as it was."""
        return (self.g[:], [row[:] for row in self.p], self.dice[:], [[f[0], f[1], f[2][:]] for f in self.stack],
                len(self._history), self.redact, self.where[:], self.up[:], self.mixed, self.cur, self.draws,
                self._legal, len(self.events) if self.events is not None else 0)

    def _restore(self, snap: tuple) -> None:
        (self.g, self.p, self.dice, self.stack, nh, self.redact, self.where, self.up, self.mixed, self.cur, self.draws,
         self._legal, ne) = snap
        self._history.truncate(nh)
        if self.events is not None:
            self.events.truncate(ne)
        self._dmemo.clear()

    # ---- zones -------------------------------------------------------------------------------

    def _zget(self, key: int) -> tuple:
        G = self.prog.G
        if key < G:
            return self.g[key]
        k = key - G
        return self.p[k % 64][k // 64]

    def _zset(self, key: int, cards: tuple) -> None:
        G = self.prog.G
        if key < G:
            self.g[key] = cards
        else:
            k = key - G
            self.p[k % 64][k // 64] = cards

    def _move(self, cards: tuple, dest: int, facing) -> None:
        """Put `cards` on top of the zone `dest` (in their order), from wherever they are.  Every
        zone they leave is rebuilt once, and the work counts against the call's budget."""
        if not cards:
            return
        if self.events is not None:
            if len(cards) > 1:
                cards = tuple(dict.fromkeys(cards))
            self._note_move(cards, dest, facing)
        where = self.where
        G = self.prog.G
        if len(cards) == 1:  # the common case, with the zones read and written in line
            c = cards[0]
            src = where[c]
            if src >= 0:
                if src < G:
                    t = self.g[src]
                    i = t.index(c)
                    self.g[src] = t[:i] + t[i + 1:]
                else:
                    k = src - G
                    row = self.p[k & 63]
                    t = row[k >> 6]
                    i = t.index(c)
                    row[k >> 6] = t[:i] + t[i + 1:]
                w = self._work + 1 + len(t)
                self._work = w
                if w > WORK_BUDGET:
                    raise Fail(OVER_BUDGET)
            if dest < G:
                self.g[dest] += cards
            else:
                k = dest - G
                self.p[k & 63][k >> 6] += cards
            where[c] = dest
            if facing is not None:
                self.up[c] = facing == "up"
            if self._dmemo:
                self._forget_zone(dest)
                if src >= 0:
                    self._forget_zone(src)
            return
        cards = tuple(dict.fromkeys(cards))
        moving = set(cards)
        sources = {where[c] for c in cards if where[c] >= 0}
        charge(self, len(cards) + sum(len(self._zget(k)) for k in sources))
        for k in sources:
            self._zset(k, tuple(c for c in self._zget(k) if c not in moving))
        self._zset(dest, self._zget(dest) + cards)
        for c in cards:
            where[c] = dest
        if facing == "up":
            up = self.up
            for c in cards:
                up[c] = True
        elif facing == "down":
            up = self.up
            for c in cards:
                up[c] = False
        if self._dmemo:
            self._forget_zone(dest)
            for k in sources:
                self._forget_zone(k)

    def _forget_zone(self, key: int) -> None:
        """The zone `key` changed: forget the defines' values that read it (all, when the compiler
        could not tell which do).  Which cards are face up is read by no define."""
        prog = self.prog
        G = prog.G
        stale = prog.stale_g[key] if key < G else prog.stale_p[(key - G) >> 6]
        memo = self._dmemo
        if stale is None:
            memo.clear()
        else:
            for entry in stale:
                if entry.__class__ is int:
                    memo.pop(entry, None)
                else:  # (index, argument): a define that reads this zone only at that argument
                    values = memo.get(entry[0])
                    if values:
                        values.pop(entry[1], None)

    def _same_card(self, cards: tuple, card: int) -> int:
        """The first card of `cards` that nobody can tell from `card` (same label, same face)."""
        labels, up = self.prog.card_labels, self.up
        lab, u = labels[card], up[card]
        for c in cards:
            if labels[c] == lab and up[c] == u:
                return c
        return card  # pragma: no cover

    def _note_move(self, cards: tuple, dest: int, facing) -> None:
        """Record a move as one event, with who saw each card: those who see the zone it leaves or
        the zone it enters, and everybody if it is face up before or after (worked out now: who
        sees a zone may change later).  Cards gathered from several zones are one event that does
        not say which card came from where: a player who sees only where they went learns no more
        than the view of it shows."""
        prog, where, up = self.prog, self.where, self.up
        auds: dict = {}
        moved, srcs, face_up = [], [], []
        for c in cards:
            src = where[c]  # a card already where it goes is moved too: to the top of the zone
            if src not in auds:
                auds[src] = prog.audience(self, src)
            moved.append(c)
            srcs.append(src)
            face_up.append(up[c] or facing == "up")
        self.events.append(("move", len(self._history), tuple(moved), tuple(srcs), dest, auds,
                            prog.audience(self, dest), tuple(face_up), facing))

    def _draw(self, card: int, dest: int, facing) -> None:
        """A card drawn at random: recorded as a chance outcome (seen by those who may see where it
        lands), then moved."""
        if self._history is None:  # a playout: counted, not recorded
            self._chances += 1
            self._move((card,), dest, facing)
            return
        text = f"draw {self.prog.card_labels[card]}"
        was_up = self.up[card]
        if facing is not None:
            self.up[card] = facing == "up"  # who sees it is who sees it where it lands
        audience = self._audience(dest, card)
        self.up[card] = was_up
        self._record(text, "draw ?", audience)
        self._move((card,), dest, facing)

    def _audience(self, key: int, card: Optional[int] = None) -> Optional[tuple]:
        """Who may see the zone `key` (or the card in it); None for everybody."""
        if card is not None and self.up[card]:
            return None
        can = self.prog.can_see_zone
        who = tuple(p for p in range(self.n) if can(self, key, p))
        return None if len(who) == self.n else who

    def _record(self, text: str, redacted: Optional[str] = None, audience: Optional[tuple] = None) -> None:
        """An entry of the history; with `audience`, the others read `redacted` instead."""
        history = self._history
        if history is None:  # a playout keeps no history
            return
        if audience is not None and redacted is not None:
            self.redact = self.redact + ((len(history), redacted, audience),)
        history.append(text)

    @property
    def history(self) -> list[str]:
        """The canonical text of every action since the start, chance included: the full record,
        for replays (never to be shown to a player: `history_for` is what a player may know)."""
        if self._history is None:
            raise OptionError("this state was played out to its end by playout(): it keeps no history")
        return self._history.list()

    # ---- chance ------------------------------------------------------------------------------

    def _pause(self):
        fr = self.stack[-1]
        return fr, self.prog.pauses[(fr[0], fr[1])]

    def _randbelow(self, k: int) -> int:
        fast = self._fast
        if fast is not None:  # a playout's own generator
            return fast(k)
        limit = (1 << 64) - ((1 << 64) % k)
        while True:
            r = _mix(self.seed, self.draws)
            self.draws += 1
            if r < limit:
                return r % k

    def _consume_chance_draws(self) -> None:
        """Advance the generator as a seeded game did at this chance node (used by `replay` with a
        seed): a seeded game rolls a whole group of dice with one draw, at the group's first die."""
        fr, info = self._pause()
        L = fr[2]
        if isinstance(info, RollPause) and L[info.slot + 1] == 0:
            roll_faces(self, len(L[info.slot]), len(self.prog.faces))
        elif isinstance(info, DrawPause):
            self._randbelow(len(self._zget(L[info.slot + 1])))

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """At a chance node, every outcome with its exact probability; [] elsewhere."""
        if self.cur != CHANCE:
            return []
        fr, info = self._pause()
        prog = self.prog
        if isinstance(info, RollPause):
            L = fr[2]
            die = L[info.slot][L[info.slot + 1]]
            return [(Action("roll", prog.roll_text(die, face), None, (die, face), prog=prog), p) for _, face, p in prog.chance_outcomes]
        if isinstance(info, DrawPause):
            cards = self._zget(fr[2][info.slot + 1])
            groups: dict = {}
            for c in cards:
                k = (prog.card_labels[c], self.up[c])
                if k in groups:
                    groups[k][1] += 1
                else:
                    groups[k] = [c, 1]
            total = len(cards)
            to = prog.zone_name(fr[2][info.slot + 2])
            out = []
            for (lab, _), (c, k) in groups.items():
                a = Action("draw", f"draw {lab}", None, (c,), prog=prog)
                a.to = to
                out.append((a, Fraction(k, total)))
            return out
        raise AssertionError(info)  # pragma: no cover

    # ---- decisions ---------------------------------------------------------------------------

    @property
    def current(self) -> Union[int, str, None]:
        """The player to act (0-based), CHANCE, SIMULTANEOUS, or None when the game is over."""
        return self.cur

    @property
    def is_over(self) -> bool:
        """True once the game has ended (`current` is then None)."""
        return not self.stack

    @property
    def waiting(self) -> list[int]:
        """The players the game is waiting for: the one to act, or at a simultaneous choice everyone
        who has not chosen yet; [] at chance and once the game is over."""
        cur = self.cur
        if cur is None or cur == CHANCE:
            return []
        if cur == SIMULTANEOUS:
            fr, info = self._pause()
            L = fr[2]
            done = {c[0] for c in L[info.slot + 1]}
            return [p for p in L[info.slot] if p not in done]
        return [cur]

    def legal_actions(self, player: Optional[int] = None) -> list[Action]:
        """Every action the player to act may take, in a fixed order.  At a chance node these are the
        chance outcomes; when the game is over, none.  At a simultaneous choice, ask for one of
        `waiting`.  A position where a player must act but may do nothing raises `RuleError`."""
        cur = self.cur
        if cur is None:
            return []
        if cur == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if cur == SIMULTANEOUS:
            if player is None:
                raise OptionError("everybody in state.waiting chooses at once here: ask legal_actions(player) for one of them")
            if player not in self.waiting:
                return []
            fr, info = self._pause()
            self._work = 0
            return list(self._enumerate_for(info, player).actions())
        if player is not None and player != cur:
            return []
        if self._legal is None:
            self._work = 0
            self._legal = self._enumerate()
        return list(self._legal.actions())

    def _enumerate(self) -> "Legal":
        fr, info = self._pause()
        return self._enumerate_for(info, fr[2][info.slot])

    def _enumerate_for(self, info, actor: int) -> "Legal":
        """The legal actions of `actor` at the pause `info`.  A rule
        that goes wrong while the choices are listed is a RuleError at the choice; so is a player
        who must act and may do nothing (the game would be stuck)."""
        try:
            if info.key is not None:
                key = info.key(self, actor)
                legal = info.memo.get(key)
                n = info.lookups = info.lookups + 1
                if legal is None:
                    legal = self._enumerate_fresh(info, actor)
                    if len(info.memo) >= MEMO_LIMIT:
                        info.memo = {}
                    info.memo[key] = legal
                else:
                    info.hits += 1
                if n == MEMO_TRIAL and info.hits < MEMO_MIN_HITS * n:
                    info.key = None  # positions seldom repeat here: the memo does not pay
                    info.memo = {}
            else:
                legal = self._enumerate_fresh(info, actor)
        except FishrulesError:
            raise
        except Exception as exc:
            raise self._fault(exc, info.span, f"while listing what p{actor} may do in {self._where()}") from None
        if not legal.moves:
            names = " or ".join(ap.name for ap in info.actions)
            raise RuleError(Diagnostic(info.span, f"p{actor} must choose {names} here, but none of them is allowed: the game is stuck",
                                       f"while playing {self._where()}; the rules must leave a player who must act "
                                       "at least one choice (or not ask them)"))
        return legal

    def _pause_span(self):
        if not self.stack:
            return None
        fr = self.stack[-1]
        info = self.prog.pauses.get((fr[0], fr[1]))
        return info.span if info is not None else None

    def _where(self) -> str:
        """The phase being played, for messages."""
        phases = self.phase
        return f"phase {phases[-1]}" if phases else "the game"

    def _enumerate_fresh(self, info, actor) -> "Legal":
        """Every legal action of `actor` at the pause `info`, as moves (action, values, the rule
        it breaks or None): those that keep the rules in the order the rules offer them, then
        those that break a rule on purpose (not at a simultaneous choice)."""
        moves: list = []
        broken: list = []
        simul = isinstance(info, SimulPause)
        for ap in info.actions:
            ok: list = []
            bad: list = []
            ap.enumerate(self, actor, ok, bad)
            if ap.params:
                moves += [(ap, v, None) for v in ok]
                if bad and not simul:
                    broken += [(ap, v, rule) for v, rule in bad]
            elif ok:
                moves.append((ap, (), None))
            elif bad and not simul:
                broken.append((ap, (), bad[0][1]))
        if broken:
            moves += broken
        return Legal(moves, actor, f"p{actor}: " if simul else "", self.prog)

    def _by_text(self) -> dict:
        return self._legal.by_text()

    def apply(self, action: Union[Action, str]) -> "State":
        """Do an action (an `Action` or its text).  Raises `IllegalAction`, changing nothing, if the
        rules do not allow it now; an `Action` is refused unless it is for the player to act and
        from this game.  A rule that goes wrong while the action takes effect raises `RuleError`
        and also leaves the state as it was.  Returns the state itself, so calls can be chained."""
        if isinstance(action, Action):
            legal = self._legal
            if legal is not None and action._origin is legal._actions:
                snap = self._snapshot()
                self._work = 0
                try:
                    self._do(action)  # straight from legal_actions() of this very position
                except BaseException:
                    self._restore(snap)
                    raise
                return self
            self._check_action_object(action)
            text = action.text
        elif isinstance(action, str):
            if len(action) > MAX_ACTION_TEXT:
                raise IllegalAction(action[:40] + "…", f"an action text is at most {MAX_ACTION_TEXT:,} characters")
            text = _normalize(action)
        else:
            raise IllegalAction(repr(action)[:60], "an action is an Action or its text")
        if self.cur is None:
            raise IllegalAction(text, "the game is over")
        snap = self._snapshot()
        self._work = 0
        try:
            self._apply_text(action, text)
        except FishrulesError:
            self._restore(snap)
            raise
        except Exception as exc:  # a rule that went wrong while the text was read
            self._restore(snap)
            raise self._fault(exc, self._pause_span(), f"while reading {text!r}") from None
        except BaseException:
            self._restore(snap)
            raise
        return self

    def _check_action_object(self, a: Action) -> None:
        """An `Action` that did not come from this very position's legal list: it must be of this
        game and for somebody who may act now."""
        prog = a._prog
        if prog is not None and prog is not self.prog and prog.identity != self.prog.identity:
            raise IllegalAction(a.text, "this action belongs to another game")
        cur = self.cur
        if cur is None:
            return
        if cur == CHANCE:
            if a.player is not None:
                raise IllegalAction(a.text, f"this is p{a.player}'s action, but chance is to play now")
        elif cur == SIMULTANEOUS:
            if a.player is None:
                raise IllegalAction(a.text, "this is a chance outcome, but players are choosing now")
        elif a.player != cur:
            whose = "a chance outcome" if a.player is None else f"p{a.player}'s action"
            raise IllegalAction(a.text, f"this is {whose}, but p{cur} is to act")

    def _apply_text(self, action, text: str) -> None:
        cur = self.cur
        if cur == CHANCE:
            for a, _ in self.chance_outcomes():
                if a.text == text:
                    self._apply_chance(a)
                    return
            # The outcomes are not listed: a draw's would name hidden cards, and the message may be
            # relayed to a player.  Whoever resolves chance asks chance_outcomes().
            raise IllegalAction(text, "chance is to play now, not a player (its outcomes: state.chance_outcomes())")
        if cur == SIMULTANEOUS:
            self._commit(action, text)
            return
        if self._legal is None:
            self._legal = self._enumerate()
        by_text = self._by_text()
        found = by_text.get(text)
        if found is None:
            # Not written canonically (say "reroll 3 1"), or not allowed: read it, and either find
            # the legal action it means or learn which rule forbids it.
            read = self._read_action(text)
            if isinstance(read, tuple):  # a broken rule whose violation the rules accept
                self._do_broken(*read)
                return
            found = by_text.get(read)
            if found is None:  # pragma: no cover - _read_action raises for anything not legal
                raise IllegalAction(text, "it is not one of the legal actions now")
        self._do(found)

    def _commit(self, action, text: str) -> None:
        """A choice at a simultaneous node: kept secret until everybody has chosen, then every
        choice takes effect, in the order the rules name the players (not the order they chose)."""
        waiting = self.waiting
        player: Optional[int]
        if isinstance(action, Action) and action.player is not None:
            player, rest = action.player, text.split(": ", 1)[-1]
        else:
            head, sep, rest = text.partition(":")
            player = _seat(head.strip()) if sep else None
            if player is None:
                who = ", ".join(f"p{p}" for p in waiting)
                raise IllegalAction(text, f"several players choose at once here: say who, as in 'p{waiting[0]}: …' "
                                          f"(waiting for {who})")
            rest = " ".join(rest.split())
        if player not in waiting:
            fr, info = self._pause()
            if player in fr[2][info.slot]:
                why = "has chosen already"
            elif 0 <= player < self.n:
                why = "is not choosing now"
            else:
                why = f"is not in this game (there are {self.n} players)"
            raise IllegalAction(text, f"p{player} {why}; waiting for " + ", ".join(f"p{p}" for p in waiting))
        fr, info = self._pause()
        by_text = self._enumerate_for(info, player).by_text()
        prefix = f"p{player}: "
        found = by_text.get(prefix + rest)
        if found is None:
            canonical = self._read_action(rest, player, info)
            if isinstance(canonical, tuple):  # pragma: no cover - no violation handlers at simultaneous choices
                raise IllegalAction(text, "a broken rule cannot be accepted at a simultaneous choice")
            found = by_text[prefix + canonical]
        L = fr[2]
        L[info.slot + 1] = L[info.slot + 1] + ((player, found.name, found._values, len(self._history)),)
        self._record(found.text, f"{prefix}?", (player,))
        self._legal = None
        if len(L[info.slot + 1]) < len(L[info.slot]):
            return
        chosen = {p: (name, values) for p, name, values, _ in L[info.slot + 1]}
        self._unveil(L[info.slot + 1])
        fr[1] += 1
        for p in reversed(L[info.slot]):  # pushed last first: the first player's effects run first
            self._push_action(self.prog.actions[chosen[p][0]], p, chosen[p][1])
        self._resume()

    def _unveil(self, choices: tuple) -> None:
        """Everybody has chosen: the choices stop being secret in everybody's history, but for
        parameters the action itself declares `secret`, which stay `?` to the others."""
        at = {i: (p, name, values) for p, name, values, i in choices}
        kept = []
        for i, text, audience in self.redact:
            if i in at:
                p, name, values = at[i]
                hidden = self.prog.actions[name].render_redacted(values)
                if hidden is None:
                    continue
                text = f"p{p}: {hidden}"
            kept.append((i, text, audience))
        self.redact = tuple(kept)

    def _apply_chance(self, a: Action) -> None:
        fr, info = self._pause()
        L = fr[2]
        if isinstance(info, DrawPause):
            self._draw(a._values[0], L[info.slot + 2], info.facing)
            L[info.slot] -= 1
        else:
            die, face = a._values
            self.dice[die] = face
            L[info.slot + 1] += 1
            self._record(a.text)
        self._dmemo.clear()
        self._resume()

    def _push_action(self, ap: Any, player: Optional[int], values: tuple, block: Optional[int] = None) -> None:
        """Start an action's effects (or, with `block`, its violation handler) for `player`."""
        L: list = [None] * ap.nlocals
        L[0] = player
        for p, v in zip(ap.params, values):
            L[p.slot] = v
        self.stack.append([ap.block if block is None else block, 0, L])

    def _resume(self) -> None:
        """Carry on after a decision or a chance outcome, until the rules wait again."""
        self.cur = None
        self._legal = None
        self._run()
        self._can_act()

    def _can_act(self) -> None:
        """The rules stopped for players: each of them must have something to do, or the game is
        stuck (a RuleError naming the phase, raised by the call that got there).  The legal
        actions are listed now; they are what the next `legal_actions()` gives anyway."""
        cur = self.cur
        if cur is None or cur == CHANCE:
            return
        fr, info = self._pause()
        if cur == SIMULTANEOUS:
            for p in self.waiting:
                self._enumerate_for(info, p)
        else:
            self._legal = self._enumerate_for(info, cur)

    def _do(self, a: Action) -> None:
        ap = self.prog.actions[a.name]
        if a.breaks is not None:  # accepted as the rules say: their `when … is broken` block runs
            self._do_broken(ap, a.player, a._values, a.text, ap.broken[a.breaks][1])
            return
        fr = self.stack[-1]
        fr[1] += 1
        self._push_action(ap, a.player, a._values)
        hidden = ap.render_redacted(a._values) if ap.params else None
        if hidden is None:
            self._record(a.text)
        else:
            self._record(a.text, hidden, (a.player,))
        self._resume()

    def _read_action(self, text: str, actor: Optional[int] = None, info=None):
        """The canonical text of the action `text` means, if the rules allow it now; otherwise
        raise `IllegalAction` saying why (naming the rule that forbids it, if one does).  What a
        message offers instead is taken from the player's own legal actions: it names nothing the
        player may not know, and says how many it leaves out."""
        if actor is None:
            fr, info = self._pause()
            actor = fr[2][info.slot]
        actions = info.actions
        offered = {ap.name: ap for ap in actions}
        words = text.split()
        who = f"p{actor}"
        choices = " or ".join(offered)
        if not words:
            raise IllegalAction(text, f"no action given; {who} chooses {choices}")
        ap = offered.get(words[0])
        if ap is None:
            if words[0] in self.prog.actions:
                raise IllegalAction(text, f"`{words[0]}` is not offered now; {who} chooses {choices}")
            raise IllegalAction(text, f"there is no action `{words[0]}`; {who} chooses {choices}")
        L: list = [None] * ap.nlocals
        L[0] = actor
        toks = words[1:]
        for i, p in enumerate(ap.params):
            if p.kind == "some":
                take, toks = toks, []
                if not take:
                    raise IllegalAction(text, f"`{ap.name}` needs {p.describe} for `{p.name}`")
                elements = list(p.elements(self, L))
                order = {v: i for i, v in enumerate(elements)}
                vals = []
                for t in take:
                    found = next((v for v in elements if p.render_one(v) == t and v not in vals), None)
                    if found is None:
                        if any(p.render_one(v) == t for v in elements):
                            raise IllegalAction(text, f"something is named twice in `{p.name}`")
                        raise IllegalAction(text, f"{t} is not one of the {p.describe[len('one or more of '):]} to choose from now")
                    vals.append(found)
                value: Any = tuple(sorted(vals, key=order.__getitem__))
            else:
                if not toks:
                    raise IllegalAction(text, f"`{ap.name}` needs {p.describe} for `{p.name}`")
                tok, toks = toks[0], toks[1:]
                dom = list(p.domain(self, L))
                value = next((v for v in dom if p.render(v) == tok), None)
                if value is None:
                    if p.parse(tok) is None:
                        raise IllegalAction(text, f"`{p.name}` takes {p.describe}, not {_short(tok)}")
                    if isinstance(info, SimulPause):
                        # The text names the chooser, but anybody may have sent it: a refusal
                        # here lists nothing a player may be keeping secret.
                        raise IllegalAction(text, f"{_short(tok)} is not a possible `{p.name}` now "
                                                  f"(ask legal_actions(p{actor}) for p{actor}'s choices)")
                    given = tuple(L[q.slot] for q in ap.params[:i])
                    legal = self._enumerate_for(info, actor).actions()
                    possible = list(dict.fromkeys(p.render(a._values[i]) for a in legal
                                                  if a.name == ap.name and a._values[:i] == given))
                    raise IllegalAction(text, f"{_short(tok)} is not a possible `{p.name}` now ({_listed(possible)})")
            L[p.slot] = value
        if toks:
            takes = ", ".join(p.name for p in ap.params) or "nothing more"
            raise IllegalAction(text, f"too many words: `{ap.name}` takes {takes}")
        canonical = " ".join([ap.name] + [p.render(L[p.slot]) for p in ap.params])
        for name, span, test in ap.requires:
            if not test(self, L):
                handler = ap.broken.get(name)
                if handler is not None and (handler[0] is None or handler[0](self, L)):
                    return (ap, actor, tuple(L[p.slot] for p in ap.params), canonical, handler[1])
                raise IllegalAction(text, f'it breaks the rule "{name}"', rule=name, span=span)
        return canonical

    def _do_broken(self, ap: Any, player: Optional[int], values: tuple, text: str, block: int) -> None:
        """An action that breaks a rule, accepted as the rules say: its `when … is broken` block
        runs instead of its effects."""
        self.stack[-1][1] += 1
        self._push_action(ap, player, values, block)
        hidden = ap.render_redacted(values) if ap.params else None
        if hidden is None:
            self._record(text)
        else:
            self._record(text, hidden, (player,))
        self._resume()

    # ---- results -----------------------------------------------------------------------------

    def scores(self) -> list[int]:
        """Each player's score as the rules define it (running during the game, final at the end)."""
        f = self.prog.score
        self._work = 0
        try:
            return [f(self, p) for p in range(self.n)]
        except FishrulesError:
            raise
        except Exception as exc:
            scores = self.prog.model.scores
            raise self._fault(exc, scores[0].span if scores else None, "while working out the scores") from None

    def winners(self) -> list[int]:
        """The winners (ties share the victory) once the game is over; [] before."""
        if self.stack:
            return []
        self._work = 0
        try:
            return list(self.prog.winners(self))
        except FishrulesError:
            raise
        except Exception as exc:
            raise self._fault(exc, self.prog.winners_span, "while working out the winners") from None

    def ranking(self) -> list[int]:
        """Each player's place, competition style: two tied for second are both 2nd and nobody is
        3rd.  Once the game is over the winners (as the rules' `winners:` decides, tie-breaks
        included) share 1st place and the others follow by score; before, places go by score."""
        sc = self.scores()
        won = set(self.winners())
        if not won:
            return [1 + sum(1 for o in sc if o > x) for x in sc]
        rest = [p for p in range(self.n) if p not in won]
        return [1 if p in won else 1 + len(won) + sum(1 for o in rest if sc[o] > sc[p]) for p in range(self.n)]

    @property
    def phase(self) -> list[str]:
        """The phases being played, outermost first."""
        prog = self.prog
        return [prog.block_names[f[0]] for f in self.stack if prog.block_is_phase[f[0]]]

    # ---- the fast path of simulations ---------------------------------------------------------

    def playout(self, rng: Optional[random.Random] = None) -> "Playout":
        """Play this state to the end: at every decision an action chosen uniformly at random
        among the legal ones (at a simultaneous choice, one for each player choosing), chance by
        the rules' probabilities.  This is the fast path simulations use: no `Action` goes through
        `apply()`, and no history text or event is written, so afterwards the state holds the
        final position but no longer its history (`history` is None; a saved or replayed game
        needs the API loop).  The random choices and dice come from `rng` (a `random.Random`, by
        default one seeded from the state's own seed), not from the state's generator.

        Returns a `Playout`: scores, winners, how many decisions and chance outcomes there were.
        A rule that goes wrong raises `RuleError`, leaving the state as the failure found it."""
        rng = rng if rng is not None else random.Random(self.seed)
        rnd, pick = rng.random, rng.randrange
        if self._history is not None:  # else a quiet start's outcomes are counted already
            self._chances = 0
        self._history = None
        self.events = None
        self.redact = ()
        self._fast = pick
        self._legal = None
        decisions = chances = 0
        try:
            while self.stack:
                cur = self.cur
                self._work = 0
                if cur == SIMULTANEOUS:
                    fr, info = self._pause()
                    L = fr[2]
                    chosen = {}
                    for p in L[info.slot]:
                        moves = self._enumerate_for(info, p).moves
                        chosen[p] = moves[int(rnd() * len(moves))]
                    decisions += len(chosen)
                    fr[1] += 1
                    for p in reversed(L[info.slot]):
                        ap, values, _ = chosen[p]
                        self._push_action(ap, p, values)
                elif cur == CHANCE:  # a manual state: outcomes by their probabilities
                    outcomes = self.chance_outcomes()
                    x, acc = rnd(), Fraction(0)
                    for a, prob in outcomes:
                        acc += prob
                        if x < acc:
                            break
                    chances += 1
                    self._apply_chance_quietly(a)
                    continue
                elif cur is not None:
                    fr, info = self._pause()
                    moves = self._enumerate_for(info, cur).moves
                    ap, values, breaks = moves[int(rnd() * len(moves))]
                    decisions += 1
                    fr[1] += 1
                    if breaks is not None:
                        self._push_action(ap, cur, values, ap.broken[breaks][1])
                    else:
                        self._push_action(ap, cur, values)
                self.cur = None
                self._run()
        finally:
            self._fast = None
        return Playout(self.scores(), self.winners(), decisions, chances + self._chances)

    def _apply_chance_quietly(self, a: Action) -> None:
        fr, info = self._pause()
        L = fr[2]
        if isinstance(info, DrawPause):
            self._move((a._values[0],), L[info.slot + 2], info.facing)
            L[info.slot] -= 1
        else:
            die, face = a._values
            self.dice[die] = face
            L[info.slot + 1] += 1
        self._dmemo.clear()
        self.cur = None
        self._run()

    # ---- determinization (for bots that search): see determinize.py --------------------------

    def determinize(self, player: Optional[int], rng: random.Random, chance: Optional[str] = None) -> "State":
        """A full state that `player` cannot tell from this one: every card hidden from them
        redistributed at random among the places it could be (given what they have seen), the
        secret simultaneous choices of others drawn again, and a new seed for chance to come, all
        drawn with `rng`.  Its view and `history_for(player)` are this state's; its record holds
        only what `player` saw, so it cannot be replayed.  `chance` ("seeded" or "manual") says how
        it resolves chance from now on (by default as this state does).  For many draws from one
        position, `fishrules.determinize.Determinizer(state, player).sample(rng)` works out what
        the player knows once."""
        from .determinize import Determinizer

        return Determinizer(self, player).sample(rng, chance)

    @property
    def rules_fired(self) -> Optional[dict[str, int]]:
        """How often each named rule (`rule "…":`) has fired so far, by name, in a game started
        with `count_rules=True` (else None; a clone counts nothing).  A rule whose lines are one
        `if` (with `otherwise if`s, no `otherwise`) fires when one of its conditions holds; any other
        rule fires each time the game reaches its lines.  Not part of the position."""
        if self.fires is None:
            return None
        return {name: self.fires[k] for name, k in self.prog.rules.items()}

    # ---- copying, equality, JSON -------------------------------------------------------------

    def clone(self) -> "State":
        """An independent copy: playing on either leaves the other as it was."""
        c = State.__new__(State)
        c.game = self.game
        c.prog = self.prog
        c.n = self.n
        c.seats = self.seats
        c.dice_ids = self.dice_ids
        c.g = self.g[:]
        c.p = [row[:] for row in self.p]
        c.dice = self.dice[:]
        c.stack = [[f[0], f[1], f[2][:]] for f in self.stack]
        c._history = self._history.copy() if self._history is not None else None
        c.redact = self.redact
        c.events = self.events.copy() if self.events is not None else None
        c._fast = None
        c._chances = 0
        c.fires = None  # a copy (a bot's trial) counts nothing
        c.empty_draws = None
        c._kernel_origin = getattr(self, "_kernel_origin", None)  # valid while the record is the same length
        c.where = self.where[:]
        c.up = self.up[:]
        c.mixed = self.mixed
        c.cur = self.cur
        c.seed = self.seed
        c.draws = self.draws
        c.manual = self.manual
        c._legal = self._legal
        c._work = 0
        c._dmemo = {}
        return c

    def _key(self) -> tuple:
        return (
            self.n,
            tuple(self.g),
            tuple(tuple(r) for r in self.p),
            tuple(self.dice),
            tuple((f[0], f[1], tuple(f[2])) for f in self.stack),
            tuple(self._history.list()) if self._history is not None else None,
            self.cur,
            tuple(self.up),
            tuple(sorted(self.mixed)),
            tuple(self.redact),
        )

    def __eq__(self, other) -> bool:
        """Two states are equal when they are the same position of the same game with the same
        history.  How future chance will be resolved (seed, manual) is not part of the position."""
        if not isinstance(other, State):
            return NotImplemented
        return self.game._identity == other.game._identity and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def to_dict(self) -> dict:
        """The whole state as JSON-able data (`Game.state_from_json` reads its JSON back).  It holds
        hidden information: it is for saving a game, not for showing to a player."""
        return {
            "format": "fishrules-state/1",
            "game": self.game._identity,
            "players": self.n,
            "g": _listify(tuple(self.g)),
            "p": [_listify(tuple(r)) for r in self.p],
            "dice": list(self.dice),
            "stack": [[f[0], f[1], _listify(tuple(f[2]))] for f in self.stack],
            "history": list(self.history),
            "redact": [[i, t, list(a)] for i, t, a in self.redact],
            "up": [i for i, u in enumerate(self.up) if u],
            "mixed": sorted(self.mixed),
            "current": self.cur,
            "seed": self.seed,
            "draws": self.draws,
            "manual": self.manual,
        }

    def to_json(self) -> str:
        """`to_dict` as compact JSON text."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def _replayed(cls, game: Any, history: Any, players: int, options: Optional[Mapping[str, Any]],
                  seed: Optional[int] = None) -> "State":
        """The state reached by `history` (action texts, chance included) from the start; with
        `seed`, it continues as a game seeded so would have.  Anything wrong with the history is a
        `StateError` naming the entry."""
        if not isinstance(history, (list, tuple)):
            raise StateError(f"a history is a list of action texts, not {type(history).__name__}")
        if len(history) > MAX_HISTORY:
            raise StateError(f"the history holds {len(history):,} actions; at most {MAX_HISTORY:,} are read")
        try:
            s = game.start(players, seed=seed if seed is not None else 0, options=options, chance="manual")
        except OptionError as exc:
            raise StateError(str(exc)) from None
        spent = 0
        for i, text in enumerate(history, 1):
            if not isinstance(text, str):
                raise StateError(f"history entry {i} is not an action text: {_short(text)}")
            if s.cur is None:
                raise StateError(f"history entry {i} ({_short(text)}) comes after the end of the game")
            try:
                if seed is not None and s.cur == CHANCE:
                    s._consume_chance_draws()
                s.apply(text)
            except IllegalAction as exc:
                raise StateError(f"history entry {i} ({_short(text)}) is not allowed: {exc.reason}") from None
            except RuleError as exc:
                raise StateError(f"history entry {i} ({_short(text)}) makes the rules fail:\n{exc}") from None
            spent += s._work
            if spent > MAX_REPLAY_WORK:
                raise StateError(f"replaying the history takes more than {MAX_REPLAY_WORK:,} steps of work "
                                 f"(at entry {i}): too much to read back")
        if seed is not None:
            s.manual = False
            if s.cur == CHANCE:
                s._run()
        return s

    @classmethod
    def _from_dict(cls, game, d) -> "State":
        """A saved state, re-derived by replaying its history under these rules: every other field
        must be what that replay gives, so a state that loads is one the rules could reach."""
        if not isinstance(d, dict):
            raise StateError("a saved state is a JSON object")
        if d.get("format") != "fishrules-state/1":
            raise StateError("this is not a fishrules state (format fishrules-state/1)")
        if d.get("game") != game._identity:
            raise StateError(f"this state belongs to another game ({_short(d.get('game'))}, not {game._identity!r})")
        missing = [k for k in _STATE_FIELDS if k not in d]
        if missing:
            raise StateError("the saved state has no " + ", ".join(repr(k) for k in missing))
        extra = [k for k in d if k not in _STATE_FIELDS]
        if extra:
            raise StateError("the saved state has unknown fields: " + ", ".join(_short(k) for k in extra[:5]))
        n = d["players"]
        if type(n) is not int or not (game.min_players <= n <= game.max_players):
            raise StateError(f"field 'players': {game.title} is for {game.min_players} to {game.max_players} players, not {_short(n)}")
        for name, ok in (("seed", lambda v: type(v) is int and -(1 << 64) < v < (1 << 64)),
                         ("draws", lambda v: type(v) is int and 0 <= v < (1 << 63)),
                         ("manual", lambda v: type(v) is bool)):
            if not ok(d[name]):
                raise StateError(f"field {name!r} is not a possible value: {_short(d[name])}")
        g = d["g"]
        prog = game._program
        if type(g) is not list or len(g) != prog.model.n_game_slots:
            raise StateError("field 'g' does not fit these rules")
        options = {o.name: g[o.slot] for o in prog.model.options}
        try:
            game._options(options)
        except OptionError as exc:
            raise StateError(f"field 'g': {exc}") from None
        if type(d["p"]) is not list or len(d["p"]) != n:
            raise StateError(f"field 'players' ({n}) does not match field 'p' (one row per player)")
        s = cls._replayed(game, d["history"], n, options)
        mine = s.to_dict()
        for name in _POSITION_FIELDS:
            # compared as JSON: 1 and True, or 1 and 1.0, are not the same value here
            if _json(mine[name]) != _json(d[name]):
                raise StateError(f"field {name!r} is not what the state's history leads to")
        s.seed, s.draws, s.manual = d["seed"], d["draws"], d["manual"]
        return s

    # ---- views -------------------------------------------------------------------------------

    def view(self, player: Optional[int] = None) -> dict:
        """What `player` may know, as JSON-able data (`None`: a spectator).

        Values declared `secret` are shown to their owner only, `hidden` ones to nobody and `seen by
        P` ones to P.  A zone always shows how many cards it holds: each card is its label, or None
        where the viewer may not see it (a face-up card everybody sees).  The history is the one
        this viewer may know: hidden outcomes and secret choices of others read `?`.  Scores are
        public."""
        if player is not None and (type(player) is not int or not (0 <= player < self.n)):
            raise OptionError(f"there is no player {_short(player)} in this game of {self.n}")
        try:
            return self._view(player)
        except FishrulesError:
            raise
        except Exception as exc:
            raise self._fault(exc, None, f"while working out what {'the spectator' if player is None else f'p{player}'} sees") from None

    def _view(self, player: Optional[int]) -> dict:
        prog = self.prog
        model = prog.model
        labels, up = prog.card_labels, self.up

        def shown(v, value, owner):
            if v.visibility == "internal":  # the rules' bookkeeping: in no view at all
                return False, None
            ok = (prog.game_vis[v.slot] if v.scope == "game" else prog.player_vis[v.slot])(self, player, owner)
            if v.type.kind == "zone":
                return True, [labels[c] if ok or up[c] else None for c in value]
            return ok, _listify(value)

        values = {}
        for v in model.game_vars:
            if v.family:
                if v.visibility == "internal":
                    continue
                lo, count = v.family
                values[v.name] = {str(lo + i): shown(v, self.g[v.slot + i], -1)[1] for i in range(count)}
                continue
            ok, val = shown(v, self.g[v.slot], -1)
            if ok:
                values[v.name] = val
        options = {o.name: self.g[o.slot] for o in model.options}
        players = []
        sc = self.scores()
        for i in range(self.n):
            row = {"player": i}
            for v in model.player_vars:
                ok, val = shown(v, self.p[i][v.slot], i)
                if ok:
                    row[v.name] = val
            row["score"] = sc[i]
            players.append(row)
        out: dict[str, Any] = {
            "title": model.title,
            "viewer": player,
            "players": self.n,
            "current": self.cur,
            "over": self.is_over,
            "phase": self.phase,
            "options": options,
            "values": values,
            "seats": players,
        }
        if self.dice_ids:
            out["dice"] = [prog.face_labels[f] if f != prog.unrolled else None for f in self.dice]
        derived = {}
        for name, d in model.defines.items():
            if not d.per_player and not d.params and d.type.kind in ("number", "bool") and name in prog.public_defines:
                try:
                    derived[name] = prog.defines[name](self)
                except Exception:  # a define that cannot be worked out yet (nothing rolled)
                    pass
        out["derived"] = derived
        if self.is_over:
            out["winners"] = self.winners()
        waiting = self.waiting
        if self.cur == SIMULTANEOUS:
            out["waiting"] = waiting
        if player is not None and player in waiting:
            out["legal_actions"] = [a.text for a in self.legal_actions(player)]
        out["history"] = self.history_for(player)
        return out

    def events_for(self, player: Optional[int], since: Optional[int] = None) -> list[dict]:
        """What `player` (None: a spectator) saw happen, in order.  Each event is a dict with
        `"event"`, its kind, and `"after"`, how many actions of the history had been taken when it
        happened (so 0 for the setting up, and k + 1 for what the k-th action, from 0, caused).
        `since=k` gives only what happened after the first k actions were taken and done: a
        client that remembers `len(state.history)` before an `apply` gets what that apply caused.
        The kinds:

        - `move`: cards went `"from"` one zone `"to"` another; `"cards"` holds each card's label,
          or None where this player saw it neither where it was nor where it went nor face up;
          `"face"` is "up" or "down" when the rule turned them;
        - `reveal`: `"cards"` were turned face up where they lie (`"in"`: their zones);
        - `set`: a value this player may see changed (`"value"`; `"player"` for a player's own;
          `"from"`, `"to"`); the rules' `internal` values never appear;
        - `restart`: the game started again (`play again`);
        - `over`: the game ended (`"winners"`, `"scores"`).

        With `history_for(player)` it tells the player everything they saw, in order: a card
        revealed and turned face down again within one action is here, though no view shows it."""
        if player is not None and (type(player) is not int or not (0 <= player < self.n)):
            raise OptionError(f"there is no player {_short(player)} in this game of {self.n}")
        out = []
        for e in self.events.list() if self.events is not None else ():
            if since is None or e[1] > since:
                shown = self._render_event(e, player)
                if shown is not None:
                    out.append(shown)
        return out

    def _render_event(self, e: tuple, v: Optional[int]) -> Optional[dict]:
        prog = self.prog
        kind, after = e[0], e[1]
        if kind == "move":
            _, _, cards, srcs, dest, auds, dest_aud, face_up, facing = e

            def sees(aud) -> bool:
                return aud is None or (v is not None and v in aud)

            labels = prog.card_labels
            everywhere = sees(dest_aud)
            shown = [labels[c] if everywhere or u or sees(auds[src]) else None for c, src, u in zip(cards, srcs, face_up)]
            names = sorted({prog.zone_name(z) for z in srcs})  # sorted: their order must tell nothing
            out = {"event": "move", "after": after, "cards": shown, "from": names[0] if len(names) == 1 else names,
                   "to": prog.zone_name(dest)}
            if facing is not None:
                out["face"] = facing
            return out
        if kind == "reveal":
            _, _, cards, zones = e
            return {"event": "reveal", "after": after, "cards": [prog.card_labels[c] for c in cards],
                    "in": [prog.zone_name(z) for z in zones]}
        if kind == "set":
            _, _, p, slot, old, new, aud = e
            if aud is not None and (v is None or v not in aud):
                return None
            out = {"event": "set", "after": after}
            if p < 0:
                out["value"] = prog.game_var_names.get(slot, "?")
            else:
                out["value"] = prog.player_var_names.get(slot, "?")
                out["player"] = p
            out["from"], out["to"] = _listify(old), _listify(new)
            return out
        if kind == "restart":
            return {"event": "restart", "after": after}
        if kind == "over":
            return {"event": "over", "after": after, "winners": self.winners(), "scores": self.scores()}
        return None  # pragma: no cover

    def history_for(self, player: Optional[int]) -> list[str]:
        """The history as `player` may know it (None: a spectator).  `state.history` itself is the
        full record, for replays: never show it to a player."""
        hist = list(self.history)
        for i, text, audience in self.redact:
            if player not in audience:
                hist[i] = text
        return hist

    # ---- numbers for learning code (fishrules.spaces) -----------------------------------------

    def legal_action_ids(self, player: Optional[int] = None) -> list[int]:
        """The ids of `legal_actions(player)` in `game.action_space(...)`, in the same order (at a
        chance node, the outcomes' chance ids).  `ActionSpaceError` if the rules' actions cannot be
        numbered."""
        return self._action_space().legal_ids(self, player)

    def action_of_id(self, action_id: int, player: Optional[int] = None) -> Action:
        """The legal action with this id (at a simultaneous choice, of `player`); `apply` it.
        `IllegalAction` if no legal action has this id now."""
        return self._action_space().action(self, action_id, player)

    def observation(self, player: Optional[int] = None) -> list[float]:
        """What `player` may know as a flat list of floats, laid out by `game.observation_spec`;
        made from `view(player)` alone, so it hides what the view hides."""
        from .spaces import observation

        return observation(self, player)

    def _action_space(self):
        return self.game.action_space(self.n, {o.name: self.g[o.slot] for o in self.prog.model.options})

    def __repr__(self) -> str:
        where = "over" if self.is_over else f"current={self.cur!r}"
        n = len(self._history) if self._history is not None else "?"
        return f"<State {self.prog.model.title!r} {self.n} players, {where}, {n} actions>"

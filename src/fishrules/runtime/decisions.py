"""Stage 5, running: decisions.

Who is to act (`current`, `waiting`), what they may do (`legal_actions`: `Action` objects made from
a `Legal`, the legal moves of one player at one decision, shared by every position with the same
legality key; at a chance node, the outcomes with their probabilities), and doing it (`apply`): an
`Action` from the legal list, or a text, read against the rules (`_read_action`), which either finds
the legal action it means or names the rule that forbids it.  A choice at a simultaneous decision
stays secret until everybody has chosen (`_commit`).  How an action's values are written and read
back, and the tables of faces and cards, are the model's (`fishrules.forms`), not the engine's.

A move also crosses typed, with no text written or read: a `Move` (the action by number, the
actor, the values as the engine keeps them, the rule broken, whether it is a choice made together
with others).  Each move of the history keeps the Action it took beside its text (the `Move`s:
`recorded_moves(state)`), and `play_move(state, move)` applies one, found among the legal actions
by its action and values, and otherwise refused (or taken) by `apply` as the Action it names, in
`apply`'s own words.  This is how the game kernel and the engine hand moves to each other
(fishrules.kernel.boundary)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple, Optional, Self, Union

from ..compiler import CHANCE, MEMO_LIMIT, MEMO_MIN_HITS, MEMO_TRIAL, SIMULTANEOUS, DrawPause, RollPause, SimulPause
from ..errors import FishrulesError, IllegalAction, OptionError
from .. import reasons
from ..forms import draw_text, forms_of, parse_seat
from ..limits import MAX_ACTION_TEXT
from .chance import Chance
from .text import check_seat, short


class Move(NamedTuple):
    """One player's move, typed: what crosses between the game kernel and the engine (no text).

    `action` is the action's number, its place among the rules' actions (`model.actions`, in the
    order the rules declare them: `fishrules.forms.ActionForm.number`); `actor` the player who takes it; `values` its parameters'
    values as the engine keeps them (`Action._values`: a player's seat, a die's number from 0, a
    card's number, a number, a choice's word, `some` a tuple of them); `breaks` the rule the move
    breaks on purpose, or None; `together` whether it is a choice made at a simultaneous decision.
    """

    action: int
    actor: int
    values: tuple
    breaks: Optional[str] = None
    together: bool = False


def move_of(action: "Action") -> Move:
    """The typed move of a player's legal `Action` (not a chance outcome)."""
    if action.player is None:
        raise ValueError("a chance outcome is not a player's move")
    return Move(action._prog.forms.number[action.name], action.player, action._values, action.breaks,
                bool(action._prefix))


def play_move(state: Any, move: Move) -> Any:
    """Apply a typed move to `state` (see `Decisions._play`); returns the state."""
    return state._play(move)


def recorded_moves(state: Any) -> list[Optional[Move]]:
    """The typed move of each entry of a state's history, in order: None for chance, and for an
    entry kept as text only (a determinization's record)."""
    numbers = forms_of(state.game.model).number
    return [None if a is None else Move(numbers[a.name], a.player, a._values, a.breaks, bool(a._prefix))
            for a in state._history.beside()]


class Action:
    """One thing that can be done now.  `str(action)` is its canonical text; `apply` takes either.

    `name` is the action's name in the rules (`"reroll"`), `text` its canonical text
    (`"reroll 1 3"`, or `"p1: challenge_card red-7"` at a simultaneous choice, `"die 2 rolls HEAD"`
    for chance) and `player` the player it is for (None for chance); a drawn card's outcome says
    where the card goes in `to` (`"hand of p1"`).  `breaks` names the rule the
    action breaks when the rules accept that with a consequence (a card laid against the rules is
    legal, and costs a penalty); it is None for an action that keeps every rule.  Two actions are
    equal when their texts and players are.

    An action cannot be changed (its fields are read-only, and a copy of it is itself): the same
    object is handed to every position, and every game, whose legal list holds that move."""

    __slots__ = ("_name", "_player", "_breaks", "_to", "_values", "_text", "_render", "_origin", "_prefix", "_prog")

    def __init__(self, name: str, text: Optional[str], player: Optional[int], values: tuple = (), render: Any = None,
                 origin: Any = None, prefix: str = "", prog: Any = None, breaks: Optional[str] = None):
        self._name = name
        self._player = player
        # The rule this action breaks, when the rules accept breaking it with a consequence (their
        # `when "RULE" is broken` block runs instead of the action's effects): a bot may choose it
        # or leave it.  None for an action that keeps every rule.
        self._breaks = breaks
        # For a chance outcome that draws a card: the zone it goes to (`hand of p1`), so whoever
        # picks outcomes by hand can deal a chosen hand.  None otherwise.
        self._to: Optional[str] = None
        self._values = values
        self._text = text
        # How its text is written, only when somebody asks, and its values typed: its action's
        # form (fishrules.forms.ActionForm); for chance, the game's Forms.  None: no parameters.
        self._render = render
        self._origin = origin  # the token of the Legal this came from: applying it needs no re-checking
        self._prefix = prefix  # "p1: " at a simultaneous choice, where the text says who chooses
        self._prog = prog  # the compiled rules it belongs to: another game's action is refused

    # Read-only: a legal list's actions are shared (by the positions of one game that offer the
    # same moves, and by the games of one ruleset), and the engine takes a listed action as it is.
    @property
    def name(self) -> str:
        return self._name

    @property
    def player(self) -> Optional[int]:
        return self._player

    @property
    def breaks(self) -> Optional[str]:
        return self._breaks

    @property
    def to(self) -> Optional[str]:
        return self._to

    def __copy__(self) -> "Action":
        return self

    def __deepcopy__(self, memo: Any) -> "Action":
        return self

    @property
    def args(self) -> dict[str, Any]:
        """The parameter values by name, typed: a player is their seat (0 first), a die its number
        (1 first), a card its label, a number an int, a choice its word, `some X` a tuple of them.
        A chance outcome has `die` and `face`, or `card`.  An action with no parameters: {}."""
        if self.player is None:  # chance
            return self._render.chance_args(self.name, self._values)
        form = self._render
        return {} if form is None else form.args(self._values)

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


def _normalize(text: str) -> str:
    return " ".join(text.split())


class Legal:
    """The legal actions of one player at one decision, shared by every position with the same
    legality key: the moves (action program, values, rule broken or None) in order, and the
    `Action` objects and their texts, made only when somebody asks for them."""

    __slots__ = ("moves", "actor", "prefix", "prog", "token", "_actions", "_by_text", "_by_key")

    def __init__(self, moves: list, actor: int, prefix: str, prog):
        self.moves = moves
        self.actor = actor
        self.prefix = prefix
        self.prog = prog
        # What its actions name as their origin: not the list that holds them (nor this object),
        # which would make every listed action part of a reference cycle, freed only by the cycle
        # collector (a server listing thousands a second paused for it: measured).
        self.token = object()
        self._actions: Optional[list] = None
        self._by_text: Optional[dict] = None
        self._by_key: Optional[dict] = None

    def actions(self) -> list:
        out = self._actions
        if out is None:
            out = self._actions = []
            actor, prefix, prog, token = self.actor, self.prefix, self.prog, self.token
            for ap, values, breaks in self.moves:
                if ap.params:
                    out.append(Action(ap.name, None, actor, values, ap.form, token, prefix, prog, breaks))
                else:
                    out.append(Action(ap.name, prefix + ap.name, actor, (), None, token, prefix, prog, breaks))
        return out

    def by_text(self) -> dict:
        by = self._by_text
        if by is None:
            by = self._by_text = {a.text: a for a in self.actions()}
        return by

    def by_key(self) -> dict:
        """The actions by (action name, values): how a typed `Move` is found (no text written)."""
        by = self._by_key
        if by is None:
            by = self._by_key = {(a.name, a._values): a for a in self.actions()}
        return by


class Decisions(Chance):
    """The layer of `State` that takes decisions: who acts, the legal actions, applying one."""

    __slots__ = ()

    # ---- who is to act ---------------------------------------------------------------------------

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

    # ---- the legal actions -----------------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """At a chance node, every outcome with its exact probability; [] elsewhere."""
        if self.cur != CHANCE:
            return []
        fr, info = self._pause()
        prog, forms = self.prog, forms_of(self.game.model)
        if isinstance(info, RollPause):
            L = fr[2]
            die = L[info.slot][L[info.slot + 1]]
            return [(Action("roll", forms.roll_text(die, face), None, (die, face), forms, prog=prog), p)
                    for _, face, p in forms.chance_outcomes]
        if isinstance(info, DrawPause):
            cards = self._zget(fr[2][info.slot + 1])
            labels = forms.card_labels
            groups: dict = {}
            for c in cards:
                k = (labels[c], self.up[c])
                if k in groups:
                    groups[k][1] += 1
                else:
                    groups[k] = [c, 1]
            total = len(cards)
            to = prog.zone_name(fr[2][info.slot + 2])
            out = []
            for (lab, up), (c, k) in groups.items():
                a = Action("draw", draw_text(lab, up), None, (c,), forms, prog=prog)
                a._to = to
                out.append((a, Fraction(k, total)))
            return out
        raise AssertionError(info)  # pragma: no cover

    def legal_actions(self, player: Optional[int] = None) -> list[Action]:
        """Every action the player to act may take, in a fixed order.  At a chance node these are the
        chance outcomes; when the game is over, none.  At a simultaneous choice, ask for one of
        `waiting`.  A position where a player must act but may do nothing raises `RuleError`; a
        player who is not in the game (a seat past the last, `True`, "0") raises `OptionError`."""
        if player is not None:
            check_seat(player, self.n)
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
            raise self._fault(exc, info.span, reasons.while_listing(actor, self._where())) from None
        if not legal.moves:
            raise reasons.stuck(info.span, actor, " or ".join(ap.name for ap in info.actions), self._where())
        return legal

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

    # ---- applying an action ----------------------------------------------------------------------

    def apply(self, action: Union[Action, str]) -> Self:
        """Do an action (an `Action` or its text).  Raises `IllegalAction`, changing nothing, if the
        rules do not allow it now; an `Action` is refused unless it is for the player to act and
        from this game.  A rule that goes wrong while the action takes effect raises `RuleError`
        and also leaves the state as it was.  Returns the state itself, so calls can be chained."""
        if isinstance(action, Action):
            legal = self._legal
            if legal is not None and action._origin is legal.token:
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
                raise reasons.too_long(action)
            text = _normalize(action)
        else:
            raise reasons.not_an_action(action)
        if self.cur is None:
            raise reasons.game_over(text)
        snap = self._snapshot()
        self._work = 0
        try:
            self._apply_text(action, text)
        except FishrulesError:
            self._restore(snap)
            raise
        except Exception as exc:  # a rule that went wrong while the text was read
            self._restore(snap)
            raise self._fault(exc, self._pause_span(), reasons.while_reading(text)) from None
        except BaseException:
            self._restore(snap)
            raise
        return self

    def _check_action_object(self, a: Action) -> None:
        """An `Action` that did not come from this very position's legal list: it must be of this
        game and for somebody who may act now."""
        prog = a._prog
        if prog is not None and prog is not self.prog and prog.identity != self.prog.identity:
            raise reasons.other_game(a.text)
        cur = self.cur
        if cur is None:
            return
        refused = reasons.wrong_actor(a.text, a.player, cur, CHANCE, SIMULTANEOUS)
        if refused is not None:
            raise refused

    def _apply_text(self, action, text: str) -> None:
        cur = self.cur
        if cur == CHANCE:
            for a, _ in self.chance_outcomes():
                if a.text == text:
                    self._apply_chance(a)
                    return
            raise reasons.not_an_outcome(text)
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
            player = parse_seat(head.strip()) if sep else None
            if player is None:
                raise reasons.say_who(text, waiting)
            rest = " ".join(rest.split())
        if player not in waiting:
            fr, info = self._pause()
            raise reasons.not_choosing(text, player, fr[2][info.slot], self.n, waiting)
        fr, info = self._pause()
        by_text = self._enumerate_for(info, player).by_text()
        prefix = f"p{player}: "
        found = by_text.get(prefix + rest)
        if found is None:
            canonical = self._read_action(rest, player, info)
            if isinstance(canonical, tuple):
                raise reasons.broken_together(text)
            found = by_text[prefix + canonical]
        self._chosen(found, player, fr, info)

    def _chosen(self, found: Action, player: int, fr: list, info: Any) -> None:
        """`player`'s legal choice `found` at the simultaneous decision `info` (in frame `fr`): kept
        secret until everybody has chosen, then every choice takes effect."""
        L = fr[2]
        L[info.slot + 1] = L[info.slot + 1] + ((player, found.name, found._values, len(self._history)),)
        self._record(found.text, f"p{player}: ?", (player,), found)
        self._legal = None
        if len(L[info.slot + 1]) < len(L[info.slot]):
            return
        chosen = {p: (name, values) for p, name, values, _ in L[info.slot + 1]}
        self._unveil(L[info.slot + 1])
        fr[1] += 1
        for p in reversed(L[info.slot]):  # pushed last first: the first player's effects run first
            self._push_action(self.prog.actions[chosen[p][0]], p, chosen[p][1])
        self._resume()

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

    def _do(self, a: Action) -> None:
        ap = self.prog.actions[a.name]
        if a.breaks is not None:  # accepted as the rules say: their `when … is broken` block runs
            self._do_broken(ap, a.player, a._values, a.text, a.breaks, a)
            return
        fr = self.stack[-1]
        fr[1] += 1
        self._push_action(ap, a.player, a._values)
        form = ap.form
        hidden = form.render_redacted(a._values) if form.secret else None
        if hidden is None:
            self._record(a.text, None, None, a)
        else:
            self._record(a.text, hidden, (a.player,), a)
        self._resume()

    def _do_broken(self, ap: Any, player: Optional[int], values: tuple, text: str, rule: str,
                   action: Optional[Action] = None) -> None:
        """An action that breaks the rule `rule`, accepted as the rules say: its `when … is broken`
        block runs instead of its effects.  `action`: the legal Action it is (else made here, for
        the record)."""
        self.stack[-1][1] += 1
        self._push_action(ap, player, values, ap.broken[rule][1])
        form = ap.form
        if action is None:
            action = Action(ap.name, text, player, values, form if ap.params else None, None, "", self.prog, rule)
        hidden = form.render_redacted(values) if form.secret else None
        if hidden is None:
            self._record(text, None, None, action)
        else:
            self._record(text, hidden, (player,), action)
        self._resume()

    # ---- applying a typed move -------------------------------------------------------------------

    def _play(self, move: Move) -> Self:
        """Apply a typed `Move` (see the module's docstring): the legal action with its action and
        values, found and taken as `apply` takes its text (the same work budget, the same record, a
        failure undone alike), but found by its key, with no text written or read.  A move that is
        not one of its actor's legal actions now (another player's turn, chance to play, a move
        the rules forbid) is handed to `apply` as the `Action` it names, which refuses it (or
        takes it) in its own words."""
        cur = self.cur
        if cur is not None and cur != CHANCE and (cur == SIMULTANEOUS) == move.together:
            snap = self._snapshot()
            self._work = 0
            try:
                if self._play_found(move):
                    return self
            except FishrulesError:
                self._restore(snap)
                raise
            except Exception as exc:  # a rule that went wrong (as `apply` says it of a text)
                self._restore(snap)
                raise self._fault(exc, self._pause_span(), reasons.while_reading(self._action_of(move).text)) from None
            except BaseException:
                self._restore(snap)
                raise
            self._restore(snap)
        return self.apply(self._action_of(move))

    def _play_found(self, move: Move) -> bool:
        """Take `move` if it is one of the legal actions of its actor now; False if it is not."""
        forms = forms_of(self.game.model).by_number
        if not (0 <= move.action < len(forms)):
            return False
        key = (forms[move.action].name, move.values)
        if move.together:
            if move.actor not in self.waiting:
                return False
            fr, info = self._pause()
            found = _found(self._enumerate_for(info, move.actor), key)
            if found is None:
                return False
            self._chosen(found, move.actor, fr, info)
            return True
        if move.actor != self.cur:
            return False
        if self._legal is None:
            self._legal = self._enumerate()
        found = _found(self._legal, key)
        if found is None:
            return False
        self._do(found)
        return True

    def _action_of(self, move: Move) -> Action:
        """The `Action` a typed move names, for `apply` to check (and refuse) when it is not one
        of the legal actions now."""
        forms = forms_of(self.game.model).by_number
        if not (0 <= move.action < len(forms)):
            raise IllegalAction(short(move), "there is no such action in these rules")
        ap = self.prog.actions[forms[move.action].name]
        prefix = f"p{move.actor}: " if move.together else ""
        if ap.params:
            return Action(ap.name, None, move.actor, move.values, ap.form, None, prefix, self.prog, move.breaks)
        return Action(ap.name, prefix + ap.name, move.actor, (), None, None, prefix, self.prog, move.breaks)

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

    # ---- reading an action's text ----------------------------------------------------------------

    def _read_action(self, text: str, actor: Optional[int] = None, info=None):
        """The canonical text of the action `text` means, if the rules allow it now (or, for a
        broken rule the rules accept, what `_do_broken` takes); otherwise raise `IllegalAction`
        saying why.  Read by `fishrules.reasons.read_action` (as a state on the kernel reads it),
        which asks this machine what each parameter may be, the actor's legal values and the
        first rule a move breaks."""
        if actor is None:
            fr, info = self._pause()
            actor = fr[2][info.slot]
        offered = {ap.name: ap for ap in info.actions}

        def locals_of(form: Any, values: Any) -> list:
            ap = offered[form.name]
            L: list = [None] * ap.nlocals
            L[0] = actor
            for p, v in zip(ap.params, values):
                L[p.slot] = v
            return L

        def domain(form: Any, i: int, values: list) -> Any:
            p = offered[form.name].params[i]
            L = locals_of(form, values)
            return p.elements(self, L) if p.kind == "some" else p.domain(self, L)

        def legal(form: Any) -> list:
            return [a._values for a in self._enumerate_for(info, actor).actions() if a.name == form.name]

        def check(form: Any, values: tuple) -> Optional[tuple]:
            ap = offered[form.name]
            L = locals_of(form, values)
            for name, span, test in ap.requires:
                if not test(self, L):
                    handler = ap.broken.get(name)
                    return name, span, handler is not None and (handler[0] is None or handler[0](self, L))
            return None

        form, values, canonical, broken = reasons.read_action(
            text, actor, list(offered), forms_of(self.game.model).actions, domain, legal, check,
            isinstance(info, SimulPause))
        if broken is not None:
            return (offered[form.name], actor, values, canonical, broken)
        return canonical


def _found(legal: Legal, key: tuple) -> Optional[Action]:
    """The legal action with this (name, values), or None (values that cannot be a key: None)."""
    try:
        return legal.by_key().get(key)
    except TypeError:  # unhashable values: no legal action has them
        return None

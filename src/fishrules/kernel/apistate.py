"""The API on the kernel: a state whose decisions run on the game kernel.

`KState` is a `State` (the same class to every caller, `isinstance` included) whose hot path runs
on the native kernel: `current`, `is_over`, `waiting`, `legal_actions()`, `apply()` of one of its
own legal actions, of any text or of a `KAction` of another position (read as the engine reads
them, fishrules.reasons.read_action, against what the kernel says each parameter may be and which
rule a move breaks: taken, a violation the rules accept included, or refused in the engine's
words), `scores()`, `winners()` and `clone()`.  A legal action is the kernel's move,
read into an `Action` only when somebody looks at it (`KAction`); the state keeps the moves it
applied.  What a seat sees comes from the position too: `observation(player)` (kernel/views.py
reads the floats of the observation layout straight from the kernel's array), and the ids of the
legal actions in the action space (kept with each shared list of legal actions).  So does the
record (kernel/record.py): `history`, `redact`, `history_for`, `events_for` and `view(player)`
are the engine's record kept by the kernel's own trace, worked out when first asked for (the moves
applied since the last record played again on a copy of that position with the trace kept; a
state that only decides and applies records nothing).  So do the phases being played, the rules
fired and empty draws counted, `score_parts` (the rules' score lines, run on the kernel), equality
(the position under the layout's mask, `position_of`, and the record; of a state of the
engine's, the position its record replays to), JSON (`fishrules-state/1` read too: its fields
projected from the position, `_saved_fields_1`), `playout(rng)` (the backend's, seeded from
`rng`; chance the caller was to give, or handed back to the generator at a wait, drawn as the
engine's playout draws it), determinization (kernel/determinize.py; a world that outgrows its
kernel's room drawn again in a roomier one) and the engine's fields a simulation sets (`fires`,
`empty_draws`, `redact`).  A choice made together
is kept in the position as it is made (the backend's `choose`), so a state holding one in part is
a position like any other.  Where the kernel cannot work something out (a record it cannot
trace, a view it cannot show) the answer is its engine twin's (`_twin`), the state untouched.  The
moment anything else of the state is asked for (any of the engine's own fields), it becomes a plain
`State`: the engine's machine replays its actions (chance comes out the same from the same seed)
and the state goes on as the engine's from there.  So a loop that decides, applies and shows each
seat what it sees (a bot playing itself, a learning loop, a table) runs on the kernel, and
everything else is exactly what it always was.

A game stuck (a player who must choose may do nothing) and an `unavailable` reached are the
engine's errors raised on the kernel.  A rule that goes wrong on the kernel (while the game is set
up, a move is played, the moves are listed, an action's text is read, the scores worked out, or in
a playout) is the engine's `RuleError` in the kernel's own words (kernel/faults.py, `_words`).
Either way the state is put back where it was and stays a `KState`.  Only a fault the kernel has
no words for (a capacity of its own past its roomiest variant: `_engine_fails`) is answered by the
engine: the call made again on a throwaway twin of the state (`_twin`), whose error is raised, or,
where the engine plays it, the state the engine's from then on.
"""

from __future__ import annotations

import random
import weakref
from fractions import Fraction
from typing import Any, Callable, Optional, Union

from ..errors import FishrulesError, OptionError
from ..limits import MAX_REPLAY_WORK
from ..runtime import CHANCE, SIMULTANEOUS, Action, State, play_move, recorded_moves
from ..runtime import playout as _playout
from ..runtime.fields import Fields
from ..runtime.playout import Playout
from .. import reasons
from ..forms import draw_text, forms_of, parse_seat
from ..limits import MAX_ACTION_TEXT
from ..runtime.text import check_seat, check_since, short
from .abi import CUR_CHANCE as _CUR_CHANCE, CUR_OVER as _CUR_OVER, CUR_RUN as _CUR_RUN, CUR_SIMUL as _CUR_SIMUL
from .abi import FAULT_BUDGET, FAULT_CAPACITY, FAULT_ENDLESS, FAULT_RULE, FAULT_STUCK, FAULT_UNPLAYABLE, NIL
from .abi import CHANCE_DRAW as _CHANCE_DRAW, H_CHANCE_B as _H_CHANCE_B
from .abi import H_CHANCE as _H_CHANCE, H_CHANCE_A as _H_CHANCE_A, H_CHANCES as _H_CHANCES, H_CUR as _H_CUR
from .abi import CHANCE_DRAW as _CHANCE_DRAW, H_CHANCE_B as _H_CHANCE_B, H_CHANCE_C as _H_CHANCE_C
from .abi import H_DDRAWS as _H_DDRAWS, H_DECISIONS as _H_DECISIONS, H_DEPTH as _H_DEPTH, H_DRAWS as _H_DRAWS
from .abi import H_DSEED as _H_DSEED, H_LIMIT as _H_LIMIT, H_MANUAL as _H_MANUAL, H_NDICE as _H_NDICE
from .abi import H_SEED as _H_SEED, H_SITE as _H_SITE, H_WHY as _H_WHY, H_WORK as _H_WORK
from .abi import M64, below
from . import faults
from .pyruntime import KFault
from .arms import NO_OUTCOME
from .record import _SEATS as MAX_SEATS, KRecord, Recorder, events_for
from .reference import Outcome, reference_playout
from .views import Sight

__all__ = ["KState", "KAction", "start"]

# What a KState keeps of its own (State's slot `_ks`): [kernel, S, the moves applied as (records, i,
# together, actor or generator) (a choice made together is applied when made: the position keeps
# it, in the waiting frame's `chosen`, until everybody has chosen), the legal moves of this position
# {actor: [n, records, actions or None, where, ids]}, options, count_rules, what the game's
# positions share (its options by name, action space and observation layout: `_spaces`)].
# The record (kernel/record.py), kept from the kernel's own trace when first asked for: _REC the
# last record worked out (record, a copy of the position it is of, how many applied moves it
# covers), shared by clones and never changed.  _PLAYED: None, or after
# `playout` (the position is then the kernel's playout's end, which the moves applied do not
# reach) how it was played out: (chance seed, choice seed, decision limit, chance outcomes, None);
# or where chance was the caller's (`_playout_by_hand`), (None, None, limit, chance outcomes, the
# steps played: (None, outcome) or (kernel move, together)).
# _FROM: (seed, manual) the game was set up with, from which the moves applied are played again
# (a determinization: (seed, manual, (its start position, a maker of its engine twin, a maker of its
# start in a roomier kernel)))
# (the state's own `seed`, `draws` and `manual` are its generator now: `_reseed` changes them, and
# leaves an entry among the moves applied, (None, None, False, (seed, draws, manual)), so that
# playing the moves again changes them at the same place).
_KERNEL, _S, _APPLIED, _LEGAL, _OPTIONS, _COUNT, _SHARED, _REC, _PLAYED, _FROM = range(10)
#: the fields a KState holds itself; every other field of State is the engine's, made on demand
_OWN = ("game", "prog", "n", "seed", "manual", "_ks")
#: the engine's fields a KState answers from the kernel's position or record (its properties, below)
_KEPT = ("redact", "fires", "empty_draws", "draws", "dice_ids", "_work")
#: how many lists of legal actions a kernel keeps for the positions to share (all dropped when full)
_SHARED_LISTS = 4096
#: the key of a shared legal list's actions by text, among what is kept with it (beside the ids of
#: its actions by action space)
_BY_TEXT = object()
#: how many moves' action ids a kernel keeps, for each action space (all dropped when full)
_SHARED_IDS = 1 << 16
#: the key, among a position's legal lists (by actor), of what is kept of its chance node
_CHANCE_KEPT = "chance"


def start(game: Any, players: int, options: dict, seed: int, count_rules: bool, manual: bool = False,
          kernel: Any = None) -> State:
    """A new game on the kernel (a KState), or a plain State where the kernel cannot set it up.
    `manual`: chance is the caller's (the kernel waits at every die and every card drawn from a
    shuffled zone: `Kernel.manual_chance`).  `kernel`: another than the game's own
    (`saved_position`'s)."""
    if kernel is None:
        kernel = game.kernel
    be = kernel.backend
    S = None
    try:
        S = be.new(players, options, seed)
        if manual:
            S[_H_MANUAL] = 1
        be.start(S, False)
    except KFault as fault:
        if S is None:  # the set-up itself: the number of dice, from the options
            error = faults.setting_up(kernel, players, options, seed) if fault.code == FAULT_RULE else None
        elif fault.code == FAULT_UNPLAYABLE:
            error = _unavailable(kernel, S)
        else:  # the rules run to the first wait (the kernel's budget is the engine's)
            error = faults.error(kernel.program, S, fault.code, faults.PLAYING)
        if error is not None:
            raise error from None
        bigger = kernel.roomier() if fault.code == FAULT_CAPACITY else None
        if bigger is not None:  # a list the set-up adds to outgrew its room: the roomier kernel's game
            return start(game, players, options, seed, count_rules, manual, bigger)
        return State._new(game, players, options, seed, manual, count_rules=count_rules)
    s = KState.__new__(KState)
    for name, value in (("game", game), ("prog", game.program), ("n", players), ("seed", seed), ("manual", manual),
                        ("_ks", [kernel, S, [], {}, options, count_rules, {}, None, None, (seed, manual)])):
        _SLOTS[name].__set__(s, value)
    while True:
        try:
            s._check_can_act()
        except _Stuck as stuck:
            raise s._stuck(stuck.actor) from None
        except KFault as fault:
            if fault.code == FAULT_CAPACITY and s._grow():
                continue
            words = s._words(fault, s._ks[_S])  # (a rule that goes wrong listing the first moves)
            if words is not None:
                raise words from None
            s._become_state()  # the kernel's own capacity: the engine lists them
        return s


def _new_position(be: Any, players: int, options: dict, seed: int, manual: bool) -> Any:
    """A game's position set up and run to its first wait (KFault if it cannot be)."""
    S = be.new(players, options, seed)
    if manual:
        S[_H_MANUAL] = 1
    be.start(S, False)
    return S


def _unavailable(kernel: Any, S: Any) -> Optional[Exception]:
    """The engine's OptionError for the `unavailable` statement that stopped a step at S (None if
    S does not say which: the engine's machine then says it)."""
    kp = kernel.program
    k = S[_H_WHY]
    if not (type(k) is int and 0 <= k < len(kp.refusals)):  # pragma: no cover - the kernel wrote it
        return None
    return reasons.unavailable(kp.model.title, kp.refusals[k])


class _Stuck(KFault):
    """A player who must choose may do nothing (FAULT_STUCK): the game is stuck; `actor` who."""

    def __init__(self, actor: int):
        super().__init__(FAULT_STUCK)
        self.actor = actor


class KState(State):
    """A `State` whose decisions run on the kernel (see the module's docstring)."""

    __slots__ = ()

    # ---- the kernel's fast path -------------------------------------------------------------

    @property
    def current(self) -> Union[int, str, None]:
        cur = self._ks[_S][_H_CUR]
        if cur >= 0:
            return cur
        return SIMULTANEOUS if cur == _CUR_SIMUL else CHANCE if cur == _CUR_CHANCE else None

    @property
    def is_over(self) -> bool:
        return self._ks[_S][_H_CUR] == _CUR_OVER

    @property
    def waiting(self) -> list[int]:
        ks = self._ks
        cur = ks[_S][_H_CUR]
        if cur >= 0:
            return [cur]
        if cur != _CUR_SIMUL:
            return []
        return ks[_KERNEL].backend.waiting_together(ks[_S])

    def _moves(self, actor: int) -> tuple:
        """(n, records, actions or None) of `actor` at this position, listed once."""
        ks = self._ks
        got = ks[_LEGAL].get(actor)
        if got is None:
            try:
                n, records = ks[_KERNEL].backend.moves_raw(ks[_S], actor)
            except KFault as fault:
                fault.listing = actor  # (the context of its words: see _words)
                raise
            if not n:
                raise _Stuck(actor)  # a player who must act may do nothing
            got = ks[_LEGAL][actor] = [n, records, None, None, None]
        return got

    def _check_can_act(self) -> None:
        """Every player the game waits for has something to do (listed now, as the engine does)."""
        ks = self._ks
        cur = ks[_S][_H_CUR]
        if cur >= 0:
            self._moves(cur)
        elif cur == _CUR_SIMUL:
            for p in self.waiting:
                self._moves(p)

    def legal_actions(self, player: Optional[int] = None) -> list:
        ks = self._ks
        if ks is None:  # called through a method bound while this was a KState (see _become_state)
            return State.legal_actions(self, player)
        if player is not None:
            check_seat(player, _SLOTS["n"].__get__(self))
        cur = ks[_S][_H_CUR]
        if cur == _CUR_OVER:
            return []
        if cur == _CUR_CHANCE:  # (whoever asks: the outcomes, as the engine's)
            return [a for a, _ in self.chance_outcomes()]
        if cur == _CUR_SIMUL:
            if player is None:  # (the engine's words)
                raise OptionError("everybody in state.waiting chooses at once here: ask legal_actions(player) for one of them")
            if player not in self.waiting:
                return []
            actor = player
        else:
            if player is not None and player != cur:
                return []
            actor = cur
        try:
            got = self._moves(actor)
        except KFault as fault:
            if fault.code == FAULT_CAPACITY and not isinstance(fault, _Stuck) and self._grow():
                return self.legal_actions(player)  # (listed in the roomier kernel)
            self._engine_fails(lambda twin: twin.legal_actions(player), self._words(fault, ks[_S]))
            return self._as_state().legal_actions(player)
        actions = got[2]
        if actions is None:
            # KActions that know only where their move is, read when looked at.  Positions often
            # offer the very same moves (the same records), so the lists are shared through the
            # kernel: an action names its move, not its position, as an action's text does.
            kernel, together = ks[_KERNEL], cur == _CUR_SIMUL
            shared = kernel.api_actions
            key = (actor, together, kernel.backend.records_key(got[1]))
            listed = None if shared is None else shared.get(key)
            if listed is None:
                # `where` is what identifies the list (no reference back to it: no cycle for the
                # garbage collector to look through)
                where = (kernel, got[1], actor, f"p{actor}: " if together else "", self.prog)
                new, put, actions = KAction.__new__, _K_MOVE, []
                append = actions.append
                for i in range(got[0]):
                    a = new(KAction)
                    put(a, (where, i))
                    append(a)
                # (what is kept with the list: its ids by action space, `ids_on_kernel`, and its
                # actions by their text under _BY_TEXT, `_listed_for`)
                listed = (actions, where, {})
                if shared is not None:
                    if len(shared) >= _SHARED_LISTS:
                        # Full.  Sharing goes on only where it paid: where most positions found
                        # their list (kept lists are old objects, which the garbage collector's
                        # full collections look through; a game whose moves rarely repeat loses).
                        shared = kernel.api_actions = {} if kernel.api_shared >= _SHARED_LISTS else None
                        kernel.api_shared = 0
                    if shared is not None:
                        shared[key] = listed
            else:
                kernel.api_shared += 1
            actions = got[2] = listed[0]
            got[3] = listed[1]
            got[4] = listed[2]
        return list(actions)

    def chance_outcomes(self) -> list:
        ks = self._ks
        if ks is None:
            return State.chance_outcomes(self)
        return list(self._chance_kept()[0])

    def _chance_kept(self) -> list:
        """[outcomes, {action space: (chance ids, merged probabilities)}] of this chance node,
        worked out once for the position (kept with its legal lists, which every move replaces):
        an agent's loop asks for the outcomes several times a node (OpenSpiel: the outcomes, their
        ids to check the one drawn, then the action of that id), each a list of Actions and
        Fractions."""
        ks = self._ks
        legal = ks[_LEGAL]
        got = legal.get(_CHANCE_KEPT)
        if got is None:
            S = ks[_S]
            if S[_H_CUR] != _CUR_CHANCE:  # (the header still names the last chance wait's die)
                got = [(), {}]
            elif S[_H_CHANCE] != _CHANCE_DRAW:
                # a die's outcomes are the die's, whatever the position: kept for the game's
                # positions (the texts, Fractions and ids of a roll made once)
                shared, key = ks[_SHARED], (_CHANCE_KEPT, S[_H_CHANCE_A])
                got = shared.get(key)
                if got is None:
                    got = shared[key] = [tuple(self._outcomes_at(S)), {}]
            else:
                got = [tuple(self._outcomes_at(S)), {}]
            legal[_CHANCE_KEPT] = got
        return got

    def chance_on_kernel(self, space: Any) -> Optional[tuple]:
        """(chance ids, [(id, probability)] merged and sorted) of this chance node in `space`,
        kept with the position (fishrules.spaces: `legal_ids`, `chance_probabilities`); None where
        the space must work them out (not a chance node, or this is a State now)."""
        ks = self._ks
        if ks is None or ks[_S][_H_CUR] != _CUR_CHANCE:
            return None
        kept = self._chance_kept()
        got = kept[1].get(space)
        if got is None:
            ids, merged = [], {}
            for a, p in kept[0]:
                k = space.chance_id(a)
                ids.append(k)
                merged[k] = merged[k] + p if k in merged else p
            got = kept[1][space] = (tuple(ids), tuple(sorted(merged.items())))
        return got

    def _outcomes_at(self, S: Any) -> list:
        """`chance_outcomes` of position S (of this game)."""
        ks = self._ks
        if S[_H_CUR] != _CUR_CHANCE:
            return []
        forms, prog = forms_of(_SLOTS["game"].__get__(self).model), self.prog
        if S[_H_CHANCE] != _CHANCE_DRAW:  # a die: the engine's outcomes, exactly
            die = S[_H_CHANCE_A]
            return [(Action("roll", forms.roll_text(die, face), None, (die, face), forms, prog=prog), p)
                    for _, face, p in forms.chance_outcomes]
        # a card drawn from a shuffled zone: its cards grouped as nobody can tell them apart (label,
        # face up), each group's first card standing for it, in the zone's order (the engine's)
        lay = ks[_KERNEL].program.layout
        at, up, labels = lay.zones[S[_H_CHANCE_A]][0], lay.up, forms.card_labels
        cards = S[at + 1:at + 1 + S[at]]
        groups: dict = {}
        for c in cards:
            key = (labels[c], S[up + c])
            if key in groups:
                groups[key][1] += 1
            else:
                groups[key] = [c, 1]
        to = forms.zone_name(*lay.zone_names[S[_H_CHANCE_B]])
        out = []
        for (label, up), (c, k) in groups.items():
            a = Action("draw", draw_text(label, up), None, (c,), forms, prog=prog)
            a._to = to
            out.append((a, Fraction(k, len(cards))))
        return out

    def _apply_chance(self, action: Any) -> "State":
        """`apply` at a chance node: an outcome (an Action of chance of this game, or its text) is
        played on the kernel; anything else is refused in the engine's words (its twin's)."""
        ks = self._ks
        found = None
        if isinstance(action, str):
            if len(action) <= MAX_ACTION_TEXT:
                text = " ".join(action.split())
                found = next((a for a, _ in self.chance_outcomes() if a.text == text), None)
        else:
            self._refuse_object(action)  # (no action, another game's, a player's: the engine's words)
            found = next((a for a, _ in self.chance_outcomes() if a.text == action.text), None)
        if found is None:  # (refused as the engine's `apply` refuses it: too long, or no outcome now)
            if not isinstance(action, str):
                raise reasons.not_an_outcome(action.text)
            if len(action) > MAX_ACTION_TEXT:
                raise reasons.too_long(action)
            raise reasons.not_an_outcome(" ".join(action.split()))
        S, kernel = ks[_S], ks[_KERNEL]
        applied, legal = ks[_APPLIED], ks[_LEGAL]
        napplied = len(applied)
        try:
            ks[_LEGAL] = {}
            kernel.backend.play_chance(S, found._values[-1])  # (a die's face, a card)
            applied.append((None, found._values[-1], False, None))
            self._check_can_act()
        except KFault as fault:
            del applied[napplied:]
            ks[_LEGAL] = legal
            if fault.code == FAULT_CAPACITY and self._grow():
                return self._apply_chance(found.text)  # (the same outcome, in the roomier kernel)
            words = self._words(fault, S)
            self._undo_fault(fault, kernel, S)
            self._engine_fails(lambda twin: twin.apply(found.text), words)
            return self._as_state().apply(found.text)
        return self

    def apply(self, action: Union[Action, str]) -> "State":
        ks = self._ks
        if ks is None:  # `state.apply(bot.choose(state, p))`: bound before the bot made it a State
            return State.apply(self, action)
        if ks[_S][_H_CUR] == _CUR_CHANCE:
            return self._apply_chance(action)
        legal, waiting = ks[_LEGAL], None
        if type(action) is KAction:
            where, i = _K_MOVE_GET(action)
            kernel, records, actor = where[0], where[1], where[2]
            got = legal.get(actor)
            here = kernel is ks[_KERNEL] and got is not None and got[3] is where
            if here and ks[_S][_H_CUR] == _CUR_SIMUL:
                waiting = self.waiting
                here = actor in waiting
        else:
            here = False
        if not here:
            if type(action) is not KAction and not isinstance(action, str):
                self._refuse_object(action)  # (what the engine refuses of any object, refused here; an
                # `Action` of the engine's own, of this game for whoever acts, read by its text as it does)
                action = action.text if len(action.text) <= MAX_ACTION_TEXT else action
            # A text, or an action of another position: the engine reads it (and refuses it in its
            # own words: "p0 has chosen already", say) unless it is, as the engine would find it,
            # one of the legal actions here.  A simultaneous choice keeps its chooser's list
            # listed, but a player chooses once.
            found = self._listed_for(action)
            if found is None and self._ks is not None:
                found = self._read(action)  # (raises the refusal, in the engine's words)
            if found is None:
                return self._as_state().apply(action)
            where, i = _K_MOVE_GET(found)
            kernel, records, actor = where[0], where[1], where[2]
            legal = ks[_LEGAL]
        applied = ks[_APPLIED]
        napplied = len(applied)
        while True:  # (once more in a roomier kernel, each time a list outgrows the room of this one)
            S = ks[_S]
            be = kernel.backend
            together = S[_H_CUR] == _CUR_SIMUL
            try:
                if together:
                    # the choice is kept in the position (the waiting frame's `chosen`); the last
                    # one runs on.  A choice not the last changes nothing the others may do: their
                    # legal lists are kept
                    last = len(waiting if waiting is not None else self.waiting) == 1
                    applied.append((records, i, True, actor))
                    be.choose_raw(S, records, i)
                    if not last:
                        ks[_LEGAL].pop(actor, None)
                        return self
                    ks[_LEGAL] = {}
                    self._check_can_act()
                else:
                    ks[_LEGAL] = {}
                    n, listed = be.step_raw(S, records, i)  # the move played and the next one's listed
                    applied.append((records, i, False, actor))
                    cur = S[_H_CUR]
                    if cur >= 0:
                        if not n:
                            raise _Stuck(cur)  # a player who must act may do nothing
                        ks[_LEGAL][cur] = [n, listed, None, None, None]
                    elif cur == _CUR_SIMUL:
                        self._check_can_act()
            except KFault as fault:
                del applied[napplied:]
                ks[_LEGAL] = legal
                if fault.code == FAULT_CAPACITY and not isinstance(fault, _Stuck) and self._grow():
                    kernel, legal, waiting = ks[_KERNEL], ks[_LEGAL], None  # (a move's record is every kernel's)
                    continue
                words = self._words(fault, S)
                self._undo_fault(fault, kernel, S)
                # A rule that went wrong: the engine says what, and where, playing this step on a
                # twin of the position before it (the kernel's state is not needed for that: the
                # twin replays the moves applied).  Where the engine plays it, so does this state,
                # as the engine's from now on.
                move = kernel.boundary.move(be.decode(records, i), together)
                self._engine_fails(lambda twin: play_move(twin, move), words)
                return play_move(self._as_state(), move)
            return self

    def _undo_fault(self, fault: KFault, kernel: Any, S: Any) -> None:
        """After a step faulted (the moves applied as before it): a stuck game or `unavailable`
        raises the engine's error, the state put back where it was; other faults return."""
        if isinstance(fault, _Stuck) or fault.code == FAULT_UNPLAYABLE:
            # The game is stuck where the step got to (the kernel's position says where and
            # who), or the rules cannot be played as asked (`unavailable`: the position says
            # which); the state is put back where it was, as the engine's call is undone: the
            # position was played on, so it is worked out again from the moves applied.
            error = self._stuck(fault.actor) if isinstance(fault, _Stuck) else _unavailable(kernel, S)
            try:
                self._ks[_S] = self._position_again()
            except KFault:  # pragma: no cover - the moves applied are the kernel's own
                pass
            else:
                if error is not None:
                    raise error from None

    def _refuse_object(self, action: Any) -> None:
        """Refuse, in the engine's words (`apply`, `_check_action_object`), what is no action, an
        engine's `Action` of another game, or one of a player who may not act now: a bad argument
        leaves the state on the kernel (an engine's `Action` of this game it may take is still the
        engine's to read)."""
        if not isinstance(action, Action):
            raise reasons.not_an_action(action)
        prog = _A["_prog"].__get__(action)
        if prog is not None and prog is not self.prog and prog.identity != self.prog.identity:
            raise reasons.other_game(action.text)
        cur = self.current
        if cur is not None:
            refused = reasons.wrong_actor(action.text, action.player, cur, CHANCE, SIMULTANEOUS)
            if refused is not None:
                raise refused

    def _stuck(self, actor: int, S: Any = None) -> Any:
        """The engine's RuleError for a game stuck at this position (or at S, of this game): `actor`
        must choose, and may do nothing (fishrules.reasons.stuck: the decision's span, its actions,
        the phase played)."""
        ks = self._ks
        kernel, S = ks[_KERNEL], ks[_S] if S is None else S
        kp = kernel.program
        site = kp.sites[S[_H_SITE]]
        return reasons.stuck(site.span, actor, " or ".join(kp.action_names[a] for a in site.actions), self._where(S))

    def _phases(self, S: Any) -> list[str]:
        """The phases being played at position S, outermost first (the frames' blocks that are)."""
        names = self._sight().phase_names
        return [names[b] for b in self._ks[_KERNEL].backend.frame_blocks(S) if b in names]

    def _where(self, S: Any) -> str:
        """Where the game is at position S, as the engine says it: `phase X`, the innermost."""
        phases = self._phases(S)
        return f"phase {phases[-1]}" if phases else "the game"

    def _position_again(self, upto: Optional[int] = None) -> Any:
        """This state's position worked out again: its game set up from its seed, and the moves
        applied played again (as `_replay` plays them, without a record); with `upto`, the
        position after the first `upto` of them."""
        ks = self._ks
        be = ks[_KERNEL].backend
        S = _new_position(be, _SLOTS["n"].__get__(self), ks[_OPTIONS], *ks[_FROM]) if len(ks[_FROM]) == 2 \
            else ks[_KERNEL].copy_state(ks[_FROM][2][0])  # (a determinization: from its position)
        applied, decode = ks[_APPLIED], be.decode
        at, end = 0, len(applied) if upto is None else upto
        while at < end:
            records, i, together, gen = applied[at]
            if records is None:  # a chance outcome (manual chance): a die's face; or the generator reseeded
                if i is None:
                    _write_generator(S, *gen)
                else:
                    be.play_chance(S, i)
                at += 1
                continue
            if together:
                be.choose(S, decode(records, i))
            else:
                be.play(S, decode(records, i))
            at += 1
        played = ks[_PLAYED] if upto is None else None
        if played is not None and played[4] is not None:  # played out one step at a time
            for move, together in played[4]:
                if move is None:
                    if together is None:  # (the generator's chance given as outcomes from here)
                        S[_H_MANUAL] = 1
                    else:
                        be.play_chance(S, together)
                elif together:
                    be.choose(S, move)
                else:
                    be.play(S, move)
            if played[4] and played[4][0] == (None, None):
                S[_H_MANUAL] = 0
        elif played is not None:
            _play_out(be, S, played[0], played[1], played[2])
        return S

    def _grow(self) -> bool:
        """After a fault of the kernel's own capacity: move this state to its kernel's roomier
        variant (`Kernel.roomier`: the same rules with more room for the lists they add to), its
        position worked out there again from its start; True if it moved (the caller runs its
        call again), False where there is no roomier kernel (the engine's machine plays on, as
        before).  A change of kernel, not of class: every answer of the state is the same from
        either (`position_of` and the record read no room); what is kept of the old kernel's
        layout (the legal lists, the record's position, the observation's encoder) is dropped.
        A determinization (whose start is a position of the old kernel's layout) starts from its
        world drawn again there (the real position grown, the same cards in the same places: its
        `_FROM`'s maker), its record kept."""
        ks = self._ks
        old, start = ks[_KERNEL], ks[_FROM]
        drawn = len(start) > 2
        rec = ks[_REC]
        while True:
            bigger = ks[_KERNEL].roomier()
            if bigger is None:
                ks[_KERNEL], ks[_FROM] = old, start
                return False
            ks[_KERNEL] = bigger
            try:
                if drawn:
                    ks[_FROM] = start[:2] + ((start[2][2](bigger),) + start[2][1:],)
                S = self._position_again()
                if drawn and rec is not None:  # (its record's position, in the roomier layout)
                    rec = (rec[0], self._position_again(rec[2]), rec[2])
            except KFault as fault:  # (the moves applied outgrow this room too: the next)
                if fault.code != FAULT_CAPACITY:  # pragma: no cover - the moves applied played before
                    ks[_KERNEL], ks[_FROM] = old, start
                    return False
                continue
            break
        ks[_S], ks[_LEGAL], ks[_REC] = S, {}, rec if drawn else None
        spaces = ks[_SHARED].get("spaces")
        # (the options, action space and players stay; the observation's encoder reads the layout)
        ks[_SHARED] = {} if spaces is None else {"spaces": [spaces[0], spaces[1], None, spaces[3], None]}
        return True

    def _listed_for(self, action: Any) -> Optional[KAction]:
        """The action of this position's legal lists that the engine's `apply` takes for `action`
        (a text, or a `KAction` of another position of this game), found by its text exactly as the
        engine finds it (`_apply_text`, `_commit`: the text written canonically, of the player to
        act or of one still choosing); None where the engine must read it (a text written
        otherwise, or one it refuses, with the reason; an action of another player or game, or not
        a KAction)."""
        ks = self._ks
        cur = ks[_S][_H_CUR]
        if isinstance(action, str):
            if len(action) > MAX_ACTION_TEXT:
                return None
            text = " ".join(action.split())
            if cur >= 0:
                actor = cur
            elif cur == _CUR_SIMUL:
                head, sep, rest = text.partition(":")
                actor = parse_seat(head.strip()) if sep else None
                if actor is None or actor not in self.waiting:
                    return None
                text = f"p{actor}: " + " ".join(rest.split())
            else:
                return None
        elif type(action) is KAction and cur >= 0:
            # of this game (its kernel's), for the player to act: what the engine's
            # `_check_action_object` asks of an action of another position (the engine's own
            # Action objects it reads itself)
            where = _K_MOVE_GET(action)[0]
            if where[0] is not ks[_KERNEL] or where[2] != cur:
                return None
            actor, text = cur, action.text
        else:
            return None
        by_text = self._by_text(actor)
        return None if by_text is None else by_text.get(text)

    def _by_text(self, actor: int) -> Optional[dict]:
        """`actor`'s legal actions here by their text (kept with the shared list); None where the
        kernel could not list them (the state is the engine's now)."""
        self.legal_actions(actor)
        ks = self._ks
        if ks is None:
            return None
        got = ks[_LEGAL].get(actor)
        if got is None or got[4] is None:
            return None
        by_text = got[4].get(_BY_TEXT)
        if by_text is None:
            by_text = got[4][_BY_TEXT] = {a.text: a for a in got[2]}
        return by_text

    def _reader(self, action: Any) -> Optional[tuple]:
        """(actor, text, together) of `action` (a text, or a `KAction` of another position) as the
        engine reads it: who it is for and the words to read, the refusals that need no reading
        raised (too long, game over, nobody named or one not choosing at a simultaneous choice,
        another game's or player's action); None where the engine must read it."""
        ks = self._ks
        S = ks[_S]
        cur = S[_H_CUR]
        player: Optional[int]
        if isinstance(action, str):
            if len(action) > MAX_ACTION_TEXT:
                raise reasons.too_long(action)
            text = " ".join(action.split())
            if cur == _CUR_OVER:
                raise reasons.game_over(text)
            player = None
            if cur == _CUR_SIMUL:
                head, sep, rest = text.partition(":")
                player = parse_seat(head.strip()) if sep else None
                if player is None:
                    raise reasons.say_who(text, self.waiting)
                rest = " ".join(rest.split())
        elif type(action) is KAction:
            # as the engine's `_check_action_object`, then its text read as a text is
            where = _K_MOVE_GET(action)[0]
            text = action.text
            if where[0] is not ks[_KERNEL] and where[4].identity != self.prog.identity:
                raise reasons.other_game(text)
            if cur == _CUR_OVER:
                raise reasons.game_over(text)
            refused = reasons.wrong_actor(text, where[2], self.current, CHANCE, SIMULTANEOUS)
            if refused is not None:
                raise refused
            player, rest = where[2], text.split(": ", 1)[-1]
        else:
            return None
        together = cur == _CUR_SIMUL
        if together:
            waiting = self.waiting
            if player not in waiting:
                choosing = ks[_KERNEL].backend.who_together(S)
                raise reasons.not_choosing(text, player, choosing, _SLOTS["n"].__get__(self), waiting)
            actor, text = player, rest  # the engine reads what follows the name
        elif cur >= 0:
            actor = cur
        else:
            return None
        return actor, text, together

    def _read(self, action: Any) -> Optional[KAction]:
        """What the engine's `apply` makes of `action` (a text, or a `KAction` of another position
        of this game), when it is not one of the legal actions' texts as the engine writes them
        (`_listed_for`): read as the engine reads it (fishrules.reasons.read_action, asking the
        kernel what each parameter may be and which rule a move breaks), the legal action it
        means (one that breaks a rule its handler accepts included), or the `IllegalAction` that
        says why not, raised.  None where the engine must read it: an `Action` of the engine's
        own, or a rule that goes wrong while it is read (the engine says where)."""
        who = self._reader(action)
        if who is None:
            return None
        actor, text, together = who
        ks = self._ks
        S = ks[_S]
        kernel = ks[_KERNEL]
        kp, be, bd = kernel.program, kernel.backend, kernel.boundary
        offered = list(dict.fromkeys(kp.action_names[a] for a in kp.sites[S[_H_SITE]].actions))
        number = {name: i for i, name in enumerate(kp.action_names)}
        copy: list = []

        def position() -> Any:  # the kernel's answers write its move slots: a copy of the position
            if not copy:
                copy.append(kernel.copy_state(S))
            return copy[0]

        def domain(form: Any, i: int, values: list) -> list:
            a = number[form.name]
            return bd.values_of(a, i, be.domain(position(), a, i, bd.partial_move(a, actor, tuple(values))))

        def legal(form: Any) -> list:
            return [a._values for a in self.legal_actions(actor) if a.name == form.name]

        def check(form: Any, values: tuple) -> Optional[tuple]:
            a = number[form.name]
            r = be.why(position(), a, bd.partial_move(a, actor, values))
            if not r:
                return None
            rule = kp.model.actions[form.name].requires[abs(r) - 1]
            return rule.name, rule.span, r < 0

        try:
            _, _, canonical, broken = reasons.read_action(text, actor, offered, forms_of(kp.model).actions, domain,
                                                          legal, check, together)
        except KFault as fault:
            # a rule that goes wrong while the text is read (on the copy the kernel was asked on)
            said = action.text if type(action) is KAction else " ".join(action.split())
            words = self._words(fault, copy[0], faults.reading(said)) if copy else None
            self._engine_fails(lambda twin: twin.apply(action), words)
            return None
        if broken is not None and together:
            raise reasons.broken_together(action.text if type(action) is KAction else " ".join(action.split()))
        if self._ks is None:  # pragma: no cover - the kernel could not list the legal actions
            return None
        by_text = self._by_text(actor)
        if by_text is None:
            return None
        return by_text.get(f"p{actor}: {canonical}" if together else canonical)

    def scores(self) -> list[int]:
        ks = self._ks
        if ks is None:
            return State.scores(self)
        try:
            return ks[_KERNEL].backend.scores(ks[_S])
        except KFault as fault:
            if fault.code == FAULT_CAPACITY and self._grow():
                return self.scores()
            self._engine_fails(lambda twin: twin.scores(), self._words(fault, ks[_S], faults.SCORES))
            return self._as_state().scores()

    def score_parts(self) -> list[list[tuple[str, int]]]:
        """`State.score_parts`, from the kernel's score lines (`t{i}`, the terms of `score`)."""
        ks = self._ks
        if ks is None:
            return State.score_parts(self)
        be = ks[_KERNEL].backend
        try:
            rows = be.score_parts(ks[_S])
        except KFault as fault:
            if fault.code == FAULT_CAPACITY and self._grow():
                return self.score_parts()
            self._engine_fails(lambda twin: twin.score_parts(),
                               self._words(fault, ks[_S], (faults.SCORES[0], be.term)))
            return self._as_state().score_parts()
        names = [t.name for t in self.prog.model.scores]
        return [list(zip(names, row)) for row in rows]

    def winners(self) -> list[int]:
        ks = self._ks
        if ks is None:
            return State.winners(self)
        if ks[_S][_H_CUR] != _CUR_OVER:
            return []
        try:
            return ks[_KERNEL].backend.winners(ks[_S])
        except KFault as fault:
            if fault.code == FAULT_CAPACITY and self._grow():
                return self.winners()
            self._engine_fails(lambda twin: twin.winners(), self._words(fault, ks[_S], faults.WINNERS))
            return self._as_state().winners()

    # ---- what a seat sees, from the position ------------------------------------------------------

    def _options(self) -> dict:
        ks = self._ks
        if ks is None:
            return State._options(self)
        return dict(self._spaces()[0])

    def _spaces(self) -> tuple:
        """[options by name, action space, observation layout, players, the layout's encoder from
        the position (kernel/views.py)] of this game, worked out once for the positions of one game
        (its clones included)."""
        shared = self._ks[_SHARED]
        got = shared.get("spaces")
        if got is None:
            opts = self._ks[_OPTIONS]
            by_name = {o.name: opts[o.name] for o in self.prog.model.options}
            n = _SLOTS["n"].__get__(self)
            got = shared["spaces"] = [by_name, None, None, n, None]
        return got

    def _action_space(self):
        ks = self._ks
        if ks is None:
            return State._action_space(self)
        got = self._spaces()
        if got[1] is None:
            got[1] = self.game.action_space(got[3], got[0])
        return got[1]

    def _position_view(self, player: Optional[int], legal: bool) -> Optional[dict]:
        """`view(player)` but its history, read from the kernel's position (kernel/views.py); None
        where the engine must be asked."""
        ks = self._ks
        return self._sight().view(ks[_S], _SLOTS["n"].__get__(self), ks[_OPTIONS], player, self.current, self.waiting,
                          self.scores, self.winners,
                          (lambda p: [a.text for a in self.legal_actions(p)]) if legal else None)

    def ids_on_kernel(self, space: Any, player: Optional[int]) -> Optional[list]:
        """The ids in `space` of `legal_actions(player)`, kept with the list of legal actions (the
        same moves have the same ids), or None where the space must work them out (fishrules.spaces:
        `ActionSpace.legal_ids`).  Not where an id depends on the position (a parameter numbered by
        positions among what the rules offer): the space numbers those at each position, by what
        the kernel offers (`offered_on_kernel`).
        """
        ks = self._ks
        if ks is None:
            return None
        if player is not None:
            check_seat(player, _SLOTS["n"].__get__(self))
        kernel = ks[_KERNEL]
        by_position = kernel.api_by_position
        if space not in by_position:
            # the kernel's move blocks of the actions with a parameter numbered by positions: a
            # listing is looked through by its records' blocks, no move read into an Action
            names = {info.name for info in space.actions if any(p.kind == "positions" for p in info.params)}
            bd = kernel.boundary
            by_position[space] = frozenset(b for b, (number, _, _) in bd.of_block.items()
                                           if bd.programs[number].name in names)
        cur = ks[_S][_H_CUR]
        actor = cur if cur >= 0 and (player is None or player == cur) else player if cur == _CUR_SIMUL else None
        if actor is None or (cur == _CUR_SIMUL and actor not in self.waiting):
            return None
        actions = self.legal_actions(player)
        got = ks[_LEGAL].get(actor)
        if self._ks is None or got is None or got[4] is None:
            return None
        ids = got[4].get(space)
        if ids is None:
            blocks = by_position[space]
            if blocks and not blocks.isdisjoint(_blocks_of(got[1], kernel.backend)):
                return None  # an id that depends on what the rules offer now: worked out by the space
            # Lists rarely repeat where moves do ("bet 3 on p1"): an id is kept by its move's record
            by_move = kernel.api_move_ids.get(space)
            if by_move is None or len(by_move) >= _SHARED_IDS:
                by_move = kernel.api_move_ids[space] = {}
            key_of, records = kernel.backend.record_key, got[1]
            ids = []
            for i, a in enumerate(actions):
                key = key_of(records, i)
                v = by_move.get(key)
                if v is None:
                    v = by_move[key] = space.id_of(a)
                ids.append(v)
            got[4][space] = ids
        return list(ids)

    def offered_on_kernel(self, name: str, player: Optional[int], values: tuple, k: int) -> Optional[list]:
        """What parameter `k` of action `name` may be here for `player` given the earlier `values`
        (for `some`, the things chosen from, in their order), as the kernel's domain gives it: what
        fishrules.spaces numbers a `some` parameter's things by.  None where the engine must say
        (a rule that goes wrong, or this is a State now)."""
        ks = self._ks
        if ks is None or player is None:
            return None
        kernel = ks[_KERNEL]
        kp, bd = kernel.program, kernel.boundary
        if name not in kp.action_names:
            return None
        a = kp.action_names.index(name)
        try:
            got = kernel.backend.domain(kernel.copy_state(ks[_S]), a, k, bd.partial_move(a, player, tuple(values)))
        except (KFault, KeyError):
            return None
        return bd.values_of(a, k, got)

    def _sight(self) -> Sight:
        kernel = self._ks[_KERNEL]
        if kernel.sight is None:
            kernel.sight = Sight(kernel)
        return kernel.sight

    def observation(self, player: Optional[int] = None) -> list[float]:
        ks = self._ks
        if ks is not None and player is not None:
            check_seat(player, _SLOTS["n"].__get__(self))  # (refused before anything is worked out)
        if ks is not None and ks[_PLAYED] is not None:  # (the engine's words: its observation reads the view)
            raise OptionError(_NO_HISTORY)
        if ks is not None and (player is None or (type(player) is int and 0 <= player < _SLOTS["n"].__get__(self))):
            got = self._spaces()
            if got[2] is None:
                got[2] = self.game.observation_spec(got[3], got[0])
                got[4] = self._sight().encoder_of(got[2], got[0])
            if got[4] is not None:
                vector = got[4](ks[_S], player, self.current, self.waiting, self.scores)
                if vector is not None:
                    return vector
            view = self._position_view(player, False)
            if view is not None:
                return got[2].encode(view)
        if ks is None:
            return State.observation(self, player)
        # What the kernel cannot show as the engine does (a `seen by` whose seat cannot be worked
        # out, say: the engine's error): the engine twin's observation, this state left as it is
        return State.observation(self._twin(), player)

    def clone(self) -> "State":
        ks = self._ks
        if ks is None:
            return State.clone(self)
        c = KState.__new__(KState)
        for name in ("game", "prog", "n", "seed", "manual"):
            _SLOTS[name].__set__(c, _SLOTS[name].__get__(self))
        rec = ks[_REC]
        if rec is not None:  # its own Logs (sharing what was recorded), as an engine state's clone has
            rec = (rec[0].copy(), rec[1], rec[2])
        _SLOTS["_ks"].__set__(c, [ks[_KERNEL], ks[_KERNEL].copy_state(ks[_S]), list(ks[_APPLIED]), {}, ks[_OPTIONS],
                                  False, ks[_SHARED], rec, ks[_PLAYED], ks[_FROM]])
        return c

    # ---- the record, from the kernel's trace (kernel/record.py) -----------------------------------

    def _kernel_record(self) -> Optional[KRecord]:
        """The engine's record of this game, kept by the kernel; None for a state played out (it
        keeps none).  Nothing is recorded while the state only decides and applies: the first time
        a record is asked for, the moves applied since the last record was worked out (from the
        start, the first time) are played again on a copy of that position with the kernel's trace
        kept, and the record and the position it is of are kept for the next time (and for
        clones).  Where the kernel cannot keep it (`Recorder.can`; a step whose record takes more
        work than the kernel's budget, or more trace than it holds) the record is the engine's: the
        twin's, read into the kernel's record once (the state stays a KState, and the next moves are
        recorded on the kernel again from there)."""
        ks = self._ks
        kernel = ks[_KERNEL]
        rc = kernel.recorder
        if rc is None:
            rc = kernel.recorder = Recorder(kernel)
        if ks[_PLAYED] is not None:  # (a state played out keeps no record: the engine says so)
            return None
        base = ks[_REC]
        if base is None or base[2] != len(ks[_APPLIED]):
            got = None
            if rc.can:
                try:
                    got = self._catch_up(rc, base)
                except KFault:
                    pass
            base = ks[_REC] = got if got is not None else self._engine_record()
        return base[0]

    def _record(self) -> KRecord:
        """`_kernel_record` where a state played out is refused in the engine's words."""
        rec = self._kernel_record()
        if rec is None:
            raise OptionError(_NO_HISTORY)
        return rec

    def _engine_record(self) -> tuple:
        """(record, position, moves applied) of this state where the kernel cannot work the record
        out: the engine twin's history, redactions and events, read into a `KRecord` of their own."""
        from ..runtime import Log

        ks = self._ks
        twin = self._twin()
        rec = KRecord()
        for text in twin._history.list():
            rec.history.append(text)
        hidden = Log()
        for entry in twin.redact:
            hidden.append(entry)
        rec.hidden = hidden
        for e in twin.events.list():
            rec.events.append(e)
        return rec, ks[_KERNEL].copy_state(ks[_S]), len(ks[_APPLIED])

    def _catch_up(self, rc: Recorder, base: Optional[tuple]) -> tuple:
        """(record, position, moves applied) of this state: the moves applied since `base` played
        again with the trace kept (KFault where the kernel cannot, or the position comes out other
        than this state's: the engine then keeps the record)."""
        ks = self._ks
        kernel = ks[_KERNEL]
        be = kernel.backend
        n = _SLOTS["n"].__get__(self)

        def traced(run: Any, *args: Any) -> None:
            rc.traced(be, rec, n, run, *args)

        if base is None:
            if len(ks[_FROM]) > 2:  # a determinization: its record is the one it was drawn with (the engine twin's)
                raise KFault(FAULT_CAPACITY)
            rec = KRecord()
            seed, manual = ks[_FROM]
            S = be.new(n, ks[_OPTIONS], seed)
            if manual:
                S[_H_MANUAL] = 1
            traced(be.start, S, False)
            at = 0
        else:
            # this state's own record (a clone copies it), written on where it ends: its lists
            # grow as the engine's do, not made again at every step
            rec = base[0]
            S = kernel.copy_state(base[1])
            at = base[2]
            marks = rec.marks()
            try:
                return self._replay(rc, rec, S, at, traced)
            except BaseException:
                rec.rewind(marks)
                raise
        return self._replay(rc, rec, S, at, traced)

    def _replay(self, rc: Recorder, rec: KRecord, S: Any, at: int, traced: Any) -> tuple:
        """The moves applied from the `at`-th on, played on S with the trace kept into `rec`."""
        ks = self._ks
        be = ks[_KERNEL].backend
        applied = ks[_APPLIED]
        decode = be.decode
        while at < len(applied):
            records, i, together, gen = applied[at]
            if records is None:  # a chance outcome (manual chance): the trace records the roll
                if i is None:  # (the generator reseeded: nothing to record)
                    _write_generator(S, *gen)
                else:
                    traced(be.play_chance, S, i)
                at += 1
                continue
            km = decode(records, i)
            rc.move(rec, km, together)
            if together:
                chosen = be.chosen_together(S) + (km,)  # (in the order they were chosen)
                if len(chosen) == len(be.who_together(S)):  # the last: everybody's choice is told
                    rc.unveil(rec, list(chosen))
                traced(be.choose, S, km)
            else:
                traced(be.play, S, km)
            at += 1
        live = ks[_S]
        S[_H_WORK] = live[_H_WORK]  # (the work of the last call into the kernel: listing moves, or not)
        if S != live:
            raise KFault(FAULT_CAPACITY)  # pragma: no cover - the same moves from the same seed
        return rec, S, at

    @property
    def history(self) -> list[str]:
        ks = self._ks
        if ks is None:
            return State.history.fget(self)  # type: ignore[attr-defined]
        if ks[_PLAYED] is not None:  # (the engine's words)
            raise OptionError(_NO_HISTORY)
        return list(self._record().history.list())  # the caller's: as the engine's, a new list at each call

    @property
    def redact(self) -> tuple:
        if self._ks is None:
            return _SLOTS["redact"].__get__(self)
        if self._ks[_PLAYED] is not None:
            kept = _slot(self, "redact")
            return () if kept is None else kept
        return self._record().redact

    @redact.setter
    def redact(self, value: tuple) -> None:
        """The record's redactions, as the engine's field is set: (history index, what the others
        read, who reads the real text) each, kept in the kernel's record (a state played out keeps
        none: the value is kept beside it)."""
        ks = self._ks
        if ks is None:
            _SLOTS["redact"].__set__(self, value)
            return
        entries = _redactions(value)
        if ks[_PLAYED] is not None:
            _SLOTS["redact"].__set__(self, entries)
            return
        rec = self._record()
        from ..runtime import Log

        hidden = Log()  # (a Log of its own: the one it replaces may be shared with clones)
        for entry in entries:
            hidden.append(entry)
        rec.hidden = hidden

    def history_for(self, player: Optional[int]) -> list[str]:
        ks = self._ks
        if ks is None:
            return State.history_for(self, player)
        if player is not None:
            check_seat(player, _SLOTS["n"].__get__(self))
        rec = self._kernel_record()
        if rec is None:  # (played out: the engine's words)
            raise OptionError(_NO_HISTORY)
        return rec.history_for(player)

    def view(self, player: Optional[int] = None) -> dict:
        """`State.view`, from the position (kernel/views.py) and the kernel's record."""
        ks = self._ks
        if ks is None:
            return State.view(self, player)
        if player is not None:
            check_seat(player, _SLOTS["n"].__get__(self))
        if ks[_PLAYED] is not None:  # (the engine's words: its view reads the history)
            raise OptionError(_NO_HISTORY)
        out = self._position_view(player, True)
        if out is not None and self._ks is not None:
            rec = self._kernel_record()
            if rec is not None:
                out["history"] = rec.history_for(player)
                return out
        return State.view(self._twin(), player)  # (what the kernel cannot show: see `observation`)

    def events_for(self, player: Optional[int], since: Optional[int] = None) -> list[dict]:
        ks = self._ks
        if ks is None:
            return State.events_for(self, player, since)
        n = _SLOTS["n"].__get__(self)
        if player is not None:
            check_seat(player, n)
        check_since(since)
        rec = self._kernel_record()
        if rec is None:  # (played out: no events, as the engine's)
            return []
        return events_for(rec, self.prog, n, player, since, self.winners, self.scores)

    def __repr__(self) -> str:
        ks = self._ks
        if ks is None:
            return State.__repr__(self)
        # State.__repr__'s words: the history's length is the record's (pending choices included)
        where = "over" if self.is_over else f"current={self.current!r}"
        if ks[_PLAYED] is not None:
            return f"<State {self.prog.model.title!r} {_SLOTS['n'].__get__(self)} players, {where}, ? actions>"
        rec = self._kernel_record()
        if rec is None:  # pragma: no cover - played out: said above
            return f"<State {self.prog.model.title!r} {_SLOTS['n'].__get__(self)} players, {where}, ? actions>"
        return f"<State {self.prog.model.title!r} {_SLOTS['n'].__get__(self)} players, {where}, {len(rec.history.list())} actions>"

    # ---- the rest of the surface, from the position ----------------------------------------------

    @property
    def phase(self) -> list[str]:
        """The phases being played, outermost first: the frames' blocks that are phases."""
        ks = self._ks
        if ks is None:
            return State.phase.fget(self)  # type: ignore[attr-defined]
        return self._phases(ks[_S])

    @property
    def rules_fired(self) -> Optional[dict[str, int]]:
        ks = self._ks
        if ks is None:
            return State.rules_fired.fget(self)  # type: ignore[attr-defined]
        fires = self.fires
        if fires is None:
            return None
        return {name: int(fires[k]) for name, k in self.prog.rules.items()}

    @property
    def fires(self) -> Optional[list[int]]:
        """The engine's field: how often each rule fired, by its number (None unless counted).
        The kernel counts in the position from the set-up on; a value set (`fires = [...]`) goes
        on counting from there, as the engine's list does (kept beside the position: the counts
        the position held when it was set)."""
        ks = self._ks
        if ks is None:
            return _SLOTS["fires"].__get__(self)
        kept = _slot(self, "fires")
        if kept is _OFF or (kept is None and not ks[_COUNT]):
            return None
        lay = ks[_KERNEL].program.layout
        now = [int(v) for v in ks[_S][lay.fires:lay.fires + lay.nrules]]
        if kept is None:
            return now
        value, then = kept
        return [v + a - b for v, a, b in zip(value, now, then)]

    @fires.setter
    def fires(self, value: Any) -> None:
        ks = self._ks
        if ks is None:
            _SLOTS["fires"].__set__(self, value)
            return
        if value is None:
            _SLOTS["fires"].__set__(self, _OFF)
            return
        nrules = ks[_KERNEL].program.layout.nrules
        if not isinstance(value, (list, tuple)) or len(value) != nrules or \
                any(type(v) is not int for v in value):
            raise OptionError(f"fires is a list of {nrules} counts, one a rule, not {short(value)}")
        lay = ks[_KERNEL].program.layout
        _SLOTS["fires"].__set__(self, (list(value), [int(v) for v in ks[_S][lay.fires:lay.fires + nrules]]))

    def _empty_now(self) -> dict:
        """The draws the kernel counted that found their zone empty (before the first decision and
        after, added up), by the engine's zone key."""
        ks = self._ks
        S, lay, G = ks[_S], ks[_KERNEL].program.layout, self.prog.G
        out = {}
        for zid, (is_game, slot, seat) in enumerate(lay.zone_names):
            k = S[lay.empty + 2 * zid] + S[lay.empty + 2 * zid + 1]
            if k:
                out[slot if is_game else G + slot * MAX_SEATS + seat] = int(k)
        return out

    @property
    def empty_draws(self) -> Optional[dict[int, int]]:
        """The engine's field: the draws that found their zone empty, by the engine's zone key
        (None unless counted), from the kernel's counts of each zone; a value set goes on counting
        from there, as `fires`."""
        ks = self._ks
        if ks is None:
            return _SLOTS["empty_draws"].__get__(self)
        kept = _slot(self, "empty_draws")
        if kept is _OFF or (kept is None and not ks[_COUNT]):
            return None
        now = self._empty_now()
        if kept is None:
            return now
        value, then = kept
        out = {key: k + now.get(key, 0) - then.get(key, 0) for key, k in value.items()}
        for key, k in now.items():
            if key not in out and k != then.get(key, 0):
                out[key] = k - then.get(key, 0)
        return out

    @empty_draws.setter
    def empty_draws(self, value: Any) -> None:
        ks = self._ks
        if ks is None:
            _SLOTS["empty_draws"].__set__(self, value)
            return
        if value is None:
            _SLOTS["empty_draws"].__set__(self, _OFF)
            return
        if not isinstance(value, dict) or any(type(k) is not int or type(v) is not int for k, v in value.items()):
            raise OptionError(f"empty_draws is a dict of counts by zone, not {short(value)}")
        _SLOTS["empty_draws"].__set__(self, (dict(value), self._empty_now()))

    def playout(self, rng: Optional[random.Random] = None) -> Playout:
        """`State.playout` on the kernel: the backend plays the game out, its chance and its choices
        from two seeds drawn from `rng` (other random numbers than the engine's, the same
        distribution; a choice made together in part is made for those still to choose, and chance
        the caller was to give comes from the generator, from the wait on)."""
        ks = self._ks
        if ks is None:
            return State.playout(self, rng)
        if rng is not None and not isinstance(rng, random.Random):  # (the engine's words)
            raise OptionError(f"playout(rng) takes a random.Random (or None: one seeded from the state's seed), "
                              f"not {short(rng)}")
        S = ks[_S]
        if ks[_PLAYED] is not None and S[_H_CUR] == _CUR_OVER:  # played out already: as the engine, its count kept
            return Playout(self.scores(), self.winners(), 0, ks[_PLAYED][3])
        rng = rng if rng is not None else random.Random(_SLOTS["seed"].__get__(self))
        limit = _playout.MAX_PLAYOUT_DECISIONS  # (read at each call: a test makes it small)
        if S[_H_MANUAL] or S[_H_CUR] == _CUR_CHANCE:
            return self._playout_by_hand(rng, limit)
        cseed, dseed = rng.getrandbits(63), rng.getrandbits(63)
        stopped: Optional[KFault] = None
        while True:  # (again in a roomier kernel, the same seeds, where a list outgrows its room)
            kernel = ks[_KERNEL]
            T = kernel.copy_state(ks[_S])
            decisions, chances = T[_H_DECISIONS], T[_H_CHANCES]
            try:
                _play_out(kernel.backend, T, cseed, dseed, limit)
            except KFault as fault:
                if fault.code == FAULT_CAPACITY and self._grow():
                    continue
                stopped = fault
            break
        if stopped is not None:
            # The state stays as it was before the playout (the kernel played a copy), as the
            # engine's is put back.
            if stopped.code == FAULT_ENDLESS:
                raise _playout.endless(self.prog.model, limit) from None
            words = faults.in_playout(kernel.program, T, stopped.code)
            if words is not None:
                raise words from None
            # A capacity of the kernel's, or a fault it has no words for: the same game played on
            # the engine's machine (the kernel's rules of chance and choice, `reference_playout`),
            # which this state is from then on if it plays it (it raises the engine's error else).
            twin = self._twin()
            out = _played_on(twin, (cseed, dseed, limit, 0, None))
            _SLOTS["_chances"].__set__(twin, out.chances)
            self._become(twin)
            return Playout(out.scores, out.winners, out.decisions, out.chances)
        ks[_S] = T
        ks[_LEGAL], ks[_REC] = {}, None
        chances = T[_H_CHANCES] - chances
        ks[_PLAYED] = (cseed, dseed, limit, chances, None)
        return Playout(self.scores(), self.winners(), T[_H_DECISIONS] - decisions, chances)

    def _playout_by_hand(self, rng: random.Random, limit: int) -> Playout:
        """`playout` of a state whose chance is the caller's, or that waits for chance handed back
        to the generator since, on the kernel one step at a time, every random number from `rng`
        as the engine's playout draws them (an action uniformly among the legal ones,
        `int(rng.random() * n)`; at a choice made together one for each player still choosing, in
        order; a chance outcome the game waits for by its probability, one `rng.random()`; and
        where chance is the generator's, everything after that outcome as the engine's playout
        generator `rng.randrange` rolls and draws it, `_Handed`): the very game the engine's
        playout, or an API loop drawing so, plays.  A step that goes wrong, or a game that does
        not end, raises the engine's error, in the kernel's words."""
        ks = self._ks
        kernel = ks[_KERNEL]
        be = kernel.backend
        rnd, saved = rng.random, rng.getstate()
        T = kernel.copy_state(ks[_S])
        # (None, outcome) or (kernel move, together): to play again (`_position_again`, `_twin`);
        # first (None, None) where the generator's chance is given as outcomes (see `_Handed`)
        steps: list = []
        handed = None
        if not T[_H_MANUAL]:
            handed = _Handed(self, T, rng.randrange)
            T[_H_MANUAL] = 1
            steps.append((None, None))
        decisions = chances = 0
        try:
            while T[_H_CUR] != _CUR_OVER:
                if decisions > limit:
                    raise KFault(FAULT_ENDLESS)
                cur = T[_H_CUR]
                if cur == _CUR_CHANCE:
                    value = handed.next() if handed is not None and chances else self._by_probability(T, rnd())
                    steps.append((None, value))
                    be.play_chance(T, value)
                    chances += 1
                elif cur == _CUR_SIMUL:
                    picks = []
                    for p in be.waiting_together(T):
                        moves = be.moves(T, p)
                        if not moves:
                            raise _Stuck(p)
                        picks.append(moves[int(rnd() * len(moves))])
                    for m in picks:
                        steps.append((m, True))
                        be.choose(T, m)
                    decisions += len(picks)
                elif cur >= 0:
                    moves = be.moves(T, cur)
                    if not moves:
                        raise _Stuck(cur)
                    m = moves[int(rnd() * len(moves))]
                    steps.append((m, False))
                    be.play(T, m)
                    decisions += 1
                else:  # pragma: no cover - the kernel stops at a wait or the end
                    raise KFault(FAULT_CAPACITY)
        except KFault as fault:
            if fault.code == FAULT_CAPACITY and self._grow():
                rng.setstate(saved)
                return self._playout_by_hand(rng, limit)  # (the same random numbers, in a roomier kernel)
            # the engine's words (a game that does not end, a stuck game, a rule that goes wrong);
            # the state is as it was (the kernel played a copy), as the engine's is put back
            if fault.code == FAULT_ENDLESS:
                raise _playout.endless(self.prog.model, limit) from None
            words = self._words(fault, T)
            if words is not None:
                raise words from None
            rng.setstate(saved)  # (a capacity of the kernel's own: the engine's own playout, from the same rng)
            return State.playout(self._as_state(), rng)
        if handed is not None:
            T[_H_MANUAL] = 0
        ks[_S] = T
        ks[_LEGAL], ks[_REC] = {}, None
        ks[_PLAYED] = (None, None, limit, chances, tuple(steps))
        return Playout(self.scores(), self.winners(), decisions, chances)

    def _by_probability(self, T: Any, x: float) -> int:
        """The outcome of the wait for chance at position T that `x` (in [0, 1)) picks by the
        outcomes' probabilities, in their order (the engine's playout's pick): its value."""
        acc, value = Fraction(0), None
        for a, p in self._outcomes_at(T):
            acc += p
            value = a._values[-1]
            if x < acc:
                break
        if value is None:  # pragma: no cover - a wait for chance has outcomes
            raise KFault(FAULT_CAPACITY)
        return value

    def _position(self) -> tuple:
        """This position as `__eq__` and JSON read it (`position_of`)."""
        ks = self._ks
        return position_of(ks[_KERNEL], ks[_S])

    def _eq_key(self) -> Optional[tuple]:
        """What equality compares, on the kernel: the position under the layout's mask and the
        record (None where the engine must: a record the kernel cannot keep)."""
        pos = self._position()
        if self._ks[_PLAYED] is not None:  # the engine's playout keeps no record
            return (_SLOTS["n"].__get__(self), pos, None, ())
        rec = self._kernel_record()
        if rec is None:
            return None
        return (_SLOTS["n"].__get__(self), pos, tuple(rec.history.list()), tuple(rec.redact))

    def __eq__(self, other: object) -> bool:
        """`State.__eq__` (the same position of the same game, with the same record): the
        positions (`position_of`; of a state of the engine's, the kernel's position its record
        replays to, `Game._position_of`) and the records.  Only where a position or a record cannot
        be had on the kernel are the twins on the engine compared (this state stays on the kernel)."""
        if not isinstance(other, State):
            return NotImplemented
        ks = self._ks
        if ks is None:
            return State.__eq__(self, other)
        if self.prog.identity != other.prog.identity:
            return False
        theirs = other._ks if type(other) is KState else None
        if theirs is not None:
            a = self._eq_key()
            b = other._eq_key() if a is not None else None  # type: ignore[attr-defined]
            if a is not None and b is not None:
                return a == b
            return State.__eq__(self._twin(), other._twin())  # type: ignore[attr-defined]
        a = self._eq_key()
        b = _engine_key(other) if a is not None else None
        if a is not None and b is not None:
            return a == b
        return State.__eq__(self._twin(), other)

    def __hash__(self) -> int:
        """`State.__hash__`: of the record (equal states have equal records), on either machine."""
        ks = self._ks
        if ks is None:
            return State.__hash__(self)
        if ks[_PLAYED] is not None:
            return hash((_SLOTS["n"].__get__(self), None, ()))
        rec = self._kernel_record()
        if rec is None:
            return State.__hash__(self._twin())
        return hash((_SLOTS["n"].__get__(self), tuple(rec.history.list()), tuple(rec.redact)))

    # ---- saving (fishrules-state/2) and the generator ------------------------------------------------

    def _saved_fields_1(self) -> Optional[dict]:
        """The position fields of `fishrules-state/1` (runtime/saving.py `_fields_1`) read from the
        position, without the engine: the values by the engine's slots (`g`, `p`: each value as the
        engine holds it, a zone as its cards' ids), `dice`, `up`, `mixed` (the engine's zone keys),
        `redact` and `current`; of `stack` each frame's block with None for its program counter and
        locals (the engine's own: a saved file's are checked only to be a frame's).  None where the
        position cannot say (a value of a kind it does not hold as the engine does, a state played
        out): the engine's state answers."""
        ks = self._ks
        if ks is None or ks[_PLAYED] is not None:
            return None
        kernel, S = ks[_KERNEL], ks[_S]
        kp = kernel.program
        lay, model, symbols = kp.layout, kp.model, kp.symbols
        rc = kernel.recorder
        if rc is None:
            rc = kernel.recorder = Recorder(kernel)

        def scalar(kind: str, v: Any) -> Any:
            if kind == "bool":
                return bool(v) if v is not None and v != NIL else None
            if v is None or v == NIL:
                return None
            if kind in ("number", "player"):
                return int(v)
            if kind in ("symbol", "text"):
                return symbols[v]
            raise KeyError(kind)  # (a kind the position does not hold as the engine does)

        def value(t: Any, at: int) -> Any:
            if t.kind == "list":
                kind = t.element.kind if t.element is not None else "number"  # (`list of numbers`)
                return [scalar(kind, x) for x in S[at + 1:at + 1 + S[at]]]
            return scalar(t.kind, S[at])

        def zone(zid: int) -> list:
            at = lay.zones[zid][0]
            return [int(c) for c in S[at + 1:at + 1 + S[at]]]

        try:
            g: list = [None] * model.n_game_slots
            filled = set()
            for o in model.options:
                g[o.slot] = value(o.type, lay.g_index[o.slot])
                filled.add(o.slot)
            for v in model.game_vars:
                for i in range(v.family[1] if v.family else 1):
                    slot = v.slot + i
                    g[slot] = zone(lay.g_zone[slot]) if v.type.kind == "zone" else value(v.type, lay.g_index[slot])
                    filled.add(slot)
            nslots = 1 + max((v.slot for v in model.player_vars), default=-1)
            p = []
            for seat in range(_SLOTS["n"].__get__(self)):
                row: list = [None] * nslots
                for v in model.player_vars:
                    if v.type.kind == "zone":
                        row[v.slot] = zone(lay.p_zone[v.slot] + seat)
                    else:
                        stride = lay.list_stride(v.slot) if v.type.kind == "list" else 1
                        row[v.slot] = value(v.type, lay.p_index[v.slot] + seat * stride)
                p.append(row)
        except (KeyError, AttributeError, IndexError, TypeError):
            return None
        if len(filled) != model.n_game_slots or len({v.slot for v in model.player_vars}) != nslots:
            return None  # (a slot of the engine's the kernel holds no value for)
        ncards = len(model.cards)
        return {
            "g": g,
            "p": p,
            "dice": [int(f) for f in S[lay.dice:lay.dice + S[_H_NDICE]]],
            "stack": [[b, None, None] for b in kernel.backend.frame_blocks(S)],
            "redact": [[i, t, list(a)] for i, t, a in self.redact],
            "up": [c for c in range(ncards) if S[lay.up + c]],
            "mixed": sorted(rc.zones[z][0] for z in range(len(lay.zones)) if S[lay.mixed + z]),
            "current": self.current,
        }


    def to_dict(self) -> dict:
        """`State.to_dict`, from the kernel's record and position: this state stays on the kernel
        (a state played out and a determinization refused in the engine's words)."""
        ks = self._ks
        if ks is None:
            return State.to_dict(self)
        if len(ks[_FROM]) > 2:  # (a determinization: no history reaches it)
            from ..runtime.determinize import NOT_SAVED

            raise OptionError(NOT_SAVED)
        rec = self._record()  # (played out: the engine's words, no history to save)
        return {
            "format": "fishrules-state/2",
            "game": self.prog.identity,
            "players": _SLOTS["n"].__get__(self),
            "options": self._options(),
            "history": list(rec.history.list()),
            "redact": [[i, t, list(a)] for i, t, a in rec.redact],
            "current": self.current,
            "seed": _SLOTS["seed"].__get__(self),
            "draws": int(ks[_S][_H_DRAWS]),
            "manual": _SLOTS["manual"].__get__(self),
            "position": _saved(ks[_KERNEL], ks[_S]),
        }

    @property  # type: ignore[override]
    def seed(self) -> int:
        return _SLOTS["seed"].__get__(self)

    @seed.setter
    def seed(self, value: int) -> None:
        self._reseed(value, self.draws, _SLOTS["manual"].__get__(self))

    @property  # type: ignore[override]
    def manual(self) -> bool:
        return _SLOTS["manual"].__get__(self)

    @manual.setter
    def manual(self, value: bool) -> None:
        self._reseed(_SLOTS["seed"].__get__(self), self.draws, value)

    @property  # type: ignore[override]
    def draws(self) -> int:
        """The engine's field: how many draws the generator has made (the kernel's count)."""
        ks = self._ks
        if ks is None:
            return _SLOTS["draws"].__get__(self)
        return int(ks[_S][_H_DRAWS])

    @property  # type: ignore[override]
    def _work(self) -> int:
        """The engine's field (STATE_API): the work done by the last call (the kernel's count)."""
        ks = self._ks
        if ks is None:
            return _SLOTS["_work"].__get__(self)
        return int(ks[_S][_H_WORK])

    @_work.setter
    def _work(self, value: int) -> None:
        ks = self._ks
        if ks is None:
            _SLOTS["_work"].__set__(self, value)
        else:
            ks[_S][_H_WORK] = value

    @property  # type: ignore[override]
    def dice_ids(self) -> tuple:
        """The engine's field: the game's dice, numbered from 0 (how many, the position's header)."""
        ks = self._ks
        if ks is None:
            return _SLOTS["dice_ids"].__get__(self)
        return tuple(range(int(ks[_S][_H_NDICE])))

    @draws.setter
    def draws(self, value: int) -> None:
        if self._ks is None:
            _SLOTS["draws"].__set__(self, value)
            return
        self._reseed(_SLOTS["seed"].__get__(self), value, _SLOTS["manual"].__get__(self))

    def _reseed(self, seed: int, draws: int, manual: bool) -> None:
        """`State._reseed` on the kernel: the generator written into the position's header, and
        kept among the moves applied, where playing them again writes it too.  Chance handed to
        the generator while the game waits for it stays on the kernel: as the engine, the game
        still waits for the outcome by hand, and the kernel's roll or draw reads whether chance is
        the caller's again at each die and card, the generator resolving the rest (`_run` goes on
        without the outcome).  (Every kernel a KState is on waits for chance given by hand:
        `Kernel.manual_chance`.)"""
        ks = self._ks
        if ks is None:
            State._reseed(self, seed, draws, manual)
            return
        gen = (seed, draws, manual)
        ks[_APPLIED].append((None, None, False, gen))
        _write_generator(ks[_S], *gen)
        _SLOTS["seed"].__set__(self, seed)
        _SLOTS["manual"].__set__(self, manual)

    def _run(self) -> None:
        """`State._run` on the kernel, where `_replayed` calls it: at a chance wait whose chance is
        the generator's since (`manual` set false there), the game goes on without the outcome,
        the generator resolving what the wait was for and the rest, as the engine's machine does."""
        ks = self._ks
        if ks is None:
            State._run(self)
            return
        S, kernel = ks[_S], ks[_KERNEL]
        if S[_H_CUR] != _CUR_CHANCE or S[_H_MANUAL]:
            return  # (the engine's machine waits where it is)
        applied, legal = ks[_APPLIED], ks[_LEGAL]
        napplied = len(applied)
        try:
            ks[_LEGAL] = {}
            kernel.backend.play_chance(S, NO_OUTCOME)
            applied.append((None, NO_OUTCOME, False, None))
            self._check_can_act()
        except KFault as fault:
            del applied[napplied:]
            ks[_LEGAL] = legal
            if fault.code == FAULT_CAPACITY and self._grow():
                self._run()
                return
            words = self._words(fault, S)
            self._undo_fault(fault, kernel, S)
            self._engine_fails(lambda twin: twin._run(), words)
            self._as_state()._run()

    def _consume_chance_draws(self) -> None:
        """`State._consume_chance_draws` on the kernel (`replay` with a seed): the generator
        advanced as a seeded game's was at this chance wait, from what the wait wrote into the
        header: a whole group of dice with one draw at the group's first die (`H_CHANCE_B` the
        die's place in its group, `H_CHANCE_C` the group's size), one draw among the cards of the
        zone a card is drawn from."""
        ks = self._ks
        if ks is None:
            State._consume_chance_draws(self)
            return
        S = ks[_S]
        if S[_H_CUR] != _CUR_CHANCE:
            return
        if S[_H_CHANCE] == _CHANCE_DRAW:
            at = ks[_KERNEL].program.layout.zones[S[_H_CHANCE_A]][0]
            total = int(S[at])
        elif S[_H_CHANCE_B] == 0:
            k, nfaces = int(S[_H_CHANCE_C]), len(self.prog.faces)
            total = nfaces ** k
            if total > 1 << 62:  # (one draw a die: `roll_faces`)
                seed, draws = _SLOTS["seed"].__get__(self), int(S[_H_DRAWS])
                for _ in range(k):
                    _, draws = below(seed, draws, nfaces)
                self._reseed(seed, draws, _SLOTS["manual"].__get__(self))
                return
        else:
            return
        seed = _SLOTS["seed"].__get__(self)
        _, draws = below(seed, int(S[_H_DRAWS]), total)
        self._reseed(seed, draws, _SLOTS["manual"].__get__(self))

    def _spent(self) -> int:
        ks = self._ks
        if ks is None:
            return State._spent(self)
        return int(ks[_S][_H_WORK])

    def _follow(self, history: list) -> Optional[State]:
        """`State._follow` on the kernel: this new seeded game with the history's moves applied,
        each chance outcome the kernel resolves (`H_CHANCES` counts them) one entry of the history
        passed over; the state if its record then is the history, else None (the history's chance
        is not this seed's, a move is not allowed, or the kernel hands the game to the engine)."""
        ks = self._ks
        if ks is None or ks[_APPLIED] or ks[_S][_H_MANUAL]:
            return None
        at, spent = int(ks[_S][_H_CHANCES]), 0
        while at < len(history):
            S = ks[_S]
            text = history[at]
            if type(text) is not str or S[_H_CUR] == _CUR_OVER:
                return None
            chances = S[_H_CHANCES]
            try:
                self.apply(text)
            except FishrulesError:
                return None
            ks = self._ks
            if ks is None:
                return None
            S = ks[_S]
            at += 1 + int(S[_H_CHANCES] - chances)
            spent += int(S[_H_WORK])
            if spent > MAX_REPLAY_WORK:
                return None
        if at != len(history):
            return None
        rec = self._kernel_record()
        if rec is None or rec.history.list() != history:
            return None
        return self

    # ---- becoming a plain State ------------------------------------------------------------------

    def _as_state(self) -> State:
        self._become_state()
        return self

    def _words(self, fault: KFault, S: Any, context: Optional[tuple] = None) -> Optional[FishrulesError]:
        """The kernel's own words for `fault` at S as it left it (kernel/faults.py: the engine's
        exact error; a stuck game's, at this state's position), or None where it has none (its own
        capacities).  The context: given, or what the step was doing when it stopped — listing a
        player's moves (`_moves` says whose; the fused step of the native kernel leaves the player
        in S[H_CUR]) or running the rules."""
        if isinstance(fault, _Stuck):  # (a player who must act may do nothing here: the game is stuck)
            return self._stuck(fault.actor, S)
        kernel = self._ks[_KERNEL]
        if context is None:
            actor = getattr(fault, "listing", None)
            if actor is None and S[_H_CUR] >= 0:
                actor = S[_H_CUR]
            if actor is not None:
                context = faults.listing(actor, self._where(S))
            elif S[_H_CUR] == _CUR_RUN:
                context = faults.PLAYING
            else:
                return None
        return faults.error(kernel.program, S, fault.code, context)

    def _engine_fails(self, call: Callable[[State], Any], words: Optional[FishrulesError] = None) -> None:
        """After the kernel faulted in a call: make the call on a twin of this state on the engine's
        machine (`_twin`), and raise the error it raises (a rule that went wrong, in the engine's
        words, position and context), with this state put back where it was before the call (the
        position worked out again from the moves applied: a faulted step played on it), still a
        KState.  Returns where the engine makes the call without an error (the kernel's capacity,
        not a rule: the caller hands the call to the engine for good).  With `words` (the kernel's
        own, `_words`) the engine is not asked: the state is put back and they are raised."""
        if words is not None:
            try:
                self._ks[_S] = self._position_again()
            except KFault:  # pragma: no cover - the moves applied are the kernel's own
                pass
            raise words from None
        twin = self._twin()  # (outside the try: the moves applied are the kernel's, played without a fault)
        try:
            call(twin)
        except FishrulesError as error:
            failed = error
        else:
            return
        ks = self._ks
        try:
            S = self._position_again()
        except KFault:  # pragma: no cover - the moves applied are the kernel's own
            return
        ks[_S] = S  # (the legal lists kept are the same position's: they stay)
        raise failed from None

    def _twin(self) -> State:
        """The engine's State of this game: the actions applied (and the choices pending) replayed
        on the engine's machine.  Each move crosses as a typed `Move` (`play_move`: found among the
        engine's legal actions by its action and values, no text written or read)."""
        ks = self._ks
        kernel = ks[_KERNEL]
        be, bd = kernel.backend, kernel.boundary
        game, n = _SLOTS["game"].__get__(self), _SLOTS["n"].__get__(self)
        seed, manual = ks[_FROM][:2]
        ref = State._new(game, n, ks[_OPTIONS], seed, manual, count_rules=ks[_COUNT]) if len(ks[_FROM]) == 2 \
            else ks[_FROM][2][1]()  # (a determinization: its twin on the engine's machine)
        decode, move = be.decode, bd.move
        for records, i, together, gen in ks[_APPLIED]:
            if records is None:  # a chance outcome: the die the engine waits for shows face i, or card i is drawn
                if i is None:  # the generator reseeded
                    ref.seed, ref.draws, ref.manual = gen
                elif i == NO_OUTCOME:  # chance the generator's since the wait: on without the outcome
                    ref._run()
                else:
                    ref.apply(next(a for a, _ in ref.chance_outcomes() if a._values[-1] == i))
                continue
            play_move(ref, move(decode(records, i), together))
        if ks[_PLAYED] is not None:  # played out since: the same playout on the engine's machine
            _SLOTS["_chances"].__set__(ref, ks[_PLAYED][3])
            _played_on(ref, ks[_PLAYED], bd)
        return ref

    def _become_state(self) -> None:
        """Replay the actions applied on the engine's machine, and be that state from now on.  (A
        method of the KState bound before this, as in `state.apply(bot.choose(state, p))`, where
        `state.apply` is looked up before the bot runs, is still KState's: each public one that
        reads `_ks` hands a state that has become a State over to State's own.)"""
        if self._ks is None:
            return
        self._become(self._twin())

    def _become(self, ref: State) -> None:
        """Be the engine's state `ref` (of this game, at this position) from now on."""
        self.__class__ = State
        for name, slot in _SLOTS.items():
            if name != "_ks":
                slot.__set__(self, slot.__get__(ref))
        _SLOTS["_ks"].__set__(self, None)

    def determinize(self, player: Optional[int], rng: random.Random, chance: Optional[str] = None) -> State:
        """`State.determinize` on the kernel (kernel/determinize.py): a copy of the position with
        the cards `player` cannot tell apart shuffled into their places, the others' secret choices
        made together drawn again, `player`'s record and a new seed, a KState (see `_Draws`).
        This state stays a KState whatever is drawn."""
        ks = self._ks
        if ks is None:
            return State.determinize(self, player, rng, chance)
        return self.determinizer_on_kernel(player).sample(rng, chance)

    def determinizer_on_kernel(self, player: Optional[int]) -> "_Draws":
        """What `player` knows of this position, worked out once, to draw many determinizations
        from: `Determinizer(state, player)` of a KState (runtime/determinize.py) is this."""
        from ..runtime.determinize import PLAYED_OUT

        ks = self._ks
        if player is not None:
            check_seat(player, _SLOTS["n"].__get__(self))
        if ks[_PLAYED] is not None:
            raise OptionError(PLAYED_OUT)
        return _Draws(self, player)


class _Draws:
    """Determinizations of one KState for one player, drawn on the kernel (`KDeterminizer`) with
    the random numbers the engine's `Determinizer.sample` draws, so that the same `rng` gives the
    engine twin's world: each a KState whose `_FROM` holds where it starts (seed, manual, (its
    position, a maker of its twin on the engine's machine)), so that playing its moves again
    starts there.  The engine's determinization of the state's twin (an engine State; the state
    itself stays a KState) where the kernel's cannot be drawn: who may look at a zone the kernel
    cannot say (`Unseen`), and a rule that goes wrong listing a secret choice to draw again.  (A
    seeded world drawn at a chance node is the kernel's too: it waits for the outcome by hand as
    the engine's does, the generator resolving the rest of the roll or the draw: `_reseed`.)"""

    def __init__(self, state: KState, player: Optional[int]):
        from .determinize import KDeterminizer, Unseen

        state._kernel_record()  # (the record worked out before the copy: the copy shares it)
        self.real = real = state.clone()  # the position drawn from, should the state be played on
        self.player = player
        ks = real._ks
        self.kernel = kernel = ks[_KERNEL]
        self._engine: Any = None
        self.det: Any = None
        try:
            self.det = KDeterminizer(kernel, ks[_S], real._kernel_record(), player)
        except Unseen:
            pass
        if self.det is None:
            self.groups, self.choices = self.engine().groups, self.engine().choices
        else:
            keys = [rc_zone[0] for rc_zone in kernel.recorder.zones]
            #: the groups' places in the engine's zone keys (as `Determinizer.groups`)
            self.groups = [([(keys[z] if z >= 0 else -1, i) for z, i in places], cards)
                           for places, cards in self.det.groups]
            self.choices = [k for k, _, _ in self.det.choices]

    def engine(self) -> Any:
        """The engine's determinizer of the state's twin on the engine's machine."""
        from ..runtime.determinize import Determinizer

        if self._engine is None:
            self._engine = Determinizer(self.real._twin(), self.player)
        return self._engine

    def sample(self, rng: random.Random, chance: Optional[str] = None) -> State:
        from ..runtime.determinize import check_chance

        check_chance(chance)
        real, det, player = self.real, self.det, self.player
        ks = real._ks
        manual = _SLOTS["manual"].__get__(real) if chance is None else chance == "manual"
        if det is None:
            return self.engine().sample(rng, chance)
        saved = rng.getstate()
        try:
            S, seed, orders, picks = det.sample(rng, manual)
        except KFault:  # a rule that goes wrong listing a secret choice: the engine's words, or world
            rng.setstate(saved)
            return self.engine().sample(rng, chance)
        record = det.record(picks)
        kernel, groups, js = self.kernel, self.groups, [j for j, _ in picks]

        def on_engine() -> State:  # its twin on the engine's machine: the real twin, determinized alike
            from ..runtime.determinize import Determinizer

            return Determinizer(real._twin(), player).world(orders, seed, "manual" if manual else "seeded", groups, js)

        def roomier(bigger: Any) -> Any:
            """Its start in `bigger`, a roomier kernel of the same rules (`_grow`): the real
            position there, the same cards put in the same places, the same choices drawn again."""
            from .determinize import place

            r = real.clone()
            while r._ks[_KERNEL] is not bigger:
                if not r._grow():  # pragma: no cover - the real position fits where its world does
                    raise KFault(FAULT_CAPACITY)
            T = bigger.copy_state(r._ks[_S])
            place(bigger.program.layout, det.groups, T, orders)
            T[_H_SEED], T[_H_DRAWS], T[_H_MANUAL] = seed, 0, 1 if manual else 0
            for (k, _, _), (_, move) in zip(det.choices, picks):
                bigger.backend.rechoose(T, k, move)
            return T

        d = KState.__new__(KState)
        start = (kernel.copy_state(S), on_engine, roomier)
        for name, value in (("game", _SLOTS["game"].__get__(real)), ("prog", real.prog), ("n", _SLOTS["n"].__get__(real)),
                            ("seed", seed), ("manual", manual),
                            ("_ks", [kernel, S, [], {}, ks[_OPTIONS], False, ks[_SHARED],
                                     (record, kernel.copy_state(S), 0), None, (seed, manual, start)])):
            _SLOTS[name].__set__(d, value)
        return d


def _engine_key(state: State) -> Optional[tuple]:
    """`KState._eq_key` of a state of the engine's machine: the kernel's position its record
    replays to and the record; None where there is no position to be had (played out, rules too
    large for the kernel, a record the kernel cannot play, a determinization: its record is one
    player's, which does not replay to its position)."""
    if state._history is None:
        return None
    try:
        saved = state.to_dict()  # (its position as JSON writes it, `Game._position_of`)
    except OptionError:  # a determinization: no history reaches it
        return None
    if saved["position"] is None:
        return None
    return (state.n, tuple(saved["position"]), tuple(saved["history"]), tuple(state.redact))


#: the engine's words for the record of a state played out (runtime/record.py `history`)
_NO_HISTORY = "this state was played out to its end by playout(): it keeps no history"


#: a counter of the engine's (`fires`, `empty_draws`) set to None on a KState: not counted
_OFF = ("off",)


def _slot(state: "KState", name: str) -> Any:
    """What a KState keeps in one of the engine's slots (`fires`, `empty_draws`, `redact` set on
    it), or None where nothing was."""
    try:
        return _SLOTS[name].__get__(state)
    except AttributeError:
        return None


def _redactions(value: Any) -> tuple:
    """`redact` as set on a KState: (history index, what the others read, who reads the text) each
    (OptionError for anything else: the kernel's record reads them)."""
    try:
        entries = tuple((i, text, tuple(audience)) for i, text, audience in value)
    except (TypeError, ValueError):
        raise OptionError(f"redact is a tuple of (history index, text, players), not {short(value)}") from None
    for i, text, audience in entries:
        if type(i) is not int or i < 0 or type(text) is not str or any(type(p) is not int for p in audience):
            raise OptionError(f"redact is a tuple of (history index, text, players), not {short(value)}")
    return entries


def _in_part(ks: list) -> bool:
    """Whether the game waits at a choice made together that some players have made already
    (their choices are in the position: a determinization must draw them again for a seat that
    has not seen them, which the engine's determinization does)."""
    S = ks[_S]
    return S[_H_CUR] == _CUR_SIMUL and bool(ks[_KERNEL].backend.chosen_together(S))


def _play_out(be: Any, S: Any, cseed: int, dseed: int, limit: int) -> None:
    """Play S out on the backend, chance from `cseed` and choices from `dseed`, at most `limit`
    decisions more than the engine's playout lets pass (KFault: FAULT_ENDLESS past them); the
    position's own generators and limit are put back (as the engine's playout leaves its seed and
    draws)."""
    kept = S[_H_SEED], S[_H_DRAWS], S[_H_DSEED], S[_H_DDRAWS], S[_H_LIMIT]
    S[_H_SEED], S[_H_DRAWS], S[_H_DSEED], S[_H_DDRAWS] = cseed, 0, dseed, 0
    S[_H_LIMIT] = S[_H_DECISIONS] + limit + 1  # (the engine's playout stops once it made more than `limit`)
    be.playout(S)
    S[_H_SEED], S[_H_DRAWS], S[_H_DSEED], S[_H_DDRAWS], S[_H_LIMIT] = kept


class _Handed:
    """The chance of a playout from a wait whose chance was handed back to the generator, as the
    engine's playout draws it with its generator `pick` (`rng.randrange`: `_randbelow`), given to
    the kernel as outcomes one wait at a time (the copy played out waits at every die and card):
    the rest of a group of dice with one draw for the group (`roll_faces`: one die a draw past 62
    bits), a card among the zone's in order, the first that nobody can tell from it taken."""

    def __init__(self, state: "KState", T: Any, pick: Callable[[int], int]):
        self.T, self.pick, self.queue = T, pick, []  # (the faces of the group's dice still to come)
        forms = forms_of(_SLOTS["game"].__get__(state).model)
        self.canonical, self.nfaces = forms.face_canonical, forms.nfaces
        lay = state._ks[_KERNEL].program.layout
        self.zones, self.up, self.labels = lay.zones, lay.up, forms.card_labels

    def next(self) -> Optional[int]:
        """The outcome of the wait T is at (a die's face, a card)."""
        T = self.T
        if T[_H_CHANCE] == _CHANCE_DRAW:  # the first card of the zone nobody can tell from the one drawn
            at = self.zones[T[_H_CHANCE_A]][0]
            cards = T[at + 1:at + 1 + T[at]]
            card = cards[self.pick(len(cards))]
            labels, up = self.labels, self.up
            return int(next(c for c in cards if labels[c] == labels[card] and T[up + c] == T[up + card]))
        if not self.queue:  # the group's dice from this one on, rolled together
            k, nfaces = int(T[_H_CHANCE_C] - T[_H_CHANCE_B]), self.nfaces
            total = nfaces ** k
            if total <= 1 << 62:
                r = self.pick(total)
                for _ in range(k):
                    r, f = divmod(r, nfaces)
                    self.queue.append(f)
            else:
                self.queue.extend(self.pick(nfaces) for _ in range(k))
            self.queue.reverse()
        return self.canonical[self.queue.pop()]


def _played_on(ref: State, played: tuple, bd: Any = None) -> Any:
    """The engine's state `ref` played out as the kernel's `_play_out` plays it (by the kernel's
    rules of chance and choice, `reference_playout`: the same game), and left as the engine's own
    playout leaves a state: no record, its seed and draws as they were.  Its `Outcome`; the
    engine's error if a rule goes wrong."""
    cseed, dseed, limit, _, steps = played
    seed, draws = ref.seed, ref.draws
    if steps is None:
        ref.seed, ref.draws = cseed, 0
        out = reference_playout(ref.game, ref.n, cseed, state=ref, dseed=dseed, limit=limit + 1)
    else:  # played one step at a time (chance by hand): the same steps
        start, decisions, manual = len(ref.history), 0, ref.manual
        for move, together in steps:
            if move is None:
                if together is None:  # (the generator's chance given as outcomes from here)
                    ref.manual = True
                else:
                    ref.apply(next(a for a, _ in ref.chance_outcomes() if a._values[-1] == together))
            else:
                play_move(ref, bd.move(move, together))
                decisions += 1
        ref.manual = manual
        out = Outcome(ref.scores(), ref.winners(), decisions, len(ref.history) - start - decisions)
    ref.seed, ref.draws = seed, draws
    _SLOTS["_history"].__set__(ref, None)
    ref.events = None
    ref.redact = ()
    _SLOTS["_legal"].__set__(ref, None)
    return out


def _write_generator(S: Any, seed: int, draws: int, manual: bool) -> None:
    """The chance generator (seed, draws) and whether chance is the caller's, written into a
    position's header (as each backend's `new` writes a seed: Python's unsigned, native's signed)."""
    seed &= M64
    S[_H_SEED] = seed if type(S) is list else seed - (1 << 64) if seed >= 1 << 63 else seed
    S[_H_DRAWS] = draws
    S[_H_MANUAL] = 1 if manual else 0


#: the kernels that work out the positions of states of the engine's own machine, by game, where the
#: game has built none (the Python backend: no native compile of seconds to save a state)
_POSITIONS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def saved_position(game: Any, state: State) -> Optional[list]:
    """The `position` a state of the engine's machine saves (`position_of`; a KState writes its
    own, `KState.to_dict`): the kernel's position its record replays to (`Kernel.state_of`, or
    `_saved_by_hand` where chance waits to be given by hand); None where there is none to be had
    (rules too large for the kernel, chance by hand the kernel does not wait for, a record the
    kernel cannot play)."""
    kernel = game._kernel
    if kernel is None:
        kernel = _POSITIONS.get(game)
        if kernel is None:
            from . import Kernel

            try:
                kernel = Kernel(game, "python")
            except (FishrulesError, RecursionError, MemoryError):  # pragma: no cover - rules the checker passed
                kernel = False
            _POSITIONS[game] = kernel
    if kernel is False or kernel.program is None or state._history is None:  # (no record: nothing to replay)
        return None
    while True:
        try:
            if state.cur == CHANCE:
                return _saved_by_hand(kernel, game, state)
            S = kernel.state_of(state)
        except KFault as fault:  # (a list past the kernel's room: worked out in a roomier kernel)
            kernel = kernel.roomier() if fault.code == FAULT_CAPACITY else None
            if kernel is None:
                return None
            continue
        except (FishrulesError, TypeError, IndexError, KeyError, ValueError, ZeroDivisionError, RecursionError,
                OverflowError):  # (the Python backend's ways of going wrong: no position, then)
            return None
        return _saved(kernel, S)


def _saved_by_hand(kernel: Any, game: Any, state: State) -> Optional[list]:
    """The position of `state` of the engine's machine, which waits for chance given by hand:
    its record played again on `kernel` with chance given by hand too, each move as its typed
    `Move`, each die's face or card drawn as its text says it (`Kernel._chance_outcome`)."""
    if not kernel.manual_chance or state._history is None:  # (manual or not now: it waits for chance)
        return None
    be = kernel.backend
    S = be.new(state.n, state._options(), state.seed)
    S[_H_MANUAL] = 1
    be.start(S, False)
    for text, move in zip(state._history.list(), recorded_moves(state)):
        cur = S[_H_CUR]
        if move is None:  # a die's face or a card drawn, as the record says it
            if cur != _CUR_CHANCE:
                return None
            be.play_chance(S, kernel._chance_outcome(S, text, state))
        elif cur == _CUR_SIMUL:  # (the kernel refuses a second choice of one player: KFault)
            be.choose(S, kernel._replayed(S, move, text, True, be.who_together(S))[1])
        elif cur >= 0:
            be.play(S, kernel._replayed(S, move, text, False, (cur,))[1])
        else:
            return None
    return _saved(kernel, S)


def _saved(kernel: Any, S: Any) -> list:
    """`position_of` as a saved state writes it (a list)."""
    return list(position_of(kernel, S))


#: what `position_of` reads of a program's frames: block number -> (its scalars, its buffers, a native frame's size)
_FRAMES: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


def _value(x: Any) -> Any:
    """A number of a position as JSON and equality read it: nothing (Python's None, native's
    NIL) is None, yes and no are 1 and 0, a tuple the Python kernel keeps is a list."""
    if type(x) is int:
        return None if x == NIL else x
    if x is None:
        return None
    if type(x) is bool:
        return int(x)
    return [_value(i) for i in x]  # (a slice of the position, or a tuple the Python kernel keeps)


def position_of(kernel: Any, S: Any) -> tuple:
    """A kernel position as equality and JSON (`fishrules-state/2`'s `position`) read it, the same
    on either backend: how many play, who is to act and where the game waits (its site, the die
    chance waits for, the moves chosen so far at a choice made together), the values, dice, cards (where, face up, zones shuffled), each zone's cards, the phases
    being played and the frames of the blocks running (block, place).  Left out: the generators,
    counters and scratch of the header, what lies past the length of a list or zone or past the
    frames running, the counts of rules fired and empty draws, and the frames' locals: the same
    position reached with chance given by hand (a replay, a saved state read back) holds other
    locals than the seeded game (what a roll worked out on the way), which it never reads again;
    and the Python kernel leaves a local not yet set as nothing, the native one as 0."""
    kp = kernel.program
    lay = kp.layout
    native = kernel.backend.name == "native"
    n, cur, depth = S[1], S[_H_CUR], S[_H_DEPTH]
    head = [n, cur, depth, S[_H_NDICE]]
    if cur >= 0 or cur == _CUR_SIMUL:
        head.append(S[_H_SITE])
    if cur == _CUR_SIMUL:  # the moves chosen so far (by the seat that chose: the record says in which order)
        head.append([_value(m) for m in sorted(kernel.backend.chosen_together(S), key=lambda m: m[1])])
    elif cur == _CUR_CHANCE:
        head += [S[_H_CHANCE], S[_H_CHANCE_A]]
        if S[_H_CHANCE] == _CHANCE_DRAW:  # (where the card goes, and how: a die's wait leaves them as they were)
            head += [S[_H_CHANCE_B], S[_H_CHANCE_C]]
    values = []
    for slot, at in sorted(lay.g_index.items()):
        values.append(_value(S[at + 1:at + 1 + S[at]]) if slot in lay.g_list else _value(S[at]))
    for slot, at in sorted(lay.p_index.items()):
        if slot in lay.p_list:
            step = lay.list_stride(slot)
            values.append([_value(S[at + k * step + 1:at + k * step + 1 + S[at + k * step]]) for k in range(n)])
        else:
            values.append(_value(S[at:at + n]))
    cards = lay.ncards
    frames = []
    got = _FRAMES.get(kp)
    if got is None:
        got = _FRAMES[kp] = {}
        for b, name in kp.block_fn.items():
            scalars, buffers = kp.locals_of(kp.function(name))
            got[b] = (len(scalars), len(buffers), kp.frame_cap[name])
    fp = lay.frames
    for _ in range(depth):
        b = S[fp]
        nscalars, nbuffers, size = got[b]
        frames.append([b, S[fp + 1]])
        fp += size if native else 2 + nscalars + nbuffers
    return (head, values, _value(S[lay.dice:lay.dice + S[_H_NDICE]]), _value(S[lay.where:lay.where + cards]),
            _value(S[lay.up:lay.up + cards]), _value(S[lay.mixed:lay.mixed + len(lay.zones)]),
            [_value(S[at + 1:at + 1 + S[at]]) for at, _ in lay.zones],
            _value(S[lay.active:lay.active + lay.nblocks]), frames)


def _blocks_of(records: Any, backend: Any) -> Any:
    """The move block of each record of a listing (a record's first number, on either backend:
    the native one's records are one flat array, `width` numbers each)."""
    width = getattr(backend, "width", None)
    if width is None or isinstance(records, (list, tuple)):
        return [r[0] for r in records]
    return records[::width]


class KAction(Action):
    """An action of a KState's legal list: the kernel's move, read into the engine's action (its
    name, values, text, the rule it breaks) only when somebody looks at one of them."""

    __slots__ = ("_kmove", "_read")

    def _fill(self) -> None:
        if _K_READ_GET(self):
            return
        where, i = _K_MOVE_GET(self)
        kernel, records, actor, prefix, prog = where
        bd = kernel.boundary
        move = bd.move(kernel.backend.decode(records, i))
        ap = bd.programs[move.action]
        name, values, rule = ap.name, move.values, move.breaks
        _A["_player"].__set__(self, actor)
        _A["_to"].__set__(self, None)
        # never the engine's legal list (whose slot may be None before it is listed): applied to
        # the engine's state, a KAction is read by its text and checked
        _A["_origin"].__set__(self, where)
        _A["_prefix"].__set__(self, prefix)
        _A["_prog"].__set__(self, prog)
        _A["_name"].__set__(self, name)
        _A["_values"].__set__(self, values)
        _A["_breaks"].__set__(self, rule)
        _A["_render"].__set__(self, ap if ap.params else None)
        _A["_text"].__set__(self, None if ap.params else _A["_prefix"].__get__(self) + name)
        _K_READ(self, True)


_A = {name: Action.__dict__[name] for name in Action.__slots__}
_K_MOVE, _K_MOVE_GET = KAction.__dict__["_kmove"].__set__, KAction.__dict__["_kmove"].__get__
_K_READ, _K_READ_GET_RAW = KAction.__dict__["_read"].__set__, KAction.__dict__["_read"].__get__


def _K_READ_GET(a) -> bool:
    try:
        return _K_READ_GET_RAW(a)
    except AttributeError:
        return False


def _lazy(name: str) -> property:
    slot = _A[name]

    def get(self):
        self._fill()
        return slot.__get__(self)

    def put(self, value):
        self._fill()
        slot.__set__(self, value)

    return property(get, put)


for _name in Action.__slots__:
    setattr(KAction, _name, _lazy(_name))
for _name in ("name", "player", "breaks", "to"):  # read-only, as the Action's (one call, not two)
    setattr(KAction, _name, property(_lazy("_" + _name).fget))


# The engine's fields: in a KState, reading or writing one makes it a plain State first.
_SLOTS = {name: Fields.__dict__[name] for name in Fields.__slots__}


def _field(name: str) -> property:
    slot = _SLOTS[name]

    def get(self):
        self._become_state()
        return slot.__get__(self)

    def put(self, value):
        self._become_state()
        slot.__set__(self, value)

    return property(get, put)


for _name in Fields.__slots__:
    if _name not in _OWN and _name not in _KEPT:
        setattr(KState, _name, _field(_name))

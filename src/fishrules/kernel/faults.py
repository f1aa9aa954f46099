"""The kernel's words for a rule that goes wrong: a fault of a position, as the engine says it.

A step that stops with FAULT_RULE leaves in the position what went wrong (`S[H_WHY]`, a WHY_*
code packed with the position of a piece that has words of its own, and `S[H_WHY_ARG]`) and where
(`S[H_AT]`: the statement or `if` condition running, an entry of `KernelProgram.positions`);
`unavailable "…"` leaves which of the rules' refusals it was.  `error` turns these, with what the
caller was doing (`context`: playing the rules, listing a player's moves, reading an action's
text, working out the scores or the winners, setting the game up), into the engine's exact
`RuleError` (message, span, context line) or `OptionError`: the texts are `fishrules.reasons`',
which the engine raises too.  Where the kernel has no words of its own (its own capacities, a fault
with WHY_NONE; its work budget, were it less than the engine's: `counts_as_the_engine`) `error`
gives None, and the caller asks the engine.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import reasons
from ..errors import Diagnostic, FishrulesError, RuleError
from ..limits import MAX_DICE, MAX_PLAYOUT_DECISIONS, WORK_BUDGET
from . import abi as A
from .pyruntime import KFault

__all__ = ["PLAYING", "SCORES", "WINNERS", "SETTING_UP", "listing", "reading", "error", "in_playout", "phase_at",
           "counts_as_the_engine", "setting_up", "dice_count", "innermost_phase"]

#: what the caller was doing when the kernel stopped (the context of the error)
PLAYING = ("playing",)  # running the rules: a block (its name is the position's)
SCORES = ("scores",)
WINNERS = ("winners",)
SETTING_UP = ("setting up",)


def listing(actor: int, where: str) -> tuple:
    """Listing the legal moves of `actor` at the decision the position waits at (S[H_SITE]), in
    `where` (`phase X`: the innermost phase being played)."""
    return ("listing", actor, where)


def reading(text: str) -> tuple:
    """Reading the text of an action (or of a typed move) at the decision the position waits at."""
    return ("reading", text)


_WORDS = {
    A.WHY_NOBODY: reasons.NOBODY, A.WHY_DIVIDE: reasons.DIVIDE, A.WHY_NUMBER: reasons.NUMBER_TOO_LARGE,
    A.WHY_LIST: reasons.LIST_TOO_LONG, A.WHY_SEAT: reasons.SEAT_OF_NOBODY, A.WHY_ZONE_NOBODY: reasons.ZONE_OF_NOBODY,
    A.WHY_DEEP: reasons.TOO_DEEP, A.WHY_CHANGED_NOBODY: reasons.CHANGED_NOBODY,
    A.WHY_NOBODY_CHOOSES: reasons.NOBODY_CHOOSES, A.WHY_NESTED: reasons.NESTED, A.WHY_MEMORY: reasons.MEMORY,
}
#: the faults whose words come with their own span (the engine's `Fail(message, span)`)
_OWN_SPAN = (A.WHY_DIVIDE, A.WHY_NUMBERS, A.WHY_SUBSETS, A.WHY_CHOICES)


def _value(v: Any) -> Any:
    return None if v is None or v == A.NIL else v


def _message(kp: Any, code: int, piece: Any, arg: Any) -> Optional[str]:
    if code in _WORDS:
        return _WORDS[code]
    detail = piece.detail if piece is not None else None
    if code == A.WHY_ZONE and detail is not None:
        return reasons.no_such_zone(detail[0], _value(arg), detail[1], detail[2])
    if code == A.WHY_NOT_IN_LIST:
        return reasons.not_in_list(_value(arg))
    if code == A.WHY_PHASE_NOBODY and detail is not None:
        return reasons.phase_for_nobody(detail)
    if code == A.WHY_END and detail is not None:
        return reasons.end_not_played(detail)
    if code == A.WHY_NUMBERS and detail is not None:
        return reasons.too_many_numbers(detail, arg)
    if code == A.WHY_SUBSETS:
        return reasons.too_many_subsets(arg)
    if code == A.WHY_CHOICES and detail is not None:
        return reasons.too_many_choices(detail)
    return None


def _position(kp: Any, k: Any) -> Any:
    return kp.positions[k] if k.__class__ is int and 0 <= k < len(kp.positions) else None


def phase_at(kp: Any, S: Any) -> Optional[str]:
    """`phase X` where the position's statement is, if it is a phase's (else None: the caller
    knows the innermost phase from the frames, or asks the engine)."""
    here = _position(kp, S[A.H_AT])
    if here is None or not (0 <= here.block < len(kp.block_names)) or kp.block_names[here.block] not in kp.model.phases:
        return None
    return f"phase {kp.block_names[here.block]}"


def counts_as_the_engine() -> bool:
    """Whether a step the kernel stops for its work budget is refused as the engine refuses one:
    the kernel's budget is the engine's (abi.KERNEL_BUDGET), and it counts as the engine does, or
    more (see docs/performance.md)."""
    return A.KERNEL_BUDGET >= WORK_BUDGET


def error(kp: Any, S: Any, code: int, context: tuple) -> Optional[FishrulesError]:
    """The engine's error for a step of the kernel that stopped with fault `code` at position S
    (S as the fault left it), while doing `context` (PLAYING, listing(...), reading(...), SCORES,
    WINNERS, SETTING_UP); None if the kernel has no words for it (the engine's machine has)."""
    model = kp.model
    if code == A.FAULT_UNPLAYABLE:
        k = S[A.H_WHY]
        return reasons.unavailable(model.title, kp.refusals[k]) if 0 <= k < len(kp.refusals) else None
    if code == A.FAULT_BUDGET:
        # The engine's words and place (the statement running when the count passed the budget),
        # once the kernel counts against the engine's own budget: against less, the engine may
        # still finish what the kernel gave up on, and only it can say.
        if not counts_as_the_engine():
            return None
        why, own, message = A.WHY_NONE, None, reasons.OVER_BUDGET
    elif code != A.FAULT_RULE:
        return None
    else:
        packed = S[A.H_WHY]
        why, own = packed & ((1 << A.WHY_SHIFT) - 1), _position(kp, (packed >> A.WHY_SHIFT) - 1)
        message = _message(kp, why, own, S[A.H_WHY_ARG])
        if message is None:
            return None
    kind = context[0]
    span: Any = None
    if kind == "playing":
        here = _position(kp, S[A.H_AT])
        if here is None or not (0 <= here.block < len(kp.block_names)):
            return None
        span, said = here.span, reasons.while_playing(kp.block_names[here.block])
    elif kind in ("listing", "reading"):
        site = S[A.H_SITE]
        span = kp.sites[site].span if 0 <= site < len(kp.sites) else None
        said = reasons.while_listing(context[1], context[2]) if kind == "listing" else reasons.while_reading(context[1])
    elif kind == "scores":
        # (the score line working out the parts, `score_parts`; the first for the scores)
        term = context[1] if len(context) > 1 and 0 <= context[1] < len(model.scores) else 0
        span, said = (model.scores[term].span if model.scores else None), reasons.WHILE_SCORES
    elif kind == "winners":
        span, said = getattr(model.winners, "span", None), reasons.WHILE_WINNERS
    else:
        said = reasons.WHILE_SETTING_UP
    if why in _OWN_SPAN and own is not None and own.span is not None:
        span = own.span
    return RuleError(Diagnostic(span or model.span, message, said))


def innermost_phase(kp: Any, be: Any, S: Any) -> str:
    """`phase X`, the innermost phase being played at position S (its frames' blocks, on backend
    `be`), as the engine names where the game is; `the game` where no phase is."""
    names = [kp.block_names[b] for b in be.frame_blocks(S)
             if 0 <= b < len(kp.block_names) and kp.block_names[b] in kp.model.phases]
    return f"phase {names[-1]}" if names else "the game"


def in_playout(kp: Any, S: Any, code: int, be: Any = None) -> Optional[FishrulesError]:
    """The error of a playout's step (`Kernel.playout`: the game run to its end, every choice the
    kernel's) that stopped with `code`: while a player's moves were listed (S[H_CUR] names the
    player, S[H_SITE] the decision; a player who may do nothing is the stuck game's error), or
    while the rules ran.  The phase the moves are listed in: the statement's, else (a choice
    written inside an action, say) the innermost phase of the frames (with the backend `be`).
    None where the kernel has no words (see `error`)."""
    actor = S[A.H_CUR]
    if actor >= 0:
        where = phase_at(kp, S)
        if where is None and be is not None:
            where = innermost_phase(kp, be, S)
        if where is None:
            return None
        if code == A.FAULT_STUCK:
            site = kp.sites[S[A.H_SITE]]
            names = " or ".join(kp.action_names[a] for a in site.actions)
            return reasons.stuck(site.span, actor, names, where)
        return error(kp, S, code, listing(actor, where))
    return error(kp, S, code, PLAYING)


def dice_count(kp: Any, count: Any) -> RuleError:
    """The engine's error for a number of dice (worked out from the options when a game is set up)
    out of its range (runtime/state.py's words)."""
    d = kp.model.dice
    return RuleError(Diagnostic(d.span if d is not None else kp.model.span,
                                f"the number of dice must be 0 to {MAX_DICE:,}, not {count:,}"))


def setting_up(kernel: Any, players: int, options: dict, seed: int) -> Optional[FishrulesError]:
    """The engine's error for a game whose set-up (a backend's `new`: the number of dice, from the
    options) stopped with FAULT_RULE, which leaves no position to read: the set-up made again on
    the kernel's Python spelling (the backend's own, or one made for this), whose position is kept
    — a count out of range, or a rule going wrong while it is worked out (a number past the
    largest: "while setting up the game", at the dice).  None if it sets the game up."""
    from .machine import PyBackend

    kp = kernel.program
    py = kernel.backend if isinstance(kernel.backend, PyBackend) else PyBackend(kp)
    S: list = [0] * kp.layout.size
    try:
        py._set_up(S, players, options, seed, None, MAX_PLAYOUT_DECISIONS)
    except KFault as fault:
        if fault.code != A.FAULT_RULE:  # pragma: no cover - the set-up stops for its rules only
            return None
        why = S[A.H_WHY] & ((1 << A.WHY_SHIFT) - 1)
        if why == A.WHY_NONE:  # (the count was worked out: out of range)
            return dice_count(kp, py._dice_count(S))
        message = _message(kp, why, None, S[A.H_WHY_ARG])
        if message is None:  # pragma: no cover - a count of options words every fault
            return None
        d = kp.model.dice
        return RuleError(Diagnostic(d.span if d is not None else kp.model.span, message, reasons.WHILE_SETTING_UP))
    return None

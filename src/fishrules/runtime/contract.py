"""Stage 5, running: the contract between the code the compiler writes and the runtime.

The compiler writes each ruleset as Python source (`fishrules explain --python GAME` prints it).
That code runs against a state, which it calls `s`, and calls the compiler's helpers by name.
This module names, as data, everything of the runtime that code may use, so that neither side
changes it by accident:

- `STATE`: the attributes of a state the generated code reads, writes or calls;
- `HELPER_STATE`: those the compiler's helpers use on top of `STATE` (the helpers are the
  generated code's library: what they touch, it touches);
- `HELPERS`: the functions and constants the generated code calls, by the names it calls them:
  `fishrules.compiler.program.HELPERS` itself.

Each attribute comes with what it holds or does; a method's description starts with "method".
tests/test_runtime_contract.py holds the generated code of every bundled ruleset, the compiler's
code templates and every helper to these lists, and `State` to having each name.  Adding to them
is a change of the contract: the runtime must then keep that attribute as the generated code
expects it.

The other direction, what the runtime calls of a compiled ruleset (its blocks as
`block(s, frame) -> wait?`, its legal-action enumerators, scores, winners, defines and
visibilities), is `fishrules.compiler.program.Program`.
"""

from __future__ import annotations

from ..compiler.program import HELPERS

__all__ = ["STATE", "HELPER_STATE", "HELPERS"]

#: What the generated code uses of a state `s`.
STATE: dict[str, str] = {
    "g": "the game-wide values by slot, options first; a zone is a tuple of card numbers",
    "p": "each player's values, p[player][slot]",
    "n": "how many play",
    "seats": "the players, tuple(range(n))",
    "dice": "the face each die shows, by number (`prog.unrolled` while it is in the air)",
    "dice_ids": "the dice, tuple(range(number of dice))",
    "stack": "the phase stack of frames [block, pc, locals]: blocks move their pc, push and pop frames",
    "cur": "who is to act, set by a block that stops for a decision (a seat, or SIMULTANEOUS)",
    "mixed": "the keys of the zones shuffled (drawn from at random); `shuffle` adds one",
    "events": "the events, a Log; None while a playout runs (the code looks before it appends)",
    "_history": "the history, a Log (None in a playout); its length dates an event",
    "fires": "how often each named rule fired, by rule; None when rules are not counted",
    "_dmemo": "the kept values of defines, by define: cleared, or popped, where what they read changes",
    "_move": "method _move(cards, dest, facing): the cards onto zone `dest`, from wherever they are",
    "_restart": "method _restart(): `play again`, every value back to its start",
}

#: What the compiler's helpers use of a state besides `STATE`.
HELPER_STATE: dict[str, str] = {
    "prog": "the compiled rules (the Program): tables of faces and cards, the audience functions",
    "_work": "the work done in this call, held to WORK_BUDGET (`charge`, `ch`)",
    "manual": "True when chance waits for the caller, False when the state's generator resolves it",
    "up": "whether each card lies face up, by card",
    "where": "the key of the zone each card is in, by card (-1: in the box)",
    "_chances": "the chance outcomes a playout resolved (it keeps no history to count them in)",
    "empty_draws": "the draws that found their zone empty, by zone key, when rules are counted; else None",
    "_zget": "method _zget(key): the cards of the zone `key`",
    "_randbelow": "method _randbelow(k): a number below k from the state's generator (or a playout's)",
    "_same_card": "method _same_card(cards, card): the first of `cards` nobody can tell from `card`",
    "_draw": "method _draw(card, dest, facing): a card drawn at random, recorded as a chance outcome",
}

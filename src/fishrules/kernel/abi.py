"""The kernel's ABI, defined once: what a kernel program's two spellings (the Python of
`emit_python` with `pyruntime`, the C of `emit_c` with `kernel.h` and `kernel_state.h`), the
backends that run them and the code that reads a position agree on.

- the header: the first slots of a position `S` (`H_*`; the rest is laid out by `layout.py`), and
  what `S[H_CUR]` holds when nobody single is to act (`CUR_*`);
- the fault codes a step the kernel cannot finish stops with (`FAULT_*`);
- the limits both spellings enforce, and the sizes of a native context;
- the generator: splitmix64 (`fishrules.splitmix`, shared with the engine's states, which may not
  import the kernel) and the seed of a playout's choices.

Python imports these names.  C gets them as `#define`s written from them (`c_prelude()`, at the
top of every program `emit_c` writes): the C headers define none of their own, so the two
spellings cannot drift apart (tests/test_kernel_abi.py holds the headers to it and runs both
generators side by side).
"""

from __future__ import annotations

from ..limits import MAX_CHOICES, MAX_DICE, MAX_LIST_LENGTH, MAX_NUMBER, MAX_PHASE_DEPTH, WORK_BUDGET
from ..splitmix import GAMMA, M64, MUL1, MUL2, below, mix

__all__ = [
    "H_CUR", "H_N", "H_SEED", "H_DRAWS", "H_DSEED", "H_DDRAWS", "H_WORK", "H_DEPTH", "H_MODE", "H_UNWIND", "H_SITE",
    "H_DECISIONS", "H_CHANCES", "H_NDICE", "H_LIMIT", "H_WHY", "H_MANUAL", "H_CHANCE",
    "H_CHANCE_A", "H_CHANCE_B", "H_CHANCE_C", "H_AT", "H_WHY_ARG", "H_MOVE", "CHANCE_DIE", "CHANCE_DRAW",
    "CUR_OVER", "CUR_CHANCE", "CUR_SIMUL", "CUR_RUN",
    "FAULT_RULE", "FAULT_BUDGET", "FAULT_CAPACITY", "FAULT_UNPLAYABLE", "FAULT_STUCK", "FAULT_ENDLESS",
    "WHY_NONE", "WHY_NOBODY", "WHY_DIVIDE", "WHY_NUMBER", "WHY_LIST", "WHY_SEAT", "WHY_ZONE", "WHY_ZONE_NOBODY",
    "WHY_NOT_IN_LIST", "WHY_DEEP", "WHY_PHASE_NOBODY", "WHY_END", "WHY_NUMBERS", "WHY_SUBSETS", "WHY_CHOICES",
    "WHY_CHANGED_NOBODY", "WHY_NOBODY_CHOOSES", "WHY_NESTED", "WHY_MEMORY", "WHY_SHIFT", "why",
    "NIL", "KERNEL_BUDGET", "MAX_STACK", "LIST_CAPACITY", "RESTART_WORK", "ARENA", "MOVES_CAP", "MOVE_BYTES", "MOVE_BYTES_MAX", "REC_MAX",
    "M64", "GAMMA", "MUL1", "MUL2", "mix", "below", "decision_seed", "c_prelude",
]

# ---- the header: S[0 .. H_MOVE + the move's width) -------------------------------------------

H_CUR = 0  # who is to act: a seat (0 first), or one of CUR_* below
H_N = 1  # how many players this game has
H_SEED = 2  # the chance generator (dice, shuffled draws): its seed ...
H_DRAWS = 3  # ... and how many draws it has made
H_DSEED = 4  # a playout's generator of choices: its seed (`decision_seed` of the game's) ...
H_DDRAWS = 5  # ... and how many draws it has made
H_WORK = 6  # the work done in this call into the kernel, against KERNEL_BUDGET
H_DEPTH = 7  # how many blocks are running (frames on the stack), at most MAX_STACK
H_MODE = 8  # 1: a playout (every choice made at once, by the generator of choices); 0: wait for the caller
H_UNWIND = 9  # the phase an `end PHASE` unwinds to, while blocks return UNWIND
H_SITE = 10  # the decision the game waits at: its site (which actions may be played there)
H_DECISIONS = 11  # the decisions made so far (a playout is cut at S[H_LIMIT] of them)
H_CHANCES = 12  # the chance outcomes so far (a card from a shuffled zone, a die rolled: one each)
H_NDICE = 13  # how many dice this game has (worked out from its options when it is set up)
H_LIMIT = 14  # the most decisions a playout may make before the game is declared endless
H_WHY = 15  # after a fault: what it was about (FAULT_RULE: a WHY_* code, see `why`; FAULT_UNPLAYABLE: which `unavailable` of KernelProgram.refusals)
H_MANUAL = 16  # 1: chance is the caller's (it waits at every die and shuffled draw, CUR_CHANCE); 0: the generator's
H_CHANCE = 17  # at CUR_CHANCE: what chance waits for (CHANCE_DIE, CHANCE_DRAW) ...
H_CHANCE_A = 18  # ... and which: the die to roll, or the zone a card is drawn from (its outcome, a face
#                  or a card of that zone, is then written at S[H_MOVE])
H_CHANCE_B = 19  # a draw: the zone the card goes to ...
H_CHANCE_C = 20  # ... and how it lands (0 as it was, 1 face up, 2 face down)
H_AT = 21  # the statement (or `if` condition) running: an index into KernelProgram.positions
H_WHY_ARG = 22  # after a FAULT_RULE: the value its words name (the zone's number, the number not in the list, ...)
H_MOVE = 23  # the move being played: its block, the actor, then its parameters (the layout's move width)

# `S[H_CUR]` when no single seat is to act
CUR_OVER = -1  # the game is over
CUR_CHANCE = -2  # chance is the caller's, and waits for an outcome (S[H_CHANCE] says which)
CUR_SIMUL = -3  # players choose together (their moves are kept in the waiting frame until all have chosen)
CUR_RUN = -4  # set up, or a move written into S[H_MOVE]: the kernel is to run on

# `S[H_CHANCE]` at CUR_CHANCE
CHANCE_DIE = 1  # a die is rolled: S[H_CHANCE_A] is the die
CHANCE_DRAW = 2  # a card is drawn from a shuffled zone: S[H_CHANCE_A] the zone, S[H_CHANCE_B] where it goes

# ---- faults: why a step stopped (the engine's own machine then plays it, and says what is wrong) --

FAULT_RULE = 1  # a rule went wrong (nothing where a value is needed, divide by zero, ...)
FAULT_BUDGET = 2  # more work than one step may do
FAULT_CAPACITY = 3  # past one of the kernel's own capacities (a long list, a deep stack, many moves)
FAULT_UNPLAYABLE = 4  # `unavailable "…"`
FAULT_STUCK = 5  # a player must choose but may do nothing
FAULT_ENDLESS = 6  # a playout made more decisions than S[H_LIMIT]: the game does not end

# `S[H_WHY]` after FAULT_RULE: what went wrong, as the engine words it (fishrules.reasons; the
# words themselves are kernel/faults.py's), packed by `why` with a position of its own where the
# words need one (the divide's span, the parameter that offers too many numbers, the family of zones).
WHY_NONE = 0  # not said: the engine's own machine words it
WHY_NOBODY = 1  # nothing where a value is needed (the engine's TypeError on None)
WHY_DIVIDE = 2  # divide by zero
WHY_NUMBER = 3  # a number past MAX_NUMBER
WHY_LIST = 4  # a list past MAX_LIST_LENGTH
WHY_SEAT = 5  # the seat of nobody
WHY_ZONE = 6  # a zone of a family that does not exist (H_WHY_ARG: its number, NIL for nobody)
WHY_ZONE_NOBODY = 7  # a zone of nobody
WHY_NOT_IN_LIST = 8  # removing what a list does not hold (H_WHY_ARG: it)
WHY_DEEP = 9  # phases nested past MAX_STACK
WHY_PHASE_NOBODY = 10  # a phase played for nobody
WHY_END = 11  # `end` of a phase not being played
WHY_NUMBERS = 12  # a decision's number parameter with too many values (H_WHY_ARG: how many)
WHY_SUBSETS = 13  # `some` of too many things (H_WHY_ARG: how many)
WHY_CHOICES = 14  # one action offers more than MAX_CHOICES moves at once
WHY_CHANGED_NOBODY = 15  # a value of nobody written
WHY_NOBODY_CHOOSES = 16  # nobody is there to choose
WHY_NESTED = 17  # the rules nest too deeply to work out (the engine's RecursionError)
WHY_MEMORY = 18  # out of memory
#: `S[H_WHY]` = code + (position + 1) << WHY_SHIFT: the code's own position, or none (0)
WHY_SHIFT = 8


def why(code: int, position: int = -1) -> int:
    """`S[H_WHY]` for a fault of kind `code` with its own entry of KernelProgram.positions (-1: none)."""
    return code + ((position + 1) << WHY_SHIFT)


# ---- limits -------------------------------------------------------------------------------------

#: Nothing, where a value is needed: C's INT64_MIN (Python's kernel holds None; a native move record
#: read back in Python holds this).
NIL = -(1 << 63)
#: The work one call into the kernel may do: the engine's budget.  The kernel counts as the engine
#: does (a block's run a step, a collection looked at its length, ...), call by call, but for the
#: values the engine keeps from one call to the next (its memo of defines, its legal lists) which the
#: kernel works out again in each call: never less than the engine (see docs/performance.md).
KERNEL_BUDGET = WORK_BUDGET
#: Blocks running inside one another, at most (the engine's deepest stack of phases).
MAX_STACK = MAX_PHASE_DEPTH
#: The room of a list the rules add to (a list they only set gets the most they set it to, up to
#: MAX_LIST_LENGTH: `Layout.list_cap`); a game that adds past it goes on in a roomier kernel of
#: the same rules (`layout.ROOMS`, `Kernel.roomier`), up to MAX_LIST_LENGTH.
LIST_CAPACITY = 128
#: The work `play again` counts besides the values and cards it sets again, as the engine's does.
RESTART_WORK = 16
#: A native context's scratch memory (collections worked out in a step), in 8-byte integers.
ARENA = 1 << 21
#: The most legal moves one decision may list in the native kernel (more: the engine lists them).
MOVES_CAP = 1 << 16
#: The bytes a native context first keeps for each list of moves (MOVES_CAP records of today's
#: widest bundled moves, 64 numbers, fit), and the most it grows one to for rules whose moves are
#: wider (a `some` parameter takes 1 + MAX_SUBSET numbers): as many moves as fit, at most MOVES_CAP.
MOVE_BYTES = 8 * 64 * MOVES_CAP
MOVE_BYTES_MAX = 4 * MOVE_BYTES
#: The most numbers the native kernel's trace of one call may hold while a record is kept
#: (kernel/record.py); past it the call stops with FAULT_CAPACITY.
REC_MAX = 1 << 24

#: The draw of the game's generator whose bits seed a playout's choices (one no game reaches).
_DECISION_DRAW = M64 - 1


def decision_seed(seed: int) -> int:
    """The seed of a playout's random choices, from the game's seed (its chance keeps `seed`)."""
    return mix(seed & M64, _DECISION_DRAW) >> 1


# ---- the C spelling -------------------------------------------------------------------------------


def _c_int(v: int) -> str:
    """`v` as a C constant of 64 bits (bracketed when negative, as a macro's value should be)."""
    if v == NIL:
        return "(-9223372036854775807LL - 1)"  # INT64_MIN: its magnitude is no signed constant
    text = f"{v}LL" if not -(1 << 31) < v < (1 << 31) else str(v)
    return f"({text})" if v < 0 else text


def c_prelude() -> str:
    """The ABI as C `#define`s: the first lines of every program `emit_c` writes, before the
    headers (which define none of these names themselves)."""
    g = globals()
    values = {n: g[n] for n in __all__ if n.startswith(("H_", "CUR_", "FAULT_", "WHY_"))}
    values.update(NIL=NIL, KERNEL_BUDGET=KERNEL_BUDGET, MAX_STACK=MAX_STACK, LIST_CAPACITY=LIST_CAPACITY, REC_MAX=REC_MAX)
    # the engine's limits (fishrules.limits) that the kernel's helpers enforce as the engine does
    values.update(MAX_NUMBER=MAX_NUMBER, MAX_LIST_LENGTH=MAX_LIST_LENGTH, MAX_CHOICES=MAX_CHOICES, MAX_DICE=MAX_DICE)
    out = ["/* the kernel's ABI, written from fishrules.kernel.abi */"]
    out += [f"#define {n} {_c_int(v)}" for n, v in values.items()]
    # the generator (fishrules.splitmix), in unsigned 64-bit arithmetic
    out += [f"#define {n} 0x{v:016X}ULL" for n, v in
            (("MIX_GAMMA", GAMMA), ("MIX_MUL1", MUL1), ("MIX_MUL2", MUL2), ("DECISION_DRAW", _DECISION_DRAW))]
    return "\n".join(out) + "\n"

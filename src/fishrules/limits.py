"""The bounds on what a rule file, a saved state and an action text may ask of the engine.

Rule files, states and action texts come from strangers, so every size, depth and loop is bounded
before anything is built: a file that goes past a limit is refused with a `RuleError` naming the
limit, at the line that goes past it.  Each stage imports the limits it enforces from here, and the
language reference (docs/language.md, "Limits") lists them in one table; keep the two in step.
"""

from __future__ import annotations

__all__ = [
    "MAX_SOURCE_BYTES",
    "MAX_NUMBER",
    "MAX_NESTING",
    "MAX_DEFINE_DEPTH",
    "MAX_EVALUATION_DEPTH",
    "MAX_EXTENDS_DEPTH",
    "MAX_EXTENDS_NAME",
    "MAX_PLAYERS",
    "MAX_DICE",
    "MAX_CARDS",
    "MAX_FACES",
    "MAX_CIRCLES",
    "MAX_LINE_CIRCLES",
    "MAX_BOARD_LINE_CIRCLES",
    "MAX_ZONES",
    "MAX_ALL_ZONES",
    "MAX_ZONE_ROOM",
    "MAX_VARIANTS",
    "MAX_CHOICES",
    "MAX_SUBSET",
    "MAX_LIST_LENGTH",
    "WORK_BUDGET",
    "MAX_PHASE_DEPTH",
    "MAX_ACTION_TEXT",
    "MAX_STATE_BYTES",
    "MAX_HISTORY",
    "MAX_REPLAY_WORK",
    "MAX_PLAYOUT_DECISIONS",
]

#: A rule file larger than this is refused before it is parsed.
MAX_SOURCE_BYTES = 512 * 1024
#: Every number, written in a rule or worked out while playing, lies within ±MAX_NUMBER.
MAX_NUMBER = 10**15
#: Blocks inside blocks, the operators of one expression, brackets inside brackets: each at most this deep.
MAX_NESTING = 100
#: A define may build on a define that builds on another… at most this many deep.
MAX_DEFINE_DEPTH = 50
#: An expression with the defines it uses written out in place nests at most this deep (expressions
#: run as nested calls, so this keeps them within Python's own recursion limit).
MAX_EVALUATION_DEPTH = 250
#: A file extends a file that extends another… at most this many deep.
MAX_EXTENDS_DEPTH = 16
#: The longest name `extends "…"` may give.
MAX_EXTENDS_NAME = 200
#: The most players a game may be for.
MAX_PLAYERS = 64
#: The most dice a game may roll.
MAX_DICE = 1000
#: The most cards (tiles, tokens) of all card sets together.
MAX_CARDS = 10_000
#: The most faces a die may have.
MAX_FACES = 1000
#: The most circles on a board.
MAX_CIRCLES = 1000
#: The most circles one line of a board passes through.
MAX_LINE_CIRCLES = 100
#: The most circles the lines of a board pass through together (a circle counted once for every line
#: through it): what a piece may slide along is worked out from them beforehand.
MAX_BOARD_LINE_CIRCLES = 10_000
#: The most zones in a family of zones (`zones from 1 to N`).
MAX_ZONES = 1000
#: The most zones a game may have in all: its own zones, every zone of each of its families, and each
#: player's zones once for every seat (at the most players the game allows).
MAX_ALL_ZONES = 10_000
#: The most cards the zones cards can be moved or drawn into may hold together, each counted as
#: room for every card of its kind (of every kind for a zone of any card), once for every zone of a
#: family and each player's once for every seat: what a position of the game kernel keeps.
MAX_ZONE_ROOM = 1 << 20
#: The most variants (`variant NAME:` blocks) a rule file may have: `fishrules check` checks every one.
MAX_VARIANTS = 100
#: The most actions one decision may offer (every combination of every parameter).
MAX_CHOICES = 65_536
#: `some X` chooses among at most this many things (2**16 ways).
MAX_SUBSET = 16
#: The longest a list of numbers may grow.
MAX_LIST_LENGTH = 10_000
#: The work (rule steps plus things looked at in collections) one call may do before the rules are
#: declared to loop without end.
WORK_BUDGET = 1_000_000
#: Phases playing phases at most this many deep.
MAX_PHASE_DEPTH = 256
#: The longest action text `apply` reads.
MAX_ACTION_TEXT = 1000
#: The largest saved state `Game.state_from_json` reads.
MAX_STATE_BYTES = 16 * 1024 * 1024
#: The most actions a saved state or a replayed history may hold.
MAX_HISTORY = 1_000_000
#: The work replaying one saved state or history may do in all (a few kilobytes of history must
#: not keep a server busy for minutes).
MAX_REPLAY_WORK = 50 * WORK_BUDGET
#: The most decisions a random playout (`Game.simulate`, `fishrules simulate`, a bot's rollout) plays
#: before it declares that the game does not end (rules whose phases loop for ever).
MAX_PLAYOUT_DECISIONS = 1_000_000

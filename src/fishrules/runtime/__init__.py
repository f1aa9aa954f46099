"""Stage 5: running a compiled program.  `State` is one position of one game.

A state is plain data: game-wide values `g` (options first), per-player values `p`, the faces the
dice show, a stack of frames `[block, pc, locals]` saying where the rules are, the history of action
texts, and the random generator (a seed and a count of draws).  Values inside are ints, strings,
booleans, None and tuples only, so `clone` is a few list copies and JSON round-trips exactly.

The interpreter runs instructions until the rules wait for a decision (`current` is a player) or
for chance (`current` is CHANCE).  With a seeded generator chance is resolved on the spot, and still
recorded in the history; with `chance="manual"` the caller picks each outcome.

`State` is built in layers, one module each, and the name of a module says what it holds (each
layer calls only what it or a layer below defines; fields.py draws the stack):

- `fields`: the slots of a state, each with its type;
- `machine`: the interpreter loop (`_run`), faults turned into `RuleError`s, undoing a call that
  failed, `play again`, where the rules stand (the phase stack), the scores and winners;
- `record`: the history and the events (`Log`), and what each player may read of them;
- `zones`: cards moving between zones, draws, the `where` and `up` bookkeeping;
- `chance`: the state's random generator;
- `decisions`: who acts, the legal actions (`Legal`, `Action`) and chance outcomes, applying one,
  reading action texts, a move typed (`Move`) as it crosses to and from the game kernel;
- `views`: what a player may see (`view`);
- `saving`: `to_dict`/`to_json`, reading a saved state back, replaying a history;
- `playout`: `State.playout`, the fast path of simulations (`Playout`);
- `state`: `State` itself: creating a game, copying, equality;
- `determinize`: a state a player cannot tell from the real one (`State.determinize`);
- `text`: values written out for JSON and messages;
- `contract`: what the code the compiler writes may use of a state, and the helpers it may call.
"""

# What other modules and the tests import from `fishrules.runtime` (besides `__all__`): `Legal`,
# `Log`, `Playout`, `empty_draws`, `_zones_of`, and a move as it crosses to and from the game
# kernel: `Move`, `move_of` (a legal Action's), `play_move` (one applied to a state),
# `recorded_moves` (those of a state's history).
from ..compiler import CHANCE, SIMULTANEOUS
from .decisions import Action, Legal, Move, move_of, play_move, recorded_moves
from .playout import Playout
from .record import Log
from .state import State
from .zones import _zones_of, empty_draws

__all__ = ["State", "Action", "CHANCE", "SIMULTANEOUS"]

"""Stage 5, running: `State`, one position of one game.

`State` is the layers of this package together (see fields.py): the machine, the record, zones,
chance, decisions, views, saving and playouts.  This module adds creating a game (`_new`),
copying (`clone`) and equality, and the doors to what is built on states elsewhere
(determinization, the numbered spaces of learning code).
"""

from __future__ import annotations

import random
from typing import Optional

from ..compiler import Program
from ..errors import Diagnostic, FishrulesError, RuleError
from ..limits import MAX_DICE
from .decisions import Action
from .determinize import Determinizer
from .playout import Playouts
from .record import Log
from .saving import Saving
from .views import Views


class State(Views, Saving, Playouts):
    """A position in a game.  Create one with `Game.start` (or `Game.replay`,
    `Game.state_from_json`).

    Everything that makes the position is plain data — values, zones, dice, where the rules are
    (a stack of frames), the random generator (seed and draws) — so `clone` is cheap and JSON is
    exact.  `history` is the full record of every action's text, chance included, for replays; a
    player may only be shown `view(player)` and `history_for(player)`.  `n` is the number of
    players and `game` the `Game` this is a state of."""

    __slots__ = ()  # its slots are declared by `Fields` (fields.py)

    # ---- creation --------------------------------------------------------------------------------

    @classmethod
    def _new(cls, game, players: int, options: dict, seed: Optional[int], manual: bool,
             quiet: Optional[random.Random] = None, count_rules: bool = False) -> "State":
        """A new game.  With `quiet` (a playout's generator) it is set up for a playout at once:
        no history or events, chance from that generator, the first legal actions not listed."""
        prog: Program = game.program
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
            span = prog.model.dice.span if prog.model.dice is not None else None
            try:
                count = prog.dice_count(s, ())
            except Exception as exc:  # (a count of options past the largest number: said, not a traceback)
                raise s._fault(exc, span, "while setting up the game") from None
            if not isinstance(count, int) or count < 0 or count > MAX_DICE:
                raise RuleError(Diagnostic(span, f"the number of dice must be 0 to {MAX_DICE:,}, not {count:,}"))
            s.dice_ids = tuple(range(count))
        s._history = Log() if quiet is None else None
        s.redact = ()  # (history index, what others read, who reads the real text), in order
        s.events = Log() if quiet is None else None  # what happened, as raw records: see `events_for`
        s._fast = None if quiet is None else quiet.randrange  # a playout's generator, not the seeded one
        s._chances = 0  # chance outcomes a playout resolved
        s.fires = [0] * len(prog.rules) if count_rules else None  # see `rules_fired`
        s._kernel_origin = None  # a determinization: how to build its kernel state (see determinize.py)
        s._ks = None
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

    @property
    def rules_fired(self) -> Optional[dict[str, int]]:
        """How often each named rule (`rule "…":`) has fired so far, by name, in a game started
        with `count_rules=True` (else None; a clone counts nothing).  A rule whose lines are one
        `if` (with `otherwise if`s, no `otherwise`) fires when one of its conditions holds; any other
        rule fires each time the game reaches its lines.  Not part of the position."""
        if self.fires is None:
            return None
        return {name: self.fires[k] for name, k in self.prog.rules.items()}

    # ---- the score in its parts -------------------------------------------------------------------

    def score_parts(self) -> list[list[tuple[str, int]]]:
        """Each player's score in its parts, as the rules name them (`score "victory": …`, one
        line a part): for each player, a list of (the part's name, its value) in the rules'
        order, adding up to that player's `scores()`.  Rules with no `score` line have no parts
        (every score is 0).  Like `scores()`, it reads the whole position, hidden values included:
        a part that reads what a player may not see is not for that player's eyes."""
        prog = self.prog
        terms = list(zip(prog.model.scores, prog.score_terms))
        self._work = 0
        out: list[list[tuple[str, int]]] = []
        term = None
        try:
            for p in range(self.n):
                row = []
                for term, f in terms:
                    row.append((term.name, f(self, p)))
                out.append(row)
        except FishrulesError:
            raise
        except Exception as exc:  # said at the part that went wrong
            raise self._fault(exc, term.span if term is not None else None, "while working out the scores") from None
        return out

    # ---- determinization (for bots that search): see determinize.py ----------------------------

    def determinize(self, player: Optional[int], rng: random.Random, chance: Optional[str] = None) -> "State":
        """A full state that `player` cannot tell from this one: every card hidden from them
        redistributed at random among the places it could be (given what they have seen), the
        secret simultaneous choices of others drawn again, and a new seed for chance to come, all
        drawn with `rng`.  Its view and `history_for(player)` are this state's; its record holds
        only what `player` saw, so it cannot be replayed.  `chance` ("seeded" or "manual") says how
        it resolves chance from now on (by default as this state does).  For many draws from one
        position, `fishrules.determinize.Determinizer(state, player).sample(rng)` works out what
        the player knows once."""
        return Determinizer(self, player).sample(rng, chance)

    # ---- copying, equality -----------------------------------------------------------------------

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
        c._ks = None
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

    def __copy__(self) -> "State":
        # The default copy shared the state's lists: playing on the copy changed the original.
        return self.clone()

    def __deepcopy__(self, memo: dict) -> "State":
        return self.clone()

    def __reduce__(self) -> tuple:
        """Pickling a state saves it as `to_json` does and reads it back with the game's
        `state_from_json` (so what cannot be saved, a played-out state, cannot be pickled either,
        with `to_json`'s words).  The game is pickled by its rules (`Game.__reduce__`)."""
        return (self.game.state_from_json, (self.to_json(),))

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
        return self.prog.identity == other.prog.identity and self._key() == other._key()

    def __hash__(self) -> int:
        # Of the record only (equal states have equal records): a state deciding on the game kernel
        # (fishrules.kernel.apistate) hashes the same from its own record, without the engine's fields.
        return hash((self.n, tuple(self._history.list()) if self._history is not None else None, tuple(self.redact)))

    # ---- numbers for learning code (fishrules.spaces) --------------------------------------------
    # The game makes the action space and the observation layout (`Game.action_space`,
    # `Game.observation_spec`): the runtime does not import fishrules.spaces, which builds on it.

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
        return self.game.observation_spec(self.n, self._options()).encode(self.view(player))

    def _action_space(self):
        return self.game.action_space(self.n, self._options())

    def _options(self) -> dict:
        """The options of this game, by name."""
        return {o.name: self.g[o.slot] for o in self.prog.model.options}

    def __repr__(self) -> str:
        where = "over" if self.is_over else f"current={self.cur!r}"
        n = len(self._history) if self._history is not None else "?"
        return f"<State {self.prog.model.title!r} {self.n} players, {where}, {n} actions>"

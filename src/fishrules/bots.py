"""Bots that play any ruleset, reading only what their player may know.

    import random, fishrules
    from fishrules.bots import ISMCTSBot, RandomBot

    game = fishrules.load("my-game.fish")
    state = game.start(players=2, seed=1)
    bots = [ISMCTSBot(iterations=200, seed=1), RandomBot(seed=2)]
    while not state.is_over:
        for player in state.waiting:           # one, or several at a simultaneous choice
            state.apply(bots[player].choose(state, player))

A bot is given the whole state, but it reads it only through a `Seat`: the player's `view`, their
`history`, their legal actions, and determinizations (`State.determinize`: full states drawn among
those the player cannot tell from the real one).  Nothing else of the state reaches a bot's code,
so a bot cannot know what its player may not — a test plays every bot on twin states that differ
only in what is hidden from it, and checks that it decides the same.

Every bot takes a `seed`; its choice at a position depends only on the seed, the player and what
the player knows there, so the same seed makes the same decisions (with an `iterations` budget; a
`seconds` budget depends on the machine's speed).  A bot considers every legal action, those that
break a rule on purpose (`Action.breaks`, listed last) included: the search takes them where they
pay.

- `RandomBot`: a legal action uniformly at random.
- `GreedyBot`: one ply: each action tried on a few determinizations, the one that leaves the
  player's score furthest ahead of the best other score (a win counts most).
- `MCTSBot`: UCT (Monte Carlo tree search, random playouts to the end, rewarded by wins and, a little, by score) on one
  determinization — the state itself in a game with nothing hidden.  Chance is sampled by the
  rules' probabilities.
- `ISMCTSBot`: information-set MCTS (single-observer, Cowling, Powley and Whitehouse 2012): every
  iteration searches a new determinization, one tree gathers them all.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from typing import TYPE_CHECKING, Optional

from .compiler import CHANCE, SIMULTANEOUS
from .determinize import Determinizer
from .errors import OptionError

if TYPE_CHECKING:  # pragma: no cover
    from .runtime import Action, State

__all__ = ["Seat", "Bot", "RandomBot", "GreedyBot", "MCTSBot", "ISMCTSBot", "BOTS", "make_bot"]


class Seat:
    """What a bot may read of a state: its player's view, history, legal actions and
    determinizations.  Bots get this, never the state."""

    __slots__ = ("_state", "player", "players", "title", "_det")  # bots read only through the methods

    def __init__(self, state: "State", player: int):
        self._state = state
        self.player = player
        self.players = state.n
        self.title = state.game.title
        self._det: Optional[Determinizer] = None

    def view(self) -> dict:
        return self._state.view(self.player)

    def history(self) -> list[str]:
        return self._state.history_for(self.player)

    def legal_actions(self) -> list:
        return self._state.legal_actions(self.player)

    def determinize(self, rng: random.Random, chance: Optional[str] = None) -> "State":
        """A full state drawn among those the player cannot tell from the real one (of a state on
        the kernel, a state on the kernel: `State.determinize`)."""
        from .kernel.apistate import KState

        if type(self._state) is KState:
            return self._state.determinize(self.player, rng, chance)
        if self._det is None:
            self._det = Determinizer(self._state, self.player)
        return self._det.sample(rng, chance)

    def kernel_worlds(self):
        """Determinizations drawn straight into kernel states (`fishrules.kernel.search.Worlds`),
        or None where the kernel cannot take this position (a state with no whole history, others'
        secret choices made in part, rules the kernel does not run).  Chance the caller's is drawn
        in the search's worlds."""
        from .kernel import KFault
        from .kernel.search import Worlds

        try:
            return Worlds(self._state.game.kernel, self._state, self.player)
        except (KFault, OptionError):
            return None


class Bot:
    """A player.  `choose(state, player)` returns one of `state.legal_actions(player)`."""

    name = "bot"

    def __init__(self, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise OptionError(f"a bot's seed is a whole number, not {seed!r}")
        self.seed = seed

    def choose(self, state: "State", player: Optional[int] = None) -> "Action":
        """The action this bot takes for `player` (by default the player to act)."""
        if player is None:
            player = state.current
            if player == SIMULTANEOUS:
                raise OptionError("several players choose at once here: say which one the bot plays (state.waiting)")
            if player == CHANCE or player is None:
                raise OptionError("no player is to act now (chance, or the game is over)")
        if player not in state.waiting:
            raise OptionError(f"p{player} has nothing to choose now")
        seat = Seat(state, player)
        legal = seat.legal_actions()
        if len(legal) == 1:
            return legal[0]
        history = seat.history()
        digest = hashlib.sha256(f"{self.seed}/{player}/{len(history)}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        text = self._choose(seat, legal, rng)
        return next(a for a in legal if a.text == text)

    def _choose(self, seat: Seat, legal: list, rng: random.Random) -> str:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomBot(Bot):
    """A legal action uniformly at random (rule-breaking ones included)."""

    name = "random"

    def _choose(self, seat, legal, rng):
        return legal[rng.randrange(len(legal))].text


def _apply_text(d: "State", player: int, text: str) -> None:
    d.apply(text if d.current != SIMULTANEOUS or text.startswith(f"p{player}:") else f"p{player}: {text}")


def _reward(winners, scores) -> list[float]:
    """What a finished game is worth to each player: 9/10 for winning (shared among the winners),
    and 1/10 for where the score lies between the lowest and the highest (so that a search with a
    small budget still learns from games it does not win)."""
    share = 0.9 / len(winners) if winners else 0.0
    lo, hi = min(scores), max(scores)
    span = hi - lo
    return [(share if p in winners else 0.0) + (0.1 * (x - lo) / span if span else 0.05)
            for p, x in enumerate(scores)]


class GreedyBot(Bot):
    """One ply: the action that leaves the player's score furthest ahead of the best other
    score, averaged over `samples` determinizations (chance after the action included); winning
    the game outright counts most."""

    name = "greedy"

    def __init__(self, seed: int = 0, samples: int = 4):
        super().__init__(seed)
        if not isinstance(samples, int) or samples < 1:
            raise OptionError(f"samples must be a whole number, 1 or more, not {samples!r}")
        self.samples = samples

    def _choose(self, seat, legal, rng):
        me = seat.player
        worlds = [seat.determinize(rng, chance="seeded") for _ in range(self.samples)]
        best, best_value = [], -math.inf
        for a in legal:
            total = 0.0
            for w in worlds:
                d = w.clone()
                _apply_text(d, me, a.text)
                sc = d.scores()
                others = max((x for p, x in enumerate(sc) if p != me), default=0)
                total += sc[me] - others
                if d.is_over and me in d.winners():
                    total += 1e6 / len(d.winners())
            if total > best_value + 1e-9:
                best, best_value = [a.text], total
            elif abs(total - best_value) <= 1e-9:
                best.append(a.text)
        return best[rng.randrange(len(best))]


class _Node:
    __slots__ = ("children", "visits", "wins", "avail")

    def __init__(self, players: int):
        self.children: dict = {}
        self.visits = 0
        self.wins = [0.0] * players
        self.avail = 0


class MCTSBot(Bot):
    """UCT on one determinization (the state itself when nothing is hidden).  Each iteration
    walks down the tree by UCB1 (exploration constant `c`), adds one node, plays at random to the
    end (`State.playout`) and credits the winners.  Chance is sampled by the rules' probabilities
    and is not a tree level (open loop: every iteration rolls its own dice); a simultaneous choice is searched one player after the
    other, the searching player first.  Budget: `iterations`, or `seconds` of thinking (then
    decisions depend on the machine's speed).  The move played is the most visited."""

    name = "mcts"
    _fresh_world = False

    def __init__(self, seed: int = 0, iterations: int = 200, seconds: Optional[float] = None, c: float = 0.7):
        super().__init__(seed)
        if seconds is None and (not isinstance(iterations, int) or iterations < 1):
            raise OptionError(f"iterations must be a whole number, 1 or more, not {iterations!r}")
        if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
            raise OptionError(f"seconds must be a positive number, not {seconds!r}")
        self.iterations = iterations
        self.seconds = seconds
        self.c = c

    def __repr__(self) -> str:
        budget = f"seconds={self.seconds}" if self.seconds is not None else f"iterations={self.iterations}"
        return f"{type(self).__name__}(seed={self.seed}, {budget})"

    def _choose(self, seat, legal, rng):
        worlds = seat.kernel_worlds()
        if worlds is not None:
            from .kernel import KFault
            from .kernel.search import uct

            try:
                stats = uct(worlds, seat.player, seat.players, self.iterations, self.seconds, self.c,
                            random.Random(rng.getrandbits(64)), self._fresh_world, _reward)
            except KFault:
                stats = None  # a rollout the kernel cannot finish: search on the engine's machine
            if stats is not None:
                texts = {a.text for a in legal}
                ranked = [(v, w, t) for t, (v, w) in stats.items() if t in texts]
                if ranked:
                    most = max(ranked)[:2]
                    return next(t for v, w, t in ranked if (v, w) == most)
        return self._choose_on_engine(seat, legal, rng)

    def _choose_on_engine(self, seat, legal, rng):
        me, n = seat.player, seat.players
        root = _Node(n)
        # Seeded chance: each world has a fresh seed from `rng`, so chance is drawn anew every
        # iteration (and fast: the playouts resolve it with their own generator).
        world = None if self._fresh_world else seat.determinize(rng, chance="seeded")
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        it = 0
        while (it < self.iterations) if deadline is None else (it == 0 or time.perf_counter() < deadline):
            it += 1
            if world is None:
                d = seat.determinize(rng, chance="seeded")
            else:
                d = world.clone()
                d.seed, d.draws = rng.getrandbits(63), 0
            self._iterate(root, d, me, rng)
        texts = {a.text for a in legal}
        ranked = [(child.visits, child.wins[me], t) for t, child in root.children.items() if t in texts]
        if not ranked:
            return legal[rng.randrange(len(legal))].text
        most = max(ranked)[:2]
        return next(t for v, w, t in ranked if (v, w) == most)

    def _iterate(self, root: _Node, d: "State", me: int, rng: random.Random) -> None:
        node, path, c = root, [root], self.c
        while True:
            if d.is_over:
                break
            cur = d.current
            if cur == SIMULTANEOUS:
                waiting = d.waiting
                actor = me if me in waiting else waiting[0]
            else:
                actor = cur
            actions = d.legal_actions(actor)
            children = node.children
            untried = [a for a in actions if a.text not in children]
            for a in actions:
                ch = children.get(a.text)
                if ch is not None:
                    ch.avail += 1
            if untried:
                a = untried[rng.randrange(len(untried))]
                child = children[a.text] = _Node(d.n)
                child.avail = 1
                d.apply(a)
                path.append(child)
                break
            best, best_value = None, -math.inf
            for a in actions:
                ch = children[a.text]
                value = ch.wins[actor] / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if value > best_value:
                    best, best_value = a, value
            node = children[best.text]
            d.apply(best)
            path.append(node)
        if d.is_over:
            reward = _reward(d.winners(), d.scores())
        else:
            result = d.playout(rng)
            reward = _reward(result.winners, result.scores)
        for nd in path:
            nd.visits += 1
            w = nd.wins
            for p, r in enumerate(reward):
                w[p] += r


class ISMCTSBot(MCTSBot):
    """Information-set MCTS: like `MCTSBot`, but every iteration plays on a new determinization,
    so the tree's statistics are averaged over the positions the player holds possible (nodes are
    action texts; a child is scored against how often it was available)."""

    name = "ismcts"
    _fresh_world = True


BOTS = {"random": RandomBot, "greedy": GreedyBot, "mcts": MCTSBot, "ismcts": ISMCTSBot}


def make_bot(kind: str, seed: int = 0, **budget) -> Bot:
    """A bot by name (`random`, `greedy`, `mcts`, `ismcts`)."""
    cls = BOTS.get(kind)
    if cls is None:
        raise OptionError(f"there is no bot {kind!r} (the bots: {', '.join(BOTS)})")
    if cls in (RandomBot,):
        return cls(seed)
    if cls is GreedyBot:
        return cls(seed, **{k: v for k, v in budget.items() if k == "samples"})
    return cls(seed, **{k: v for k, v in budget.items() if k in ("iterations", "seconds", "c")})


# ---- the bots at a table ------------------------------------------------------------------------
# `fishrules play --bot` and the bots of `fishrules serve`.  `bot_choice` is the one place a seat's
# bot is asked for a move, so that the bots above can take its place.

#: The most actions the greedy bot tries at one decision.
GREEDY_LOOKS = 1000
#: The search bots' budget at the table: iterations per decision (a second or less in every game).
PLAY_ITERATIONS = 100


def bot_rng(seed: Optional[int], position: int) -> random.Random:
    """The bots' generator at a position: derived from the game's seed and how many actions were
    played, so that a game resumed from its log goes on exactly as it would have."""
    return random.Random(f"{seed}/{position}")


def bot_choice(kind: str, state: "State", player: int, rng: random.Random):
    """The action the bot `kind` takes for `player` now.

    random: any legal action, equally likely.  greedy: the action after which its score leads the
    best other score by the most, tried on a determinization (what `player` may know, the rest
    drawn anew) before any dice or cards that follow it; ties at random.  mcts, ismcts: `fishrules.bots`, with PLAY_ITERATIONS
    and a seed drawn from `rng` (so a resumed game goes on alike), reading only `player`'s view."""
    if kind in ("mcts", "ismcts"):
        return make_bot(kind, seed=rng.getrandbits(63), iterations=PLAY_ITERATIONS).choose(state, player)
    acts = state.legal_actions(player) if state.current == SIMULTANEOUS else state.legal_actions()
    if kind != "greedy" or len(acts) == 1:
        return acts[rng.randrange(len(acts))]
    if len(acts) > GREEDY_LOOKS:  # a turn of very many ways: it looks at a random part of them
        acts = rng.sample(acts, GREEDY_LOOKS)
    best, best_lead = [], None
    # Tried on a state the player cannot tell from the real one (others' hidden cards drawn anew),
    # with manual chance: it stops at the next chance node, so the dice to come stay unknown.
    seen = state.determinize(player, rng, chance="manual")
    for a in acts:
        trial = seen.clone()
        trial.apply(a.text)
        scores = trial.scores()
        lead = scores[player] - max((x for p, x in enumerate(scores) if p != player), default=0)
        if best_lead is None or lead > best_lead:
            best, best_lead = [a], lead
        elif lead == best_lead:
            best.append(a)
    return best[rng.randrange(len(best))]

"""Tree search on the kernel: what the MCTS and ISMCTS bots run when the kernel can play the game.

`Worlds(kernel, state, player)` draws determinizations straight into kernel states: from a
`KState`'s own position and record (kernel/determinize.py; an engine state's is replayed into the
kernel once, `Kernel.state_of`), each sample puts the cards the player cannot tell apart into the
places they could be, exactly as `State.determinize` does (the same classes, places and shuffles),
with new seeds for chance and for the rollout's choices (chance drawn, even in a game whose chance
is the caller's).  `uct` is the bots' UCT walk (fishrules.bots.MCTSBot): down
the tree by UCB1 over the moves, one node added, a random playout to the end on the kernel,
the winners credited.  At a simultaneous choice the players are searched one after the other, the
searching player first, each choice kept in the position as it is made (the backend's `choose`:
the last one runs on); a rollout from a choice made in part chooses for the others still to choose.  The tree's nodes
are the kernel's moves themselves (block, actor and values): no move is written as text but the
root's children, in the answer.

Nothing here reads what the player may not know: a sample's hidden cards are drawn, not copied;
the rest of the state is what the determinization of an engine state keeps too.
"""

from __future__ import annotations

import math
import random
import time
from array import array
from typing import Any, Callable, Optional

from ..determinize import Determinizer
from ..errors import OptionError
from ..runtime.determinize import PLAYED_OUT
from ..runtime.text import check_seat
from . import abi as A
from .abi import FAULT_CAPACITY
from .determinize import KDeterminizer, Unseen, rechoose
from .pyruntime import KFault

__all__ = ["Worlds", "uct"]


class Worlds:
    """Determinizations of one position for one player, as kernel states: of a `KState` of this
    kernel, straight from its position and record (kernel/determinize.py); of a state of the
    engine's machine, from the engine's determinization and the position its record replays to
    (`Kernel.state_of`).  Others' secret choices made so far at a choice made together are drawn
    again in each world, among their legal ones there (`KDeterminizer.choices`).  KFault where the
    kernel cannot take the position: a chance node, who may look at a zone the kernel cannot say,
    and of an engine state others' secret choices."""

    def __init__(self, kernel: Any, state: Any, player: Optional[int]):
        from .apistate import _KERNEL, _PLAYED, _S, _SLOTS, KState

        ks = _SLOTS["_ks"].__get__(state) if type(state) is KState else None
        if ks is not None and kernel.holds(ks[_KERNEL]):  # (a state that grew a list: its roomier kernel)
            kernel = ks[_KERNEL]
        self.kernel = kernel
        lay = kernel.program.layout
        if ks is not None and ks[_KERNEL] is kernel:
            if ks[_PLAYED] is not None:
                raise OptionError(PLAYED_OUT)
            if ks[_S][A.H_CUR] == A.CUR_CHANCE:
                raise KFault(FAULT_CAPACITY)  # chance to give: the engine's way
            if player is not None:
                check_seat(player, state.n)
            try:
                det = KDeterminizer(kernel, ks[_S], state._record(), player)
            except Unseen:
                raise KFault(FAULT_CAPACITY) from None
            self.base = kernel.copy_state(ks[_S])
            groups = det.groups
            # the others' secret choices made so far at a choice made together: drawn again in
            # each world, among their legal ones there (as the engine's determinization does)
            self.choices = [(k, p) for k, p, _ in det.choices]
        else:
            self.choices = []
            engine = Determinizer(state, player)
            if engine.choices:
                raise KFault(FAULT_CAPACITY)  # others' secret choices at a simultaneous decision: the engine's way
            self.base = kernel.state_of(state)
            G = state.prog.G
            # the kernel's zone id of each engine zone key (a game zone's key is its slot, a player's
            # G + slot * 64 + seat: compiler/program.py)
            zid_of = {slot if is_game else G + slot * 64 + seat: zid
                      for zid, (is_game, slot, seat) in enumerate(lay.zone_names)}
            zid_of[-1] = -1
            groups = [([(zid_of[key], i) for key, i in places], cards) for places, cards in engine.groups]
        self.base[A.H_MANUAL] = 0  # the search's chance is drawn, whoever gives the real game's
        self.groups = []
        for places, cards in groups:
            slots = [None if zid < 0 else (zid, lay.zones[zid][0] + 1 + i) for zid, i in places]
            self.groups.append((slots, list(cards)))
        self.where = lay.where

    def copy(self, S):
        return array("q", S) if isinstance(S, array) else list(S)

    def sample(self, rng: random.Random, base=None) -> Any:
        """One determinization (from `base`, by default the real position), new seeds drawn."""
        S = self.copy(self.base if base is None else base)
        if base is None:
            for slots, cards in self.groups:
                order = cards[:]
                rng.shuffle(order)
                for slot, c in zip(slots, order):
                    if slot is None:
                        S[self.where + c] = -1
                    else:
                        zid, at = slot
                        S[at] = c
                        S[self.where + c] = zid
            be = self.kernel.backend
            for k, p in self.choices:
                moves = be.moves(S, p)
                rechoose(be, S, k, moves[rng.randrange(len(moves))])
        S[A.H_SEED], S[A.H_DRAWS] = rng.getrandbits(63), 0
        S[A.H_DSEED], S[A.H_DDRAWS] = rng.getrandbits(63), 0
        S[A.H_DECISIONS] = 0
        return S


class _Node:
    __slots__ = ("children", "visits", "wins", "avail")

    def __init__(self, players: int):
        self.children: dict = {}
        self.visits = 0
        self.wins = [0.0] * players
        self.avail = 0


def uct(worlds: Worlds, me: int, players: int, iterations: int, seconds: Optional[float], c: float,
        rng: random.Random, fresh: bool, reward: Callable) -> dict:
    """The root's children after the search: {action text: (visits, my wins)}."""
    kernel = worlds.kernel
    be, bd = kernel.backend, kernel.boundary
    root = _Node(players)
    root_together = worlds.base[A.H_CUR] == A.CUR_SIMUL
    world = None if fresh else worlds.sample(rng)
    deadline = time.perf_counter() + seconds if seconds is not None else None
    it = 0
    while (it < iterations) if deadline is None else (it == 0 or time.perf_counter() < deadline):
        it += 1
        S = worlds.sample(rng) if fresh else worlds.sample(rng, world)
        node, path = root, [root]
        while True:
            cur = S[A.H_CUR]
            if cur == A.CUR_OVER:
                break
            together = cur == A.CUR_SIMUL
            if together:  # (each choice is kept in the position as it is made: `choose`)
                left = be.waiting_together(S)
                actor = me if me in left else left[0]
            else:
                actor = cur
            # a child is keyed by its move itself (block, actor, values), as the engine's
            # tree keys it by the move's text: one move, one text
            moves = be.moves(S, actor)
            children = node.children
            untried = [i for i, m in enumerate(moves) if m not in children]
            for m in moves:
                ch = children.get(m)
                if ch is not None:
                    ch.avail += 1
            if untried:
                i = untried[rng.randrange(len(untried))]
                child = children[moves[i]] = _Node(players)
                child.avail = 1
                _play(be, S, moves[i], together)
                path.append(child)
                break
            best, best_value = 0, -math.inf
            for i, m in enumerate(moves):
                ch = children[m]
                value = ch.wins[actor] / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if value > best_value:
                    best, best_value = i, value
            node = children[moves[best]]
            _play(be, S, moves[best], together)
            path.append(node)
        if S[A.H_CUR] != A.CUR_OVER:
            be.playout(S)  # (at a choice made in part, the others still to choose choose at random)
        result = reward(be.winners(S), be.scores(S))
        for nd in path:
            nd.visits += 1
            w = nd.wins
            for p, r in enumerate(result):
                w[p] += r
    return {bd.text(m, root_together): (ch.visits, ch.wins[me]) for m, ch in root.children.items()}


def _play(be, S, move, together: bool) -> None:
    """Play `move`; at a simultaneous choice, keep it in the position (the last one runs on)."""
    if together:
        be.choose(S, move)
    else:
        be.play(S, move)

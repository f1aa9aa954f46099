"""Positions of every bundled game for the determinization and bot tests: random legal play,
whoever is to act, stopping along the way."""

from __future__ import annotations

import random
from typing import Iterator, Optional

import fishrules
from fishrules import SIMULTANEOUS


def step(state: fishrules.State, rng: random.Random) -> None:
    """One random legal action (at a simultaneous choice, for the first player still choosing)."""
    who = state.waiting[0] if state.current == SIMULTANEOUS else None
    actions = state.legal_actions(who)
    state.apply(actions[rng.randrange(len(actions))])


def positions(state: fishrules.State, rng: random.Random, every: int, most: Optional[int] = None) -> Iterator[fishrules.State]:
    """The state itself every `every` actions of a random game, to its end (the same object,
    played on between yields: clone it to keep one)."""
    k = 0
    while not state.is_over:
        if k % every == 0:
            yield state
            most = None if most is None else most - 1
            if most == 0:
                return
        step(state, rng)
        k += 1
    yield state


def layout(state: fishrules.State) -> dict:
    """Every zone's cards as labels, and the box's as a sorted list: the whole position of the
    cards, with identical cards not told apart."""
    labels = state.prog.card_labels
    out = {}
    for key in sorted({w for w in state.where if w >= 0} | set(_zone_keys(state))):
        out[state.prog.zone_name(key)] = [labels[c] for c in state._zget(key)]
    out["the box"] = sorted(labels[c] for c, w in enumerate(state.where) if w < 0)
    return out


def _zone_keys(state):
    from fishrules.runtime import _zones_of

    return [k for k, _ in _zones_of(state)]


def player_counts(game) -> list[int]:
    return sorted({game.min_players, (game.min_players + game.max_players) // 2, game.max_players})


def swapped_draw_twins(game, state: fishrules.State, player: int, most: int, where=None) -> list:
    """Up to `most` twins of `state` made without determinization: two cards drawn face down where
    `player` could not see them swapped in the history, kept when `player`'s view and events are
    unchanged but the cards do lie elsewhere (`where`: where a state's cards lie; `layout`)."""
    where = where or layout
    hist = state.history
    hidden = [i for i, _, aud in state.redact if player not in aud and hist[i].startswith("draw ")]
    twins: list = []
    for a in hidden:
        for b in hidden:
            if a < b and hist[a] != hist[b] and len(twins) < most:
                h = list(hist)
                h[a], h[b] = h[b], h[a]
                try:
                    t = game.replay(h, players=state.n)
                except fishrules.StateError:
                    continue
                if (t.view(player) == state.view(player) and t.events_for(player) == state.events_for(player)
                        and where(t) != where(state)):
                    twins.append(t)
    return twins

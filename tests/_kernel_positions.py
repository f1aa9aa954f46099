"""Positions of KStates for the determinization and bot tests, read from the kernel's position
without making the state the engine's (reading an engine field of a KState replays it there)."""

from __future__ import annotations

import collections
import random

import fishrules

from ._positions import step, swapped_draw_twins


def kernel_layout(state) -> dict:
    """Every zone's cards as labels (by kernel zone id) and the box's, sorted, read from a KState's
    kernel position without making it the engine's; the cards are checked to be where `where`
    says, each once (a legal position: cards conserved)."""
    from fishrules.kernel.apistate import _SLOTS, KState

    assert type(state) is KState
    from fishrules.forms import forms_of

    kernel, S = _SLOTS["_ks"].__get__(state)[:2]
    lay = kernel.program.layout
    forms = forms_of(state.game._model)
    labels = forms.card_labels
    out: dict = {}
    seen = collections.Counter()
    for zid, (at, _) in enumerate(lay.zones):
        cards = list(S[at + 1:at + 1 + S[at]])
        for c in cards:
            assert S[lay.where + c] == zid
            seen[c] += 1
        out[forms.zone_name(*lay.zone_names[zid])] = [labels[c] for c in cards]
    box = [c for c in range(lay.ncards) if S[lay.where + c] < 0]
    assert not set(box) & set(seen) and all(k == 1 for k in seen.values())
    assert len(seen) + len(box) == lay.ncards
    out["the box"] = sorted(labels[c] for c in box)
    return out


def kernel_twins(game, state, player: int, most: int) -> list:
    """`swapped_draw_twins` for a KState, every state kept on the kernel."""
    return swapped_draw_twins(game, state, player, most, where=kernel_layout)


def kernel_game(name: str, players: int, seed: int, steps: int):
    from fishrules.kernel.apistate import KState

    s = fishrules.load(name).start(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_over:
            break
        step(s, rng)
    assert type(s) is KState
    return s

"""Twin games: what a player may know must not depend on what that player could not see.

Two games ("twins") are made alike in everything but one hidden card or one secret choice — a card
dealt to a face-down stack instead of another, two cards dealt to a hand in the other order, the
Fishing card of a line nobody bets on.  Then both are played on with the same actions, chosen among
the actions legal in both, and at every step — to the end of the game where the difference stays
hidden — `view(p)` and `history_for(p)` must be the same in both twins for every seat p that could
not see the difference, and for a spectator (`view(None)`).

Every bundled ruleset is here, with its overlays:

- Fishfry and its tournaments hide nothing: every die is seen by everybody.  Their test checks
  that every seat sees what a spectator sees, at every step to the end.
- Fish Fish: the Fishing card of a line nobody bets on (discarded face down, unrevealed).
- Fat Fish (and its licenses): the order of the cards dealt to a face-down personal stack, and a card
  dealt to a stack instead of being put out of the game.
- Fisherman: the order in which a hand was dealt; a card dealt to one hand instead of another, or
  to the box.
- Fish Eat Fish deals no card at random and turns every challenge card face up once both are
  chosen, so nothing hidden is left at the end; its twins differ in a secret challenge card, while
  it is secret.
"""

from __future__ import annotations

import random
from typing import Callable, Iterable, Optional

import pytest

import fishrules
from fishrules import CHANCE, SIMULTANEOUS


def first_difference(x, y, path="view"):
    """Where two views differ, for the message of a failed comparison."""
    if type(x) is not type(y):
        return f"{path}: {x!r} != {y!r}"
    if isinstance(x, dict):
        for k in sorted(set(x) | set(y), key=str):
            if k not in x or k not in y:
                return f"{path}[{k!r}]: present in one twin only"
            d = first_difference(x[k], y[k], f"{path}[{k!r}]")
            if d:
                return d
        return None
    if isinstance(x, list):
        if len(x) != len(y):
            return f"{path}: {x!r} != {y!r}"
        for i, (u, v) in enumerate(zip(x, y)):
            d = first_difference(u, v, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if x == y else f"{path}: {x!r} != {y!r}"


def assert_same_for(a, b, seats: Iterable[Optional[int]], when: str = "") -> None:
    for p in seats:
        va, vb = a.view(p), b.view(p)
        assert va == vb, f"seat {p} can tell the twins apart {when}: {first_difference(va, vb)}"
        assert a.history_for(p) == b.history_for(p), f"seat {p}'s history differs {when}"


def legal_texts(s, who) -> list[str]:
    actions = s.legal_actions(who) if s.current == SIMULTANEOUS else s.legal_actions()
    return [str(x) for x in actions]


Policy = Callable[[fishrules.State, list, random.Random], str]


def play_twins(a, b, blind, rng: random.Random, policy: Optional[Policy] = None, max_steps: int = 20_000):
    """Play the twins on with the same actions, each chosen among those legal in both, checking at
    every step that each seat of `blind` (None: a spectator) sees the same in both.  Stops at the end
    of the game, or when no action is legal in both (the difference is about to show).  Returns
    (steps played, whether the game ended)."""
    blind = list(blind)
    for step in range(max_steps):
        assert_same_for(a, b, blind, f"after {step} steps ({a.history[-1] if a.history else 'start'})")
        if a.is_over or b.is_over:
            assert a.is_over and b.is_over
            return step, True
        assert a.current == b.current
        if a.current == SIMULTANEOUS:
            assert a.waiting == b.waiting
            who = rng.choice(a.waiting)
        else:
            who = a.current
        in_b = set(legal_texts(b, who))
        common = [t for t in legal_texts(a, who) if t in in_b]
        if not common:
            return step, False
        text = policy(a, common, rng) if policy else rng.choice(common)
        a.apply(text)
        b.apply(text)
    raise AssertionError("the twins did not end")  # pragma: no cover


def everybody_but(n: int, *seats: int) -> list[Optional[int]]:
    return [None] + [p for p in range(n) if p not in seats]


# ---- Fishfry: nothing is hidden -----------------------------------------------------------------


FISHFRY_RULESETS = [name for name in fishrules.bundled() if name.startswith("fishfry")]


def without_viewer(view: dict) -> dict:
    v = dict(view)
    v.pop("viewer")
    v.pop("legal_actions", None)
    return v


@pytest.mark.parametrize("name", FISHFRY_RULESETS)
@pytest.mark.parametrize("players", [2, 4])
def test_fishfry_hides_nothing_from_anybody(name, players):
    """Every die is seen by everybody, so every seat sees what a spectator sees, to the end: there is
    no twin to make, and nothing that could leak."""
    game = fishrules.load(name)
    options = {"rounds": 2} if "rounds" in game.options else {}
    if "target" in game.options:
        options["target"] = 60
    for seed in range(3):
        rng = random.Random(seed)
        s = game.start(players=players, chance="manual", options=options)
        while True:
            spectator = without_viewer(s.view(None))
            for p in range(players):
                assert without_viewer(s.view(p)) == spectator
                assert s.history_for(p) == s.history
            if s.is_over:
                break
            s.apply(rng.choice(s.legal_actions()))


# ---- Fish Fish: the Fishing card of a line nobody bets on ---------------------------------------


def fishfish_policy(s, actions, rng):
    """The Fisherman plays at random; every Fish bets all it may, so a round ends on its second line
    and the Fisherman never runs out of the cards both twins hold."""
    if actions[0].startswith("bet"):
        return max(actions, key=lambda t: int(t.split()[1]))
    return rng.choice(actions)


def fishfish_twins(players: int, twin_round: int, seed: int):
    """Twin games of Fish Fish: alike but for the Fishing card of the first line of round
    `twin_round` (0-based), on which no Fish bets — Catch in one, Empty-handed in the other."""
    game = fishrules.load("fishfish")
    rng = random.Random(seed)
    s = game.start(players=players)
    rounds = 0
    while True:
        if s.legal_actions()[0].name == "set_line" and s.view(None)["values"]["line_number"] == 1:
            if rounds == twin_round:
                break
            rounds += 1
        s.apply(fishfish_policy(s, [str(x) for x in s.legal_actions()], rng))
    fisherman = s.current
    bait = rng.choice(sorted({str(x).split()[2] for x in s.legal_actions()}))
    a, b = s.clone(), s.clone()
    a.apply(f"set_line Catch {bait}")
    b.apply(f"set_line Empty_handed {bait}")
    while a.current != fisherman:  # nobody bets: the card is discarded face down, unrevealed
        a.apply("bet 0")
        b.apply("bet 0")
    assert a.current == fisherman and a.view(None)["values"]["line_number"] == 2
    assert a.history_for(None) == b.history_for(None)
    return a, b, fisherman, rng


@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("which", ["first", "last"])
def test_fishfish_unbet_line_stays_hidden_to_the_end(players, which):
    """The Fisherman's unplayed Fishing cards are seen by nobody else, during the round and once the
    game is over — in particular after the last round, when no new Fisherman takes the cards."""
    rounds = 2 * players if players <= 3 else players
    for seed in range(2):
        a, b, fisherman, rng = fishfish_twins(players, 0 if which == "first" else rounds - 1, seed)
        steps, over = play_twins(a, b, everybody_but(players, fisherman), rng, fishfish_policy)
        assert over and steps > 0
        # the Fisherman of that round knows what he played; the game's record does too
        assert a.history_for(fisherman) != b.history_for(fisherman) and a.history != b.history

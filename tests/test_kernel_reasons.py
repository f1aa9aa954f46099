"""An action given to a state on the kernel as text, or as an `Action` of another position, is
taken or refused exactly as the engine's state takes or refuses it, and a legal one is played on
the kernel (the state stays a `KState`, with no replay onto the engine).

For every bundled ruleset at its fewest and most players, at the positions of random playouts,
every legal action's text (of every player the game waits for) and one-token edits of it (other
words, other values, dropped and extra tokens, other players' prefixes, unicode digits, spacing)
are applied to a `KState` and to the engine's twin `State` at the same position; both must give
the same outcome: the same next position (current player, waiting players and their legal texts)
or the same `IllegalAction` (class, message, reason, rule, span).  So are the engine's own Action
objects and a KAction of another position (played on the kernel when legal here; the engine's
Action objects are still the engine's to read).

What stays on the engine for now (kernel/apistate.py `_listed_for`): a text the kernel's legal
lists do not hold written exactly (a text written otherwise, "reroll 3 1" for "reroll 1 3", and
every refusal, whose reason the engine works out); such a state becomes the engine's `State`."""

from __future__ import annotations

import random
from typing import Any

import pytest

import fishrules
from fishrules.errors import FishrulesError, IllegalAction
from fishrules.kernel import NativeError
from fishrules.kernel.apistate import KAction, KState
from fishrules.kernel.native import compiler
from fishrules.runtime import SIMULTANEOUS, State

from .test_backends_refuse_alike import HOUSE

try:
    compiler()
except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
    pytest.skip("no C compiler here", allow_module_level=True)

#: the bundled rulesets, and house rules with what they lack: secret choices made together (after a
#: die is rolled), numbers and players as values, three or four at a table
RULESETS = fishrules.bundled() + sorted(HOUSE)
_games: dict = {}


def game(name: str):
    if name not in _games:
        _games[name] = (fishrules.loads(HOUSE[name], f"{name}.fish", backend="native") if name in HOUSE
                        else fishrules.load(name, backend="native"))
    return _games[name]


def _digits(tok: str) -> str:
    """`tok` with its ASCII digits written as other unicode digits (fullwidth, Arabic-Indic)."""
    return tok.translate(str.maketrans("0123456789", "０１２３４５６７８９"))


def edits(text: str, names: list, players: int, rng: random.Random) -> list:
    """One-token edits of an action's text (and the text itself, spaced otherwise)."""
    head, sep, rest = text.rpartition(": ") if text.startswith("p") and ": " in text else ("", "", text)
    prefix = head + sep
    words = rest.split()
    out = {text, f"  {text}  ", text.replace(" ", "   ")}
    if len(words) > 1:
        out.add(prefix + " ".join(words[:-1]))  # a token dropped
        out.add(prefix + " ".join(reversed(words)))  # values in another order
    out.add(prefix + " ".join(words + [words[-1]]))  # a token repeated
    out.add(prefix + " ".join(words + ["7"]))  # an extra value
    out.add(prefix + " ".join(["nosuchaction"] + words[1:]))
    out.add(prefix)  # no action at all
    out.add(prefix + " ".join([rng.choice(names)] + words[1:]))  # another action's word
    for i, w in enumerate(words[1:], 1):
        other = list(words)
        if w.lstrip("-").isdigit():
            for v in (str(int(w) + 1), str(int(w) - 1), "99", _digits(w), "1.5"):
                other[i] = v
                out.add(prefix + " ".join(other))
        else:
            for v in (w + "x", w.upper(), "p9", "nothing"):
                other[i] = v
                out.add(prefix + " ".join(other))
    for q in range(players + 1):
        out.add(f"p{q}: {rest}")  # another player's choice (or one not in the game)
    out.add(f"P0 : {rest}")
    out.add(rest)  # nobody named (at a choice made together, the chooser must be)
    return sorted(out)


#: the refusals a KState gives from its position alone (kernel/apistate.py `_refusal`)
_KERNEL_SAYS = ("no action given;", "there is no action", "is not offered now;", "several players choose at once",
                "has chosen already;", "is not choosing now;", "is not in this game", "the game is over",
                "belongs to another game", "but p", "takes nothing more")


def _kernel_says_of_first(reason: str, probe: str) -> bool:
    """`needs … for` and `takes …, not` of the first parameter (the token after the action's word)."""
    words = probe.split(": ", 1)[-1].split() if ": " in probe else probe.split()
    return ((" needs " in reason and len(words) == 1)
            or (" takes " in reason and ", not " in reason and len(words) > 1 and reason.endswith(f"not {words[1]}")))


def _kernel_says(reason: str) -> bool:
    return any(w in reason for w in _KERNEL_SAYS)


def outcome(s: Any, thing: Any) -> tuple:
    """What applying `thing` to `s` comes to: the next position, or the refusal."""
    try:
        s = s.apply(thing)
    except IllegalAction as exc:
        return ("refused", type(exc), str(exc), exc.reason, exc.rule, exc.span)
    except FishrulesError as exc:  # a rule that goes wrong while the action takes effect
        return ("failed", type(exc), str(exc))
    waiting = s.waiting
    return ("taken", s.current, s.is_over, waiting, [[a.text for a in s.legal_actions(p)] for p in waiting])


def positions(name: str, players: int, seed: int, steps: int):
    """(a KState never looked at, the engine's twin State, the legal texts of every waiting player)
    at each of the first `steps` positions of a random game."""
    g = game(name)
    rng = random.Random(seed)
    taken: list = []
    for _ in range(steps):
        k = g.start(players, seed=seed)
        assert type(k) is KState
        e = State._new(g, players, g._options(None), seed, False)
        for i in taken[:-1]:
            k = k.apply(k.legal_actions(k.waiting[0])[i])
            e = e.apply(e.legal_actions(e.waiting[0])[i])
        if taken:
            try:
                e.apply(e.legal_actions(e.waiting[0])[taken[-1]])
            except FishrulesError:  # the rules go wrong there (a divide by zero): the walk ends
                return
            k = k.apply(k.legal_actions(k.waiting[0])[taken[-1]])
        if e.is_over:
            return
        assert type(k) is KState
        yield k, e
        taken.append(rng.randrange(len(e.legal_actions(e.waiting[0]))))


@pytest.mark.parametrize("name", RULESETS)
def test_a_text_is_taken_or_refused_as_the_engine_does(name):
    g = game(name)
    names = sorted({a for a in g.program.actions})
    probes = said = 0
    for players in sorted({g.min_players, g.max_players}):
        rng = random.Random(f"{name}{players}")
        for k, e in positions(name, players, seed=11 + players, steps=6):
            legal = {a.text for p in e.waiting for a in e.legal_actions(p)}
            texts = sorted(legal)
            for text in rng.sample(texts, min(4, len(texts))):
                for probe in edits(text, names, players, rng):
                    kc, ec = k.clone(), e.clone()
                    assert type(kc) is KState
                    got, want = outcome(kc, probe), outcome(ec, probe)
                    assert got == want, f"{name} ({players} players), {probe!r}"
                    if got[0] == "refused" and (_kernel_says(got[3]) or _kernel_says_of_first(got[3], probe)):
                        # refusals the kernel's position says alone leave the state on the kernel
                        assert type(kc) is KState, f"{name}: {probe!r} ({got[3]}) left the kernel"
                        said += 1
                    if " ".join(probe.split()) in legal and got[0] == "taken":
                        # a legal action written as the engine writes it is played on the kernel
                        # (a step the rules get wrong is the engine's to report: module docstring)
                        assert type(kc) is KState, f"{name}: {probe!r} left the kernel"
                    probes += 1
    assert probes > 50 and said > 5


@pytest.mark.parametrize("name", RULESETS)
def test_an_action_of_another_position_is_taken_or_refused_as_the_engine_does(name):
    """The engine's own Action objects, and a KAction of another position (a clone's list, the
    position before), applied to a KState: taken on the kernel when they name one of the legal
    actions of the player to act, refused in the engine's words otherwise."""
    g = game(name)
    for players in sorted({g.min_players, g.max_players}):
        before = None
        for k, e in positions(name, players, seed=5 + players, steps=5):
            things = [a for p in e.waiting for a in e.legal_actions(p)]
            other = k.clone()
            things += [a for p in other.waiting for a in other.legal_actions(p)]
            if before is not None:
                things += before
            for thing in things:
                kc, ec = k.clone(), e.clone()
                got, want = outcome(kc, thing), outcome(ec, thing)
                assert got == want, f"{name} ({players} players), {thing.text!r}"
                if type(thing) is KAction and ((got[0] == "taken" and e.current != SIMULTANEOUS)
                                               or (got[0] == "refused" and _kernel_says(got[3]))):
                    assert type(kc) is KState, f"{name}: {thing.text!r} left the kernel"
            before = [a for p in k.clone().waiting for a in k.clone().legal_actions(p)]


def test_a_legal_text_on_the_kernel_plays_a_whole_game_without_the_engine():
    """A table that sends texts (the web page, the terminal) stays on the kernel all game."""
    for name in RULESETS:
        g = game(name)
        rng = random.Random(name)
        if g.start(g.max_players, seed=3).current is fishrules.CHANCE:
            continue  # manual chance: not a state of the kernel
        s = g.start(g.max_players, seed=3)
        steps = 0
        while not s.is_over and steps < 300:
            p = s.waiting[0]
            try:
                s = s.apply(rng.choice(s.legal_actions(p)).text)
            except FishrulesError:  # the rules go wrong (a divide by zero): the engine says where
                break
            assert type(s) is KState, f"{name}: step {steps} left the kernel"
            steps += 1

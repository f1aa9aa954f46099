"""An action given to a state on the kernel as text, or as an `Action` of another position, is
taken or refused exactly as the engine's state takes or refuses it, and on the kernel: the state
stays a `KState`, with no replay onto the engine, for every refusal and every text it takes.

For every bundled ruleset at its fewest and most players, and house rules (TRICKS: `some` things,
parameters bounded by earlier ones, rules whose violations are accepted), at the positions of
random playouts, every legal action's text (of every player the game waits for) and one-token
edits of it (other words, other values, numbers written otherwise, dropped, repeated and extra
tokens, values in another order, capitals, other players' prefixes, unicode digits, spacing) are
applied to a `KState`; it must give the engine's outcome at the same position: the same next
position (current player, waiting players, their legal texts and the end of the record) or the
same `IllegalAction` (class, message, reason, rule, span).  So are the actions of the position, of
a clone and of the position before.  The engine's outcomes are frozen (a digest of each) in
tests/golden/engine/test_kernel_reasons.json (`freeze`, run by tests/tools/freeze_engine.py while
the engine lived).

What stays on the engine for now: a rule that goes wrong while a text is read or played (the
engine says where: step 4c)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import fishrules
from fishrules.errors import FishrulesError, IllegalAction
from fishrules.kernel.apistate import KAction, KState

from .test_backends_refuse_alike import HOUSE
from ._frozen import digest, frozen, plain
from ._twins import skip_without_compiler

skip_without_compiler()

#: House rules for reading a text against the rules: `some` things with a rule pushed down onto
#: them and a rule on the whole set; three parameters each within bounds set by the one before;
#: a word and a number; rules whose violations are accepted (with a condition, and without one)
#: and refused, for a word and a number and for `some` things written in any order.
TRICKS = """\
game "Tricks"
players 2 to 3
dice: 4 with faces ONE 1, TWO 2, THREE 3

each player has points: number
each player has fouls: number

phase game:
  repeat 4 times:
    for each player:
      roll all dice
      player chooses keep or give or pick or drop or rest

action keep(chosen: some dice):
  require "no ones": no die in chosen shows ONE
  require "at most three": count(chosen) <= 3
  add 1 to your points

action give(to: one of players other than you, n: a number from 0 to to's points + 2, m: a number from n to n + 2):
  require "not more than you have": n <= your points
  require "m is odd": m = 1 or m = 3 or m = 5
  when "m is odd" is broken:
    add 1 to your fouls
  add n to to's points

action pick(colour: one of red or blue or green, count: a number from 1 to 3):
  require "green costs": colour is not green or your points > 0
  when "green costs" is broken and your fouls < 2:
    add 1 to your fouls
  add count to your points

action drop(chosen: some dice):
  require "two at most": count(chosen) <= 2
  when "two at most" is broken:
    add 1 to your fouls
  add 1 to your points

action rest:
  nothing

score "points": your points - your fouls
"""

#: the bundled rulesets, and house rules with what they lack: secret choices made together (after a
#: die is rolled), numbers and players as values, three or four at a table; and TRICKS
RULESETS = fishrules.bundled() + sorted(HOUSE) + ["tricks"]
MINE = {"tricks": TRICKS}
_games: dict = {}


def game(name: str):
    if name not in _games:
        house = {**HOUSE, **MINE}
        _games[name] = (fishrules.loads(house[name], f"{name}.fish", backend="native") if name in house
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
        out.add(prefix + " ".join(reversed(words)))  # words in another order
        out.add(prefix + " ".join(words[:1] + words[:0:-1]))  # values in another order (`some`: taken)
        out.add(prefix + " ".join(words + [words[1]]))  # a value named twice
    out.add(prefix + " ".join([words[0].upper()] + words[1:]) if words else prefix)  # the action in capitals
    out.add(prefix + " ".join(words + [words[-1]]))  # a token repeated
    out.add(prefix + " ".join(words + ["7"]))  # an extra value
    out.add(prefix + " ".join(["nosuchaction"] + words[1:]))
    out.add(prefix)  # no action at all
    out.add(prefix + " ".join([rng.choice(names)] + words[1:]))  # another action's word
    for i, w in enumerate(words[1:], 1):
        other = list(words)
        if w.lstrip("-").isdigit():
            for v in (str(int(w) + 1), str(int(w) - 1), "99", _digits(w), "1.5", "0" + w, "+" + w, w + ".0"):
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


def outcome(s: Any, thing: Any) -> list:
    """What applying `thing` to `s` comes to: the next position, or the refusal (as plain data)."""
    try:
        s = s.apply(thing)
    except IllegalAction as exc:
        span = exc.span and [exc.span.file, exc.span.line, exc.span.column, exc.span.end_line, exc.span.end_column]
        return plain(["refused", type(exc).__name__, str(exc), exc.reason, exc.rule, span])
    except FishrulesError as exc:  # a rule that goes wrong while the action takes effect
        return plain(["failed", type(exc).__name__, str(exc)])
    waiting = s.waiting
    return plain(["taken", s.current, s.is_over, waiting, [[a.text for a in s.legal_actions(p)] for p in waiting],
                  s.history_for(None)[-3:]])


def positions(start, players: int, seed: int, steps: int):
    """A state never looked at (`start(players, seed)`: a new one each time, played to the
    position) at each of the first `steps` positions of a random game."""
    rng = random.Random(seed)
    taken: list = []
    for _ in range(steps):
        s = start(players, seed)
        for i in taken:
            try:
                s = s.apply(s.legal_actions(s.waiting[0])[i])
            except FishrulesError:  # the rules go wrong there (a divide by zero): the walk ends
                return
        if s.is_over:
            return
        yield s
        taken.append(rng.randrange(len(s.legal_actions(s.waiting[0]))))


def on_kernel(name: str):
    def start(players: int, seed: int):
        k = game(name).start(players, seed=seed)
        assert type(k) is KState
        return k
    return start


def probes_of(name: str, players: int, s, rng: random.Random) -> list:
    """The texts applied at a position: edits of four legal texts."""
    names = sorted(game(name).model.actions)
    texts = sorted({a.text for p in s.waiting for a in s.legal_actions(p)})
    return [probe for text in rng.sample(texts, min(4, len(texts))) for probe in edits(text, names, players, rng)]


def things_of(s, before) -> list:
    """The actions applied at a position: its own, a clone's, and the position before's."""
    other = s.clone()
    return ([a for p in s.waiting for a in s.legal_actions(p)] + [a for p in other.waiting for a in other.legal_actions(p)]
            + (before or []))


def test_the_engines_outcomes_cover_every_ruleset():
    for part in ("texts", "things"):
        assert sorted(frozen("test_kernel_reasons")[part]) == sorted(
            f"{name}/{players}" for name in RULESETS for players in sorted({game(name).min_players, game(name).max_players}))


@pytest.mark.parametrize("name", RULESETS)
def test_a_text_is_taken_or_refused_as_the_engine_does(name):
    g = game(name)
    probes = said = ruled = read = 0
    for players in sorted({g.min_players, g.max_players}):
        want = frozen("test_kernel_reasons")["texts"][f"{name}/{players}"]
        rng = random.Random(f"{name}{players}")
        at = 0
        for at, k in enumerate(positions(on_kernel(name), players, seed=11 + players, steps=6)):
            legal = {a.text for p in k.waiting for a in k.legal_actions(p)}
            tried = probes_of(name, players, k, rng)
            assert len(tried) == len(want[at]), f"{name} ({players} players), position {at}: other legal texts"
            for probe, engine in zip(tried, want[at]):
                kc = k.clone()
                assert type(kc) is KState
                got = outcome(kc, probe)
                assert digest(got) == engine, f"{name} ({players} players), {probe!r}: {got} is not the engine's"
                if got[0] != "failed":
                    # every refusal, and every text taken (written otherwise, or breaking a
                    # rule the rules accept), is the kernel's own: the state stays on it
                    assert type(kc) is KState and kc._ks is not None, \
                        f"{name}: {probe!r} ({got[3] if got[0] == 'refused' else 'taken'}) left the kernel"
                    said += 1
                if got[0] == "refused" and got[4] is not None:
                    ruled += 1
                elif got[0] == "taken" and " ".join(probe.split()) not in legal:
                    read += 1
                probes += 1
        assert at + 1 == len(want), f"{name} ({players} players): the engine's walk had {len(want)} positions"
    assert probes > 50 and said > 5
    if name == "tricks":  # its rules refuse and its `some` things are read in any order
        assert ruled > 3 and read > 3, (ruled, read)


@pytest.mark.parametrize("name", RULESETS)
def test_an_action_of_another_position_is_taken_or_refused_as_the_engine_does(name):
    """A KAction of this position, of a clone's list, of the position before, applied to a
    KState: taken on the kernel when it names one of the legal actions of the player to act,
    refused in the engine's words otherwise."""
    g = game(name)
    for players in sorted({g.min_players, g.max_players}):
        want = frozen("test_kernel_reasons")["things"][f"{name}/{players}"]
        before = None
        at = 0
        for at, k in enumerate(positions(on_kernel(name), players, seed=5 + players, steps=5)):
            things = things_of(k, before)
            assert len(things) == len(want[at])
            for thing, engine in zip(things, want[at]):
                kc = k.clone()
                got = outcome(kc, thing)
                assert digest(got) == engine, f"{name} ({players} players), {thing.text!r}: {got} is not the engine's"
                if got[0] != "failed":
                    assert type(kc) is KState and kc._ks is not None, f"{name}: {thing.text!r} left the kernel"
            before = [a for p in k.clone().waiting for a in k.clone().legal_actions(p)]
        assert at + 1 == len(want)


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


def test_ids_of_things_numbered_by_position_are_the_kernels():
    """Fat Fish's `keep(chosen: some taken)` is numbered by the places of the things among those
    offered: a state on the kernel asks the kernel what is offered (its domain of the parameter),
    gives the ids the engine's twin gives, and stays on the kernel."""
    got = keep_ids(lambda seed: game("fatfish").start(2, seed=seed), KState)
    assert len(got) >= 6 and got == frozen("test_kernel_reasons")["ids"]


def keep_ids(start, kind=None) -> list:
    """The ids of the legal actions at the first six positions of random Fat Fish games where
    `keep` is legal."""
    space = game("fatfish").action_space(2)
    seen: list = []
    for seed in range(40):
        s = start(seed)
        rng = random.Random(seed)
        while not s.is_over and len(seen) < 6:
            if any(a.name == "keep" for a in s.legal_actions()):
                seen.append(space.legal_ids(s))
                assert kind is None or (type(s) is kind and s._ks is not None)
            s = s.apply(s.legal_actions()[rng.randrange(len(s.legal_actions()))])
        if len(seen) >= 6:
            break
    return plain(seen)


def test_both_spellings_say_alike_what_a_parameter_may_be_and_which_rule_a_move_breaks():
    """The kernel's per-parameter domains and `why`, lowered from the enumerator's own pieces, as
    Python and as C: at the positions of random games, for legal moves (those that break a rule
    the rules accept included) both say the same; every value a move takes is in its domain (its
    `some` things among those offered), and `why` names no rule for a move that keeps them and
    the rule it breaks for one that does not."""
    from array import array

    from fishrules.kernel.abi import CUR_SIMUL, H_CUR
    from fishrules.kernel.machine import PyBackend
    from fishrules.kernel.pyruntime import KFault

    checked = broken = 0
    for name in RULESETS:
        g = game(name)
        kernel = g.kernel
        kp, nat, bd = kernel.program, kernel.backend, kernel.boundary
        py = PyBackend(kp)
        rules = [[r.name for r in a.requires] for a in kp.model.actions.values()]
        for players in sorted({g.min_players, g.max_players}):
            rng = random.Random(f"{name}{players}")
            Sp, Sn = py.new(players, g._options(None), 7), nat.new(players, g._options(None), 7)
            py.start(Sp, False)
            nat.start(Sn, False)
            for _ in range(8):
                cur = Sn[H_CUR]
                if cur < 0 and cur != CUR_SIMUL:
                    break
                who = nat.who_together(Sn) if cur == CUR_SIMUL else (cur,)
                chosen = []
                for p in who:
                    moves = nat.moves(Sn, p)
                    assert moves == py.moves(Sp, p)
                    for m in rng.sample(moves, min(12, len(moves))):
                        a, rule, _ = bd.of_block[m[0]]
                        move = (bd.block_of[(a, None)],) + m[1:]
                        want = 0 if rule is None else -(rules[a].index(rule) + 1)
                        assert nat.why(array("q", Sn), a, move) == py.why(list(Sp), a, move) == want, (name, m)
                        broken += rule is not None
                        for i, v in enumerate(m[2:]):
                            dom = nat.domain(array("q", Sn), a, i, move)
                            assert dom == py.domain(list(Sp), a, i, move), (name, m, i)
                            assert (set(v) <= set(dom)) if isinstance(v, tuple) else v in dom, (name, m, i, dom)
                        checked += 1
                    chosen.append(rng.choice(moves))
                try:
                    if cur == CUR_SIMUL:
                        nat.play_together(Sn, tuple(chosen))
                        py.play_together(Sp, tuple(chosen))
                    else:
                        nat.play(Sn, chosen[0])
                        py.play(Sp, chosen[0])
                except KFault:  # the rules go wrong (Zero together's divide by zero): the walk ends
                    break
    assert checked > 300 and broken > 5, (checked, broken)


# ---- the engine's answers, frozen (tests/tools/freeze_engine.py) -------------------------------------


def freeze(engine) -> dict:
    """What the engine answered at the positions above (run by tests/tools/freeze_engine.py while
    the engine lived): a digest of each outcome."""
    out: dict = {"texts": {}, "things": {}}
    for name in RULESETS:
        g = game(name)
        start = lambda players, seed, g=g: engine.start(g, players, seed)  # noqa: E731
        for players in sorted({g.min_players, g.max_players}):
            rng = random.Random(f"{name}{players}")
            out["texts"][f"{name}/{players}"] = [
                [digest(outcome(e.clone(), probe)) for probe in probes_of(name, players, e, rng)]
                for e in positions(start, players, seed=11 + players, steps=6)]
            things, before = [], None
            for e in positions(start, players, seed=5 + players, steps=5):
                things.append([digest(outcome(e.clone(), thing)) for thing in things_of(e, before)])
                before = [a for p in e.clone().waiting for a in e.clone().legal_actions(p)]
            out["things"][f"{name}/{players}"] = things
    out["ids"] = keep_ids(lambda seed: engine.start(game("fatfish"), 2, seed))
    return out

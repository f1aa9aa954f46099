"""Both backends play one game: whatever is applied to a state that `Game.start` gives with
`backend="native"` (it decides on the native kernel), it is taken or refused exactly as the
engine's state (`backend="python"`) takes or refuses it: the same exception class and the same
words, and a refused action changes nothing (issue 31, section 4: on the kernel, a secret choice
made twice silently replaced the first one).

Written against the public API only.  A position is a seeded start and the indices of the actions
taken from it (`legal_actions(waiting[0])[i]`, step after step), reached on each backend.  A state
may take an Action of its own lists without reading it again (the kernel does: that is where it
went wrong), so a probe with a state's own Action objects starts from a native state reached
afresh, never looked at before: one that refused something, or whose history or JSON was read,
may no longer be deciding on the kernel."""

from __future__ import annotations

import random
from typing import Any, Callable, Optional

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import fishrules
from fishrules import CHANCE, SIMULTANEOUS
from fishrules.kernel import NativeError
from fishrules.limits import MAX_ACTION_TEXT

from .hostile.test_actions import ODD, ODD_BUNDLED, PARAMS, WHO

BACKENDS = ("python", "native")

#: House rules whose shapes the bundled ones lack: some players choose secretly while another
#: waits, after a die is rolled (a chance outcome is thrown at their choice), numbers and players
#: as values, three or four at a table.
SECRET_BIDS = """\
game "Secret bids"
players 2 to 4
dice: 1 with faces LOW 1, HIGH 2

each player has points: number
each player has bid: number

phase game:
  repeat 3 times:
    roll dice
    each of players where it's seat > 0 secretly chooses offer or hold
    for each player:
      player chooses take or leave
      if player's points > 9:
        end game

action offer(secret n: a number from 1 to 4):
  set your bid to n

action hold:
  set your bid to 0

action take(from: one of players other than you):
  add from's bid to your points

action leave:
  add sum(value of dice) to your points

score "points": your points
"""

#: A simultaneous choice whose effects can go wrong (`zero` while n is 0): the last choice raises
#: RuleError, and the choices made before it stay made.
ZERO_TOGETHER = """\
game "Zero together"
players 2 to 3

each player has n: number

phase game:
  repeat 3 times:
    each of players secretly chooses pass or zero

action pass:
  add 1 to your n

action zero:
  add divide(10, your n) to your n

score "n": your n
"""

#: (PARAMS, of the hostile action suite: a player and a number as parameters, for its odd texts)
HOUSE = {"secret-bids": SECRET_BIDS, "zero-together": ZERO_TOGETHER, "params": PARAMS}
RULESETS = fishrules.bundled() + list(HOUSE)
#: the most steps of a walk the property test probes at every step
PROPERTY_STEPS = 30

_games: dict = {}


@pytest.fixture(autouse=True, scope="module")
def _native_here():
    try:
        game("fishfry", "native").backend
    except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
        pytest.skip("no C compiler here")


def game(which: str, backend: str, variant: Optional[str] = None):
    key = (which, variant, backend)
    if key not in _games:
        if which in HOUSE:
            _games[key] = fishrules.loads(HOUSE[which], name=f"{which}.fish", backend=backend)
        else:
            _games[key] = fishrules.load(which, variant=variant, backend=backend)
    return _games[key]


def variants_of(which: str) -> list[Optional[str]]:
    """None and each `variant` block of the file (a bundled NAME-V.fish is a ruleset of its own)."""
    if which in HOUSE:
        return [None]
    bundled = set(fishrules.bundled())
    return [None] + [v for v in game(which, "python").variants if f"{which}-{v}" not in bundled]


# ---- walking and reaching positions -------------------------------------------------------------------


class Walk:
    """A random game on the engine: `path[k]` is the index of the action taken at position k (in
    the list of `waiting[0]` there), skipping actions whose rules go wrong; `current[k]` and
    `waiting[k]` say who was to act at position k (k = len(path) is where the walk ended: the game
    over, or `most` steps played, or a position where every choice goes wrong)."""

    def __init__(self, g, players: int, seed: int, most: int = 300, options: Optional[dict] = None):
        self.players, self.seed, self.options = players, seed, options
        self.path: list[int] = []
        self.current: list[Any] = []
        self.waiting: list[list[int]] = []
        s = g.start(players, seed=seed, options=options)
        rng = random.Random(seed)
        while True:
            self.current.append(s.current)
            self.waiting.append(list(s.waiting))
            if s.is_over or len(self.path) >= most:
                return
            p = s.waiting[0]
            n = len(s.legal_actions(p))
            for i in rng.sample(range(n), n):
                try:
                    s.apply(s.legal_actions(p)[i])
                except fishrules.RuleError:
                    continue
                self.path.append(i)
                break
            else:
                return  # every choice goes wrong here: the walk ends at a position still in play

    def reach(self, g, k: int) -> tuple[Any, list[list]]:
        """A new state of `g` at position k, and the lists of legal actions it took its actions from
        (the state's own Action objects)."""
        s = g.start(self.players, seed=self.seed, options=self.options)
        seen = []
        for i in self.path[:k]:
            actions = s.legal_actions(s.waiting[0])
            seen.append(actions)
            s.apply(actions[i])
        return s, seen

    def positions(self) -> dict[str, int]:
        """Positions worth probing: the start, the middle, the first simultaneous choice and the
        one after its first choice, the end (game over, or where the walk stopped)."""
        end = len(self.path)
        picks = {"start": 0, "middle": end // 2, "end": end}
        simul = [k for k, cur in enumerate(self.current) if cur == SIMULTANEOUS]
        if simul:
            k = simul[0]
            picks["simultaneous"] = k
            if k + 1 <= end and self.current[k + 1] == SIMULTANEOUS:
                picks["after a choice"] = k + 1
        return picks


def attempt(s, thing) -> Optional[tuple]:
    """Apply `thing` (or call it, if it is a `Call`): None if taken, else what was raised."""
    try:
        if isinstance(thing, Call):
            got = thing.fn(s)
            return ("returned", [a.text for a in got] if isinstance(got, list) else got)
        s.apply(thing)
    except Exception as exc:  # noqa: BLE001 - the class and the words are what is compared
        return (type(exc), str(exc), getattr(exc, "rule", None))
    return None


class Call:
    """A question put to a state instead of an action (`legal_actions` of nobody in particular)."""

    def __init__(self, fn: Callable):
        self.fn = fn


def decisions(s) -> tuple:
    """What the state says about deciding (the kernel answers these itself)."""
    return (s.is_over, s.current, tuple(s.waiting), tuple(s.scores()), tuple(s.winners()),
            tuple(tuple(a.text for a in s.legal_actions(p)) for p in s.waiting))


def whole(s) -> tuple:
    """Everything of the state a caller can compare (decisions first: looking at the rest may take
    a state off the kernel)."""
    return decisions(s), tuple(s.history), s.to_json()


def same_outcome(states: dict, things: dict, before: tuple, what: str) -> Optional[tuple]:
    """Apply each backend's thing to its state; both must take it, or both refuse it alike and
    change nothing.  Returns the refusal (None if taken)."""
    got = {b: attempt(states[b], things[b]) for b in BACKENDS}
    assert got["native"] == got["python"], f"{what}: the backends disagree: {got}"
    after = {b: whole(states[b]) for b in BACKENDS}
    assert after["native"] == after["python"], f"{what}: the backends' states differ afterwards ({got['python']})"
    if got["python"] is not None and got["python"][0] != "returned":
        assert after["python"] == before, f"{what}: refused ({got['python'][1]}) but the state changed"
    return got["python"]


# ---- what is thrown at a position -------------------------------------------------------------------------


def own_probes(k: int, walk: Walk) -> list[tuple[str, Callable]]:
    """Actions a state takes from its own lists: (label, function of (state, seen) giving it)."""
    out: list[tuple[str, Callable]] = []
    if k < len(walk.path):
        out += [("a legal action, the first", lambda s, seen: s.legal_actions(s.waiting[0])[0]),
                ("a legal action, the last", lambda s, seen: s.legal_actions(s.waiting[0])[-1])]
        if len(walk.waiting[k]) > 1:
            out.append(("a legal action of the last one waiting",
                        lambda s, seen: s.legal_actions(s.waiting[-1])[-1]))
    if k > 0:
        i = walk.path[k - 1]
        # at the position after a simultaneous choice, these are the chooser's own list: the one
        # chosen again, and another of its choices
        out += [("the action taken last, again", lambda s, seen: seen[-1][i]),
                ("an earlier position's first action", lambda s, seen: seen[-1][0]),
                ("an earlier position's last action", lambda s, seen: seen[-1][-1]),
                ("the first position's last action", lambda s, seen: seen[0][-1])]
    return out


def others(which: str, variant: Optional[str], backend: str, walk: Walk, k: int) -> list[tuple[str, Any]]:
    """Actions from elsewhere: another player's legal action, a chance outcome, another game's action."""
    g = game(which, backend, variant)
    out: list[tuple[str, Any]] = []
    waiting = walk.waiting[k]
    j = next((j for j in range(len(walk.path)) if walk.waiting[j][0] not in waiting), None)
    if j is not None:
        s, _ = walk.reach(g, j)
        theirs = s.legal_actions(s.waiting[0])
        out += [(f"p{s.waiting[0]}'s legal action at position {j}, the first", theirs[0]),
                (f"p{s.waiting[0]}'s legal action at position {j}, the last", theirs[-1])]
    manual = g.start(walk.players, seed=walk.seed, options=walk.options, chance="manual")
    for _ in range(200):
        if manual.is_over or manual.current == CHANCE:
            break
        manual.apply(manual.legal_actions(manual.waiting[0])[0])
    if manual.current == CHANCE:
        out.append(("a chance outcome", manual.chance_outcomes()[0][0]))
    other = game("fishfish" if which.startswith("fishfry") else "fishfry", backend)
    s = other.start(2, seed=walk.seed)
    out.append((f"an action of {other.title}", s.legal_actions(s.waiting[0])[0]))
    return out


#: Texts of the hostile action suite and of tests/test_illegal_messages.py, for every ruleset.
JUNK = ["", " ", "\n", "\x00", "nosuchaction", "stay", "p0:", "p1: ", "p99: hold", "take p١", "pick_colour orange",
        "attack 1 2", "p2: challenge_card red-1", "challenge_card red-99", "lay 1 zz", "lay 1 red-1",
        "set_line zz bait-3", "set_line Catch zz", "bet 99", "play_card zz", "play_card goby-1", "stop now", "p1: x",
        "bet", "lay 4 red-1", "decide_target zz", "x" * (MAX_ACTION_TEXT + 1), "stay" + " " * (MAX_ACTION_TEXT - 4),
        "stay" + " " * (MAX_ACTION_TEXT - 3), "x" * 1_000_000] + ODD_BUNDLED


def texts(which: str, s, seen: list[list], n: int) -> list[str]:
    """Texts to apply at a position: legal texts bent out of shape, the texts of earlier positions,
    the texts a chooser at a simultaneous choice might send, and the hostile suite's junk."""
    out = JUNK + (ODD if which == "params" else [])
    listed = [a for p in s.waiting for a in s.legal_actions(p)[:1] + s.legal_actions(p)[-1:]]
    for a in listed + (seen[-1][:1] + seen[-1][-1:] if seen else []):
        t = a.text
        bare = t.split(": ", 1)[-1]
        out += [t, t + " extra", t.upper(), a.name, bare, f"p{n}: {bare}", f"p-1: {bare}"]
        out += [f"p{p}: {bare}" for p in range(n)]
    if s.current == SIMULTANEOUS:
        bare = listed[0].text.split(": ", 1)[-1]
        out += [f"{who}: {bare}" for who in WHO]
    return list(dict.fromkeys(out))


THINGS = [None, 3, 3.5, True, b"stay", ["stay"], ("stay",), {"stay": 1}]
CALLS = [("legal_actions(None)", lambda s: s.legal_actions(None)), ("legal_actions(99)", lambda s: s.legal_actions(99)),
         ("legal_actions(-1)", lambda s: s.legal_actions(-1)), ("legal_actions('p0')", lambda s: s.legal_actions("p0"))]


# ---- the tests ----------------------------------------------------------------------------------------------


def _player_counts(which: str) -> list[int]:
    g = game(which, "python")
    if which in ("fisheatfish", "secret-bids", "zero-together"):  # the simultaneous choices
        return sorted({g.min_players, g.max_players})
    return [g.min_players]


#: Options that change what is refused (a lay against the rules refused, not penalised).
OPTIONS = {"fatfish": [None, {"fiasco": "refusal"}]}


@pytest.mark.parametrize("which", RULESETS)
def test_every_bad_action_is_refused_alike_by_both_backends(which):
    for variant in variants_of(which):
        games = {b: game(which, b, variant) for b in BACKENDS}
        for players, options in [(n, o) for n in _player_counts(which) for o in OPTIONS.get(which, [None])]:
            walk = Walk(games["python"], players, seed=3, options=options)
            for where, k in walk.positions().items():
                ref, ref_seen = walk.reach(games["python"], k)
                before = whole(ref)
                label = f"{which}{':' + variant if variant else ''}{' ' + str(options) if options else ''}, " \
                        f"{players} players, {where} (position {k})"
                # taken from the state's own lists: a state reached afresh for each, on each backend
                for what, pick in own_probes(k, walk):
                    states, things = {}, {}
                    for b in BACKENDS:
                        states[b], seen = walk.reach(games[b], k)
                        things[b] = pick(states[b], seen)
                    same_outcome(states, things, before, f"{label}: {what}")
                # everything else, one after another on one state of each backend (a refusal
                # changes nothing, so each meets the same position)
                states = {"python": ref.clone(), "native": walk.reach(games["native"], k)[0]}
                foreign = {b: others(which, variant, b, walk, k) for b in BACKENDS}
                batch = [(what, {b: foreign[b][n][1] for b in BACKENDS})
                         for n, (what, _) in enumerate(foreign["python"])]
                batch += [(repr(t)[:60], {b: t for b in BACKENDS}) for t in texts(which, ref, ref_seen, players)]
                batch += [(repr(t), {b: t for b in BACKENDS}) for t in THINGS]
                batch += [(what, {b: Call(fn) for b in BACKENDS}) for what, fn in CALLS]
                for what, things in batch:
                    refused = same_outcome(states, things, before, f"{label}: {what}")
                    if refused is None:  # taken: start again from the position
                        states = {"python": ref.clone(), "native": walk.reach(games["native"], k)[0]}


@pytest.mark.parametrize("which, how", [
    ("fishfry", {"players": 1}), ("fishfry", {"players": 99}), ("fishfry", {"players": "2"}),
    ("fishfry", {"players": True}), ("fishfry", {"seed": "x"}), ("fishfry", {"seed": 1.5}),
    ("fishfry", {"options": {"nosuch": 1}}), ("fishfry", {"options": ["x"]}), ("fishfry", {"chance": "loaded"}),
    ("fatfish", {"options": {"fiasco": "maybe"}}), ("fishfry-keeper", {"options": {"fish_limit": 0}}),
    ("fishfry-keeper", {"options": {"fish_limit": True}}),
    ("fatfish-licenses", {"options": {"licenses_D_to_I": True}}),  # refused by the rules themselves, at set-up
])
def test_a_start_is_refused_alike(which, how):
    got = []
    for b in BACKENDS:
        with pytest.raises(fishrules.FishrulesError) as exc:
            game(which, b).start(**{"players": 2, "seed": 1, **how})
        got.append((type(exc.value), str(exc.value)))
    assert got[0] == got[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_secret_choice_is_made_once(backend):
    # the issue's own case, at every simultaneous choice of a game: the second choice is refused
    # and the first stands.  Each is tried on a copy, as a refusal may take a state off the kernel.
    g = game("fisheatfish", backend)
    s = g.start(3, seed=5)
    rng, checked = random.Random(5), 0
    while not s.is_over:
        if s.current == SIMULTANEOUS and len(s.waiting) > 1:
            me, t = s.waiting[0], s.clone()
            mine = t.legal_actions(me)
            t.apply(mine[0])
            with pytest.raises(fishrules.IllegalAction, match=f"p{me} has chosen already; waiting for p"):
                t.apply(mine[-1])
            assert t.history_for(me)[-1] == mine[0].text and t.waiting == s.waiting[1:]
            checked += 1
        s.apply(rng.choice(s.legal_actions(s.waiting[0])))
    assert checked >= 3


# Not shrunk: an example costs a whole walk, and the message names the game, the seed, the position
# and the probe already.
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(which=st.sampled_from(["fisheatfish", "secret-bids", "zero-together", "fishfish", "fatfish"]),
       players=st.integers(2, 5), seed=st.integers(0, 2**31), data=st.data())
def test_along_random_playouts_illegal_actions_are_refused_alike(which, players, seed, data):
    """At every step of a random game, one of: a legal action of a player not waiting now, the same
    chooser twice (two of one list, one after the other), an action of an earlier position."""
    games = {b: game(which, b) for b in BACKENDS}
    players = min(max(players, games["python"].min_players), games["python"].max_players)
    walk = Walk(games["python"], players, seed, most=PROPERTY_STEPS)
    # another object's lists along the same game: each position's list of whoever acted there
    lists = {b: walk.reach(games[b], len(walk.path))[1] for b in BACKENDS}
    # the engine's state walks along (a clone of it is probed); the kernel's is reached afresh at
    # every step, so that it is probed with its own lists, and before anything took it off the kernel
    e, e_seen = walk.reach(games["python"], 0)
    for k in range(len(walk.path) + 1):
        before = whole(e)
        strangers = [j for j in range(len(walk.path)) if walk.waiting[j][0] not in walk.waiting[k]]
        kinds = (["another player"] if strangers else []) + (["earlier"] if k else [])
        kinds += ["twice"] if k < len(walk.path) else []
        kind = data.draw(st.sampled_from(kinds), label=f"probe at {k}")
        k_state, k_seen = walk.reach(games["native"], k)
        states, seen = {"python": e.clone(), "native": k_state}, {"python": e_seen, "native": k_seen}
        what = f"{which}, {players} players, seed {seed}, position {k}: {kind}"
        if kind == "another player":
            j = data.draw(st.sampled_from(strangers), label="their position")
            i = data.draw(st.integers(0, len(lists["python"][j]) - 1), label="their action")
            same_outcome(states, {b: lists[b][j][i] for b in BACKENDS}, before, f"{what} ({j}, {i})")
        elif kind == "earlier":
            j = data.draw(st.integers(0, k - 1), label="earlier position")
            i = data.draw(st.integers(0, len(seen["python"][j]) - 1), label="its action")
            same_outcome(states, {b: seen[b][j][i] for b in BACKENDS}, before, f"{what} ({j}, {i})")
        else:
            mine = {b: states[b].legal_actions(walk.waiting[k][0]) for b in BACKENDS}
            first = data.draw(st.integers(0, len(mine["python"]) - 1), label="first")
            second = data.draw(st.integers(0, len(mine["python"]) - 1), label="second")
            if same_outcome(states, {b: mine[b][first] for b in BACKENDS}, before, f"{what}, the first") is None:
                # taken: the second is the same chooser again (or, past a player's turn, an action
                # of an earlier position)
                same_outcome(states, {b: mine[b][second] for b in BACKENDS}, whole(states["python"]), what)
        if k < len(walk.path):
            acts = e.legal_actions(e.waiting[0])
            e_seen.append(acts)
            e.apply(acts[walk.path[k]])

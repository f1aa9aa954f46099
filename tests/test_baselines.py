"""The hand-written baselines (benchmarks/baselines) play exactly the engine's rules.

The engine's speed is reported as a ratio to these baselines, so they must be the same games:

1. Agreement, step API: random games played on the engine are replayed entry by entry through each
   baseline's step API; at every player decision the baseline offers exactly the engine's legal
   action texts (same order), every chance entry is one of the baseline's outcomes, and the final
   scores and winners are equal.  With manual chance, the chance outcomes and their probabilities
   are compared too, and chance can be biased to reach rare rules (a FISHFRY, ties).
2. The fast playouts, `play()`, exactly: each runs under sys.settrace, which reads the deal and
   every choice at the lines of `play()` marked `# trace: NAME`, and the same game is replayed
   through the step API: every choice must be legal there, and scores, winners and the number of
   decisions must be equal.  Over all those games, the choices are uniform among the legal ones
   and the chance outcomes among the possible ones (rank tests).
3. The fast playouts on average: their mean game length and total score agree with the engine's
   within a few standard errors (fixed seeds: deterministic).

Some rules are rare in random games; for those, the seeds below were found by searching for games
whose outcome a wrong version of the rule changes (Fish Eat Fish: the Starfish passed by a drift
breaks a tie), or chance is biased (Fishfry: PANFISH, for FISHFRYs and replayed ties).

Fat Fish: the engine lists the fiasco plays (lays breaking "one row a turn" or "a matching colour",
accepted with fiasco=penalty, once a turn), marked with the rule they break and after the others;
the agreement test checks the baseline's `fiasco_plays_legal=True` mode exactly.  Its False mode
(only the lays that keep the rules) is kept for measuring a random player that never breaks one.
"""

from __future__ import annotations

import functools
import inspect
import random
import re
import statistics
import sys
from collections import Counter

import pytest

import fishrules
from benchmarks.baselines import GAMES, fatfish
from benchmarks.baselines._step import Step

# The engine's legal_actions() lists the Fat Fish fiasco plays.
ENGINE_LISTS_FIASCO_PLAYS = True

# (game, players, seeds) for the agreement test: every player count of every game.
GAMES_PER_COUNT = {"fishfry": 25, "fishfish": 4, "fisherman": 2, "fatfish": 3, "fisheatfish": 3}
AGREEMENT = [(name, n, seed)
             for name, mod in GAMES.items()
             for n in range(mod.MIN_PLAYERS, mod.MAX_PLAYERS + 1)
             for seed in range(GAMES_PER_COUNT[name])]
# Rare rules that random games seldom reach, with seeds found by searching for games whose outcome
# a wrong version of the rule changes: Fish Eat Fish, a drift passes the Starfish and the Starfish
# then breaks a tie for the most fish.
AGREEMENT += [("fisheatfish", 2, 12), ("fisheatfish", 3, 168), ("fisheatfish", 4, 8), ("fisheatfish", 5, 109)]


def options(name: str) -> dict:
    return {"fiasco_plays_legal": ENGINE_LISTS_FIASCO_PLAYS} if name == "fatfish" else {}


@pytest.fixture(scope="module")
def engines():
    return {name: fishrules.load(name) for name in GAMES}


def test_player_counts_are_the_rulesets(engines):
    for name, mod in GAMES.items():
        assert (mod.MIN_PLAYERS, mod.MAX_PLAYERS) == (engines[name].min_players, engines[name].max_players)


# ---- 1. agreement: the step API against the engine --------------------------------------------------


def engine_game(game, players: int, seed: int):
    """A seeded engine game, uniformly random choices (at a secret choice, a random one of the
    players still choosing goes next).  Returns the state and, for each history index where a
    player chose, who was to act and the legal texts then (per waiting player if simultaneous)."""
    state = game.start(players=players, seed=seed)
    rng = random.Random(seed)
    decisions = {}
    while not state.is_over:
        if state.current == fishrules.SIMULTANEOUS:
            legal = {p: [a.text for a in state.legal_actions(p)] for p in state.waiting}
            decisions[len(state.history)] = ("simultaneous", legal)
            actions = state.legal_actions(rng.choice(state.waiting))
        else:
            actions = state.legal_actions()
            decisions[len(state.history)] = (state.current, [a.text for a in actions])
        state.apply(rng.choice(actions))
    return state, decisions


def replay(mod, state, decisions, **opts):
    """Feed the engine's history to the baseline's step API, checking every decision."""
    b = mod.Game(state.n, **opts)
    for i, text in enumerate(state.history):
        where = f"{mod.NAME}, {state.n} players, history[{i}] = {text!r}"
        if i in decisions:
            who, legal = decisions[i]
            assert b.current == who, where
            if who == "simultaneous":
                assert sorted(b.waiting) == sorted(legal), where
                for p, texts in legal.items():
                    assert b.legal(p) == texts, f"{where}: p{p}'s choices differ"
            else:
                assert b.legal() == legal, f"{where}: the legal actions differ" + (
                    " (if the engine now lists the fiasco plays, set ENGINE_LISTS_FIASCO_PLAYS = True)"
                    if mod is fatfish else "")
        else:
            assert b.current == "chance", where
            assert text in b.legal(), f"{where}: not a chance outcome of the baseline"
        b.apply(text)
    assert b.is_over, f"{mod.NAME}: the baseline's game goes on after the engine's ended"
    assert b.scores() == state.scores()
    assert b.winners() == state.winners()
    return b


@pytest.mark.parametrize("name,players,seed", AGREEMENT, ids=[f"{g}-{n}p-{s}" for g, n, s in AGREEMENT])
def test_step_api_agrees_with_engine(engines, name, players, seed):
    state, decisions = engine_game(engines[name], players, seed)
    b = replay(GAMES[name], state, decisions, **options(name))
    assert b.decisions == len(decisions)


def lockstep(game, mod, players: int, seed: int, chance_pick=None, **opts):
    """Engine (manual chance) and baseline side by side: equal legal actions at every decision,
    equal chance outcomes with equal probabilities at every chance node.  `chance_pick(rng,
    outcomes)` picks the outcome (default: by its probability)."""
    state = game.start(players=players, chance="manual")
    b = mod.Game(players, **opts)
    rng = random.Random(seed)
    while not state.is_over:
        where = f"{mod.NAME}, {players} players, seed {seed}, step {len(state.history)}"
        if state.current == fishrules.CHANCE:
            assert b.current == "chance", where
            outcomes = [(a.text, p) for a, p in state.chance_outcomes()]
            assert dict(b.chance_outcomes()) == dict(outcomes), f"{where}: chance outcomes differ"
            if chance_pick is None:
                text = rng.choices([t for t, _ in outcomes], weights=[float(p) for _, p in outcomes])[0]
            else:
                text = chance_pick(rng, [t for t, _ in outcomes])
        elif state.current == fishrules.SIMULTANEOUS:
            assert b.current == "simultaneous" and b.waiting == state.waiting, where
            for p in state.waiting:
                assert b.legal(p) == [a.text for a in state.legal_actions(p)], where
            text = rng.choice(state.legal_actions(rng.choice(state.waiting))).text
        else:
            legal = [a.text for a in state.legal_actions()]
            assert b.current == state.current and b.legal() == legal, where
            text = rng.choice(legal)
        state.apply(text)
        b.apply(text)
    assert b.is_over and b.scores() == state.scores() and b.winners() == state.winners()
    return state


LOCKSTEP = [("fishfry", 2), ("fishfry", 5), ("fishfish", 3), ("fisherman", 3), ("fisherman", 4),
            ("fatfish", 2), ("fatfish", 5), ("fisheatfish", 2), ("fisheatfish", 4)]


@pytest.mark.parametrize("name,players", LOCKSTEP, ids=[f"{g}-{n}p" for g, n in LOCKSTEP])
def test_chance_outcomes_agree_with_engine(engines, name, players):
    lockstep(engines[name], GAMES[name], players, seed=players, **options(name))


def panfish_heavy(rng, outcomes):
    """Chance that rolls PANFISH half the time: FISHFRYs, PANFISH-only scores, many ties."""
    panfish = [t for t in outcomes if t.endswith("PANFISH")]
    return panfish[0] if panfish and rng.random() < 0.5 else rng.choice(outcomes)


def test_fishfry_rare_rules_agree_with_engine(engines):
    """FISHFRY (five PANFISH gathered over the rolls) and "one tie, all tie" replays."""
    fryers = replays = 0
    for seed in range(60):
        players = 2 + seed % 7
        state = lockstep(engines["fishfry"], GAMES["fishfry"], players, seed, chance_pick=panfish_heavy)
        h = state.history
        turns = sum(1 for i, t in enumerate(h) if t.startswith("die 1 ") and not (i and h[i - 1].startswith("reroll")))
        fryers += all(s == 0 for s in state.scores())
        replays += turns > players
    assert fryers >= 5 and replays >= 5, "the biased chance should reach FISHFRYs and replayed ties"


PLAY_MODES = [(name, {}) for name in GAMES if name != "fatfish"] + [
    ("fatfish", {"fiasco_plays_legal": True}), ("fatfish", {"fiasco_plays_legal": False})]


# ---- 2. the fast playouts, replayed exactly through the step API ---------------------------------
#
# `play()` is checked exactly, not only on average: it runs under sys.settrace, which reads its
# locals at the lines marked `# trace: NAME` (the cards dealt, each choice made), and the game is
# replayed through the step API (itself checked against the engine above) with the same deal and
# choices: every choice must be legal there, and the scores, winners and decisions must be equal.
# The fast code pays nothing for this: its markers are comments.


@functools.cache
def trace_marks(mod) -> dict:
    """Line number -> NAME, for the lines of `mod.play` marked `# trace: NAME`."""
    lines, first = inspect.getsourcelines(mod.play)
    return {first + i: m.group(1) for i, line in enumerate(lines) if (m := re.search(r"trace: (\w+)", line))}


def traced_play(mod, players: int, rng, **opts):
    """`mod.play(players, rng)` and the locals at its `# trace: NAME` lines, in order."""
    marks = trace_marks(mod)
    code = mod.play.__code__
    events = []

    def local(frame, event, arg):
        if event == "line" and frame.f_lineno in marks:
            # lists are copied (they change later), but not the big precomputed tables
            events.append((marks[frame.f_lineno],
                           {k: list(v) if type(v) is list and len(v) < 1000 else v for k, v in frame.f_locals.items()}))
        return local

    before = sys.gettrace()
    sys.settrace(lambda frame, event, arg: local if frame.f_code is code else None)
    try:
        result = mod.play(players, rng, **opts)
    finally:
        sys.settrace(before)
    return result, events


def _fishfry(s, n, events):
    from benchmarks.baselines.fishfry import FACES, PANFISH

    def faces(code):
        return [f for f in range(6) for _ in range(code // 6 ** f % 6)]

    dice, rerolled = None, None
    pick = random.Random(len(events)).choice
    for name, v in events:
        if name == "rolled":  # play() rolls a multiset of faces: which die shows which is drawn here
            dice = faces(v["c"])
            random.Random(len(events) + v["c"]).shuffle(dice)
            for i, f in enumerate(dice):
                s.apply(f"die {i + 1} rolls {FACES[f]}")
        elif name == "chose":
            assert s.current == v["p"] and sorted(dice) == faces(v["c"])
            if not v["m"]:
                s.apply("stay")
                continue
            # play() re-rolls a set of faces; which of several dice alike is re-rolled is drawn
            # here, so that each set of dice is as likely as in play() (for the uniformity check)
            movable = [f for f in faces(v["c"]) if f != PANFISH]
            rerolled = []
            for f in (f for j, f in enumerate(movable) if v["m"] >> j & 1):
                rerolled.append(pick([i for i in range(5) if dice[i] == f and i not in rerolled]))
            rerolled.sort()
            s.apply("reroll " + " ".join(str(i + 1) for i in rerolled))
        elif name == "rerolled":
            new = list((Counter(faces(v["c"])) - Counter(faces(v["kept"]))).elements())
            random.Random(len(events) + v["c"]).shuffle(new)
            for i, f in zip(rerolled, new):
                dice[i] = f
                s.apply(f"die {i + 1} rolls {FACES[f]}")


def _fishfish(s, n, events):
    for name, v in events:
        if name == "line":
            assert s.current == v["f"]
            s.apply(f"set_line {'Catch' if v['catch'] else 'Empty_handed'} bait-{v['bait']}")
        else:
            assert s.current == v["p"]
            s.apply(f"bet {v['b'] if name == 'bet' else 0}")


def _fisherman(s, n, events):
    from benchmarks.baselines.fisherman import SUITS

    def label(c):
        return f"{SUITS[c >> 4]}-{c & 15}"

    for name, v in events:
        if name == "dealt":
            for c in v["deck"][:n * v["hand_size"]]:
                s.apply("draw " + label(c))
        elif name == "rules":
            valuation = "large" if v["large"] else "small"
            s.apply(f"choose_target {SUITS[v['target']]}")
            if n == 4:
                s.apply(f"choose_valuation {valuation}")
                s.apply(f"choose_size {v['low']}")
            else:
                s.apply(f"choose_valuation_and_size {valuation} {v['low']}")
            assert s.current == v["dealer"]
            s.apply(f"choose_not_target {SUITS[v['not_target']]}")
        else:
            assert s.current == (v["leader"] if name == "led" else v["p"])
            s.apply("play_card " + label(v["c"]))


def _fatfish(s, n, events):
    from benchmarks.baselines.fatfish import COLOURS

    def label(c):
        return f"{COLOURS[c >> 3]}-{c & 7}"

    keep, keep_cards = [], False
    for name, v in events:
        if name == "dealt":  # each stack bottom first, its top 4 (the hand) last
            deck = v["deck"]
            for p in range(n):
                for c in deck[12 * p:12 * p + 8] + deck[12 * p + 8:12 * p + 12][::-1]:
                    s.apply("draw " + label(c))
            for c in deck[12 * n:15 * n]:
                s.apply("draw " + label(c))
        elif name == "stop":
            assert s.current == v["p"]
            s.apply("stop")
        elif name == "lay":
            assert s.current == v["p"]
            s.apply(f"lay {v['r'] + 1} {label(v['c'])}")
        elif name == "keep_card":
            keep.append(label(v["k"]))
            keep_cards = True
        elif name == "kept":
            row = v["row"]
            if not keep:  # five of a colour: play() drew a pair's sum; any pair of that sum scores alike
                i, j = next((i, j) for i in range(5) for j in range(i + 1, 5)
                            if (row[i] & 7) + (row[j] & 7) == v["kept"])
                keep = [label(row[i]), label(row[j])]
            text = next(t for t in s.legal() if sorted(t.split()[1:]) == sorted(keep))
            (s.apply if keep_cards else s.apply_unranked)(text)  # a pair by its sum: not ranked
            keep, keep_cards = [], False


def _fisheatfish(s, n, events):
    from benchmarks.baselines.fisheatfish import OCTOPUS, SHARK

    for name, v in events:
        if name == "colours":
            for k in v["picks"]:
                s.apply(s.legal()[k])
        elif name == "place":
            assert s.current == v["p"]
            s.apply(f"place {v['c'] + 1}")
        elif name == "move":
            fr, to, t = v["fr"] + 1, v["to"] + 1, v["t"] + 1
            assert s.current == v["f"]
            s.apply(f"attack {fr} {t}" if to == fr else f"move_and_attack {fr} {to} {t}")
        elif name == "drift":
            assert s.current == v["f"]
            s.apply(f"drift {v['fr'] + 1} {v['to'] + 1}")
        elif name == "cards":
            for p, card in ((v["f"], v["a"]), (v["d"], v["b"])):
                suffix = {SHARK: "shark", OCTOPUS: "octopus"}.get(card, str(card))
                s.apply(next(t for t in s.legal(p) if t.endswith(f" challenge_card {s_colour(s, p)}-{suffix}")))


def s_colour(s, p):
    """A player's colour, read off their challenge cards."""
    return s.legal(p)[0].split()[-1].split("-")[0]


REPLAY = {"fishfry": _fishfry, "fishfish": _fishfish, "fisherman": _fisherman, "fatfish": _fatfish,
          "fisheatfish": _fisheatfish}
# games per player count
TRACED = {"fishfry": 200, "fishfish": 30, "fisherman": 15, "fatfish": 10, "fisheatfish": 20}


class RankedStep(Step):
    """A step API that notes, at each choice among k >= 2, the rank of the choice in the engine's
    order: (rank, k); and at each chance node, the rank of the outcome among the k equally likely
    entries (a card twice in the deck is two entries: one of them is drawn at random)."""

    ranks: list
    chance_ranks: list
    pick: random.Random

    def apply(self, text):
        if self.current == "chance":
            entries = self._node[2]
            self.chance_ranks.append((self.pick.choice([i for i, t in enumerate(entries) if t == text]), len(entries)))
            return super().apply(text)
        if self.current == "simultaneous":
            legal = self.legal(int(text.split(":")[0][1:]))
        elif self.current not in (None, "chance"):
            legal = self.legal()
        else:
            legal = []
        if len(legal) > 1 and text in legal:
            self.ranks.append((legal.index(text), len(legal)))
        return super().apply(text)

    def apply_unranked(self, text):
        return super().apply(text)


def assert_uniform(ranks, what: str, z: float = 5.0):
    """Choices uniform among the legal ones: the first and the last are as often chosen as they
    should be, and the mean rank is the middle (each within z standard errors)."""
    for test, mean, var in (
        ("first", lambda i, k: i == 0, lambda k: (1 / k) * (1 - 1 / k)),
        ("last", lambda i, k: i == k - 1, lambda k: (1 / k) * (1 - 1 / k)),
        ("rank", lambda i, k: i, lambda k: (k * k - 1) / 12),
    ):
        expected = sum(1 / k if test != "rank" else (k - 1) / 2 for _, k in ranks)
        got = sum(mean(i, k) for i, k in ranks)
        se = sum(var(k) for _, k in ranks) ** 0.5
        assert abs(got - expected) <= z * se, f"{what}: {test} choices {got:.0f}, uniform would give {expected:.0f}"


# (players, seed) of extra play() games, one each, found as above: Fish Eat Fish, the Starfish
# passed by a drift breaks a tie.
RARE_PLAYS = {"fisheatfish": [(2, 42), (3, 27), (4, 27), (5, 288)]}


@pytest.mark.parametrize("name,opts", PLAY_MODES, ids=[n + "".join(f"-{v}" for v in o.values()) for n, o in PLAY_MODES])
def test_play_is_the_step_game(name, opts):
    """Every fast playout, replayed with its deal and choices through the step API, is legal there
    at every step and ends with the same scores, winners and number of decisions; and its choices
    are uniform among the legal ones."""
    mod = GAMES[name]
    ranks, chance_ranks = [], []
    games = []
    for players in range(mod.MIN_PLAYERS, mod.MAX_PLAYERS + 1):
        rng = random.Random(players)  # one generator for the games of a player count
        games += [(players, rng)] * TRACED[name]
    games += [(players, random.Random(seed)) for players, seed in RARE_PLAYS.get(name, [])]
    for players, rng in games:
        (scores, winners, decisions), events = traced_play(mod, players, rng, **opts)
        s = mod.Game(players, **opts)
        s.__class__ = RankedStep
        s.ranks, s.chance_ranks, s.pick = ranks, chance_ranks, random.Random(len(events))
        REPLAY[name](s, players, events)
        assert s.is_over, f"{name}: play() ended, the step API's game goes on"
        assert (s.scores(), s.winners(), s.decisions) == (scores, winners, decisions)
    assert_uniform(ranks, f"{name} play(), its choices")
    if chance_ranks:
        assert_uniform(chance_ranks, f"{name} play(), its chance")


# ---- 3. the fast playouts: they end, and on average they are the engine's game ----------------


@pytest.mark.parametrize("name,opts", PLAY_MODES, ids=[n + "".join(f"-{v}" for v in o.values()) for n, o in PLAY_MODES])
def test_play_runs_and_ends(name, opts):
    mod = GAMES[name]
    for players in range(mod.MIN_PLAYERS, mod.MAX_PLAYERS + 1):
        rng = random.Random(players)
        for _ in range(20):
            scores, winners, decisions = mod.play(players, rng, **opts)
            assert len(scores) == players and all(isinstance(s, int) for s in scores)
            assert winners and winners == sorted(set(winners)) and all(0 <= w < players for w in winners)
            assert isinstance(decisions, int) and decisions > 0


def assert_same_mean(x: list, y: list, what: str, z: float = 4.5):
    se = (statistics.pvariance(x) / len(x) + statistics.pvariance(y) / len(y)) ** 0.5
    diff = statistics.fmean(x) - statistics.fmean(y)
    assert abs(diff) <= z * se + 1e-9, (f"{what}: {statistics.fmean(x):.3f} vs {statistics.fmean(y):.3f} "
                                        f"({diff / se if se else float('inf'):+.1f} standard errors)")


# (game, players): 200 engine games each, at one player count to keep the file fast.
VERSUS_ENGINE = [("fishfry", 4), ("fishfish", 4), ("fisherman", 3), ("fatfish", 2), ("fisheatfish", 2)]


@pytest.mark.parametrize("name,players", VERSUS_ENGINE, ids=[f"{g}-{n}p" for g, n in VERSUS_ENGINE])
def test_play_mean_length_agrees_with_engine(engines, name, players):
    """The mean number of decisions (and of the total score) of play() and of seeded engine games
    with uniformly random choices, within 4.5 standard errors."""
    game = engines[name]
    rng = random.Random(99)
    engine = []
    for seed in range(200):
        state = game.start(players=players, seed=1000 + seed)
        decisions = 0
        while not state.is_over:
            waiting = state.waiting[0] if state.current == fishrules.SIMULTANEOUS else None
            actions = state.legal_actions(waiting)
            state.apply(actions[rng.randrange(len(actions))])
            decisions += 1
        engine.append((state.scores(), decisions))
    rng = random.Random(7)
    fast = [GAMES[name].play(players, rng, **options(name)) for _ in range(2000)]
    assert_same_mean([d for _, _, d in fast], [d for _, d in engine], f"{name}, mean decisions, play() vs engine")
    assert_same_mean([sum(s) for s, _, _ in fast], [sum(s) for s, _ in engine],
                     f"{name}, mean total score, play() vs engine")

"""The bots of fishrules.bots: legal, reproducible, blind to what their player cannot know, and
better than random where it is measured.

Twin states are the test of blindness: two states that differ only in what is hidden from the
bot's player (the same view, history and events for that player) must get the same decision from
bots with the same seed, in every game.
"""

from __future__ import annotations

import random
import time

import pytest

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.bots import BOTS, GreedyBot, ISMCTSBot, MCTSBot, RandomBot, make_bot

from ._frozen import digest, frozen
from ._positions import positions, step, swapped_draw_twins

NAMES = fishrules.bundled()


def bots_for_test(seed: int) -> list:
    return [RandomBot(seed), GreedyBot(seed, samples=2), MCTSBot(seed, iterations=8), ISMCTSBot(seed, iterations=8)]


def deciders(state):
    """Positions where a player decides, with that player."""
    return state.waiting


@pytest.mark.parametrize("name", NAMES)
def test_bots_choose_legal_actions_the_same_for_the_same_seed(name):
    game = fishrules.load(name)
    n = game.min_players
    s = game.start(players=n, seed=3)
    rng = random.Random(3)
    for k, pos in enumerate(positions(s, rng, every=11, most=3)):
        if pos.is_over:
            break
        for p in deciders(pos)[:1]:
            legal = pos.legal_actions(p)
            for bot, again in zip(bots_for_test(k), bots_for_test(k)):
                a = bot.choose(pos, p)
                assert a in legal
                assert again.choose(pos, p) == a


def _twins(game, n, seed):
    """(state, player, twin) triples: the twin differs only in what is hidden from the player (read
    from the kernel's position: reading an engine field would replay the states on its machine)."""
    from fishrules.forms import forms_of

    from ._kernel_positions import kernel_layout

    s = game.start(players=n, seed=seed)
    rng = random.Random(seed)
    out = []
    for k, pos in enumerate(positions(s, rng, every=13, most=3)):
        if pos.is_over:
            break
        p = pos.waiting[0]
        twin = pos.determinize(p, random.Random(1000 + k))
        if kernel_layout(twin) == kernel_layout(pos) and not forms_of(game.model).card_labels:
            twin = None  # nothing hidden to differ in (dice games): the bots still must agree
        out.append((pos.clone(), p, twin if twin is not None else pos.determinize(p, random.Random(k))))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_twin_states_get_the_same_decisions(name):
    game = fishrules.load(name)
    for n in sorted({game.min_players, game.max_players})[:1 if name.startswith("fishfry") else 2]:
        for state, p, twin in _twins(game, n, seed=n):
            assert twin.view(p) == state.view(p) and twin.history_for(p) == state.history_for(p)
            for bot_a, bot_b in zip(bots_for_test(5), bots_for_test(5)):
                assert bot_a.choose(state, p).text == bot_b.choose(twin, p).text, type(bot_a).__name__


def test_twins_by_hidden_draws_get_the_same_decisions():
    """Fat Fish twins made independently of determinization: two face-down draws of others
    swapped in the history (every player's view of p0 unchanged)."""
    game = fishrules.load("fatfish")
    s = game.start(players=3, seed=8)
    rng = random.Random(8)
    while len(s.history) < 40 or s.current != 0:
        step(s, rng)
    twins = swapped_draw_twins(game, s, 0, most=2)
    assert twins
    for t in twins:
        for bot_a, bot_b in zip(bots_for_test(2), bots_for_test(2)):
            assert bot_a.choose(s, 0).text == bot_b.choose(t, 0).text


def test_twins_by_a_secret_choice_get_the_same_decisions():
    """Fish Fish: the Fisherman's line card is secret; whichever it is, a Fish decides the same."""
    game = fishrules.load("fishfish")
    a = game.start(players=3, seed=1).apply("set_line Catch bait-3")
    b = game.start(players=3, seed=1).apply("set_line Empty_handed bait-3")
    assert a.view(1) == b.view(1) and a.current == 1
    for bot_a, bot_b in zip(bots_for_test(4), bots_for_test(4)):
        assert bot_a.choose(a, 1).text == bot_b.choose(b, 1).text


def test_a_bot_at_a_simultaneous_choice():
    game = fishrules.load("fisheatfish")
    s = game.start(players=2, seed=1)
    rng = random.Random(1)
    while s.current != SIMULTANEOUS:
        step(s, rng)
    bot = ISMCTSBot(seed=1, iterations=10)
    with pytest.raises(fishrules.OptionError, match="say which one"):
        bot.choose(s)
    a = bot.choose(s, 1)
    assert a in s.legal_actions(1)
    s.apply(bot.choose(s, 0))
    with pytest.raises(fishrules.OptionError, match="p0 has nothing to choose"):
        bot.choose(s, 0)


def test_bad_budgets_are_refused():
    with pytest.raises(fishrules.OptionError):
        MCTSBot(iterations=0)
    with pytest.raises(fishrules.OptionError):
        ISMCTSBot(seconds=-1)
    with pytest.raises(fishrules.OptionError, match="no bot 'smart'"):
        make_bot("smart")
    assert set(BOTS) == {"random", "greedy", "mcts", "ismcts"}


def test_a_time_budget_is_kept():
    s = fishrules.load("fatfish").start(players=2, seed=1)
    rng = random.Random(1)
    while len(s.legal_actions()) < 3:
        step(s, rng)
    t = time.perf_counter()
    ISMCTSBot(seed=1, seconds=0.2).choose(s)
    assert time.perf_counter() - t < 1.0


HOUSE_RULE = '''
extends "fatfish"
game "Fat Fish where the fiasco pays"
replace score "fiasco": if fiasco_holder is you then 30 otherwise 0
'''


def test_bots_break_a_rule_where_it_pays():
    """Actions that break a rule on purpose are listed (last) with `breaks` set; where breaking
    pays — here a house rule makes the fiasco card worth 30 points — the bots take them."""
    game = fishrules.loads(HOUSE_RULE, "fiasco-pays.fish")
    # the last position of a random game where p0 may break a rule: little time is left for
    # anybody to take the fiasco card over
    s = game.start(players=2, seed=2)
    rng = random.Random(2)
    texts, last = [], None
    while not s.is_over:
        if s.current == 0 and any(a.breaks for a in s.legal_actions()):
            last = len(texts)
        a = rng.choice(s.legal_actions())
        texts.append(a.text)
        s.apply(a)
    s = game.start(players=2, seed=2)
    for text in texts[:last]:
        s.apply(text)
    legal = s.legal_actions()
    assert legal[-1].breaks is not None and legal[0].breaks is None
    for bot in (GreedyBot(1), MCTSBot(1, iterations=60), ISMCTSBot(1, iterations=60)):
        assert bot.choose(s).breaks is not None, bot
    # and under the rulebook's scoring, the search still takes a fiasco where it judges it pays
    plain = fishrules.load("fatfish").start(players=2, seed=0)
    bot, taken = ISMCTSBot(0, iterations=40), 0
    rng = random.Random(0)
    while not plain.is_over and len(plain.history) < 60:
        a = bot.choose(plain) if plain.current == 0 else rng.choice(plain.legal_actions())
        taken += a.breaks is not None
        plain.apply(a)
    assert taken > 0


def play(game, n, bots, seed):
    s = game.start(players=n, seed=seed)
    while not s.is_over:
        for p in s.waiting:
            s.apply(bots[p].choose(s, p))
    return s.winners()


# (ruleset, bot, iterations, games, least wins): fixed seeds, so the outcome is fixed; the least
# is well above what random play wins (games / players) yet below what the bot wins today, and the
# whole test takes about 10 s.  Fisherman and Fish Eat Fish are too slow per game for a margin
# that means anything here: benchmarks/bots.py measures every game, with intervals (docs/bots.md).
STRENGTH = [
    ("fishfry", "ismcts", 200, 30, 20),    # random: 15
    ("fishfry", "mcts", 200, 30, 19),
    ("fishfish", "ismcts", 30, 10, 7),     # random: 5
    ("fatfish", "ismcts", 12, 12, 8),      # random: 6 (its rollouts run on the kernel: more games, same time)
]


@pytest.mark.parametrize("name,kind,iterations,games,least", STRENGTH)
def test_search_beats_random(name, kind, iterations, games, least):
    game = fishrules.load(name)
    n = game.min_players
    won = 0.0
    for g in range(games):
        seat = g % n
        bots = [RandomBot(seed=1000 * g + p) for p in range(n)]
        bots[seat] = make_bot(kind, seed=g, iterations=iterations)
        w = play(game, n, bots, seed=g)
        if seat in w:
            won += 1 / len(w)
    assert won >= least, f"{kind} won {won} of {games} {name} games against random players"


@pytest.mark.parametrize("name", ["fatfish", "fishfish", "fisherman", "fisheatfish"])
def test_the_command_lines_greedy_bot_reads_only_its_view(name, monkeypatch):
    """`fishrules play --bot greedy` tries its actions only on copies of a determinization, never
    on a copy of the real state (which holds what the player may not know), and twin states get
    the same choice."""
    from fishrules.cli import bot_choice
    from fishrules.kernel.apistate import KState as State  # (the states `start` gives)

    real = {"clone": State.clone, "apply": State.apply, "determinize": State.determinize}
    allowed, inside, tried = set(), [0], []

    def determinize(self, *args, **kw):
        inside[0] += 1
        try:
            sample = real["determinize"](self, *args, **kw)
        finally:
            inside[0] -= 1
        allowed.add(id(sample))
        return sample

    def clone(self):
        child = real["clone"](self)
        if id(self) in allowed:
            allowed.add(id(child))
        return child

    def apply(self, action):
        if not inside[0]:
            tried.append(id(self) in allowed)
        return real["apply"](self, action)

    game = fishrules.load(name)
    for state, p, twin in _twins(game, game.min_players, seed=3):
        if state.current == fishrules.SIMULTANEOUS:
            continue
        assert type(state) is State and type(twin) is State
        for attr, fn in (("clone", clone), ("apply", apply), ("determinize", determinize)):
            monkeypatch.setattr(State, attr, fn)
        tried.clear()
        a = bot_choice("greedy", state, p, random.Random(7))
        b = bot_choice("greedy", twin, p, random.Random(7))
        for attr, fn in real.items():
            monkeypatch.setattr(State, attr, fn)
        assert a.text == b.text
        assert tried and all(tried)


def _searchers() -> list:
    return [ISMCTSBot(seed=1, iterations=60), MCTSBot(seed=2, iterations=60), GreedyBot(seed=3)]


def _searched(state, rng: random.Random):
    """`state` played at random to a seat's decision past the 40th move: where the searches are run."""
    while len(state.history) < 40 or state.current not in range(state.n):
        step(state, rng)
    return state


def test_the_search_bots_leave_a_kernel_state_on_the_kernel():
    """A search (MCTS, ISMCTS, greedy) reads a KState's position and record through its seat: the
    state stays a KState (no replay onto the engine's machine), the search runs on kernel worlds,
    chance by hand included, and decides as the same search did on the engine's machine at the
    same position (frozen: tests/golden/engine/test_bots.json)."""
    from fishrules.bots import Seat
    from fishrules.kernel.apistate import KState

    for chance in ("seeded", "manual"):
        engine = frozen("test_bots")[chance]
        s = _searched(fishrules.load("fisherman").start(players=3, seed=7, chance=chance), random.Random(7))
        assert type(s) is KState
        assert digest(s.history) == engine["history"], f"{chance}: not the engine's position"
        assert Seat(s, s.current).kernel_worlds() is not None
        for bot, chose in zip(_searchers(), engine["choices"], strict=True):
            assert [type(bot).__name__, bot.choose(s, s.current).text] == chose, chance
            assert type(s) is KState, (chance, bot)


def test_kernel_twins_by_hidden_draws_get_the_same_decisions():
    """`test_twins_by_hidden_draws_get_the_same_decisions` with the states on the kernel (the
    bots determinize from the position: nothing of the real cards reaches them)."""
    from fishrules.kernel.apistate import KState

    from ._kernel_positions import kernel_game, kernel_twins

    game = fishrules.load("fatfish")
    s = kernel_game("fatfish", 3, 8, 0)
    rng = random.Random(8)
    while len(s.history) < 40 or s.current != 0:
        step(s, rng)
    twins = kernel_twins(game, s, 0, most=2)
    assert twins
    for t in twins:
        for bot_a, bot_b in zip(bots_for_test(2), bots_for_test(2)):
            assert bot_a.choose(s, 0).text == bot_b.choose(t, 0).text
        assert type(s) is KState and type(t) is KState


def freeze(engine) -> dict:
    """What the engine answered (run by tests/tools/freeze_engine.py while it lived): the searches'
    choices on its machine, at the position the tests reach on the kernel."""
    out: dict = {}
    for chance in ("seeded", "manual"):
        e = _searched(engine.start(fishrules.load("fisherman"), 3, 7, chance), random.Random(7))
        out[chance] = {"history": digest(e.history),
                       "choices": [[type(bot).__name__, bot.choose(e, e.current).text] for bot in _searchers()]}
    return out

"""Determinization (`State.determinize`): a full state a player cannot tell from the real one.

The property: for every bundled ruleset at several player counts, at many positions, for every
seat (and the spectator), the determinized state shows that player exactly what the real one does
— view, history, events, legal actions — and is a consistent position that plays on.  And it is
not the real state in disguise: it moves hidden cards, it draws secret choices again, and it
depends on nothing the player cannot know (twin states give the same determinization).
"""

from __future__ import annotations

import collections
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.determinize import Determinizer

from ._frozen import digest, frozen, plain
from ._kernel_positions import kernel_game, kernel_layout, kernel_twins
from ._positions import layout, player_counts, positions, step, swapped_draw_twins

NAMES = fishrules.bundled()


def consistent(d: fishrules.State) -> None:
    """Every card is exactly where `where` says, once (read from the kernel's position: reading the
    engine's `where` of a KState would replay it on the engine's machine)."""
    kernel_layout(d)


def same_to(player, real: fishrules.State, d: fishrules.State) -> None:
    assert d.view(player) == real.view(player)
    assert d.history_for(player) == real.history_for(player)
    assert d.events_for(player) == real.events_for(player)
    assert d.current == real.current and d.waiting == real.waiting


def test_no_bundled_ruleset_hides_a_value_that_is_not_cards():
    """Determinization redistributes cards and secret choices; a hidden value of another kind
    would keep its real value (see determinize.py), so a ruleset that adds one must be looked at."""
    for name in NAMES:
        model = fishrules.load(name)._model
        for v in [*model.game_vars, *model.player_vars]:
            if v.visibility not in ("public", "internal"):
                assert v.type.kind == "zone", (name, v.name, v.visibility)


@pytest.mark.parametrize("name", NAMES)
def test_every_seat_sees_the_same_in_the_determinization(name):
    game = fishrules.load(name)
    for n in player_counts(game):
        rng = random.Random(n)
        state = game.start(players=n, seed=n)
        for k, s in enumerate(positions(state, rng, every=9, most=12)):
            for v in [*range(n), None]:
                d = s.determinize(v, random.Random(k))
                same_to(v, s, d)
                consistent(d)
        assert s.is_over or k == 11


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), seed=st.integers(0, 10**6), steps=st.integers(0, 120),
       seat=st.integers(0, 7), players=st.integers(0, 10))
def test_determinizations_are_indistinguishable_and_play_on(name, seed, steps, seat, players):
    game = fishrules.load(name)
    n = game.min_players + players % (game.max_players - game.min_players + 1)
    rng = random.Random(seed)
    s = game.start(players=n, seed=seed)
    for _ in range(steps):
        if s.is_over:
            break
        step(s, rng)
    v = seat % n
    d = s.determinize(v, random.Random(seed), chance="manual")
    same_to(v, s, d)
    consistent(d)
    # it plays on, whoever acts, chance included (the determinization's chance is manual)
    for _ in range(30):
        if d.is_over:
            break
        step(d, rng)
    d.playout(rng)


def test_hidden_cards_move_and_seen_ones_do_not():
    game = fishrules.load("fatfish")
    s = game.start(players=3, seed=5)
    rng = random.Random(5)
    for _ in range(40):
        step(s, rng)
    real = kernel_layout(s)
    hands = collections.Counter()
    for i in range(50):
        d = s.determinize(0, random.Random(i))
        mine = kernel_layout(d)
        for zone in ("hand of p0", "rows(1)", "rows(2)", "rows(3)"):
            assert mine[zone] == real[zone]  # what p0 sees stays
        hands[tuple(mine["hand of p1"])] += 1
        assert sorted(sum(mine.values(), [])) == sorted(sum(real.values(), []))  # the same cards
    assert len(hands) > 40  # p1's hand is drawn anew nearly every time


def test_fishfish_line_card_is_drawn_as_likely_as_the_hand_makes_it():
    """A Fish sees `set_line ? bait-N`: the line's Fishing card is any of the five, so Catch with
    probability 2/5 (the hand holds 2 Catch, 3 Empty_handed); the Fisherman knows it."""
    game = fishrules.load("fishfish")
    s = game.start(players=3, seed=1)
    s.apply("set_line Catch bait-3")
    line = collections.Counter()
    D = Determinizer(s, 1)
    rng = random.Random(0)
    for _ in range(2000):
        line[kernel_layout(D.sample(rng))["line_fishing"][0]] += 1
    assert 700 < line["Catch"] < 900, line  # 2/5 of 2000 = 800
    for i in range(20):
        assert kernel_layout(s.determinize(0, random.Random(i)))["line_fishing"] == ["Catch"]


def test_a_card_seen_before_stays_known_when_hidden_again():
    """Fish Fish: a checked line's card is turned face up, then discarded face down; nobody may
    look at it again, but everybody saw it: it stays in the discard in every determinization."""
    game = fishrules.load("fishfish")
    s = game.start(players=3, seed=4)
    rng = random.Random(1)
    while not any(e["event"] == "reveal" for e in s.events_for(None)):
        step(s, rng)
    shown = [e for e in s.events_for(1) if e["event"] == "reveal"][0]["cards"]
    for i in range(30):
        assert kernel_layout(s.determinize(1, random.Random(i)))["discard"][:len(shown)] == shown


def test_fisherman_three_players_never_deal_the_squids():
    """The rules set the squids aside before the deal (unseen, but by a rule everybody can follow):
    they stay in the box in every determinization, and the hands are drawn from the other cards."""
    game = fishrules.load("fisherman")
    s = game.start(players=3, seed=2)
    rng = random.Random(2)
    for _ in range(20):
        step(s, rng)
    suit = {ci.label: dict(ci.values).get("suit") for ci in game._model.cards}
    for i in range(30):
        d = kernel_layout(s.determinize(0, random.Random(i)))
        for p in (1, 2):
            assert "squid" not in {suit[c] for c in d[f"hand of p{p}"]}
        assert sum(suit[c] == "squid" for c in d["box"]) == sum(v == "squid" for v in suit.values())


def test_secret_simultaneous_choices_are_drawn_again():
    game = fishrules.load("fisheatfish")
    s = game.start(players=2, seed=1)
    rng = random.Random(1)
    while s.current != SIMULTANEOUS:
        step(s, rng)
    s.apply(s.legal_actions(0)[-1])
    assert s.waiting == [1]
    drawn = collections.Counter()
    for i in range(60):
        d = s.determinize(1, random.Random(i))
        same_to(1, s, d)
        drawn[d.history[len(s.history) - 1]] += 1
        d.apply(d.legal_actions(1)[0])  # p1 chooses: both take effect
    assert len(drawn) > 1  # p0's choice is not the real one every time
    # p0 knows its own choice
    assert s.determinize(0, random.Random(3)).history == s.history_for(0)


def test_twin_states_give_the_same_determinization():
    """Two games that differ only in hidden draws (two cards dealt face down to others swapped)
    determinize identically for the player who saw neither: the draw reads nothing hidden."""
    game = fishrules.load("fatfish")
    s = game.start(players=3, seed=8, chance="seeded")
    rng = random.Random(8)
    for _ in range(30):
        step(s, rng)
    twin = next(iter(swapped_draw_twins(game, s, 0, most=1)), None)
    assert twin is not None
    for i in range(10):
        assert layout(s.determinize(0, random.Random(i))) == layout(twin.determinize(0, random.Random(i)))


def test_a_played_out_state_cannot_be_determinized():
    s = fishrules.load("fishfry").start(players=2, seed=1)
    s.playout(random.Random(1))
    with pytest.raises(fishrules.OptionError, match="playout"):
        s.determinize(0, random.Random(1))
    with pytest.raises(fishrules.OptionError, match="no player 5"):
        fishrules.load("fishfry").start(players=2, seed=1).determinize(5, random.Random(1))


# ---- on the kernel: a KState's determinization is a KState, drawn from its position -------------


@pytest.mark.parametrize("name", NAMES)
def test_a_kernel_state_determinizes_on_the_kernel(name):
    """For every seat and the spectator, at a few positions of every bundled game: the
    determinization is a KState (and the state stays one), shows the player what the real one
    does, is a legal position with the same cards, and plays on on the kernel."""
    from fishrules.kernel.apistate import KState

    game = fishrules.load(name)
    for n in (game.min_players, game.max_players):
        for steps in (3, 25):
            s = kernel_game(name, n, steps, steps)
            if s.current == SIMULTANEOUS and len(s.waiting) < n:
                continue  # a choice made in part: the engine's determinization (tested above)
            real = kernel_layout(s)
            for v in [*range(n), None]:
                d = s.determinize(v, random.Random(v or 0))
                assert type(d) is KState and type(s) is KState
                same_to(v, s, d)
                mine = kernel_layout(d)
                assert sorted(sum(mine.values(), [])) == sorted(sum(real.values(), []))
                rng = random.Random(1)
                for _ in range(5):
                    if d.is_over:
                        break
                    step(d, rng)
                assert type(d) is KState
            assert type(s) is KState


#: (ruleset, players, seed, random steps) of the positions whose worlds are held to the engine's
WORLDS = (("fatfish", 3, 5, 40), ("fishfish", 3, 1, 1), ("fisherman", 3, 2, 20), ("fishfry", 2, 3, 15),
          ("fisheatfish", 2, 6, 9))


def cards_of(where: dict) -> dict:
    """A layout without its empty zones (the kernel's has the zones of players not in the game)."""
    return {zone: cards for zone, cards in where.items() if cards}


def test_a_kernel_state_draws_the_engine_s_worlds():
    """The same `rng` draws the same world from a KState as the engine drew from the same game
    (the same classes, places and random numbers): the distribution over worlds is the engine's.
    And the world plays on as the engine's did: the same moves, cards and public view (each
    compared with the engine's answers, frozen: tests/golden/engine/test_determinize.json)."""
    from fishrules.kernel.apistate import KState

    want = frozen("test_determinize")["worlds"]
    for name, n, seed, steps in WORLDS:
        s = kernel_game(name, n, seed, steps)
        for v in range(n):
            for i in range(3):
                where = f"{name}/{n}/{seed}/{steps} p{v} rng {i}"
                engine = want[where]
                d = s.determinize(v, random.Random(i), chance="seeded")
                assert digest(cards_of(kernel_layout(d))) == engine["world"], f"{where}: not the engine's world"
                rng = random.Random(i)
                for _ in range(4):
                    if d.is_over:
                        break
                    step(d, rng)
                assert d.history[len(s.history):] == engine["moves"], where
                assert digest(cards_of(kernel_layout(d))) == engine["after"], f"{where}: not the engine's cards"
                assert digest(plain(d.view(None))) == engine["view"], f"{where}: not the engine's view"
                assert type(d) is KState and type(s) is KState


def test_twin_kernel_states_give_the_same_determinization():
    """Two games on the kernel that differ only in hidden draws (cards dealt face down to others
    swapped) determinize identically, on the kernel, for the player who saw neither: the draw
    reads nothing hidden."""
    from fishrules.kernel.apistate import KState

    game = fishrules.load("fatfish")
    found = 0
    for seed in (8, 9):
        s = kernel_game("fatfish", 3, seed, 30)
        for twin in kernel_twins(game, s, 0, most=2):
            found += 1
            assert type(twin) is KState
            for i in range(6):
                a, b = s.determinize(0, random.Random(i)), twin.determinize(0, random.Random(i))
                assert type(a) is KState and type(b) is KState
                assert kernel_layout(a) == kernel_layout(b)
                assert a.view(None) == b.view(None) and a.history == b.history
    assert found


def test_a_kernel_determinization_moves_hidden_cards_only():
    """Fat Fish on the kernel: what p0 sees stays, p1's hand is drawn anew nearly every time."""
    s = kernel_game("fatfish", 3, 5, 40)
    real = kernel_layout(s)
    hands = collections.Counter()
    for i in range(50):
        mine = kernel_layout(s.determinize(0, random.Random(i)))
        for zone in ("hand of p0", "rows(1)", "rows(2)", "rows(3)"):
            assert mine[zone] == real[zone]
        hands[tuple(mine["hand of p1"])] += 1
        assert sorted(sum(mine.values(), [])) == sorted(sum(real.values(), []))
    assert len(hands) > 40


def test_a_determinization_cannot_be_saved():
    """Its record is one player's and no history reaches it: `to_json` refuses (OptionError, the
    library's words, the engine's: tests/golden/engine/test_determinize.json), rather than write
    `draw ?` entries that cannot be read back; the real state still saves."""
    s = kernel_game("fatfish", 3, 5, 20)
    d = s.determinize(1, random.Random(1))
    for state in (d, d.clone(), s.determinize(1, random.Random(1), "manual")):
        with pytest.raises(fishrules.OptionError, match="determinization.*cannot be saved") as refused:
            state.to_json()
        assert f"OptionError: {refused.value}" == frozen("test_determinize")["unsaved"]
    assert fishrules.load("fatfish").state_from_json(s.to_json()) == s


def test_a_kernel_determinization_with_chance_by_hand_plays_on():
    """chance="manual": the determinization waits for chance, given by hand, on the kernel, and
    plays as the engine's did (the same moves, chance given by hand, public view and seat to act:
    tests/golden/engine/test_determinize.json); a playout plays the determinization to its end."""
    from fishrules.kernel.apistate import KState

    s = kernel_game("fisherman", 3, 4, 10)
    assert not s.is_over
    d = s.determinize(0, random.Random(2), chance="manual")
    assert type(d) is KState and d.manual
    chances = _by_hand(d, random.Random(3))
    assert chances
    engine = frozen("test_determinize")["by hand"]
    assert [chances, d.history, d.current] == [engine["chances"], engine["history"], engine["current"]]
    assert digest(plain(d.view(None))) == engine["view"], "not the engine's view"
    d.playout(random.Random(4))
    assert d.is_over


def test_a_kernel_determinization_worked_out_again_starts_where_it_was_drawn():
    """What puts a KState back after a rule goes wrong or the game is stuck (its position worked
    out again from the moves applied) starts a determinization from its own position: played on
    (moves, a reseed), it comes out where the state is."""
    from fishrules.kernel.apistate import _SLOTS, position_of

    s = kernel_game("fatfish", 3, 5, 30)
    d = s.determinize(1, random.Random(3))
    rng = random.Random(4)
    for _ in range(6):
        step(d, rng)
    d.seed = 12345
    for _ in range(3):
        step(d, rng)
    ks = _SLOTS["_ks"].__get__(d)
    kernel = ks[0]
    assert position_of(kernel, d._position_again()) == position_of(kernel, ks[1])


def _by_hand(state, rng: random.Random) -> int:
    """Random moves, chance given by hand, until the state is over or three chances were given."""
    chances = 0
    while not state.is_over and chances < 3:
        if state.current == fishrules.CHANCE:
            chances += 1
        step(state, rng)
    return chances


def freeze(engine) -> dict:
    """What the engine answered (run by tests/tools/freeze_engine.py while it lived): its worlds
    drawn with the same `rng`, played on as the tests play the kernel's; its refusal to save a
    determinization; its determinization with chance by hand, played on."""
    def played(name: str, players: int, seed: int, steps: int, chance: str = "seeded"):
        e = engine.start(fishrules.load(name), players, seed, chance)
        rng = random.Random(seed)
        for _ in range(steps):
            if e.is_over:
                break
            step(e, rng)
        return e

    worlds: dict = {}
    for name, n, seed, steps in WORLDS:
        e = played(name, n, seed, steps)
        for v in range(n):
            for i in range(3):
                d = e.determinize(v, random.Random(i), chance="seeded")
                world = digest(cards_of(layout(d)))
                rng = random.Random(i)
                for _ in range(4):
                    if d.is_over:
                        break
                    step(d, rng)
                worlds[f"{name}/{n}/{seed}/{steps} p{v} rng {i}"] = {
                    "world": world, "moves": d.history[len(e.history):], "after": digest(cards_of(layout(d))),
                    "view": digest(plain(d.view(None)))}
    try:
        played("fatfish", 3, 5, 20).determinize(1, random.Random(1)).to_json()
        unsaved = "saved"
    except fishrules.FishrulesError as refused:
        unsaved = f"{type(refused).__name__}: {refused}"
    d = played("fisherman", 3, 4, 10).determinize(0, random.Random(2), chance="manual")
    chances = _by_hand(d, random.Random(3))
    return {"worlds": worlds, "unsaved": unsaved,
            "by hand": {"chances": chances, "history": d.history, "current": d.current,
                        "view": digest(plain(d.view(None)))}}

"""What a seat sees, read from the kernel's position (fishrules.kernel.views), is what the engine's
view showed: the same values by the same visibility, the same zones, dice, scores, phases, public
defines and legal actions, and the same observation vector, at every step of random games of every
bundled ruleset at its fewest and most players, for every seat and a spectator; and the same ids
of the legal actions.  Asking for an observation leaves a state deciding on the kernel where it is
(no replay onto the engine).

The engine's answers are frozen in tests/golden/engine/views.json (tests/tools/freeze_engine.py,
from the engine's own machine while it lived): at every step a digest of the views, of the
observations and of the legal ids, and the whole of the first step.  On the native backend through
the API's `KState`; on the Python kernel by driving its backend directly, move by move."""

from __future__ import annotations

import random

import pytest

import fishrules
from fishrules.forms import forms_of
from fishrules.kernel import abi as A
from fishrules.kernel.apistate import KState
from fishrules.kernel.views import Sight
from fishrules.runtime import SIMULTANEOUS

from ._frozen import frozen, same_length, same_step
from ._twins import bundled_game, skip_without_compiler

skip_without_compiler()

RULESETS = fishrules.bundled()
game = bundled_game


def without_history(v: dict) -> dict:
    v = dict(v)
    del v["history"]
    return v


def sight_of(s, view, observation, ids) -> dict:
    """What every seat and a spectator see of `s` (view without its history, observation), and
    the ids of every waiting seat's legal actions."""
    seats = [None, *range(s.n)]
    together = s.current == SIMULTANEOUS
    return {"views": [view(p) for p in seats], "observations": [observation(p) for p in seats],
            "ids": [[p, ids(p if together else None)] for p in s.waiting]}


def seen_on_kernel(k: KState, where: str) -> dict:
    spec = k.game.observation_spec(k.n, k._options())
    encode = k._sight().encoder_of(spec, k._options())
    assert encode is not None, f"{where}: no encoder from the position for this layout"

    def view(p):
        got = k._position_view(p, True)
        assert got is not None, f"{where}: the kernel could not read the view of {p}"
        return got

    def observation(p):
        observed = k.observation(p)
        assert encode(k._ks[1], p, k.current, k.waiting, k.scores) == observed, f"{where}, viewer {p}"
        return observed

    # (ids on a copy: an id numbered by positions among what the rules offer is the engine's to work out)
    seen = sight_of(k, view, observation, lambda who: k.clone().legal_action_ids(who))
    assert type(k) is KState, f"{where}: looking made the state the engine's"
    return seen


def test_the_engines_views_cover_every_ruleset():
    assert sorted(frozen("views")["api"]) == sorted(frozen("views")["python"]) == sorted(RULESETS)


@pytest.mark.parametrize("name", RULESETS)
def test_views_and_observations_from_the_position_are_the_engines(name):
    g = game(name)
    for players in (g.min_players, g.max_players):
        want = frozen("views")["api"][name][str(players)]
        seed = want["seed"]
        k = g.start(players, seed=seed)
        assert type(k) is KState
        rng = random.Random(seed)
        step = 0
        while True:
            where = f"{name} ({players} players), step {step}"
            same_step(seen_on_kernel(k, where), want, step, where)
            if k.is_over:
                break
            p = k.waiting[0]
            k = k.apply(k.legal_actions(p)[rng.randrange(len(k.legal_actions(p)))])
            step += 1
        same_length(step, want, f"{name} ({players} players)")
        assert type(k) is KState and k.winners() == want["winners"]


@pytest.mark.parametrize("name", RULESETS)
def test_the_python_kernel_reads_the_same_views(name):
    """The same on the Python kernel, driven move by move (its states are plain lists)."""
    g = game(name, "python")
    kernel = g.kernel
    be, bd = kernel.backend, kernel.boundary
    assert be.name == "python"
    sight = Sight(kernel)
    want = frozen("views")["python"][name]
    players, seed = want["players"], want["seed"]
    encode = sight.encoder(g.observation_spec(players), g._options(None))
    assert encode is not None
    opts = g._options(None)
    S = be.new(players, opts, seed)
    be.start(S, False)
    rng = random.Random(seed)
    step = 0
    while True:
        cur = S[A.H_CUR]
        together = cur == A.CUR_SIMUL
        current = cur if cur >= 0 else SIMULTANEOUS if together else None
        waiting = list(be.who_together(S)) if together else [cur] if cur >= 0 else []
        seats = [None, *range(players)]
        seen = {"views": [sight.view(S, players, opts, p, current, waiting, lambda: be.scores(S), lambda: be.winners(S),
                                     lambda q: [bd.text(m, together) for m in be.moves(S, q)]) for p in seats],
                "observations": [encode(S, p, current, waiting, lambda: be.scores(S)) for p in seats]}
        same_step(seen, want, step, f"{name}, step {step}")
        if cur == A.CUR_OVER:
            break
        if together:
            be.play_together(S, tuple(rng.choice(be.moves(S, q)) for q in waiting))
        else:
            be.play(S, rng.choice(be.moves(S, cur)))
        step += 1
    same_length(step, want, name)


# ---- hidden information: what a seat may not see cannot change its observation ---------------------------


def _hidden_pairs(g, S, seat: int):
    """Two face-down cards (different labels) in two zones `seat` may not see, the first a zone
    another seat sees (its secret zone, or a zone `seen by` it), so that the swap shows there:
    (zone a, zone b, who sees zone a, card x, card y); None if there are none."""
    kp = g.kernel.program
    lay, model, labels = kp.layout, kp.model, forms_of(g.model).card_labels
    players = S[A.H_N]
    owned, hidden = [], []
    for v in model.player_vars:
        if v.type.kind == "zone" and v.visibility == "secret":
            owned += [(lay.p_zone[v.slot] + q, q) for q in range(players) if q != seat]
        if v.type.kind == "zone" and v.visibility == "hidden":
            hidden += [lay.p_zone[v.slot] + q for q in range(players)]
    looks, _ = g.kernel.backend.looks(S)
    sees = {key[1]: looks[i] for i, (key, _) in enumerate(kp.looks) if key[0] == "seen by"}
    for v in model.game_vars:
        if v.type.kind == "zone" and v.visibility == "seen by" and sees[v.slot] not in (None, seat):
            owned.append((lay.g_zone[v.slot], sees[v.slot]))
        if v.type.kind == "zone" and v.visibility == "hidden":
            hidden += [lay.g_zone[v.slot + i] for i in range(v.family[1] if v.family else 1)]
    for za, owner in owned:
        for zb in hidden + [z for z, _ in owned if z != za]:
            a, b = lay.zones[za][0], lay.zones[zb][0]
            for x in S[a + 1:a + 1 + S[a]]:
                for y in S[b + 1:b + 1 + S[b]]:
                    if labels[x] != labels[y] and not S[lay.up + x] and not S[lay.up + y]:
                        return za, zb, owner, x, y
    return None


def _swap(g, S, za, zb, x, y) -> None:
    lay = g.kernel.program.layout
    a, b = lay.zones[za][0], lay.zones[zb][0]
    i = a + 1 + list(S[a + 1:a + 1 + S[a]]).index(x)
    j = b + 1 + list(S[b + 1:b + 1 + S[b]]).index(y)
    S[i], S[j] = y, x
    S[lay.where + x], S[lay.where + y] = S[lay.where + y], S[lay.where + x]


@pytest.mark.parametrize("name", ["fatfish", "fatfish-licenses", "fisherman", "fishfish"])
def test_a_card_a_seat_may_not_see_does_not_change_its_observation(name):
    """Twin positions on the kernel, alike but for two face-down cards swapped between zones a seat
    may not see (another seat's secret hand and a hidden pile, say): that seat and a spectator get
    the same observation and view from both, the seat who sees the first zone does not."""
    g = game(name)
    found = 0
    for seed in range(6):
        k = g.start(g.max_players, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 6)):
            if k.is_over:
                break
            p = k.waiting[0]
            k = k.apply(rng.choice(k.legal_actions(p)))
        if k.is_over:
            continue
        twin = k.clone()
        S = twin._ks[1]
        seat, pair = next(((q, got) for q in range(k.n) if (got := _hidden_pairs(g, S, q)) is not None), (0, None))
        if pair is None:
            continue
        za, zb, owner, x, y = pair
        _swap(g, S, za, zb, x, y)
        found += 1
        for p in (seat, None):
            assert twin.observation(p) == k.observation(p), f"seed {seed}: viewer {p} tells the twins apart"
            assert twin._position_view(p, True) == k._position_view(p, True)
        assert twin.observation(owner) != k.observation(owner)  # the owner sees their own hand change
        assert type(k) is KState and type(twin) is KState
    assert found, f"no twin positions were found in {name}"


@pytest.mark.parametrize("name", RULESETS)
def test_an_agents_loop_stays_on_the_kernel(name):
    """Ids, an observation and an action by its id at every step, as an agent through the adapters
    does: the state goes on deciding on the kernel to the end (but where an id is numbered by
    positions among what the rules offer, which the engine works out)."""
    g = game(name)
    players = g.min_players
    space = g.action_space(players)
    by_position = {i.name for i in space.actions if any(p.kind == "positions" for p in i.params)}
    s = g.start(players, seed=3)
    rng = random.Random(3)
    while not s.is_over:
        who = s.waiting[0] if s.current == SIMULTANEOUS else None
        if any(a.name in by_position for a in s.legal_actions(who)):
            return
        ids = s.legal_action_ids(who)
        s.observation(s.waiting[0])
        s = s.apply(s.action_of_id(rng.choice(ids), who))
        assert type(s) is KState
    assert s.winners() == s.clone().winners()

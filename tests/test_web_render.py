"""What a browser receives of a position (fishrules.web.render): only what its seat may know, drawn
from the rules, escaped."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("starlette")

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.web.html import Markup, tag
from fishrules.web.render import TableInfo, board_layout, frame, frame_json

from ._positions import positions, step, swapped_draw_twins

HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "' onmouseover='x", "&amp;<b>"]


def _info(game, n, names=None, kinds=None):
    return TableInfo(game.describe(), names or [f"p{i}" for i in range(n)], kinds or ["human"] * n)


@pytest.mark.parametrize("name", ["fishfish", "fisherman", "fatfish", "fisheatfish"])
def test_twin_positions_give_every_seat_the_same_bytes(name):
    """Two positions that differ only in cards a seat cannot see give that seat byte-identical
    frames: swapped hidden draws (two real games), and determinizations."""
    game = fishrules.load(name)
    n = 3 if name == "fisherman" else 2
    compared = 0
    for seed in (1, 2):
        state = game.start(players=n, seed=seed)
        info = _info(game, n)
        for s in positions(state, random.Random(seed), every=9, most=4):
            for player in range(n):
                mine = frame_json(s, player, info)
                for twin in swapped_draw_twins(game, s, player, most=1):
                    assert frame_json(twin, player, info) == mine
                    compared += 1
                d = s.determinize(player, random.Random(seed * 7 + player))
                assert frame_json(d, player, info) == mine
                compared += 1
            spectator = frame_json(s, None, info)
            assert frame_json(s.determinize(None, random.Random(5)), None, info) == spectator
    assert compared > 10


def test_a_frame_holds_no_card_its_seat_may_not_see():
    """Fish Fish: the Fish never see the Fisherman's Fishing cards, nor the line's."""
    game = fishrules.load("fishfish")
    state = game.start(players=3, seed=1)
    info = _info(game, 3)
    fisherman = state.view(None)["values"]["fisherman"]
    for _ in range(40):
        if state.is_over:
            break
        secret = set(state.view(fisherman)["values"]["fishing_hand"]) | set(state.view(fisherman)["values"]["line_fishing"])
        for seat in [None] + [p for p in range(3) if p != state.view(None)["values"]["fisherman"]]:
            f = frame(state, seat, info)
            assert f["actions"] == [] or seat == state.current
            for label in secret - {None}:
                assert f'data-pick="card:{label}"' not in f["html"]
        step(state, random.Random(len(state.history)))


def test_frames_offer_the_seats_legal_actions_with_their_arguments():
    game = fishrules.load("fisheatfish")
    state = game.start(players=2, seed=1)
    info = _info(game, 2)
    rng = random.Random(1)
    while state.current != SIMULTANEOUS:
        f = frame(state, state.current, info)
        assert [a["text"] for a in f["actions"]] == [a.text for a in state.legal_actions()]
        other = frame(state, 1 - state.current, info)
        assert other["actions"] == [] and not other["mine"]
        step(state, rng)
    for p in state.waiting:
        f = frame(state, p, info)
        assert f["mine"] and f["prefix"] == f"p{p}: "
        assert all(a["text"].startswith(f"p{p}: ") for a in f["actions"])
        assert f["decl"]["challenge_card"] == [{"name": "card", "kind": "one", "of": "card", "choices": [], "secret": False}]
    assert 'class="board"' in frame(state, None, info)["html"]


def test_every_bundled_game_renders_at_every_seat():
    for name in fishrules.bundled():
        game = fishrules.load(name)
        n = game.max_players
        state = game.start(players=n, seed=4)
        info = _info(game, n)
        for s in positions(state, random.Random(4), every=25, most=3):
            for seat in [None] + list(range(n)):
                f = json.loads(frame_json(s, seat, info))
                assert f["at"] == len(s.history)
                assert f["html"].startswith('<div class="table"')
        assert "Ranking" in frame(s, 0, info)["html"] or not s.is_over


@pytest.mark.parametrize("name", ["fishfish", "fisherman", "fatfish", "fisheatfish"])
def test_a_table_that_keeps_what_it_drew_draws_what_a_new_one_would(name, monkeypatch):
    """A table keeps the zones and values it drew (render._kept): every frame of a game, drawn
    through one table's kept pieces, is byte for byte the frame a table drawing afresh gives, also
    when the kept pieces are dropped at every turn (a small bound)."""
    import fishrules.web.render as render

    game = fishrules.load(name)
    n = 3 if name == "fisherman" else 2
    for most in (128, 3):
        monkeypatch.setattr(render, "MOST_PIECES_KEPT", most)
        kept = _info(game, n)
        state = game.start(players=n, seed=7)
        frames = 0
        for s in positions(state, random.Random(7), every=1, most=120):
            for seat in [None] + list(range(n)):
                assert frame_json(s, seat, kept) == frame_json(s, seat, _info(game, n))
                frames += 1
        assert frames > 60 and kept.zone_html and kept.kv_html


def test_names_rules_and_labels_are_escaped():
    rules = 'extends "fishfry"\ngame "<script>alert(1)</script>"\n'
    game = fishrules.loads(rules, "x.fish")
    state = game.start(players=2, seed=1)
    info = _info(game, 2, names=HOSTILE[:2], kinds=["human", "random"])
    html = frame(state, 0, info)["html"]
    assert "<script" not in html and "<img" not in html and "onerror=alert(1)>" not in html.replace("&quot;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    for text in HOSTILE:
        assert tag("p", {"title": text}, text).count("<") == 2


def test_markup_is_the_only_way_past_escaping():
    assert tag("b", None, "<i>") == "<b>&lt;i&gt;</b>"
    assert tag("b", None, Markup("<i>x</i>")) == "<b><i>x</i></b>"
    with pytest.raises(ValueError):
        tag("b", {"onclick x": "1"})


def test_the_board_is_laid_out_from_its_lines():
    grid = fishrules.load("fisheatfish").describe()["board"]
    pos = board_layout(*grid["circles"], grid["lines"])
    assert pos[1] == (0.0, 0.0) and pos[5] == (4.0, 0.0) and pos[21] == (0.0, 4.0) and pos[25] == (4.0, 4.0)
    assert len(set(pos.values())) == 25
    # diagonals added by a house rule fit the same square
    assert board_layout(1, 25, grid["lines"] + [[1, 7, 13, 19, 25]]) == pos
    # lines that cannot lie straight on a plane this way: circles in rows, every one drawn
    odd = board_layout(1, 4, [[1, 2, 3], [1, 3, 2], [4]])
    assert len(odd) == 4 and len(set(odd.values())) == 4

"""What a browser receives of a position (fishrules.web.render): only what its seat may know, drawn
from the rules, escaped."""

from __future__ import annotations

import json
import re
import random

import pytest

pytest.importorskip("starlette")

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.web.html import Markup, tag
from fishrules.web.render import TableInfo, board_layout, frame, frame_json

from ._kernel_positions import kernel_twins
from ._positions import positions, step

HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "' onmouseover='x", "&amp;<b>"]


def _info(game, n, names=None, kinds=None):
    return TableInfo(game.describe(), names or [f"p{i}" for i in range(n)], kinds or ["human"] * n)


def played(state, rng, every, most=None):
    """`positions`, with who took each step ([position, seat], as a table records it)."""
    steps = []
    k = 0
    while not state.is_over:
        if k % every == 0:
            yield state, list(steps)
            most = None if most is None else most - 1
            if most == 0:
                return
        steps.append([len(state.history), state.waiting[0] if state.current == SIMULTANEOUS else state.current])
        step(state, rng)
        k += 1
    yield state, list(steps)


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
        for s, steps in played(state, random.Random(seed), every=9, most=4):
            for player in range(n):
                mine = frame_json(s, player, info, steps)
                for twin in kernel_twins(game, s, player, most=1):
                    assert frame_json(twin, player, info, steps) == mine
                    compared += 1
                d = s.determinize(player, random.Random(seed * 7 + player))
                assert frame_json(d, player, info, steps) == mine
                compared += 1
            spectator = frame_json(s, None, info, steps)
            assert frame_json(s.determinize(None, random.Random(5)), None, info, steps) == spectator
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
        assert f["decl"]["challenge_card"] == [{"name": "card", "kind": "one", "of": "card", "choices": [], "secret": False,
                                                "label": "card", "description": None}]
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
        assert "Score sheet" in frame(s, 0, info)["html"] or not s.is_over


@pytest.mark.parametrize("name", ["fishfish", "fisherman", "fatfish", "fisheatfish"])
def test_a_table_that_keeps_what_it_drew_draws_what_a_new_one_would(name, monkeypatch):
    """A table keeps the zones and values it drew (render._kept): every frame of a game, drawn
    through one table's kept pieces, is byte for byte the frame a table drawing afresh gives, also
    when the kept pieces are dropped at every turn (a small bound)."""
    import fishrules.web.render as render

    game = fishrules.load(name)
    n = 3 if name == "fisherman" else 2
    # one game, each frame drawn afresh once, and by two tables that keep pieces: one under the
    # usual bound, one under a bound of 3 (the bound set as each draws; was a game each, with
    # each frame drawn afresh twice)
    kept = {most: _info(game, n) for most in (128, 3)}
    state = game.start(players=n, seed=7)
    frames = 0
    for s in positions(state, random.Random(7), every=1, most=120):
        for seat in [None] + list(range(n)):
            monkeypatch.setattr(render, "MOST_PIECES_KEPT", 128)
            fresh = frame_json(s, seat, _info(game, n))
            for most, table in kept.items():
                monkeypatch.setattr(render, "MOST_PIECES_KEPT", most)
                assert frame_json(s, seat, table) == fresh, most
            frames += 1
    assert frames > 60 and all(t.zone_html and t.kv_html for t in kept.values())


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


# ---- the log in words, the score sheet (issue 33) ---------------------------------------------------


def _play_to_end(game, n, seed, most=None):
    state = game.start(players=n, seed=seed)
    steps = []
    rng = random.Random(seed)
    while not state.is_over and (most is None or len(steps) < most):
        steps.append([len(state.history), state.waiting[0] if state.current == SIMULTANEOUS else state.current])
        step(state, rng)
    return state, steps


def _text(html):
    import re

    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'")


def test_the_log_says_who_did_what_in_words_grouped_by_turn():
    game = fishrules.load("fishfry")
    names = ["Ana", "Gus", "Greta"]
    state, steps = _play_to_end(game, 3, 5, most=4)
    f = frame(state, 0, _info(game, 3, names=names), steps)
    html = f["html"]
    log = html[html.index('<section class="log"'):html.index("</section>", html.index('<section class="log"'))]
    turns = log.split('<div class="turn')[1:]
    assert turns and all("<h3>" in t for t in turns)
    heads = [t.split("<h3>")[1].split("</h3>")[0] for t in turns]
    assert heads[-1] == "Setting up" and set(heads[:-1]) <= set(names)
    # consecutive steps of one seat are one turn: no two turns in a row under the same name
    assert all(a != b for a, b in zip(heads, heads[1:]))
    text = _text(log)
    assert "p0" not in text and "reroll 1" not in text  # words, not the rules' text
    for at, seat in steps:
        entry = state.history[at]
        if entry.startswith("reroll"):
            assert f"{names[seat]} rerolls" in text or f"{names[seat]}: reroll" in text


def test_the_log_never_says_more_than_the_seat_may_know():
    """Fish Fish: the Fisherman's line card, a secret parameter, reads as a secret in the others'
    logs, and the words of its reveal come only when the rules reveal it."""
    game = fishrules.load("fishfish")
    state, steps = _play_to_end(game, 3, 2, most=1)
    fisherman = state.view(None)["values"]["fisherman"]
    info = _info(game, 3, names=["Ana", "Gus", "Greta"])
    card = state.history[steps[0][0]].split()[1]

    def log(seat):
        html = frame(state, seat, info, steps)["html"]
        start = html.index('<section class="log"')
        return _text(html[start:html.index("</section>", start)])

    mine = log(fisherman)
    assert f"sets the line: {card} under" in mine
    for seat in [None] + [p for p in range(3) if p != fisherman]:
        theirs = log(seat)
        assert card not in theirs and "sets the line: something secret under" in theirs


@pytest.mark.parametrize("name, n", [("fatfish-licenses", 3), ("fisheatfish", 2), ("fishfish", 3), ("fisherman", 3)])
def test_the_score_sheet_tells_a_seat_nothing_hidden(name, n):
    """At the end, twin positions (swapped hidden draws, determinizations) give every seat the
    same bytes, score sheet included."""
    game = fishrules.load(name)
    state, steps = _play_to_end(game, n, 3)
    assert state.is_over
    info = _info(game, n)
    for player in range(n):
        mine = frame_json(state, player, info, steps)
        assert "Score sheet" in mine
        # (swapping draws in a long history is slow: the short games only)
        for twin in kernel_twins(game, state, player, most=1) if name in ("fishfish", "fisheatfish") else ():
            assert frame_json(twin, player, info, steps) == mine
        assert frame_json(state.determinize(player, random.Random(player)), player, info, steps) == mine
    assert frame_json(state.determinize(None, random.Random(9)), None, info, steps) == frame_json(state, None, info, steps)


def test_the_score_sheet_shows_each_part_a_seat_may_read():
    """Fat Fish with licenses: victory (public) and each license for everybody; the penalty (the
    player's secret cards) to its owner only, the rest as "hidden parts"; the totals add up."""
    from fishrules.web.telling import score_sheet

    game = fishrules.load("fatfish-licenses")
    state, _ = _play_to_end(game, 3, 3)
    terms = [t.name for t in game.model.scores]
    sheet = score_sheet(state, 1)
    assert sheet["terms"] == terms and sheet["scores"] == state.scores() and sheet["winners"] == state.winners()
    pen = terms.index("penalty")
    for p, row in enumerate(sheet["parts"]):
        assert (row[pen] is None) == (p != 1)
        assert row[terms.index("victory")] is not None and row[terms.index("license B")] is not None
    assert sum(sheet["parts"][1]) == state.scores()[1]
    spectator = score_sheet(state, None)
    assert all(row[pen] is None for row in spectator["parts"])
    html = frame(state, None, _info(game, 3, names=["Ana", "Gus", "Greta"]))["html"]
    assert "Score sheet" in html and "license B" in html and "hidden parts" in html


# ---- issue 33: what just happened stays on the table; chance in the right turn; counters ----------


def _section(html, cls):
    start = html.index(f'<section class="{cls}"')
    return html[start:html.index("</section>", start)]


def test_chance_after_a_turn_is_told_in_the_next_players_turn():
    """Fishfry: the roll that opens a turn is under that turn's player, whether the player before
    stayed (no dice of their own) or rerolled on their last roll (their dice, then the next roll)."""
    from fishrules.web.telling import log_turns

    game = fishrules.load("fishfry")
    names = ["Ana", "Gus", "Greta"]
    info = _info(game, 3, names=names)
    for seed in range(1, 30):
        state = game.start(players=3, seed=seed)
        steps = []
        rng = random.Random(seed)
        while not state.is_over and len(steps) < 5:
            steps.append([len(state.history), state.current])
            step(state, rng)
        if state.is_over:
            continue
        turns = log_turns(info, state.history, state.events_for(0), steps, 0, state.current)
        # each turn but the setting up starts its dice with a whole roll of all five, under its own name
        for who, lines in turns[1:]:
            rolls = [x for x in lines if x.startswith(("The dice roll", "Rolled"))]
            if who != names[steps[0][1]] and rolls:
                assert lines[0].startswith("The dice roll: "), (who, lines)
        heads = [who for who, _ in turns]
        assert heads[-1] == names[state.current] or not any(a == state.current for _, a in steps)
        assert all(a != b for a, b in zip(heads, heads[1:]))
    # on main, the next player's first roll was told in the turn before
    state = game.start(players=2, seed=3)
    state.apply("stay")
    turns = log_turns(_info(game, 2, names=["Ana", "Gus"]), state.history, state.events_for(0), [[5, 0]], 0, 1)
    assert turns[-1][0] == "Gus" and turns[-1][1][0].startswith("The dice roll: ")
    assert not any(x.startswith("The dice roll") for x in turns[-2][1]) and turns[-2][0] == "Ana"


def test_the_latest_turn_stays_on_the_table_with_its_cards():
    """The "just now" box: the latest turn somebody decided something in, with the cards it moved
    or turned face up drawn as cards — a whole trick in Fisherman, a revealed line in Fish Fish,
    the stacks of a fight in Fish Eat Fish — until the next player acts."""
    seen = {"trick": 0, "reveal": 0, "fight": 0}
    for name, n in [("fisherman", 3), ("fishfish", 3), ("fisheatfish", 2)]:
        game = fishrules.load(name)
        info = _info(game, n, names=["Ana", "Gus", "Greta"][:n])
        state = game.start(players=n, seed=4)
        steps = []
        rng = random.Random(4)
        while not state.is_over and len(steps) < 150:
            before = len(state.history)
            actor = state.waiting[0] if state.current == SIMULTANEOUS else state.current
            steps.append([before, actor])
            step(state, rng)
            evs = state.events_for(None, since=before)
            box = _section(frame(state, None, info, steps)["html"], "justnow")
            if name == "fisherman" and any(e["event"] == "move" and "catch" in e["to"] for e in evs):
                # the trick collected in this very step: all of its cards are in the box
                assert box.count('class="card') >= n and "catch" in box
                seen["trick"] += 1
            if name == "fishfish" and any(e["event"] == "reveal" for e in evs):
                assert "Revealed: " in box
                seen["reveal"] += 1
            if name == "fisheatfish" and any(e["event"] == "move" and "(" in str(e["from"]) and "(" in e["to"]
                                             for e in evs):  # a stack from circle to circle: a move, a fight
                assert "from circle" in box and 'class="card' in box
                seen["fight"] += 1
    assert all(seen.values()), seen


@pytest.mark.parametrize("name, n", [("fisherman", 3), ("fishfish", 3), ("fisheatfish", 2)])
def test_what_just_happened_tells_a_seat_nothing_hidden(name, n):
    """Twin positions right after a trick is taken, a line revealed, or a fight (determinizations,
    and swapped hidden draws) give every seat and the spectators the same box, byte for byte; the
    box of a secret choice reads as a secret to the others."""
    game = fishrules.load(name)
    info = _info(game, n)
    state = game.start(players=n, seed=6)
    steps = []
    rng = random.Random(6)
    compared = 0
    while not state.is_over and compared < 12:
        before = len(state.history)
        steps.append([before, state.waiting[0] if state.current == SIMULTANEOUS else state.current])
        step(state, rng)
        if not any(e["event"] in ("move", "reveal") for e in state.events_for(None, since=before)):
            continue
        for seat in [None] + list(range(n)):
            mine = _section(frame(state, seat, info, steps)["html"], "justnow")
            d = state.determinize(seat, random.Random(compared))
            assert _section(frame(d, seat, info, steps)["html"], "justnow") == mine
            if seat is not None and compared < 3:
                for twin in kernel_twins(game, state, seat, most=1):
                    assert _section(frame(twin, seat, info, steps)["html"], "justnow") == mine
        compared += 1
    assert compared >= 6


def test_a_counter_reads_out_of_its_bound():
    """`value roll: out of rolls_a_turn` reads "roll 2 of 3" on the table; a bound read from a
    public define (Fish Fish's rounds) too; a value not counting yet reads as its number."""
    game = fishrules.load("fishfry")
    state = game.start(players=2, seed=3)
    info = _info(game, 2)
    assert '<span class="k" title="which of the turn&#x27;s three rolls the roller is on">roll</span> <span>1 of 3</span>' \
        in frame(state, 0, info)["html"]
    state.apply("reroll 1")
    assert "<span>2 of 3</span>" in frame(state, None, info)["html"]
    game = fishrules.load("fishfish")
    state = game.start(players=3, seed=3)
    html = frame(state, None, _info(game, 3))["html"]
    assert ">round</span> <span>1 of 6</span>" in html  # 2 rounds a player with three players
    assert ">line</span> <span>1 of 5</span>" in html
    # a value not counting yet (0), or past its bound, reads as its number alone
    from fishrules.web.render import _bound

    info = _info(game, 3)
    view = state.view(None)
    assert _bound(info, "game", "line_number", 0, view) is None and _bound(info, "game", "line_number", 6, view) is None
    assert _bound(info, "game", "line_number", 5, view) == 5


def test_a_frame_says_when_each_piece_last_changed_as_the_page_names_it():
    """`changed_at` (for a page opened again to mark what changed since its seat last looked):
    the roll counter and the dice rerolled at the position after the reroll, the others' older;
    every piece it names is one the page draws (the page's own naming: seat|name)."""
    import re

    game = fishrules.load("fishfry")
    state = game.start(players=2, seed=3)
    info = _info(game, 2)
    before = frame(state, 0, info)["changed_at"]
    state.apply("reroll 2 4")
    f = frame(state, None, info, [[5, 0]])
    at = f["at"]
    assert f["changed_at"]["|roll"] == 6 and f["changed_at"]["|die:2"] == at - 1 and f["changed_at"]["|die:4"] == at
    assert f["changed_at"]["|die:1"] == before["|die:1"] < 6
    drawn = set(re.findall(r'data-(?:name|zone|pick)="([^"]+)"', f["html"]))
    for key in f["changed_at"]:
        assert key.split("|", 1)[1] in drawn, key


#: A house rule whose one move rolls a hundred times and moves a thousand cards one at a time.
BUSY = """\
game "Busy"
players 2 to 3
dice: 1 with faces A, B
cards chips: number from 1 to 1200
the game has pile: zone of chips
each player has hand: zone of chips
each player has points: number
score "points": your points

phase game:
  repeat 2 times:
    for each player:
      player chooses busy

action busy:
  repeat 100 times:
    roll all dice
  repeat 1000 times:
    draw 1 from pile to your hand face down
  add 1 to your points
"""


def test_a_move_that_does_a_great_deal_is_told_in_bounded_words():
    """A house rule's move that rolls a hundred times and moves a thousand cards: the frame carries
    a bounded number of events, the log and the "just now" box a bounded number of lines."""
    from fishrules.web.render import JUST_NOW_MOST, MOST_FRAME_EVENTS, frame_data
    from fishrules.web.telling import ROLL_LINES, STEP_MOST

    game = fishrules.loads(BUSY, "busy.fish")
    state = game.start(players=2, seed=3)
    for _ in range(3):
        state.apply(state.legal_actions()[0])
    data = frame_data(state, 0)
    assert len(data["events"]) <= MOST_FRAME_EVENTS
    html = frame(state, 0, _info(game, 2))["html"]
    box = _section(html, "justnow")
    assert box.count("<li>") <= JUST_NOW_MOST and "more in the log" in box or box.count("<li>") <= JUST_NOW_MOST
    rolls = re.findall(r"<li>(?:The dice roll|Rolled)", html)
    assert 0 < len(rolls) <= 4 * (ROLL_LINES + 1), len(rolls)
    assert "rolls before these" in html
    assert html.count("<li>") < 8 * (STEP_MOST + ROLL_LINES + 5)


DRAWER = """\
game "Drawer"
players 2 to 3
cards chips: number from 1 to 40
the game has pile: zone of chips
each player has hand: zone of chips
each player has points: number
score "points": your points

phase game:
  move chips to pile face down
  shuffle pile
  repeat 3 times:
    for each player:
      draw 1 from pile to player's hand face down
      player chooses take or skip

action take:
  draw 1 from pile to your hand face down
  add 1 to your points

action skip:
  add 2 to your points
"""


@pytest.mark.parametrize("n", [2, 3])
def test_a_moves_own_draw_and_the_next_players_opening_draw_are_told_in_their_turns(n):
    """The move's own draw and the next player's opening draw come one after the other (one run of
    draws): each is told in its player's turn, as where each card went says."""
    from fishrules.web.telling import log_turns

    game = fishrules.loads(DRAWER, "drawer.fish")
    names = ["Ana", "Gus", "Cy"][:n]
    info = _info(game, n, names=names)
    for seed in range(4):
        state = game.start(players=n, seed=seed)
        steps = []
        rng = random.Random(seed)
        while not state.is_over:
            steps.append([len(state.history), state.current])
            step(state, rng)
        for seat in (None, 0):
            turns = log_turns(info, state.history, state.events_for(seat), steps, 0, None)
            told = 0
            for who, lines in turns[1:]:  # (the first opening draw is the setting up's)
                drawn = [x for x in lines if "from pile to" in x]
                assert all(f"to {who}'s hand" in x for x in drawn), (who, lines)
                told += len(drawn)
            assert told >= 3 * n - 1

"""The table's log (fishrules.web.telling, drawn by render): what a decision that ends its
player's turn did — each value it set, each card it moved, the end of the game — is told in that
player's turn, in the frame every seat and the spectators receive right after it, and in the
"just now" box; never under the next player's turn, never left out."""

from __future__ import annotations

import glob
import html as htmllib
import random
import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")

import fishrules
from fishrules import SIMULTANEOUS
from fishrules.web.render import TableInfo, frame
from fishrules.web.telling import _Words, action_sentence, event_sentences

from ._positions import step

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["Ana", "Gus", "Greta", "Bo", "Cy", "Dee", "Eli", "Fay"]

#: A house rule whose one move changes twelve values at once and ends the turn, after which the
#: next round deals fifty cards: more lines than a step used to say, and a deal longer than the
#: history a frame shows.
TALLY = """\
game "Tally"
players 2 to 3
cards chips: colour in red, blue, green and number from 1 to 20
the game has pile: zone of chips
the game has rounds: number
each player has hand: zone of chips
each player has a: number
each player has b: number
each player has c: number
each player has d: number
each player has e: number
each player has f: number
score "a": your a
score "rest": your b + your c + your d + your e + your f

phase game:
  repeat 2 times:
    move chips to pile face down
    shuffle pile
    for each player:
      draw 25 from pile to player's hand face down
    for each player:
      player chooses tally
    add 1 to rounds

action tally:
  for each player:
    add 1 to player's a
    add 2 to player's b
    add 3 to player's c
    add 4 to player's d
    add 5 to player's e
    add 6 to player's f
  move your hand to pile face down
"""

#: A house rule whose move rolls the dice itself and scores them, and the next player's turn
#: opens with no chance: the roll and the points are the mover's, not the next player's.
PUSH = """\
game "Push"
players 2 to 3
dice: 2 with faces A, B, C
each player has points: number
score "points": your points

phase game:
  repeat 6 times:
    for each player:
      player chooses push or pass

action push:
  roll all dice
  add count(dice showing A) + 1 to your points

action pass:
  nothing
"""

GAMES = [(Path(p).stem, p) for p in sorted(glob.glob(str(ROOT / "rulesets" / "*.fish")))] + [
    ("house rule tally", TALLY), ("house rule push", PUSH)]


def _load(source):
    return fishrules.loads(source, "house.fish") if "\n" in source else fishrules.load(source)


def _sections(html, cls):
    start = html.index(f'<section class="{cls}"')
    return html[start:html.index("</section>", start)]


def _lines(fragment):
    return [htmllib.unescape(re.sub(r"<[^>]+>", "", x)).strip() for x in re.findall(r"<li>(.*?)</li>", fragment, re.S)]


def _log(html):
    """The log's turns, latest first: (whose, its lines)."""
    out = []
    for turn in _sections(html, "log").split('<div class="turn')[1:]:
        head = htmllib.unescape(turn.split("<h3>")[1].split("</h3>")[0])
        out.append((head, _lines(turn)))
    return out


def _keys(sentences):
    """What must be said of each event, whatever else the same line says: a value's name (its
    line is "Ana's points: 3 → 5.", consecutive changes of one value being one line), where
    cards went (moves one after another to one place are one line), a reveal, the end."""
    keys = []
    for s in sentences:
        if " → " in s:
            keys.append(("value", s.split(" → ")[0] + " → "))
        elif ": from " in s:
            keys.append(("move", " to " + s.rsplit(" to ", 1)[1]))
        else:
            keys.append(("other", s))
    return keys


def _said(keys, lines):
    missing = []
    folded = any(x.startswith("… and ") for x in lines)  # moves past a few lines are counted, not told
    for kind, key in keys:
        if kind == "move" and folded:
            continue
        if not any((x.startswith(key) if kind == "value" else key in x) for x in lines):
            missing.append(key)
    return missing


@pytest.mark.parametrize("name, source", GAMES, ids=[g[0] for g in GAMES])
def test_what_a_turn_ending_decision_did_is_told_in_its_turn(name, source):
    game = _load(source)
    n = game.max_players if game.max_players <= 4 else 4
    info = TableInfo(game.describe(), NAMES[:n], ["human"] * n)
    words = _Words(info)
    state = game.start(players=n, seed=7)
    rng = random.Random(7)
    steps: list = []
    checked = 0
    while not state.is_over and len(steps) < 160:
        at = len(state.history)
        who = state.waiting[0] if state.current == SIMULTANEOUS else state.current
        steps.append([at, who])
        step(state, rng)
        if state.current == who or state.current == SIMULTANEOUS:
            continue  # the turn goes on (or several choose at once: nobody's turn ended)
        nxt = len(state.history)  # the next decision's position
        for seat in (None, who):
            # what the decision did (what happened right after it was taken), and every change of
            # the decider's own values before the next decision (what its own roll or draw did)
            events = [e for e in state.events_for(seat, since=at)
                      if e["after"] == at + 1 or (e["event"] == "set" and e.get("player") == who and e["after"] <= nxt)]
            keys = _keys(event_sentences(words, events))
            if not keys:
                continue
            f = frame(state, seat, info, steps)
            said = action_sentence(words, state.history_for(seat)[at], who)
            # the decider's turn is the latest or, when the next player's turn opened with chance,
            # the one before; the decision is in it, and so is every event it caused
            turns = [t for t in _log(f["html"])[:2] if t[0] == NAMES[who] and said in t[1]]
            assert turns, (name, at, said, _log(f["html"])[:2])
            assert not _said(keys, turns[0][1]), (name, at, seat, _said(keys, turns[0][1]), turns[0][1])
            box = _lines(_sections(f["html"], "justnow"))
            assert not [k for k in _said(keys, box) if not k.startswith(" to ")], (name, at, box)
            checked += 1
    assert checked >= 4, (name, checked)


@pytest.mark.parametrize("seat", [None, 0, 3])
def test_a_log_reaching_back_past_a_deal_tells_a_seat_nothing_hidden(seat):
    """Fisherman with four: the round's last card is followed by a deal longer than the history a
    frame shows, so the log reaches back to that card; twin positions (determinizations) still
    give the seat the same bytes."""
    from fishrules.web.render import HISTORY_SHOWN, frame_json
    from fishrules.web.telling import log_start

    game = fishrules.load("fisherman")
    info = TableInfo(game.describe(), NAMES[:4], ["human"] * 4)
    state = game.start(players=4, seed=7)
    rng = random.Random(7)
    steps: list = []
    compared = 0
    while not state.is_over and compared < 2:
        steps.append([len(state.history), state.current])
        step(state, rng)
        hist = state.history_for(seat)
        if log_start(hist, HISTORY_SHOWN) >= len(hist) - HISTORY_SHOWN:
            continue
        mine = frame_json(state, seat, info, steps)
        assert frame_json(state.determinize(seat, random.Random(compared)), seat, info, steps) == mine
        compared += 1
    assert compared == 2

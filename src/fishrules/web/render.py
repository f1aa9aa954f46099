"""The table as one seat sees it, drawn from the rules and not per game.

`frame(state, seat, table)` is everything a browser at `seat` (None: a spectator) receives about a
position, page or WebSocket message alike, in two halves: `frame_data`, the rule work (a worker of
the server does it), and `frame_from`, the drawing (the server's event loop does it).  It is built from `state.view(seat)`,
`state.events_for(seat)` and, when the seat is to choose, `state.legal_actions(...)` for that seat,
and from nothing else of the state; the rest is the rules' declarations (`Game.describe()`) and
the table's own public facts (the names at the seats).  So a frame holds nothing that seat may not
know: two positions that seat cannot tell apart give the same bytes (tests/test_web_render.py).

How a view becomes a table: values that are zones are rows of cards (a card the seat may not see
is a card back), a zone family over the circles of the board is drawn on the board, other zone
families as numbered rows; dice as dice; every other value as a name and its value; each seat's
values and score in the seat's panel; the phase and whose turn it is above; what happened (events)
and the history beside; the ranking at the end.  The board is drawn as SVG from its declared
circles and lines (`board_layout`).
"""

from __future__ import annotations

import functools
import json
import math
import re
import zlib
from typing import Any, Callable, Optional

from .. import SIMULTANEOUS
from .html import Markup, esc, join, tag
from .telling import card_words, log_html, log_start, score_sheet, sheet_html, turn_head, turns_of

__all__ = ["frame", "frame_json", "frame_data", "frame_from", "frame_text", "table_html", "board_layout", "TableInfo"]

#: How much of the record a frame carries: the latest entries of the history, and their events.
HISTORY_SHOWN = 40
#: A zone of more unseen cards than this is drawn as one pile with its count.
PILE_FROM = 10
#: The most legal actions a frame lists (beyond, the seat types its action).
MOST_ACTIONS = 3000


class TableInfo:
    """What a table shows besides the position: the rules' declarations and the seats' names and
    kinds (public to everybody at the table)."""

    __slots__ = ("desc", "names", "kinds", "variant", "decl", "action_words", "board_family", "values", "card_hue", "card_html",
                 "circle_html", "edges_html", "zone_html", "kv_html")

    def __init__(self, desc: dict, names: list[str], kinds: list[str], variant: Optional[str] = None):
        self.desc = desc
        self.names = names
        self.kinds = kinds
        self.variant = variant
        self.decl = {a["name"]: a["params"] for a in desc["actions"]}
        self.action_words = {a["name"]: {"label": a.get("label") or a["name"], "description": a.get("description")}
                             for a in desc["actions"]}
        self.values = {(v["scope"], v["name"]): v for v in desc["values"]}
        board = desc.get("board")
        self.board_family = None
        if board:
            lo, hi = board["circles"]
            for v in desc["values"]:
                if v["scope"] == "game" and v["kind"] == "zone" and v["family"] == [lo, hi - lo + 1]:
                    self.board_family = v["name"]
                    break
        self.card_hue = _card_hues(desc["cards"])
        self.card_html: dict = {}  # a card's markup, by label
        self.circle_html: dict = {}  # a circle's markup, by (circle, its stack)
        self.edges_html: Optional[Markup] = None  # the board's lines
        self.zone_html: dict = {}  # a zone's markup, by (label, its cards): most zones stay as they were
        self.kv_html: dict = {}  # a value's markup, by (name, kind, value)

    def who(self, seat: Optional[int]) -> str:
        """A seat by its player's name (with the seat's number only when two share a name)."""
        if seat is None:
            return "nobody"
        if not isinstance(seat, int) or not (0 <= seat < len(self.names)):
            return str(seat)
        name = self.names[seat]
        return name if self.names.count(name) == 1 else f"{name} (seat {seat + 1})"

    def label(self, scope: str, name: str) -> str:
        """A value's words: its label in the rules' presentation part, else its name as words."""
        d = self.values.get((scope, name)) or self.desc.get("derived", {}).get(name)
        return (d.get("label") if d else None) or name.replace("_", " ")

    def described(self, scope: str, name: str) -> Optional[str]:
        d = self.values.get((scope, name)) or self.desc.get("derived", {}).get(name)
        return d.get("description") if d else None

    def hidden(self, scope: str, name: str) -> bool:
        d = self.values.get((scope, name)) if scope != "derived" else self.desc.get("derived", {}).get(name)
        return bool(d and d.get("hidden"))


#: Colour words a card's first attribute may be: such cards are drawn in that colour.
COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white", "grey", "gray")


def _card_hues(cards: dict) -> dict:
    """A colour class per card label: cards that share their first attribute's value share a hue,
    so a suit or colour reads at a glance whatever the game calls it.  A value that is a colour's
    name is drawn in that colour (class c-NAME); any other gets one of twelve hues (h0..h11)."""
    out = {}
    for label, attrs in cards.items():
        first = next((str(v) for v in attrs.values() if isinstance(v, str)), None)
        if first is not None:
            word = first.lower()
            out[label] = f"c-{word}" if word in COLOURS else f"h{zlib.crc32(first.encode('utf-8')) % 12}"
    return out


# ---- the board ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _layout_cached(low: int, high: int, lines: tuple) -> tuple:
    return tuple(sorted(board_layout(low, high, [list(x) for x in lines]).items()))


def board_layout(low: int, high: int, lines: list[list[int]]) -> dict[int, tuple[float, float]]:
    """Where to draw each circle, from the lines alone: every line is straight, its circles evenly
    spaced.  The first line is laid across; a line meeting circles already laid in one circle is laid
    across that circle's line (then on a diagonal, if taken); one meeting them in two or more circles
    must fit them.  Should the lines not fit on a plane this way, the circles are laid in rows by
    number instead, and the lines drawn through them as they fall."""
    circles = list(range(low, high + 1))
    pos: dict[int, tuple[float, float]] = {}
    dirs: dict[int, list[tuple[float, float]]] = {}
    todo = [list(dict.fromkeys(x)) for x in lines if x]
    taken = {}

    def key(p):
        return (round(p[0], 3), round(p[1], 3))

    used: dict = {}  # how many lines were laid in each direction

    def put(c, p, d):
        pos[c] = p
        taken[key(p)] = c
        dirs.setdefault(c, []).append(d)

    def fits(line, origin_i, origin, d):
        for k, c in enumerate(line):
            p = (origin[0] + (k - origin_i) * d[0], origin[1] + (k - origin_i) * d[1])
            if c in pos:
                if key(pos[c]) != key(p):
                    return False
            elif key(p) in taken:
                return False
        return True

    def lay(line, origin_i, origin, d):
        used[key(d)] = used.get(key(d), 0) + 1
        for k, c in enumerate(line):
            p = (origin[0] + (k - origin_i) * d[0], origin[1] + (k - origin_i) * d[1])
            if c not in pos:
                put(c, p, d)
            else:
                dirs[c].append(d)

    ok = True
    while todo and ok:
        best = max(todo, key=lambda x: sum(c in pos for c in x))
        placed = [(k, c) for k, c in enumerate(best) if c in pos]
        if not placed:  # a part of the board not joined to what is laid: to the right of it
            x0 = max((p[0] for p in pos.values()), default=-2.0) + 2.0
            lay(best, 0, (x0, 0.0), (1.0, 0.0))
        elif len(placed) >= 2:
            (i, a), (j, b) = placed[0], placed[1]
            d = ((pos[b][0] - pos[a][0]) / (j - i), (pos[b][1] - pos[a][1]) / (j - i))
            if math.hypot(*d) < 1e-9 or not fits(best, i, pos[a], d):
                ok = False
                break
            lay(best, i, pos[a], d)
        else:
            i, c = placed[0]
            tries = _across(dirs[c][0])
            # A direction other lines already run in first: parallel lines run the same way.
            tries.sort(key=lambda d: -used.get(key(d), 0))
            for d in tries:
                if fits(best, i, pos[c], d):
                    lay(best, i, pos[c], d)
                    break
            else:
                ok = False
                break
        todo.remove(best)
    if ok:
        rest = [c for c in circles if c not in pos]
        if rest:  # circles on no line: a row below
            y = max((p[1] for p in pos.values()), default=-1.5) + 1.5
            for k, c in enumerate(rest):
                pos[c] = (float(k), y)
        pos = {c: p for c, p in pos.items() if low <= c <= high}
    if not ok or len(pos) != len(circles):
        pos = _in_rows(circles)
    return _from_origin(pos)


def _across(base: tuple[float, float]) -> list[tuple[float, float]]:
    """The directions a line may take across one running `base`: square to it, then diagonally."""
    r2 = math.sqrt(0.5)
    return [(-base[1], base[0]), (base[1], -base[0]),
            (r2 * (base[0] - base[1]), r2 * (base[0] + base[1])), (r2 * (base[0] + base[1]), r2 * (base[1] - base[0]))]


def _in_rows(circles: list[int]) -> dict[int, tuple[float, float]]:
    """The circles in rows by number, as near a square as they go (lines that do not fit a plane)."""
    width = max(1, math.ceil(math.sqrt(len(circles))))
    return {c: (float(k % width), float(k // width)) for k, c in enumerate(circles)}


def _from_origin(pos: dict[int, tuple[float, float]]) -> dict[int, tuple[float, float]]:
    """The same places moved so that the leftmost and topmost are at 0."""
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    return {c: (p[0] - min(xs), p[1] - min(ys)) for c, p in pos.items()}


_STEP, _MARGIN, _R = 64, 36, 22


def board_svg(info: TableInfo, view: dict) -> Markup:
    board = info.desc["board"]
    low, high = board["circles"]
    pos = dict(_layout_cached(low, high, tuple(tuple(x) for x in board["lines"])))
    w = max((p[0] for p in pos.values()), default=0) * _STEP + 2 * _MARGIN
    h = max((p[1] for p in pos.values()), default=0) * _STEP + 2 * _MARGIN

    def xy(c):
        x, y = pos[c]
        return round(_MARGIN + x * _STEP, 1), round(_MARGIN + y * _STEP, 1)

    if info.edges_html is None:
        info.edges_html = join(*(tag("polyline", {"class_": "edge", "points": " ".join(f"{x},{y}" for x, y in (
            xy(c) for c in line if c in pos))}) for line in board["lines"]))
    parts: list = [info.edges_html]
    stacks = view["values"].get(info.board_family) if info.board_family else None
    cache = info.circle_html
    for c in range(low, high + 1):
        cards = (stacks or {}).get(str(c)) or []
        key = (c, tuple(cards))
        done = cache.get(key)
        if done is not None:
            parts.append(done)
            continue
        x, y = xy(c)
        top = cards[-1] if cards else None
        hue = info.card_hue.get(top) if top is not None else None
        cls = "spot" + (f" filled {hue}" if hue is not None else " filled" if cards else "")
        what = ", ".join("?" if x is None else str(x) for x in cards) or "empty"
        done = cache[key] = tag("g", {"class_": "circle", "data_pick": f"num:{c}", "data_v": c},
                         tag("title", None, f"circle {c}: {what}"),
                         tag("circle", {"class_": cls, "cx": x, "cy": y, "r": _R}),
                         tag("text", {"class_": "num", "x": x, "y": y - _R - 4, "text-anchor": "middle"}, c),
                         tag("text", {"class_": "top", "x": x, "y": y + 4, "text-anchor": "middle"},
                             (str(top) if top is not None else "?")[:6] if cards else None),
                         tag("text", {"class_": "count", "x": x + _R - 2, "y": y + _R, "text-anchor": "middle"},
                             len(cards) if len(cards) > 1 else None))
        if len(cache) > 20_000:
            cache.clear()
        parts.append(done)
    return tag("svg", {"class_": "board", "viewBox": f"0 0 {w} {h}", "width": w, "height": h, "role": "img",
                       "aria-label": "the board"}, *parts)


# ---- values ------------------------------------------------------------------------------------


_BACK = tag("span", {"class_": "card back", "title": "face down"}, "")


def _card(info: TableInfo, label: Optional[str]) -> Markup:
    if label is None:
        return _BACK
    m = info.card_html.get(label)
    if m is None:
        hue = info.card_hue.get(label)
        m = tag("span", {"class_": "card" + (f" {hue}" if hue is not None else ""), "data_pick": f"card:{label}"},
                card_words(label))
        if len(info.card_html) < 10_000:
            info.card_html[label] = m
    return m


def _shown_card(info: TableInfo, label: Optional[str]) -> Markup:
    """A card as a picture only (not one to choose: it is not where it lies)."""
    if label is None:
        return _BACK
    hue = info.card_hue.get(label)
    return tag("span", {"class_": "card" + (f" {hue}" if hue is not None else "")}, card_words(label))


def _cards(info: TableInfo, cards: list) -> Markup:
    if not cards:
        return tag("span", {"class_": "empty"}, "empty")
    unseen = sum(1 for c in cards if c is None)
    if unseen > PILE_FROM and unseen == len(cards):
        return tag("span", {"class_": "card back pile", "title": f"{unseen} cards face down"}, f"×{unseen}")
    return join(*(_card(info, c) for c in cards))


def _value(info: TableInfo, kind: str, v: Any) -> Markup:
    if v is None:
        return tag("span", {"class_": "none"}, "nobody" if kind == "player" else "—")
    if kind == "player" and isinstance(v, int):
        return tag("span", {"class_": "who", "data_pick": f"player:{v}"}, info.who(v))
    if isinstance(v, bool):
        return tag("span", None, "yes" if v else "no")
    if isinstance(v, list):
        return tag("span", None, ", ".join("?" if x is None else str(x) for x in v) if v else "none")
    if isinstance(v, str):  # a choice of the rules' (`two_pairs`) as words
        return tag("span", None, v.replace("_", " "))
    return tag("span", None, str(v))


#: The most zones, and the most values, a table keeps drawn (then it starts again): what a position
#: shows, several times over.
MOST_PIECES_KEPT = 128


def _kept(cache: dict, key: tuple, draw: Callable[..., Markup], *args: Any) -> Markup:
    """`draw(*args)`, kept in `cache` under `key`: most of a table stays as it was from one action to
    the next, and drawing it again was most of a frame's cost (measured under load)."""
    try:
        m = cache.get(key)
    except TypeError:  # something unhashable in it: drawn every time
        return draw(*args)
    if m is None:
        m = draw(*args)
        if len(cache) >= MOST_PIECES_KEPT:
            cache.clear()
        cache[key] = m
    return m


def _zone(info: TableInfo, name: str, cards: list, num: Optional[int] = None, scope: str = "game") -> Markup:
    return _kept(info.zone_html, (scope, name, num, tuple(cards)), _draw_zone, info, name, cards, num, scope)


def _draw_zone(info: TableInfo, name: str, cards: list, num: Optional[int] = None, scope: str = "game") -> Markup:
    label = name if num is None else f"{name} {num}"
    words = info.label(scope, name) + ("" if num is None else f" {num}")
    return tag("div", {"class_": "zone", "data_zone": label, "data_pick": f"num:{num}" if num is not None else None},
               tag("div", {"class_": "zname", "title": info.described(scope, name)}, words, tag("small", None, f" {len(cards)}")),
               tag("div", {"class_": "cards"}, _cards(info, cards)))


def _kv(info: TableInfo, name: str, kind: str, v: Any, scope: str = "game", of: Any = None) -> Markup:
    """A value and its words (`of`: what it counts up to, "roll 2 of 3")."""
    # the type is in the key: True and 1 are equal keys, and are drawn differently
    return _kept(info.kv_html, (scope, name, kind, type(v), v, of), _draw_kv, info, name, kind, v, scope, of)


def _draw_kv(info: TableInfo, name: str, kind: str, v: Any, scope: str = "game", of: Any = None) -> Markup:
    shown = _value(info, kind, v) if of is None else tag("span", None, f"{v} of {of}")
    # a public define is marked so: the page may keep what it read (it has no event saying when it
    # changed, see table.js) as it keeps the scores
    return tag("div", {"class_": "kv", "data_name": name, "data_public": "1" if scope == "derived" else None},
               tag("span", {"class_": "k", "title": info.described(scope, name)}, info.label(scope, name)), " ",
               shown)


def _bound(info: TableInfo, scope: str, name: str, v: Any, view: Optional[dict]) -> Any:
    """What a counter counts up to, as the rules' presentation says ("roll 2 of 3"): a number, or
    read from the view (a public value, define or option); None where it is not to be said."""
    d = info.values.get((scope, name))
    of = d.get("out_of") if d else None
    if of is None or view is None or not isinstance(v, int) or isinstance(v, bool):
        return None
    if isinstance(of, str):
        of = view["values"].get(of, view.get("derived", {}).get(of, view.get("options", {}).get(of)))
    if not isinstance(of, int) or isinstance(of, bool) or not (0 < v <= of):
        return None  # not counting yet (0), or past the bound: the number alone
    return of


def _values(info: TableInfo, scope: str, values: dict, skip: tuple = (), view: Optional[dict] = None) -> tuple[list, list]:
    """(zones, other values) of a view's values, in the order the rules declare them."""
    zones, others = [], []
    for name, v in values.items():
        if name in skip or info.hidden(scope, name):
            continue
        d = info.values.get((scope, name), {"kind": "text", "family": None})
        if d["kind"] == "zone" and d.get("family") and isinstance(v, dict):
            zones.extend(_zone(info, name, cards or [], int(k), scope) for k, cards in v.items())
        elif d["kind"] == "zone" and isinstance(v, list):
            zones.append(_zone(info, name, v, None, scope))
        else:
            others.append(_kv(info, name, d["kind"], v, scope, _bound(info, scope, name, v, view)))
    return zones, others


def _ranking(view: dict) -> list[int]:
    """Places, as `State.ranking` gives them, worked out from the view's scores and winners."""
    sc = [row["score"] for row in view["seats"]]
    won = set(view.get("winners") or [])
    if not won:
        return [1 + sum(1 for o in sc if o > x) for x in sc]
    rest = [p for p in range(len(sc)) if p not in won]
    return [1 if p in won else 1 + len(won) + sum(1 for o in rest if sc[o] > sc[p]) for p in range(len(sc))]


# ---- the whole table ---------------------------------------------------------------------------


def _status(info: TableInfo, view: dict, seat: Optional[int], mine: bool) -> Markup:
    title = view["title"] + (f" — {info.variant}" if info.variant else "")
    phases = info.desc.get("phases", {})
    phase = " › ".join(phases.get(x, x.replace("_", " ")) for x in view["phase"]) if view["phase"] else None
    cur = view["current"]
    if view["over"]:
        who = "The game is over."
    elif cur == SIMULTANEOUS:
        waiting = view.get("waiting") or []
        who = "Choosing in secret, all at once: " + ", ".join(info.who(p) for p in waiting) + "."
        if mine:
            who += " Your choice stays hidden until everybody has chosen."
    elif isinstance(cur, int):
        who = "Your turn." if cur == seat else f"{info.who(cur)}'s turn."
    else:
        who = "Waiting."
    you = "You watch (spectator)." if seat is None else f"You are {info.who(seat)} (seat {seat + 1})."
    return tag("div", {"class_": "status" + (" mine" if mine else "")},
               tag("h1", None, title),
               tag("p", {"class_": "phase"}, phase) if phase else None,
               tag("p", {"class_": "turn"}, who, " ", tag("span", {"class_": "you"}, you)))


#: How many of the latest turn's lines the "just now" box shows: its latest lines, and always all
#: of what its latest decision did (`Turn.latest`: a turn-ending move says every value it set).
JUST_NOW_LINES = 10
#: The most lines the "just now" box shows (a decision that did a great deal: the rest are in the log).
JUST_NOW_MOST = 60


def _just_now(info: TableInfo, turn: Any, seat: Optional[int]) -> Markup:
    """The latest turn somebody decided something in, at the top of the table until the next
    player acts: what they chose, what it rolled, and the cards it moved or turned face up, drawn
    as cards (a finished trick, a reveal, a fight's stacks), so that nothing that mattered passes
    unseen when the next frame comes."""
    lines = turn.lines[max(0, min(turn.latest, len(turn.lines) - JUST_NOW_LINES)):]
    if len(lines) > JUST_NOW_MOST:  # the log has them all; the box stays a box
        lines = lines[:JUST_NOW_MOST - 1] + [(f"… and {len(lines) - JUST_NOW_MOST + 1} more in the log.", None)]
    who = "you" if turn.actor is not None and turn.actor == seat else turn_head(info, turn)
    return tag("section", {"class_": "justnow", "aria-label": "just now", "data_actor": turn.actor},
               tag("h2", None, f"Just now — {who}"),
               tag("ul", None, *(tag("li", None, text, tag("span", {"class_": "cards"}, *(_shown_card(info, c) for c in cards))
                                     if cards else None) for text, cards in lines)))


def table_html(view: dict, events: list, seat: Optional[int], info: TableInfo, mine: bool,
               steps: Optional[list] = None, sheet: Optional[dict] = None) -> Markup:
    """The table's HTML (a fragment) from a view, the events of the latest actions, who took each
    step (`steps`, the table's record: public) and, at the end, the score sheet (`score_sheet`)."""
    parts: list = [_status(info, view, seat, mine)]
    if view["over"]:
        if sheet is not None:
            parts.append(sheet_html(info, sheet))
        else:
            places = _ranking(view)
            order = sorted(range(len(places)), key=lambda p: (places[p], p))
            parts.append(tag("section", {"class_": "end"}, tag("h2", None, "Ranking"),
                             tag("ol", None, *(tag("li", {"class_": "won" if places[p] == 1 else None},
                                                  f"{places[p]}. {info.who(p)} — {view['seats'][p]['score']}") for p in order))))
    middle: list = []
    if info.desc.get("board"):
        middle.append(tag("section", {"class_": "boardbox"}, board_svg(info, view)))
    if "dice" in view:
        middle.append(tag("section", {"class_": "dice"},
                          *(tag("span", {"class_": "die" + ("" if f is not None else " rolling"), "data_pick": f"die:{i + 1}"},
                                tag("small", None, i + 1), " ", f if f is not None else "…")
                            for i, f in enumerate(view["dice"]))))
    zones, others = _values(info, "game", view["values"], skip=(info.board_family,) if info.board_family else (), view=view)
    if zones:
        middle.append(tag("section", {"class_": "zones"}, *zones))
    derived = [_kv(info, k, "number", v, "derived") for k, v in view.get("derived", {}).items()
               if not info.hidden("derived", k)]
    if others or derived:
        middle.append(tag("section", {"class_": "values"}, *others, *derived))
    parts.append(tag("div", {"class_": "middle"}, *middle))
    seats = []
    cur = view["current"]
    waiting = set(view.get("waiting") or ([cur] if isinstance(cur, int) else []))
    for row in view["seats"]:
        p = row["player"]
        vals = {k: v for k, v in row.items() if k not in ("player", "score")}
        zs, os_ = _values(info, "player", vals)
        kind = info.kinds[p] if p < len(info.kinds) else "human"
        cls = "seat" + (" you" if p == seat else "") + (" acting" if p in waiting and not view["over"] else "")
        seats.append(tag("section", {"class_": cls, "data_pick": f"player:{p}"},
                         tag("h2", None, info.who(p), tag("small", None, " (you)" if p == seat else None),
                             tag("small", None, "" if kind == "human" else f" bot: {kind}"),
                             tag("span", {"class_": "score", "title": "score"}, row["score"])),
                         *zs, *os_))
    parts.append(tag("div", {"class_": "seats"}, *seats))
    hist = view["history"]
    first = max(0, len(hist) - HISTORY_SHOWN)
    # the log begins at a decision, not in the chance after it: see `frame_data`
    turns = turns_of(info, hist, events, steps, log_start(hist, HISTORY_SHOWN), cur if isinstance(cur, int) else None)
    latest = next((t for t in reversed(turns) if t.decided), None)
    if latest is not None:
        parts.insert(1, _just_now(info, latest, seat))
    parts.append(tag("div", {"class_": "record"},
                     log_html(info, hist, events, steps, log_start(hist, HISTORY_SHOWN),
                              turns=[(turn_head(info, t), [x for x, _ in t.lines]) for t in turns]),
                     tag("details", {"class_": "history"},
                         tag("summary", None, f"Every move as the rules write it ({len(hist)})"),
                         tag("ol", {"start": first + 1}, Markup("".join("<li>" + esc(t) + "</li>" for t in hist[first:]))))))
    return tag("div", {"class_": "table", "data_at": len(hist)}, *parts)


#: How far back a frame says when each piece of the table last changed (`changed_at`): history
#: entries.  A page coming back to the table marks what changed since its seat last looked (within
#: these: a look older than that marks only what changed since).  Reading the events of 500 entries
#: again for each frame costs a few milliseconds a seat.
MARKS_BACK = 500
#: The most events a frame carries to be drawn (the latest): drawing is the event loop's work.
MOST_FRAME_EVENTS = 2000

_ZONE = re.compile(r"^(\w+)(?:\(([0-9-]+)\))?(?: of p([0-9]{1,3}))?$")
_DIE = re.compile(r"^die ([0-9]+) rolls ")


def changed_at(history: list, events: list, since: int) -> dict[str, int]:
    """When each piece of the table last changed, from entry `since` of a seat's history and the
    events it saw since then: {piece: the history's length just after}.  A piece is named as the
    page names it: "player:P|NAME" for a player's value or zone, "|NAME" for the game's ("|NAME N"
    for a zone of a family, "|num:N" for its circle on a board), "|die:K" for a die.  Read from
    what the seat saw only, so it says no more than its history and events do."""
    out: dict[str, int] = {}

    def zone(name: str, at: int) -> None:
        m = _ZONE.match(name)
        if m is None:
            return
        value, num, owner = m.groups()
        head = f"player:{owner}|" if owner is not None else "|"
        if num is None:
            out[head + value] = at
        else:
            out[f"{head}{value} {num}"] = at
            out[f"{head}num:{num}"] = at

    for i in range(max(0, since), len(history)):
        m = _DIE.match(history[i])
        if m:
            out[f"|die:{m.group(1)}"] = i + 1
    for e in events:
        at, kind = int(e.get("after", 0)), e.get("event")
        if kind == "set":
            out[(f"player:{e['player']}|" if "player" in e else "|") + str(e["value"])] = at
        elif kind == "move":
            for name in ([e["from"]] if isinstance(e["from"], str) else e["from"]) + [e["to"]]:
                zone(name, at)
        elif kind == "reveal":
            for name in e["in"]:
                zone(name, at)
    return out


def frame_data(state: Any, seat: Optional[int]) -> dict:
    """What the rules say of `state` to a browser at `seat` (None: a spectator), as plain data:
    the view, the events of the history's latest entries, the legal actions when the seat is to
    choose, and the score sheet at the end.  This is rule work (a worker does it, see work.py);
    `frame_from` draws it."""
    view = state.view(seat)
    at = len(view["history"])
    waiting = state.waiting
    mine = seat is not None and seat in waiting and not state.is_over
    actions = []
    if mine:
        legal = state.legal_actions(seat) if state.current == SIMULTANEOUS else state.legal_actions()
        for a in legal[:MOST_ACTIONS]:
            args = {k: list(v) if isinstance(v, tuple) else v for k, v in a.args.items()}
            actions.append({"text": a.text, "name": a.name, "args": args, "breaks": a.breaks})
    # what the latest entries did, from the decision the window would begin after (a deal of 48
    # cards after the round's last card would leave out what that card did: the trick, the scores)
    start = log_start(view["history"], HISTORY_SHOWN)
    back = max(0, at - MARKS_BACK)
    every = state.events_for(seat, since=back)
    events = [e for e in every if e["after"] > start]
    if len(events) > MOST_FRAME_EVENTS:
        # the frame is drawn on the server's event loop (frame_from): a house rule that moves
        # thousands of cards one at a time gives the log the latest of them, not every one
        events = events[-MOST_FRAME_EVENTS:]
    return {"view": view, "events": events, "actions": actions, "mine": mine,
            "changed": changed_at(view["history"], every, back),
            "prefix": f"p{seat}: " if mine and state.current == SIMULTANEOUS else "",
            "sheet": score_sheet(state, seat)}


def frame_from(data: dict, seat: Optional[int], info: TableInfo, steps: Optional[list] = None,
               back: bool = False) -> dict:
    """Everything a browser at `seat` receives, drawn from `frame_data` and who took each step of
    the table (`steps`: [position, seat] of each action taken, None if not known), and whether the
    seat may take its last step back (`back`, the table's to say): JSON-able."""
    view, actions, mine = data["view"], data["actions"], data["mine"]
    html = table_html(view, data["events"], seat, info, mine, steps, data.get("sheet"))
    names = list(dict.fromkeys(a["name"] for a in actions))
    return {"type": "frame", "at": len(view["history"]), "over": view["over"], "mine": mine, "html": str(html),
            "changed_at": data.get("changed", {}),
            "actions": actions, "prefix": data["prefix"],
            "decl": {n: info.decl[n] for n in names if n in info.decl},
            "words": {n: info.action_words[n] for n in names if n in info.action_words},
            "names": [info.who(p) for p in range(len(info.names))] if mine else [], "back": bool(back and mine)}


def frame_text(data: dict, seat: Optional[int], info: TableInfo, steps: Optional[list] = None,
               back: bool = False) -> str:
    """`frame_from` as the text of a WebSocket message."""
    return json.dumps(frame_from(data, seat, info, steps, back), ensure_ascii=False, separators=(",", ":"))


def frame(state: Any, seat: Optional[int], info: TableInfo, steps: Optional[list] = None) -> dict:
    """Everything a browser at `seat` (None: spectator) receives about `state`: JSON-able."""
    return frame_from(frame_data(state, seat), seat, info, steps)


def frame_json(state: Any, seat: Optional[int], info: TableInfo, steps: Optional[list] = None) -> str:
    return frame_text(frame_data(state, seat), seat, info, steps)

"""The table in words: the log grouped by turn, each step a sentence, and the score sheet at the end.

Two halves, as for a frame (render.py):

- rule work, in a worker (`score_sheet`, called by `render.frame_data`): each part of the score, as
  the rules name them (`score "victory": …`), for each player (`State.score_parts`), hidden from a seat
  unless it reads only what that seat may see (every value it reads is public, or it reads the
  player's own `secret` values and the seat is that player); the total is public, so the sum of
  what is hidden is said too;
- drawing, on the event loop (`log_html`, `sheet_html`): from the seat's history
  (`history_for`), its events (`events_for`), and who took each step (`steps`: the table's own
  record of which seat sent which action, public since the view always says whose turn it is).
  Nothing else of the state: so the log tells a seat no more than its history and events do.

Words come from the rules' presentation part (`Game.describe()`): labels of values, zones, actions
and their parameters, an action's log sentence; and players by their names.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .html import Markup, tag

__all__ = ["log_html", "sheet_html", "score_sheet", "card_words", "turns_of", "turn_head", "Turn", "LOG_TURNS",
           "log_start"]

#: How many turns the log shows (latest first).  A step says every value it changed (up to
#: STEP_MOST lines: a house rule may set thousands) but at most MOVE_LINES lines of cards moved
#: once it says more than STEP_LINES in all: a deal is "… and N more", a score never is.
LOG_TURNS = 12
STEP_LINES = 8
MOVE_LINES = 5
STEP_MOST = 40
#: The rolls a step tells at most (the latest): "… N rolls before these" says the rest.
ROLL_LINES = 6
#: How far back the log reaches past the history a frame shows to begin at a decision rather than
#: in the chance that followed it (a deal of a hundred cards): entries, at most.
LOG_BACK = 400

_PREFIX = re.compile(r"^p([0-9]{1,3}): (.*)$", re.S)
_ROLL = re.compile(r"^die ([0-9]+) rolls (.*)$")
_OWNED = re.compile(r"^(\w+) of p([0-9]{1,3})$")
_NUMBERED = re.compile(r"^(\w+)\(([0-9-]+)\)$")


def card_words(label: Any) -> str:
    """A card's label as words (`sea_star-7` -> "sea star-7"); an unseen card is "?"."""
    return "?" if label is None else str(label).replace("_", " ")


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# ---- the log -------------------------------------------------------------------------------------


class _Words:
    """The words of one table (from `TableInfo`): names of seats, labels of values and actions."""

    def __init__(self, info: Any):
        self.info = info
        desc = info.desc
        self.values = {v["name"]: v for v in desc["values"]}
        self.actions = {a["name"]: a for a in desc["actions"]}

    def who(self, seat: Optional[int]) -> str:
        return self.info.who(seat)

    def label(self, name: str) -> str:
        v = self.values.get(name)
        if v is not None:
            return v.get("label") or name
        d = self.info.desc.get("derived", {}).get(name)
        return d.get("label") if d else name.replace("_", " ")

    def hidden(self, name: str) -> bool:
        v = self.values.get(name)
        return bool(v and v.get("hidden"))

    def zone(self, text: str) -> str:
        """A zone as an event names it ("hand of p1", "stack(3)", "deck") in words."""
        m = _OWNED.match(text)
        if m:
            return f"{self.who(int(m.group(2)))}'s {self.label(m.group(1))}"
        m = _NUMBERED.match(text)
        if m:
            return f"{self.label(m.group(1))} {m.group(2)}"
        return self.label(text) if text in self.values else text

    def value(self, of: str, v: Any) -> str:
        if v == "?":
            return "something secret"
        if of == "player":
            m = re.fullmatch(r"p([0-9]{1,3})", str(v))
            return self.who(int(m.group(1))) if m else str(v)
        if of == "card":
            return card_words(v)
        if of == "die":
            return f"die {v}"
        return str(v).replace("_", " ")

    def plain(self, v: Any, kind: str = "") -> str:
        if v is None:
            return "nobody" if kind == "player" else "—"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if kind == "player" and isinstance(v, int):
            return self.who(v)
        if isinstance(v, list):
            return ", ".join(self.plain(x) for x in v) if v else "none"
        return str(v).replace("_", " ")


def action_sentence(w: _Words, text: str, actor: Optional[int]) -> str:
    """One decision of the history in words: "Greta rerolls dice 2 and 5"."""
    m = _PREFIX.match(text)
    if m:
        actor, text = int(m.group(1)), m.group(2)
    who = w.who(actor) if actor is not None else "Someone"
    if text.strip() == "?":
        return f"{who} chooses, in secret."
    parts = text.split()
    a = w.actions.get(parts[0]) if parts else None
    if a is None:
        return f"{who}: {text}"
    vals, params = parts[1:], a["params"]
    said: dict[str, str] = {}
    i = 0
    for k, p in enumerate(params):
        rest = len(params) - k - 1
        take = max(0, len(vals) - i - rest) if p["kind"] == "some" else 1
        got = vals[i:i + take]
        i += take
        if p["of"] == "die" and len(got) > 1:
            said[p["name"]] = "dice " + _and([str(x) for x in got])
        else:
            said[p["name"]] = _and([w.value(p["of"], x) for x in got]) or "none"
    template = a.get("log")
    if template:
        out = re.sub(r"\{([^{}]*)\}", lambda mm: who if mm.group(1) == "player" else said.get(mm.group(1), mm.group(0)),
                     template)
        return out[:1].upper() + out[1:] + ("" if out.endswith((".", "!", "?")) else ".")
    label = a.get("label") or a["name"]
    if not params:
        return f"{who}: {label}."
    return f"{who}: {label} — " + "; ".join(f"{p.get('label') or p['name']} {said[p['name']]}" for p in params) + "."


def _cards(w: _Words, cards: list) -> str:
    seen = [c for c in cards if c is not None]
    if len(seen) == len(cards):
        return _and([card_words(c) for c in cards]) if len(cards) <= 6 else f"{len(cards)} cards"
    n = len(cards)
    return f"{n} card{'s' if n != 1 else ''}" + (f" ({_and([card_words(c) for c in seen])} seen)" if seen else "")


def event_sentences(w: _Words, events: list) -> list[str]:
    """What a seat saw happen, in words; moves along the same way one after another are one line
    ("13 cards from the deck to Gus's hand")."""
    return [text for text, _ in event_items(w, events)]


def event_items(w: _Words, events: list) -> list[tuple[str, Optional[list]]]:
    """`event_sentences`, each with the cards it is about where the seat saw cards move or turn
    face up (a list of labels, None for a card it did not see), for a table to draw them."""
    return [(text, cards) for text, cards, _ in _event_lines(w, events)]


def _event_lines(w: _Words, events: list) -> list[tuple[str, Optional[list], str]]:
    """`event_items`, each with the kind of event it tells.  One value set several times in a row
    (a list growing one by one) is one line, from where it was to where it ended."""
    out: list[tuple[str, Optional[list], str]] = []
    i = 0
    while i < len(events):
        e = events[i]
        kind = e.get("event")
        if kind == "move":
            cards = list(e["cards"])
            j = i + 1
            srcs = [e["from"]] if isinstance(e["from"], str) else list(e["from"])
            while j < len(events) and events[j].get("event") == "move" and events[j]["to"] == e["to"] \
                    and events[j].get("face") == e.get("face"):
                cards += events[j]["cards"]
                more = events[j]["from"]
                srcs += [more] if isinstance(more, str) else list(more)
                j += 1
            srcs = [w.zone(x) for x in dict.fromkeys(srcs)]
            face = f", face {e['face']}" if e.get("face") else ""
            out.append((f"{_cards(w, cards)}: from {_and(srcs)} to {w.zone(e['to'])}{face}.",
                        cards if any(c is not None for c in cards) else None, "move"))
            i = j
            continue
        if kind == "reveal":
            out.append((f"Revealed: {_and([card_words(c) for c in e['cards']])} "
                        f"({_and([w.zone(z) for z in dict.fromkeys(e['in'])])}).", list(e["cards"]), "reveal"))
        elif kind == "set" and not w.hidden(e["value"]):
            j = i + 1
            while j < len(events) and events[j].get("event") == "set" and events[j].get("value") == e["value"] \
                    and events[j].get("player") == e.get("player"):
                j += 1
            v = w.values.get(e["value"], {})
            whose = f"{w.who(e['player'])}'s " if "player" in e else ""
            label = w.label(e["value"])
            out.append((f"{(whose + label)[:1].upper()}{(whose + label)[1:]}: "
                        f"{w.plain(e['from'], v.get('kind', ''))} → {w.plain(events[j - 1]['to'], v.get('kind', ''))}.",
                        None, "set"))
            i = j
            continue
        elif kind == "restart":
            out.append(("The game starts again.", None, "restart"))
        elif kind == "over":
            won = [w.who(p) for p in e.get("winners") or []]
            out.append(("The game is over" + (f": {_and(won)} win{'s' if len(won) == 1 else ''}." if won else "."), None,
                        "over"))
        i += 1
    return out


def _step_lines(w: _Words, events: list) -> list[tuple[str, Optional[list]]]:
    """What one step caused, in words, bounded: every value it changed and what ended the game
    are said (up to STEP_MOST lines); cards moved, past MOVE_LINES lines when there is much to
    say, are counted rather than told."""
    said = _event_lines(w, events)
    if len(said) <= STEP_LINES:
        return [(text, cards) for text, cards, _ in said]
    out: list[tuple[str, Optional[list]]] = []
    moves = left = 0
    for text, cards, kind in said:
        if kind == "move":
            moves += 1
            if moves > MOVE_LINES:
                left += 1
                continue
        elif len(out) >= STEP_MOST:
            left += 1
            continue
        out.append((text, cards))
    if left:
        out.append((f"… and {left} more.", None))
    return out


class Turn:
    """One turn of the log: whose it is (None: the setting up, or an unknown player), whether
    somebody decided anything in it, its lines, each a sentence and the cards it shows, and where
    among them its latest decision begins (`latest`: what that decision did is lines[latest:])."""

    __slots__ = ("actor", "decided", "lines", "latest")

    def __init__(self, actor: Optional[int], decided: bool, lines: list[tuple[str, Optional[list]]]):
        self.actor = actor
        self.decided = decided
        self.lines = lines
        self.latest = 0


def turns_of(info: Any, history: list, events: list, steps: Optional[list], first: int,
             now: Optional[int] = None) -> list[Turn]:
    """The log from history entry `first` on, oldest first.  `steps` are (position, seat) of each
    action the table took (None: unknown, each decision its own step, its actor unsaid unless the
    history names it); `now` the seat to decide at the position (public: the table says whose turn
    it is).  What a decision did — every value it set, every card it moved, with the chance that
    is its own (the dice it rerolled) — is told in its player's turn, even when it ends that turn;
    chance that follows a decision which ends its player's turn — the next player's first roll, a
    new deal — is told in the next player's turn, not the one before."""
    w = _Words(info)
    n = len(history)
    if steps is None:
        starts = [(i, None) for i, t in enumerate(history) if not _is_chance(t)]
    else:
        starts = [(int(at), seat) for at, seat in steps if 0 <= int(at) < n]
    by_after: dict[int, list] = {}
    for e in events:
        by_after.setdefault(int(e.get("after", 0)), []).append(e)
    # the setting up: the chance before the first decision, and what was set before any entry
    bounds: list[tuple[int, Optional[int], bool]] = [(0, None, False)]
    for k, (at, seat) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else n
        nxt = starts[k + 1][1] if k + 1 < len(starts) else now
        bounds.append((at, seat, True))
        if seat is not None and isinstance(nxt, int) and nxt != seat:
            split = _next_turn_from(w, history, at, end, by_after, nxt)
            if split is not None:
                bounds.append((split, nxt, False))
    turns: list[Turn] = []
    for k, (at, seat, decided) in enumerate(bounds):
        end = bounds[k + 1][0] if k + 1 < len(bounds) else n
        if end < first or (end == first and first > 0):
            continue
        lines: list[tuple[str, Optional[list]]] = []
        entries = history[at:end]
        if decided and entries:
            lines.append((action_sentence(w, entries[0], seat), None))
            entries = entries[1:]
        lines += [(x, None) for x in _rolls(entries)]
        # what the entry at i caused happened "after" i + 1: a turn from `at` to `end` tells what
        # happened after at + 1 to end (the setting up also what was set before any entry)
        evs = [e for after in range(at + 1 if decided or at else 0, end + 1) for e in by_after.get(after, ())]
        lines += _step_lines(w, evs)
        if not lines:
            continue
        actor = seat
        if decided and actor is None:
            m = _PREFIX.match(history[at])
            actor = int(m.group(1)) if m else None
        last = turns[-1] if turns else None
        if last is not None and last.actor == actor and (actor is not None or last.decided == decided):
            if decided:
                last.latest = len(last.lines)
            last.lines.extend(lines)
            last.decided = last.decided or decided
        else:
            turns.append(Turn(actor, decided, lines))
    return turns


def log_start(history: list, shown: int) -> int:
    """Where a log of the latest `shown` entries of `history` begins: at the decision whose chance
    the window would begin in (a deal after the last card of a round), so that what that decision
    did is told with it, in its player's turn, and not lost (bounded: LOG_BACK entries at most).
    Read from the seat's own history: it tells no more than the history does."""
    k = max(0, len(history) - shown)
    stop = max(0, k - LOG_BACK)
    while k > stop and _is_chance(history[k]):
        k -= 1
    return k


def log_turns(info: Any, history: list, events: list, steps: Optional[list], first: int,
              now: Optional[int] = None) -> list[tuple[str, list[str]]]:
    """`turns_of` as [(whose turn, its lines)]."""
    return [(turn_head(info, t), [text for text, _ in t.lines]) for t in turns_of(info, history, events, steps, first, now)]


def turn_head(info: Any, t: Turn) -> str:
    if t.actor is not None:
        return info.who(t.actor)
    return "Someone" if t.decided else "Setting up"


def _runs(history: list, at: int, end: int) -> list[int]:
    """Where each run of chance begins among the entries after the decision at `at`: a roll goes
    through the dice in order (a die numbered no higher than the one before starts another roll),
    draws one after another are one run."""
    starts: list[int] = []
    kind, last_die = None, 0
    for i in range(at + 1, end):
        t = history[i]
        m = _ROLL.match(t)
        if m:
            k = int(m.group(1))
            if kind != "die" or k <= last_die:
                starts.append(i)
            kind, last_die = "die", k
        elif t.startswith("draw "):
            if kind != "draw":
                starts.append(i)
            kind = "draw"
        else:
            kind = None
    return starts


def _next_turn_from(w: _Words, history: list, at: int, end: int, by_after: Optional[dict] = None,
                    nxt: Optional[int] = None) -> Optional[int]:
    """Where the next player's turn begins among the chance after the decision at `at` (which
    handed the turn on), or None: the last run of chance, unless it is the decision's own — the
    run right after a decision whose action rolls or draws itself (`chance` in the rules'
    description: "push: roll all dice", or a parameter that chooses dice to reroll) is what that
    action rolled or drew, and so is told in its player's turn with what it changed."""
    runs = _runs(history, at, end)
    if not runs:
        return None
    text = history[at]
    m = _PREFIX.match(text)
    name = (m.group(2) if m else text).split(" ", 1)[0]
    action = w.actions.get(name)
    own: set = set()
    if action is not None:
        own = set(action.get("chance") or ())
        if any(p["of"] == "die" for p in action["params"]):
            own.add("roll")
    kind = "roll" if _ROLL.match(history[runs[0]]) else "draw"
    if runs[0] == at + 1 and kind in own:
        if len(runs) > 1:
            return runs[-1]
        if kind == "draw" and by_after and nxt is not None:
            # draws one after another are one run: the move's own draw, then the next player's
            # opening draw; the first draw after the move's own that goes to the next player's
            # zone (as the seat's events say: where a card went is said even when it is face
            # down) begins the next turn
            mark = f" of p{nxt}"
            for i in range(runs[0] + 1, end):
                if any(e.get("event") == "move" and str(e.get("to", "")).endswith(mark) for e in by_after.get(i + 1, ())):
                    return i
        return None
    return runs[-1]


def _rolls(entries: list) -> list[str]:
    """The dice rolled in a step, a line per roll: a roll goes through the dice in order, so a die
    numbered no higher than the one before starts another (the next player's first roll)."""
    rolls: list[list[tuple[int, str]]] = []
    for t in entries:
        m = _ROLL.match(t)
        if not m:
            continue
        k = int(m.group(1))
        if not rolls or k <= rolls[-1][-1][0]:
            rolls.append([])
        rolls[-1].append((k, m.group(2)))
    out = []
    if len(rolls) > ROLL_LINES:  # a house rule may roll again and again within one step
        out.append(f"… {len(rolls) - ROLL_LINES} rolls before these.")
        rolls = rolls[-ROLL_LINES:]
    for r in rolls:
        if [k for k, _ in r] == list(range(1, len(r) + 1)) and len(r) > 2:
            out.append("The dice roll: " + ", ".join(f for _, f in r) + ".")
        else:
            out.append("Rolled: " + ", ".join(f"die {k} {f}" for k, f in r) + ".")
    return out


def _is_chance(text: str) -> bool:
    return text.startswith(("die ", "draw ")) and (_ROLL.match(text) is not None or text.startswith("draw "))


def log_html(info: Any, history: list, events: list, steps: Optional[list], first: int,
             now: Optional[int] = None, turns: Optional[list] = None) -> Markup:
    if turns is None:
        turns = [(turn_head(info, t), [x for x, _ in t.lines]) for t in turns_of(info, history, events, steps, first, now)]
    turns = turns[-LOG_TURNS:]
    return tag("section", {"class_": "log", "aria-label": "what happened"},
               tag("h2", None, "What happened (latest first)"),
               *(tag("div", {"class_": "turn" + (" latest" if k == 0 else "")},
                     tag("h3", None, who),
                     tag("ul", None, *(tag("li", None, line) for line in lines)))
                 for k, (who, lines) in enumerate(reversed(turns))))


# ---- the score sheet -----------------------------------------------------------------------------

def _audience(model: Any, term: Any) -> str:
    """Who may read a score term: "all" (it reads only public values), "owner" (besides, only the
    player's own `secret` values, directly), "none"."""
    from .. import model as m
    from ..analysis import reads

    public = {("g", v.slot + i) for v in model.game_vars if v.visibility == "public"
              for i in range(v.family[1] if v.family else 1)}
    public |= {("g", o.slot) for o in model.options}
    public |= {("p", v.slot) for v in model.player_vars if v.visibility == "public"}
    r = reads(model, term.expr)
    if r is None:
        return "none"
    private = {x for x in r if isinstance(x, tuple) and x[0] in ("g", "p") and x not in public}
    if not private:
        return "all"
    secret = {("p", v.slot) for v in model.player_vars if v.visibility == "secret"}
    if not private <= secret:
        return "none"
    for x in term.expr.walk() if hasattr(term.expr, "walk") else ():
        if isinstance(x, m.PlayerVar) and ("p", x.slot) in private:
            if not (isinstance(x.player, m.Local) and x.player.slot == 0):
                return "none"
        if isinstance(x, (m.DefineRef, m.ScoreOf, m.WinnersRef)):
            inner = reads(model, x)
            if inner is None or any(y in private for y in inner):
                return "none"
    return "owner"


def score_sheet(state: Any, seat: Optional[int]) -> Optional[dict]:
    """The parts of each player's score, as `seat` may read them (None where it may not), with the
    totals and winners, once the game is over (None before).  Rule work: a worker calls it."""
    if not state.is_over:
        return None
    game = state.game
    model = game.model
    terms = list(model.scores)
    if len(terms) < 2:
        parts = None
    else:
        who = [_audience(model, t) for t in terms]
        parts = [[value if aud == "all" or (aud == "owner" and seat == p) else None
                  for (_, value), aud in zip(row, who)]
                 for p, row in enumerate(state.score_parts())]
    return {"terms": [t.name for t in terms], "parts": parts, "scores": state.scores(), "winners": state.winners()}


def sheet_html(info: Any, sheet: dict) -> Markup:
    """The score sheet: a row per player (winners first), a column per part of the score."""
    scores, won = sheet["scores"], set(sheet["winners"])
    order = sorted(range(len(scores)), key=lambda p: (p not in won, -scores[p], p))
    terms, parts = sheet["terms"], sheet["parts"]
    head = [tag("th", None, "player")]
    if parts is not None:
        head += [tag("th", None, t) for t in terms]
        if any(x is None for row in parts for x in row):
            head.append(tag("th", None, "hidden parts"))
    head.append(tag("th", None, "score"))
    rows = []
    for p in order:
        cells = [tag("th", {"scope": "row"}, info.who(p), tag("small", None, " (wins)") if p in won else None)]
        if parts is not None:
            row = parts[p]
            cells += [tag("td", {"class_": "hidden" if x is None else None}, "?" if x is None else x) for x in row]
            if len(head) == len(terms) + 3:
                rest = scores[p] - sum(x for x in row if x is not None)
                cells.append(tag("td", None, rest if any(x is None for x in row) else "—"))
        cells.append(tag("td", {"class_": "total"}, scores[p]))
        rows.append(tag("tr", {"class_": "won" if p in won else None}, *cells))
    names = [info.who(p) for p in sorted(won)]
    best = max(scores) if scores else 0
    top = [p for p in range(len(scores)) if scores[p] == best]
    if not won:
        said = "Nobody wins."
    elif set(top) == won:
        said = (f"{_and(names)} win{'s' if len(names) == 1 else ''} with {best}."
                if len(names) == 1 else f"{_and(names)} share the win with {best} each.")
    elif won <= set(top):
        said = (f"{_and([info.who(p) for p in top])} tie with {best}; the rules' tie-break gives the win to "
                f"{_and(names)}.")
    else:
        said = f"The rules give the win to {_and(names)}, whatever the scores say."
    note = None
    if parts is not None and any(x is None for row in parts for x in row):
        note = tag("p", {"class_": "hint"}, "“?”: a part that reads what you may not see; the score is public, so "
                   "“hidden parts” is the total of what is not shown.")
    return tag("section", {"class_": "end"},
               tag("h2", None, "Score sheet"),
               tag("p", {"class_": "verdict"}, said),
               tag("table", {"class_": "sheet"}, tag("thead", None, tag("tr", None, *head)), tag("tbody", None, *rows)),
               note)

"""The terminal table of `fishrules play`: what happened and what is on the table, in words and rows.

Nothing here knows a game: everything is read from a state's public surface — `history_for`,
`events_for`, `view` — and from the checked model (the kinds and visibility of values, the
`when … is broken` blocks of actions).  Nothing here prints either: `cli` does.

- `narrate` tells what happened since some point: a run of cards dealt in secret is one line per
  player ("you get 4 cards in hand: …", "p1 gets 4 cards in hand"); dice rolled together are one
  line; a decision is followed by what it did — cards moved (several players' cards going to one
  player read "p2 takes …": who won a trick), values changed, grouped by player ("who got what").
- `tables` is the table as one player may see it: a row per player, a row per value of the game
  (a family of zones, one row per zone), hidden cards counted ("13 cards"), the viewer's own
  secret cards sorted; a number no rule has changed yet reads `–`, not 0.
- `choice_notes` marks the choices the rules accept only by breaking a rule: which rule, what the
  rules do instead, and what it costs the chooser's score.

And what every command prints from data goes through `printable` (or `shown`, which also cuts a
name to a length that fits a line): rule texts, logs and command lines come from strangers, and a
terminal reads control characters in them as commands (a title that sets the window's title,
clears the screen or hides what follows; a history entry that moves the cursor back over a line
already printed; bidirectional overrides that show a line other than it is).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Optional

__all__ = ["narrate", "tables", "choice_notes", "breaking_note", "natural_key", "HELP", "printable", "shown"]

# ---- text from data, made safe for a terminal ----------------------------------------------------

#: The kinds of characters (Unicode general categories) shown escaped: controls (C0, DEL, C1:
#: escape sequences, carriage returns, backspaces), format characters (bidirectional overrides and
#: isolates, zero-width characters, tags: they change how the rest of a line is shown), line and
#: paragraph separators (U+2028, U+2029: a new line a terminal or an editor may start), lone
#: surrogates (no terminal encoding can carry them), and characters unassigned here (a later
#: Unicode may make them any of these).
_UNSAFE_KINDS = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp", "Cn"})
_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _escaped(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    o = ord(ch)
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"


def _unsafe(ch: str) -> bool:
    return not ch.isprintable() and unicodedata.category(ch) in _UNSAFE_KINDS


def printable(text: Any, lines: bool = False) -> str:
    """`text` with every character a terminal could take for a command shown escaped, as Python
    writes it in a string (`\\x1b`, `\\r`, `\\u2028`, `\\u202e`): the one way any text that came from
    data (a title, an action, a name, a line of a rule file, a message quoting any of these) reaches
    the screen.  `lines`: the text is several lines by design (a rule error with its source
    line, `explain`'s rules), so its new lines stay; elsewhere they are shown escaped too."""
    text = str(text)
    if text.isprintable():  # the usual case, at C speed: no control, format or separator character
        return text
    if lines and "\n" in text:
        return "\n".join(printable(line) for line in text.split("\n"))
    return "".join(_escaped(ch) if _unsafe(ch) else ch for ch in text)


#: The most characters of a name (an option, a variant, a ruleset, a title, an action) a message shows.
SHOWN_NAME = 60


def shown(name: Any, most: int = SHOWN_NAME) -> str:
    """A name from data as a message shows it: `printable`, and cut to `most` characters with an
    ellipsis (a name 100,000 characters long must not flood the screen, nor a log's error line).
    An escape is kept whole or left out, never cut in two."""
    text = str(name)
    if len(text) <= most and text.isprintable():
        return text
    out: list[str] = []
    length = 0
    for k, ch in enumerate(text):
        piece = _escaped(ch) if _unsafe(ch) else ch
        if length + len(piece) > most - 1 and (length + len(piece) > most or k + 1 < len(text)):
            return "".join(out) + "…"
        out.append(piece)
        length += len(piece)
    return "".join(out)


#: What can be typed at the prompt of `fishrules play`.
HELP = """\
At `your choice>` you can type:
  a number          the choice with that number in the list
  an action's text  the same choice written out, as listed (`lay 1 red-4`)
  t, table          show the table again
  ?, help           this help
  q, quit, exit     stop (with --log, the game is saved: `fishrules play --resume LOG` goes on)
A choice marked ✗ breaks a rule: the rules accept it, but something else happens instead (shown
beside it), and what it costs you is said."""

#: A move of more cards than this is counted, not listed.
_MOST_NAMED = 12

_OWNED = re.compile(r"^(\w+) of p(\d+)$")
_FAMILY = re.compile(r"^(\w+)\((-?\d+)\)$")


def natural_key(label: Optional[str]) -> tuple:
    """Sort labels as people do: `red-2` before `red-10`."""
    if label is None:
        return (1,)
    return (0, *[(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", label) if p != ""])


def zone_words(name: str, viewer: Optional[int]) -> str:
    """`hand of p1` -> `p1's hand` (`your hand` for the viewer); `rows(2)` -> `rows 2`."""
    m = _OWNED.match(name)
    if m:
        who = int(m.group(2))
        return f"your {_words(m.group(1))}" if who == viewer else f"p{who}'s {_words(m.group(1))}"
    m = _FAMILY.match(name)
    if m:
        return f"{_words(m.group(1))} {m.group(2)}"
    return _words(name)


def _owner(name: str) -> Optional[int]:
    m = _OWNED.match(name)
    return int(m.group(2)) if m else None


def _words(name: str) -> str:
    return name.replace("_", " ")


def _cards(labels: list) -> str:
    return ", ".join(labels)


def _plural(k: int, word: str = "card") -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


# ---- what happened -----------------------------------------------------------------------------


def _value_words(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, list):
        return ", ".join(_value_words(i) for i in x) if x else "nothing"
    return str(x)


class _Run:
    """Consecutive chance outcomes (cards dealt, dice rolled) and what they moved, told at once."""

    def __init__(self):
        self.rolls: list[str] = []
        self.events: list[dict] = []

    def __bool__(self) -> bool:
        return bool(self.rolls or self.events)


def narrate(state, viewer: Optional[int], start: int, typed: frozenset = frozenset(),
            actor: Optional[dict] = None, player_kinds: Optional[dict] = None,
            scores: Optional[dict] = None, notes: Optional[dict] = None, setup: bool = True,
            scored: frozenset = frozenset()) -> list[str]:
    """What happened from history entry `start` on, as `viewer` may know it: one line per thing,
    in rich markup.  `typed`: entries the person at the keyboard typed (not said again, but what
    they did is); `actor`: history index -> the player who chose it; `scores`: history index ->
    the scores once that choice and all it led to were played (-1: at the start), said where they
    changed; `notes`: history index -> a line said right after that choice (a rule it broke);
    `setup`: tell what the set-up did before the first action too (when `start` is 0); `scored`:
    the values the scores are worked out from (`scored_names`), after whose change they are said."""
    actor = actor or {}
    notes = notes or {}
    scores = scores or {}
    last = scores.get(max((k for k in scores if k < start), default=-1))
    hist = state.history_for(viewer)
    by_after: dict[int, list[dict]] = {}
    for e in state.events_for(viewer, since=start if start > 0 else None):
        by_after.setdefault(e["after"], []).append(e)
    out: list[str] = []
    run = _Run()
    if start == 0 and setup:
        run.events += by_after.get(0, [])  # the set-up, before any action
    segment: Optional[tuple[int, int]] = None  # (the last choice, where what it led to starts in `out`)

    def close() -> None:
        """The scores, when the last choice and what it led to changed them: right after who got
        what (the last line about a player's values), else at the end."""
        nonlocal last
        if segment is None or segment[0] not in scores:
            return
        i, begin = segment
        if last is not None and scores[i] != last:
            at = max((k + 1 for k in range(begin, len(out)) if mentions(out[k])), default=None)
            if at is None:
                at = max((k + 1 for k in range(begin, len(out)) if _PLAYER_LINE.match(out[k])), default=len(out))
            out.insert(at, scores_line(last, scores[i], viewer))
        last = scores[i]

    words = [re.compile(r"\b" + re.escape(_words(x)) + r"\b") for x in scored]

    def mentions(line: str) -> bool:
        return any(w.search(line) for w in words)

    for i in range(start, len(hist)):
        text = hist[i]
        events = by_after.get(i + 1, [])
        if i not in actor and (text.startswith("draw ") or re.match(r"die \d+ rolls ", text)):
            if text.startswith("die "):
                run.rolls.append(text[4:].replace(" rolls ", ":", 1))
            run.events += events
            if any(e["event"] != "move" for e in events):  # the outcome changed more: said before what follows
                out += _flush(run, viewer, player_kinds)
                run = _Run()
            continue
        out += _flush(run, viewer, player_kinds)
        run = _Run()
        close()
        segment = (i, len(out))
        if i not in typed:
            if i in actor:
                who = f"p{actor[i]}"
                said = text[len(who) + 2:] if text.startswith(who + ": ") else text
                out.append(f"{who} chooses [bold]{_esc(said)}[/]")
            else:
                out.append(f"[dim]  · {_esc(text)}[/]")
        if i in notes:
            out.append(notes[i])
        out += _consequences(events, viewer, player_kinds, said=text, chooser=actor.get(i))
    out += _flush(run, viewer, player_kinds)
    close()
    return out


def scored_names(model) -> frozenset:
    """The names of the values the scores are worked out from (through the defines they use)."""
    from . import model as m

    found: set[str] = set()
    todo = [t.expr for t in model.scores]
    seen: set[str] = set()
    while todo:
        e = todo.pop()
        if isinstance(e, (m.GameVar, m.PlayerVar)) and e.name:
            found.add(e.name)
        if isinstance(e, m.DefineRef) and e.name not in seen and e.name in model.defines:
            seen.add(e.name)
            todo.append(model.defines[e.name].expr)
        todo.extend(e.iter_child_nodes())
    return frozenset(found)


_PLAYER_LINE = re.compile(r"^\[dim\]  · (you|p\d+): ")


def scores_line(old: list, new: list, viewer: Optional[int]) -> str:
    """`scores: you 5 (+5), p1 3, p2 0`."""
    parts = []
    for p, (a, b) in enumerate(zip(old, new)):
        who = "you" if p == viewer else f"p{p}"
        parts.append(f"{who} {b}" + (f" ({b - a:+d})" if b != a else ""))
    return "[bold]scores:[/] " + _esc(", ".join(parts))


def _esc(text: str) -> str:
    """Text from the rules or a log, for rich: `printable`, and never read as markup."""
    from rich.markup import escape

    return escape(printable(text))


def _flush(run: _Run, viewer: Optional[int], kinds) -> list[str]:
    """A run of chance outcomes: the dice on one line; the cards that went to players' zones one
    line per player (only the viewer's own are named); everything else as it happened."""
    if not run:
        return []
    out = []
    if run.rolls:
        out.append("[dim]  · dice: " + _esc("  ".join(run.rolls)) + "[/]")
    dealt: dict = {}  # the player -> {zone: [labels]}
    rest = []
    for e in run.events:
        owner = _owner(e["to"]) if e["event"] == "move" else None
        if owner is not None:
            dealt.setdefault(owner, {}).setdefault(e["to"], []).extend(e["cards"])
        else:
            rest.append(e)
    out += _consequences(rest, viewer, kinds)
    for owner, zones in sorted(dealt.items()):
        parts, seen = [], []
        for zone, cards in zones.items():
            var = _OWNED.match(zone).group(1)
            parts.append(f"{_plural(len(cards))} in {_words(var)}" if not parts else f"{len(cards)} in {_words(var)}")
            seen += [c for c in cards if c is not None]
        who = "you get" if owner == viewer else f"p{owner} gets"
        line = f"{who} " + ", ".join(parts)
        if seen:
            line += ": " + _cards(sorted(seen, key=natural_key))
        out.append(_dim(line))
    return out


def _dim(text: str) -> str:
    return f"[dim]  · {_esc(text)}[/]"


def _to_zone(zone: str, cards: list, viewer: Optional[int]) -> str:
    shown = [c for c in cards if c is not None]
    where = zone_words(zone, viewer)
    if not shown:
        return f"{_plural(len(cards))} to {where}, face down"
    hidden = len(cards) - len(shown)
    return f"{_cards(shown)} to {where}" + (f" (and {hidden} face down)" if hidden else "")


def _consequences(events: list[dict], viewer: Optional[int], kinds, said: str = "", chooser: Optional[int] = None) -> list[str]:
    """Cards moved (grouped by where they went), values changed (grouped by player), cards turned
    face up.  A move that only repeats the choice just said (its cards named in `said`, between
    the chooser's own zones) is not said again."""
    out: list[str] = []
    words = set(said.replace(":", " ").split())
    i = 0
    while i < len(events):
        e = events[i]
        if e["event"] == "move":
            group = [e]
            while i + 1 < len(events) and events[i + 1]["event"] == "move" and events[i + 1]["to"] == e["to"]:
                i += 1
                group.append(events[i])
            cards = [c for g in group for c in g["cards"]]
            sources = {x for g in group for x in (g["from"] if isinstance(g["from"], list) else [g["from"]])}
            own = chooser is not None and {_owner(x) for x in sources} == {chooser}
            if own and cards and all(c is not None and c in words for c in cards):
                pass  # the choice just said
            elif cards and all(c is None for c in cards) and out and out[-1].startswith(_UNSEEN):
                out[-1] = out[-1][:-len("[/]")] + _esc("; " + _moved(group, viewer, bare=True)) + "[/]"
            elif cards and all(c is None for c in cards):
                out.append(_dim("face down: " + _moved(group, viewer, bare=True)))
            else:
                out.append(_dim(_moved(group, viewer)))
        elif e["event"] == "set":
            group = [e]
            while i + 1 < len(events) and events[i + 1]["event"] == "set":
                i += 1
                group.append(events[i])
            by_player: dict = {}  # one line for the game's values, then one per player: who got what
            for g in group:
                by_player.setdefault(g.get("player"), []).append(g)
            for p in by_player:  # in the order they first changed
                out.append(_dim(_changed(by_player[p], viewer, kinds)))
        elif e["event"] == "reveal":
            out.append(_dim("turned face up: " + _cards([c for c in e["cards"] if c is not None])
                            + " (" + ", ".join(zone_words(z, viewer) for z in dict.fromkeys(e["in"])) + ")"))
        elif e["event"] == "restart":
            out.append("[bold]The game starts again.[/]")
        i += 1
    return out


_UNSEEN = "[dim]  · face down: "


def _moved(group: list[dict], viewer: Optional[int], bare: bool = False) -> str:
    to = group[0]["to"]
    cards = [c for e in group for c in e["cards"]]
    sources: list[str] = []
    for e in group:
        for src in (e["from"] if isinstance(e["from"], list) else [e["from"]]):
            if src not in sources:
                sources.append(src)
    taker = _owner(to)
    givers = {_owner(s) for s in sources}
    shown = [c for c in cards if c is not None]
    if len(shown) > _MOST_NAMED:
        what = _plural(len(cards)) + (", face down" if any(e.get("face") == "down" for e in group) else "")
    elif len(shown) == len(cards):
        what = _cards(shown)
    else:
        what = _plural(len(cards)) + (f" ({_cards(shown)} and {len(cards) - len(shown)} face down)" if shown else ", face down")
    from_words = _sources(sources, viewer)
    if bare:  # cards nobody here may see: how many, from where to where
        return f"{_plural(len(cards))}, {from_words} → {zone_words(to, viewer)}"
    if taker is not None and len(givers - {None}) >= 2:
        who = "you take" if taker == viewer else f"p{taker} takes"
        return f"{who} {what} from {from_words}, into {zone_words(to, viewer)}"
    return f"{what}: {from_words} → {zone_words(to, viewer)}"


def _sources(sources: list[str], viewer: Optional[int]) -> str:
    """`played of p0`, `played of p1` -> `played (p0, p1)`; others by their words."""
    by_var: dict[str, list[str]] = {}
    other = []
    for s in sources:
        m = _OWNED.match(s)
        if m:
            by_var.setdefault(m.group(1), []).append("you" if int(m.group(2)) == viewer else f"p{m.group(2)}")
        else:
            other.append(zone_words(s, viewer))
    parts = []
    for var, who in by_var.items():
        if len(who) > 1:
            parts.append(f"the {_words(var)} of {', '.join(who[:-1])} and {who[-1]}")
        elif who[0] == "you":
            parts.append(f"your {_words(var)}")
        else:
            parts.append(f"{who[0]}'s {_words(var)}")
    return ", ".join(parts + other)


def _changed(group: list[dict], viewer: Optional[int], kinds) -> str:
    p = group[0].get("player")
    parts = []
    for e in group:
        old, new = e["from"], e["to"]
        kind = (kinds or {}).get(e["value"])
        if kind == "player":
            old, new = _player(old), _player(new)
        else:
            old, new = _value_words(old), _value_words(new)
        if isinstance(e["from"], int) and isinstance(e["to"], int) and not isinstance(e["from"], bool) and kind != "player":
            delta = e["to"] - e["from"]
            parts.append(f"{_words(e['value'])} {old} → {new} ({delta:+d})")
        else:
            parts.append(f"{_words(e['value'])} {old} → {new}")
    if p is None:
        return "; ".join(parts)
    who = "you" if p == viewer else f"p{p}"
    return f"{who}: " + "; ".join(parts)


def _player(x) -> str:
    return "nobody" if x is None else f"p{x}"


# ---- the table ----------------------------------------------------------------------------------


def changed_values(state, viewer: Optional[int]) -> set:
    """(player or None, value name) of every value some rule has changed so far, as `viewer` saw."""
    return {(e.get("player"), e["value"]) for e in state.events_for(viewer) if e["event"] == "set"}


def tables(state, viewer: Optional[int]):
    """The table as `viewer` may see it: (the players' rich Table, the game's rich Table or None,
    the dice line or None)."""
    from rich.table import Table

    model = state.game.model
    kinds = {v.name: v for v in model.player_vars}
    gkinds = {v.name: v for v in model.game_vars}
    view = state.view(viewer)
    changed = changed_values(state, viewer)
    seats = view["seats"]
    names = [v.name for v in model.player_vars if v.visibility != "internal"]
    t = Table(show_header=True, header_style="bold", title=None)
    t.add_column("player")
    for name in names:
        t.add_column(_esc(_words(name)), justify="left" if kinds[name].type.kind in ("zone", "list") else "right")
    t.add_column("score", justify="right")
    for row in seats:
        p = row["player"]
        cells = []
        for name in names:
            var = kinds[name]
            if name not in row:
                cells.append("hidden")
                continue
            own_secret = p == viewer and var.visibility in ("secret", "hidden")
            cells.append(_esc(_cell(row[name], var, own_secret, (p, name) in changed, viewer)))
        label = f"p{p}" + (" (you)" if p == viewer else "")
        t.add_row(label, *cells, str(row["score"]))
    pairs = []
    for name, value in view["values"].items():
        var = gkinds.get(name)
        if isinstance(value, dict):  # a family of zones: one row each
            for k, cards in value.items():
                pairs.append((f"{_words(name)} {k}", _zone_cell(cards, False)))
            continue
        pairs.append((_words(name), _cell(value, var, False, (None, name) in changed, viewer)))
    for name, value in view.get("derived", {}).items():
        pairs.append((_words(name), _value_words(value)))
    across = 2 if len(pairs) > 6 else 1  # many values: two to a row, so the table fits a screen
    g = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    for _ in range(across):
        g.add_column(style="bold", no_wrap=True)
        g.add_column()
    rows = (len(pairs) + across - 1) // across
    for r in range(rows):  # down the first pair of columns, then the second
        cells = []
        for c in range(across):
            k = c * rows + r
            cells += [_esc(pairs[k][0]), _esc(pairs[k][1])] if k < len(pairs) else ["", ""]
        g.add_row(*cells)
    dice = None
    if "dice" in view:
        dice = "dice: " + "  ".join(f"[bold]{i + 1}[/]:{_esc(f or '–')}" for i, f in enumerate(view["dice"]))
    return t, (g if g.row_count else None), dice


def _zone_cell(cards: list, sort: bool) -> str:
    if not cards:
        return "empty"
    shown = [c for c in cards if c is not None]
    if not shown:
        return f"{_plural(len(cards))}, face down"
    if sort:
        shown = sorted(shown, key=natural_key)
    hidden = len(cards) - len(shown)
    return ", ".join(shown) + (f" (+{hidden} face down)" if hidden else "")


def _cell(value, var, own_secret: bool, changed: bool, viewer: Optional[int]) -> str:
    kind = var.type.kind if var is not None else None
    if kind == "zone":
        return _zone_cell(value, own_secret)
    if kind == "player":
        return _player(value) if value is not None else "nobody"
    if kind == "number" and not changed:
        return "–"  # no rule has changed it yet: a value worked out later (at a round's end, say)
    return _value_words(value)


# ---- choices ------------------------------------------------------------------------------------


def breaking_note(state, action) -> Optional[str]:
    """What happens instead when `action` (one that breaks a rule) is taken: the rule's `when …
    is broken` block, as written (`play penalty for you`)."""
    rule = getattr(action, "breaks", None)
    if rule is None:
        return None
    decl = state.game.model.actions.get(action.name)
    for b in getattr(decl, "broken", ()) or ():
        if b.rule == rule and b.body:
            sp = getattr(b.body[0], "span", None)
            if sp is not None:
                return sp.source.line(sp.line).strip()
    return None


def choice_notes(state, acts: list, player: int, seed_for) -> dict[int, str]:
    """For each choice (by index) the rules accept only by breaking a rule: `✗ breaks "RULE": what
    happens instead; your score A → B`.  The cost is tried on a state the player cannot tell from
    this one (others' hidden cards drawn anew), before any chance that follows."""
    out: dict[int, str] = {}
    breaking = [(i, a) for i, a in enumerate(acts) if getattr(a, "breaks", None)]
    if not breaking:
        return out
    before = state.scores()[player]
    seen = None
    for i, a in breaking:
        cost = ""
        try:
            if seen is None:
                seen = state.determinize(player, seed_for(), chance="manual")
            trial = seen.clone()
            trial.apply(a.text)
            after = trial.scores()[player]
            if after != before:
                cost = f"; your score {before} → {after}"
        except Exception:  # a rule that cannot be tried ahead: the note says what it can
            cost = ""
        instead = breaking_note(state, a)
        out[i] = f'✗ breaks "{a.breaks}"' + (f": {instead}" if instead else "") + cost
    return out

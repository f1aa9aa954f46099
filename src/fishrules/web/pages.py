"""The server's HTML pages: the lobby, a table's set-up, its links, the table itself, errors.

Every page is built with `html.tag`, which escapes every text, and carries no script but the
package's own files (`/static/…`): the Content-Security-Policy forbids any other.
"""

from __future__ import annotations

from typing import Any, Optional

import fishrules

from .diagnostics import diagnostics_html
from .html import Markup, join, tag
from .tables import BOT_KINDS
from .work import RulesInfo

__all__ = ["page", "lobby", "setup", "links_page", "table_page", "error_page", "diagnostics_html", "rules_html",
           "rules_page"]

#: The most characters of a house rule the lobby takes.
MOST_RULE_TEXT = 128 * 1024

EXAMPLE = """extends "NAME"
game "My house rule"
"""


def page(title: str, *body: Any, scripts: tuple = (), main_attrs: Optional[dict] = None) -> str:
    return "<!doctype html>\n" + tag(
        "html", {"lang": "en"},
        tag("head", None,
            tag("meta", {"charset": "utf-8"}),
            tag("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
            tag("meta", {"name": "referrer", "content": "no-referrer"}),
            tag("title", None, title),
            tag("link", {"rel": "stylesheet", "href": "/static/app.css"}),
            tag("link", {"rel": "icon", "href": "/static/icon.svg", "type": "image/svg+xml"}),
            *(tag("script", {"src": f"/static/{s}", "defer": True}, "") for s in scripts)),
        tag("body", None,
            tag("header", {"class_": "top"}, tag("a", {"href": "/"}, "fishrules"), " ", tag("span", None, "tables")),
            tag("main", main_attrs, *body)))


def error_page(title: str, message: str) -> str:
    return page(title, tag("section", {"class_": "error"}, tag("h1", None, title), tag("p", None, message),
                           tag("p", None, tag("a", {"href": "/"}, "Back to the lobby"))))


# ---- the rules panel -----------------------------------------------------------------------------

_OF = {"card": "a card", "die": "a die", "player": "a player", "number": "a number", "choice": "a choice"}
_OF_SOME = {"card": "cards", "die": "dice", "player": "players", "number": "numbers", "choice": "choices"}


def _sentence(text: Optional[str]) -> str:
    if not text:
        return ""
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?", ")")) else ".")


def rules_html(desc: dict, title: Optional[str] = None, open_: bool = False, options: Optional[dict] = None) -> Markup:
    """The rules at hand, from the rules' declarations and their presentation part alone
    (`Game.describe()`: the same for every seat, so it tells nobody anything hidden): what the
    game is (`about`), what each action does and what it takes, what each value on the table
    means, the options (as set at this table, if `options`), and the parts of the score."""
    about = [tag("p", None, t) for t in desc.get("about") or ()]
    if not about:
        about = [tag("p", {"class_": "hint"}, "These rules say nothing of what the game is (a presentation block's "
                     "`about`); here is what each move does.")]
    acts = []
    for a in desc["actions"]:
        takes = []
        for p in a["params"]:
            what = _OF_SOME.get(p["of"], p["of"]) if p["kind"] == "some" else _OF.get(p["of"], p["of"])
            takes.append(f"{p.get('label') or p['name']} ({'one or more ' if p['kind'] == 'some' else ''}{what}"
                         f"{', kept secret' if p.get('secret') else ''})")
        acts.append(tag("dt", None, a.get("label") or a["name"]))
        acts.append(tag("dd", None, _sentence(a.get("description")), (" Takes: " + "; ".join(takes) + ".") if takes else None))
    vals = []
    for v in desc["values"]:
        if v.get("hidden") or not v.get("description") and v.get("out_of") is None:
            continue
        out_of = v.get("out_of")
        count = None
        if out_of is not None:
            count = f" Counts up to {out_of}." if isinstance(out_of, int) else f" Counts up to the {str(out_of).replace('_', ' ')}."
        vals.append(tag("dt", None, v.get("label") or v["name"], tag("small", None, " (each player's)") if v["scope"] == "player" else None))
        vals.append(tag("dd", None, _sentence(v.get("description")), count))
    for name, d in (desc.get("derived") or {}).items():
        if d.get("hidden") or not d.get("description"):
            continue
        vals.append(tag("dt", None, d.get("label") or name))
        vals.append(tag("dd", None, d["description"]))
    opts = []
    for o in desc.get("options") or ():
        chosen = None if options is None or o["name"] not in options else options[o["name"]]
        if isinstance(chosen, bool):
            chosen = "yes" if chosen else "no"
        opts.append(tag("dt", None, o.get("label") or o["name"], f": {chosen}" if chosen is not None else None))
        opts.append(tag("dd", None, o.get("description") or ""))
    scores = desc.get("scores") or []
    return tag("details", {"class_": "rules", "id": "rules", "open": open_},
               tag("summary", None, f"Rules of {title or desc['title']}"),
               *about,
               tag("h3", None, "Moves"), tag("dl", {"class_": "actions"}, *acts),
               tag("h3", None, "On the table") if vals else None, tag("dl", {"class_": "values"}, *vals) if vals else None,
               tag("h3", None, "Options") if opts else None, tag("dl", {"class_": "options"}, *opts) if opts else None,
               tag("p", None, "The score adds up: " + ", ".join(scores) + ".") if len(scores) > 1 else None)


def rules_page(game: RulesInfo, ruleset: Optional[str]) -> str:
    """A bundled game's rules, from the lobby."""
    return page(f"Rules — {game.title}", tag("h1", None, game.title),
                rules_html(game.describe, game.title, open_=True),
                tag("p", None, tag("a", {"href": f"/new?ruleset={ruleset}" + (f"&variant={game.variant}" if game.variant and ruleset and game.variant not in ruleset else "")},
                                   "Set up a table"), " · ", tag("a", {"href": "/"}, "Back to the lobby")))


# ---- the lobby -----------------------------------------------------------------------------------


def lobby(bundled: dict, text: str = "", diags: Optional[Markup] = None) -> str:
    """The lobby: the bundled games (`bundled`: {(name, variant): RulesInfo}, read at start) and
    the box for a house rule."""
    games = []
    for name in fishrules.bundled():
        g = bundled.get((name, None))
        if g is None:  # pragma: no cover - the bundled rulesets load
            continue
        games.append(tag("li", None, tag("a", {"href": f"/new?ruleset={name}", "class_": "game"}, g.title),
                         " ", tag("small", None, f"{name}, {g.min_players}–{g.max_players} players"),
                         " ", tag("a", {"href": f"/rules?ruleset={name}", "class_": "ruleslink"}, "rules")))
    first = fishrules.bundled()[0] if fishrules.bundled() else "NAME"
    return page(
        "fishrules — lobby",
        tag("h1", None, "Start a table"),
        tag("section", {"class_": "mine", "id": "my-tables", "hidden": True},
            tag("h2", None, "Your tables"), tag("ul", None)),
        tag("section", {"class_": "rulesets"}, tag("h2", None, "A bundled game"), tag("ul", None, *games)),
        tag("section", {"class_": "house"},
            tag("h2", None, "Or a house rule"),
            tag("p", None, "Paste a rule file: it may ", tag("code", None, "extends"), " a bundled game (",
                ", ".join(fishrules.bundled()), ") and change what you like. It is checked as you type."),
            tag("form", {"method": "post", "action": "/new", "id": "house"},
                tag("textarea", {"name": "rules", "id": "rules", "rows": 14, "cols": 80, "spellcheck": "false",
                                 "maxlength": MOST_RULE_TEXT, "placeholder": EXAMPLE.replace("NAME", first)}, text),
                tag("div", {"id": "diags"}, diags),
                tag("p", None, tag("button", {"type": "submit"}, "Check and set up a table")))),
        scripts=("lobby.js",))


# ---- a table's set-up ----------------------------------------------------------------------------


def _option_field(info: Any, value: Any, words: Optional[dict] = None) -> Markup:
    name = f"option.{info.name}"
    if info.kind == "yes or no":
        field = tag("input", {"type": "checkbox", "name": name, "checked": bool(value)})
    elif info.kind == "choice":
        field = tag("select", {"name": name}, *(tag("option", {"value": c, "selected": c == value}, c) for c in info.choices))
    else:
        field = tag("input", {"type": "number", "name": name, "value": value, "min": info.low, "max": info.high})
    words = words or {}
    label = words.get("label") or info.name.replace("_", " ")
    doc = words.get("description") or info.doc
    return tag("label", {"class_": "option"}, tag("span", None, label), " ", field,
               tag("small", None, f" {doc}") if doc else None)


def setup(game: RulesInfo, ruleset: Optional[str], text: Optional[str], variant: Optional[str],
          error: Optional[str] = None, form: Optional[dict] = None, base: Optional[RulesInfo] = None) -> str:
    """The form that creates a table of `game`: variant, players, options, who sits at each seat."""
    form = form or {}
    hidden: list = []
    if text is not None:
        hidden.append(tag("textarea", {"name": "rules", "hidden": True}, text))
    else:
        hidden.append(tag("input", {"type": "hidden", "name": "ruleset", "value": ruleset}))
    variants = game.variants
    variant_form = None
    if text is None and base is not None and base.variants:
        variant_form = tag("form", {"method": "get", "action": "/new", "class_": "variant"},
                           tag("input", {"type": "hidden", "name": "ruleset", "value": ruleset}),
                           tag("label", None, "Variant ",
                               tag("select", {"name": "variant", "class_": "autosubmit"},
                                   tag("option", {"value": ""}, "(none)"),
                                   *(tag("option", {"value": v, "selected": v == variant}, v) for v in base.variants))),
                           " ", tag("button", {"type": "submit"}, "Show its options"))
    elif text is not None and variants:
        variant_form = tag("form", {"method": "post", "action": "/new", "class_": "variant"},
                           tag("textarea", {"name": "rules", "hidden": True}, text),
                           tag("label", None, "Variant ",
                               tag("select", {"name": "variant", "class_": "autosubmit"},
                                   tag("option", {"value": ""}, "(none)"),
                                   *(tag("option", {"value": v, "selected": v == variant}, v) for v in variants))),
                           " ", tag("button", {"type": "submit"}, "Show its options"))
    players = int(form.get("players") or game.min_players) if str(form.get("players", "")).isdigit() else game.min_players
    seat_rows = []
    for p in range(game.max_players):
        kind = form.get(f"seat.{p}") or ("human" if p == 0 else "random")
        seat_rows.append(tag("tr", {"class_": "seatrow", "data_seat": p},
                             tag("td", None, f"Seat {p + 1}"),
                             tag("td", None, tag("select", {"name": f"seat.{p}"},
                                                 tag("option", {"value": "human", "selected": kind == "human"}, "a person"),
                                                 *(tag("option", {"value": b, "selected": kind == b}, f"bot: {b}") for b in BOT_KINDS))),
                             tag("td", None, tag("input", {"name": f"name.{p}", "maxlength": 40, "placeholder": f"Player {p + 1}",
                                                           "value": form.get(f"name.{p}") or None}))))
    said = {o["name"]: o for o in game.describe.get("options", [])}
    opts = [_option_field(info, form.get(f"option.{info.name}", info.default), said.get(info.name)) for info in game.options]
    return page(
        f"New table — {game.title}",
        tag("h1", None, "New table: ", game.title),
        tag("p", {"class_": "error", "role": "alert"}, error) if error else None,
        tag("details", {"class_": "warnings", "open": True},
            tag("summary", None, "What fishrules check says of these rules"), Markup(game.warnings[0]))
        if game.warnings else None,
        variant_form,
        rules_html(game.describe, game.title),
        tag("form", {"method": "post", "action": "/tables", "id": "setup"},
            *hidden,
            tag("input", {"type": "hidden", "name": "variant", "value": variant or ""}),
            tag("label", None, "Players ",
                tag("select", {"name": "players", "id": "players"},
                    *(tag("option", {"value": n, "selected": n == players}, n)
                      for n in range(game.min_players, game.max_players + 1)))),
            tag("fieldset", None, tag("legend", None, "Options"), *opts) if opts else None,
            tag("table", {"class_": "seats-setup"},
                tag("tr", None, tag("th", None, "seat"), tag("th", None, "who plays"), tag("th", None, "name")),
                *seat_rows),
            tag("p", {"class_": "hint"}, "Only the first seats, as many as there are players, take part. Each person "
                "gets a link of their own; bots play on the server."),
            tag("p", None, tag("button", {"type": "submit"}, "Create the table"))),
        scripts=("lobby.js",))


def links_page(base: str, table: Any, links: list[tuple[str, str, Optional[int]]]) -> str:
    """The host's page: the secret link of each person's seat and the spectators' link."""
    info = table.info
    rows = []
    for token, role, seat in links:
        if role == "host":
            continue
        url = f"{base}/p/{token}"
        who = "Spectators (see only what everybody may see)" if role == "spectator" else f"Seat of {info.who(seat)}"
        rows.append(tag("li", {"class_": role}, tag("span", None, who), " ",
                        tag("a", {"href": f"/p/{token}", "class_": "seatlink", "data_seat": seat}, url), " ",
                        tag("button", {"type": "button", "class_": "copy", "data_copy": url}, "Copy")))
    bots = [f"{info.who(p)}: {k}" for p, k in enumerate(table.record.seats) if k != "human"]
    return page(
        f"Table — {table.title}",
        tag("h1", None, "Your table of ", table.title, " is ready"),
        tag("p", None, "Send each person the link of their seat, and nobody else: whoever has a seat's link plays that "
            "seat and sees its hidden cards. Keep this page's address to find the links again."),
        tag("ul", {"class_": "links", "data_title": table.title}, *rows),
        tag("p", None, "Bots: " + "; ".join(bots)) if bots else None,
        tag("p", {"class_": "hint"}, "This browser remembers this page: the lobby lists your tables."),
        scripts=("lobby.js",))


def table_page(table: Any, token: str, seat: Optional[int], frame_html: str) -> str:
    """A seat's (or a spectator's) page: the table as it is now; table.js keeps it live.  The
    way back to the table's links is shown only by a browser that set the table up (it keeps the
    host page's address, lobby.js): the page itself never names it, since a seat's link must not
    lead to the others'."""
    return page(
        f"{table.title} — " + ("spectator" if seat is None else table.info.who(seat)),
        tag("nav", {"class_": "back", "id": "back", "hidden": True},
            tag("a", {"href": "/", "id": "back-host"}, "← this table's links"), " · ", tag("a", {"href": "/"}, "lobby")),
        tag("div", {"id": "conn", "class_": "conn"}, "connecting…"),
        tag("div", {"id": "table"}, Markup(frame_html)),
        tag("section", {"id": "controls", "class_": "controls", "hidden": seat is None},
            tag("div", {"id": "message", "class_": "message", "role": "status"}),
            tag("div", {"id": "picker"}),
            tag("form", {"id": "typed", "class_": "typed"},
                tag("label", None, "Or write an action ", tag("input", {"id": "typed-text", "maxlength": 1000,
                                                                        "autocomplete": "off"})),
                " ", tag("button", {"type": "submit"}, "Try it"))),
        rules_html(table.rules.describe, table.title, options=table.record.options),
        tag("p", {"class_": "download", "id": "download", "hidden": not table.over},
            tag("a", {"href": f"/p/{token}/log", "id": "log-link", "download": "table-log.json"}, "Download the game's log"),
            " (", tag("code", None, "fishrules replay"), " plays it back)"),
        scripts=("table.js",), main_attrs={"class_": "tablepage", "data_seat": "" if seat is None else seat})

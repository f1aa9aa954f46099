"""Stage 3, the presentation part: the rules' `presentation:` blocks checked into `model.Presentation`.

A presentation block says how a table words things — a label and a description for a value, an
action and its parameters, an option, a card attribute or a phase; which values a table need not
show; the sentence an action reads as in a log — and nothing of what the game is: the rules play
the same with or without it.  Every name it gives must be one the rules declare (with a "did you
mean"), each text is bounded, and a log sentence may name only who acts (`{player}`) and the
action's parameters; a counter's bound (`value roll: out of rolls_a_turn`) a number the table may
show; `about` says what the game is, for a rules panel.  Blocks are read in order, the base's first, so an overlay's entry counts over
the one it extends; an entry given twice in one file is a warning, and a base's entry for
something an overlay removed is dropped.

`words(name)` is what a name reads as where the rules say nothing: `round_points` -> "round points".
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .. import model as m
from .. import nodes as n

__all__ = ["check_presentation", "words", "MOST_LABEL", "MOST_DESCRIPTION", "MOST_LOG", "MOST_ABOUT"]

#: The longest label, description and log sentence (in characters).
MOST_LABEL = 60
MOST_DESCRIPTION = 400
MOST_LOG = 120
#: The longest paragraph of `about` (what the game is).
MOST_ABOUT = 1000

_PLACE = re.compile(r"\{([^{}]*)\}")


def words(name: str) -> str:
    """A name as words: underscores are spaces (`round_points` -> "round points", `shown_V` ->
    "shown V"); a name that is already words stays as it is."""
    return " ".join(name.replace("_", " ").split()) or name


def check_presentation(checker: Any) -> m.Presentation:
    """The presentation blocks the checker collected (`checker.presentation_nodes`), checked."""
    nodes: list[n.Presentation] = getattr(checker, "presentation_nodes", [])
    out_words: dict = {}
    hidden: set = set()
    logs: dict = {}
    bounds: dict = {}
    about: dict = {}  # file -> its paragraphs: an overlay's `about` counts over its base's
    seen: dict = {}  # (kind, name, param) -> the span of its entry, per file
    for block in nodes:
        for e in block.entries:
            if e.kind == "about":
                if _check_text(checker, e, e.label, MOST_ABOUT, "text"):
                    about.setdefault(getattr(getattr(e.span, "source", None), "name", None), []).append(e.label)
                continue
            if e.bound is not None:
                bound = _check_bound(checker, e)
                if bound is not None:
                    bounds[e.name] = bound
                continue
            key = _check_entry(checker, e)
            if key is None:
                continue
            file = getattr(getattr(e.span, "source", None), "name", None)
            where = (file,) + key + (e.hidden,)
            if where in seen:
                checker.warn(e.span, f"{_what(key)} is given words twice in this file (at {seen[where]}): the later counts",
                             "give each name one entry")
            seen[where] = e.span
            if e.kind == "log":
                logs[e.name] = e.label
            elif e.hidden:
                hidden.add(e.name)
            else:
                out_words[key] = (e.label, e.description)
    return m.Presentation(words=out_words, hidden=frozenset(hidden), logs=logs, bounds=bounds,
                          about=tuple(list(about.values())[-1]) if about else ())


def _check_bound(checker: Any, e: n.PresentWords) -> Any:
    """What bounds a counter (`value roll: out of rolls_a_turn`): a named number's number, or a
    public game-wide value or define a view shows (never something hidden: a table shows it)."""
    if e.kind != "value":
        checker.error(e.span, f"only a value counts up to something, not {_a(e.kind)}", "write `value NAME: out of BOUND`")
        return None
    if e.name not in checker.gvars:
        found = _kind_of(checker, e.name)
        if _from_a_base(checker, e) and found is None:
            return None
        hint = checker.suggest(e.name, lambda: list(checker.gvars), what="game value")
        checker.error(e.span, f"`{e.name}` is not a value of the game's, so a table shows no count of it", hint)
        return None
    var = checker.gvars[e.name]
    if var.visibility != "public" or getattr(var.type, "kind", None) != "number":
        checker.error(e.span, f"`{e.name}` is not a number everybody sees, so a table says no count of it",
                      "a count is for a public number of the game's")
        return None
    numbers = checker.named_numbers()
    if e.bound in numbers:
        return numbers[e.bound]
    bound = checker.gvars.get(e.bound)
    if bound is not None and bound.visibility == "public" and getattr(bound.type, "kind", None) == "number":
        return e.bound
    if e.bound in checker.options:
        return e.bound
    d = checker.define_nodes.get(e.bound)
    if d is not None:
        return e.bound  # a define: the table reads it where the view shows it (a public define), else says nothing
    hint = checker.suggest(e.bound, lambda: list(numbers) + list(checker.gvars) + list(checker.define_nodes), what="value")
    checker.error(e.span, f"there is no number `{e.bound}` for `{e.name}` to count up to",
                  hint or "name a `define` of a number, or a public number of the game's")
    return None


def _what(key: tuple) -> str:
    kind, name, param = key
    if kind == "about":
        return "`about`"
    if kind == "log":
        return f"the log sentence of action `{name}`"
    return f"{kind} `{name}`" + (f"'s parameter `{param}`" if param else "")


def _kind_of(checker: Any, name: str) -> Optional[str]:
    """What `name` is in the rules, as a presentation entry names it (None: nothing)."""
    if name in checker.gvars or name in checker.pvars or name in checker.define_nodes:
        return "value"
    if name in checker.action_nodes:
        return "action"
    if name in checker.options:
        return "option"
    if name in checker.phase_nodes:
        return "phase"
    if name in checker.card_attrs:
        return "attribute"
    return None


def _from_a_base(checker: Any, e: n.PresentWords) -> bool:
    """Whether an entry comes from a file the checked one extends (not from the file itself)."""
    mine = getattr(checker, "source", None)
    theirs = getattr(e.span, "source", None)
    return mine is not None and theirs is not None and theirs is not mine


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _names_of(checker: Any, kind: str) -> list[str]:
    if kind in ("action", "log"):
        return list(checker.action_nodes)
    if kind == "value":
        return list(checker.gvars) + list(checker.pvars) + list(checker.define_nodes)
    if kind == "option":
        return list(checker.options)
    if kind == "phase":
        return list(checker.phase_nodes)
    return list(checker.card_attrs)


def _check_text(checker: Any, e: n.PresentWords, text: Optional[str], most: int, what: str) -> bool:
    if text is None:
        return True
    if not text.strip():
        checker.error(e.span, f"the {what} of {_what((e.kind, e.name, e.param))} is empty", "write some words, or leave the entry out")
        return False
    if len(text) > most:
        checker.error(e.span, f"the {what} of {_what((e.kind, e.name, e.param))} is longer than {most} characters",
                      "a table shows it in a line: say it shortly")
        return False
    return True


def _check_entry(checker: Any, e: n.PresentWords) -> Optional[tuple]:
    """The key of a good entry, or None after reporting what is wrong with it."""
    kind = e.kind
    want = "action" if kind == "log" else kind
    if e.name not in _names_of(checker, kind):
        if _from_a_base(checker, e):
            return None  # words of something an overlay removed (`remove option rounds`): nothing to word
        found = _kind_of(checker, e.name)
        if found is not None:
            checker.error(e.span, f"`{e.name}` is {_a(found)}, not {_a(want)}",
                          f"write `{found} {e.name}: …`" if kind != "log" else None)
        else:
            hint = checker.suggest(e.name, lambda: _names_of(checker, kind), what=f"presentation {want}")
            checker.error(e.span, f"there is no {want} `{e.name}` to give words to", hint)
        return None
    if e.hidden and kind != "value":
        checker.error(e.span, f"only a value can be hidden, not {_a(kind)}",
                      "a table shows every action, option and phase the rules have")
        return None
    if e.param is not None:
        if kind != "action":
            checker.error(e.span, f"only an action has parameters to give words to, not {_a(kind)}")
            return None
        params = [p.name for p in checker.action_nodes[e.name].params]
        if e.param not in params:
            hint = checker.suggest(e.param, params)
            checker.error(e.span, f"action `{e.name}` has no parameter `{e.param}`",
                          hint or (f"its parameters: {', '.join(params)}" if params else "it has no parameters"))
            return None
    if kind == "value":
        var = checker.gvars.get(e.name) or checker.pvars.get(e.name)
        if var is not None and var.visibility == "internal":
            checker.warn(e.span, f"`{e.name}` is internal: no table ever shows it, so its words are never read",
                         "leave the entry out")
    if kind == "log":
        if not _check_text(checker, e, e.label, MOST_LOG, "sentence"):
            return None
        params = {p.name for p in checker.action_nodes[e.name].params}
        text = e.label or ""
        if text.count("{") != len(_PLACE.findall(text)) or text.count("}") != len(_PLACE.findall(text)):
            checker.error(e.span, "a `{` or `}` of this sentence is not one of a pair",
                          "write `{player}` or `{PARAMETER}` where the words go")
            return None
        for place in _PLACE.findall(text):
            if place != "player" and place not in params:
                hint = checker.suggest(place, sorted(params | {"player"}))
                checker.error(e.span, f"`{{{place}}}` is neither `{{player}}` nor a parameter of action `{e.name}`",
                              hint or (f"its parameters: {', '.join(sorted(params))}" if params else "it has no parameters"))
                return None
        return ("log", e.name, None)
    if not e.hidden:
        if not (_check_text(checker, e, e.label, MOST_LABEL, "label")
                and _check_text(checker, e, e.description, MOST_DESCRIPTION, "description")):
            return None
    return (kind, e.name, e.param)

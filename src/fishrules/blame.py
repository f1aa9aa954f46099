"""Which line of an overlay a problem of the rules it extends comes from.

A house rule changes a ruleset by name; the checker then checks the whole, and a change can make a
line of the base wrong (`replace phase turn:` drops the base's `for fisher`, and the base's
`play turn for player` no longer fits) or leave parts of it unused.  Reported where the checker
found them, such problems point into a file the house-rule writer did not write and should not
edit, with a hint to edit it.  Here each problem reported in a base file is looked up:

- a problem the base has on its own (checked without the overlay) is the base's business: a
  warning is left out, an error kept as it is (the base is broken);
- any other was caused by the overlay: the overlay's items are applied one at a time, and the
  problem is reported at the first item after which it appears, saying where in the base it
  shows, what the base declares, and what to write instead.  Warnings of one kind that one line
  causes (parts of the base left unplayed) are reported together, once.

Errors in the overlay itself that only make sense against the base (`fisher` is unknown in a
`replace phase turn:` because the base's phase is `phase turn for fisher`) get a hint saying so.
"""

from __future__ import annotations

import bisect
import re
from typing import Callable, Optional

from . import nodes as n
from .errors import Diagnostic, RuleError, Span

__all__ = ["attribute"]

#: Overlays longer than this are not taken apart item by item (each step is a whole check); their
#: base problems are then reported at the `extends` line.
MAX_STEPS = 60

#: An overlay with more items of its own than this gets no hint about unknown names its base declares
#: (`_own_hint`), which would cost the square of its items.
MOST_HINTED_ITEMS = 240


def _key(d: Diagnostic) -> tuple:
    sp = d.span
    return (d.severity, d.message, sp.file, sp.line, sp.column) if sp is not None else (d.severity, d.message)


def attribute(resolved, diagnostics: list[Diagnostic], check: Callable[[list], list[Diagnostic]]) -> list[Diagnostic]:
    """`diagnostics` of the rules `resolved`, with those in a base file that the overlay caused
    reported at the overlay's line, and the base's own warnings left out.  `check(items)` gives
    every diagnostic of a list of declarations (never raises)."""
    src = resolved.source
    if src is None:
        return diagnostics
    top = src.name
    foreign = [d for d in diagnostics if d.span is not None and d.span.file != top]
    own_errors = [d for d in diagnostics if d.span is not None and d.span.file == top and d.severity == "error"
                  and d.message.startswith("unknown name `")]
    if not foreign and not own_errors:
        return diagnostics
    if not foreign and sum(getattr(getattr(it, "span", None), "file", None) == top for it in resolved.items) > MOST_HINTED_ITEMS:
        # The hint of `_own_hint` takes every step of the overlay, and the steps cost the square of
        # its items: an overlay this long keeps its errors without it.
        return diagnostics
    from .variants import overlay_steps

    steps = overlay_steps(resolved, most=max(MAX_STEPS, MOST_HINTED_ITEMS))
    if not steps:
        return diagnostics
    ends_only = len(steps) > 1 and steps[-1][0] is None  # a long overlay: its two ends only (see overlay_steps)
    base_items = steps[0][1]
    # (by identity: comparing diagnostics field by field made this quadratic in a file's mistakes)
    foreign_ids, own_ids = {id(d) for d in foreign}, {id(d) for d in own_errors}
    out = [d for d in diagnostics if id(d) not in foreign_ids]
    if not ends_only:
        holders = _holders(steps, top)
        out = [_own_hint(d, steps, holders) if id(d) in own_ids else d for d in out]
    if not foreign:
        return out
    cache: dict[int, set] = {}

    def at(k: int) -> set:
        if k not in cache:
            cache[k] = {_key(d) for d in check(list(steps[k][1]))}
        return cache[k]

    base_own = at(0)
    pending = []
    for d in foreign:
        if _key(d) in base_own:
            if d.severity == "error":
                out.append(d)  # the base is wrong by itself
            continue  # the base's own warnings are not the house rule's business
        pending.append(d)
    causes: dict[int, list[Diagnostic]] = {}
    if ends_only or len(steps) - 1 > MAX_STEPS:
        for d in pending:
            causes.setdefault(-1, []).append(d)
    else:
        for k in range(1, len(steps)):
            if not pending:
                break
            found = at(k)
            still = []
            for d in pending:
                (causes.setdefault(k, []) if _key(d) in found else still).append(d)
            pending = still
        for d in pending:  # it only shows with everything in place: the last line is as good as any
            causes.setdefault(len(steps) - 1, []).append(d)
    base_name = _base_name(steps)
    for k, ds in sorted(causes.items()):
        item = steps[k][0] if k >= 0 else None
        out.extend(_reanchored(ds, item, base_items, steps[-1][1], base_name, resolved))
    return out


def _base_name(steps) -> str:
    files = [it.span.file for it in steps[0][1] if getattr(it, "span", None) is not None]
    return files[-1] if files else "the rules it extends"


def _decl_key(it) -> Optional[tuple]:
    for cls, kind in ((n.Phase, "phase"), (n.Action, "action"), (n.Define, "define"), (n.OptionDecl, "option"),
                      (n.Score, "score"), (n.VarDecl, "variable"), (n.CardsDecl, "cards")):
        if isinstance(it, cls):
            return (kind, it.name)
    for cls, kind in ((n.DiceDecl, "dice"), (n.BoardDecl, "board"), (n.Winners, "winners")):
        if isinstance(it, cls):
            return (kind, "")
    return None


def _find(items, key) -> Optional[object]:
    return next((it for it in items if _decl_key(it) == key), None)


def _header(it) -> str:
    from .explain import unparse_item

    return unparse_item(it)[0].rstrip(":")


def _enclosing(items, span: Span) -> Optional[object]:
    """The declaration of `items` whose lines hold `span` (the last one starting before it)."""
    best = None
    for it in items:
        sp = getattr(it, "span", None)
        if sp is None or sp.file != span.file or sp.line > span.line:
            continue
        if best is None or sp.line >= best.span.line:
            best = it
    return best


def _quoted(span: Span) -> str:
    return span.source.line(span.line).strip()


def _what_changes(item) -> tuple[str, Optional[tuple]]:
    """How to speak of an overlay item ("this replacement"), and the key of what it changes."""
    if isinstance(item, n.Replace):
        inner = item.item
        if isinstance(inner, n.RuleBlock):
            return "this replacement", ("rule", inner.name)
        if isinstance(inner, n.PlayersDecl):
            return "this player count", ("players", "")
        return "this replacement", _decl_key(inner)
    if isinstance(item, n.Remove):
        return "this removal", (item.kind if item.kind != "rule" else "rule", item.name)
    if isinstance(item, n.AddRule):
        return "this added rule", ("rule", item.rule.name)
    return "this line", _decl_key(item)


def _reanchored(ds: list[Diagnostic], item, base_items, final_items, base: str, resolved) -> list[Diagnostic]:
    if item is None:  # too long an overlay to take apart: its `extends` line
        ext = next((it for it in _top_items(resolved) if isinstance(it, n.Extends)), None)
        span = ext.span if ext is not None else None
        return [Diagnostic(span, f"{d.message} (in {base}, at {d.span}: `{_quoted(d.span)}`)",
                           f"a change of this file makes that line of {base} wrong", d.severity, d.code) for d in ds]
    span = item.span
    if isinstance(item, n.Replace) and getattr(item.item, "span", None) is not None:
        span = item.item.span if isinstance(item.item, n.RuleBlock) else span
    this, key = _what_changes(item)
    out = []
    unplayed = [d for d in ds if d.code == "unreachable"]
    groups: dict[tuple, list[Diagnostic]] = {}
    for d in ds:
        if d not in unplayed:  # problems alike but for a name are said once
            groups.setdefault((d.severity, re.sub(r"`[^`]*`", "`…`", d.message)), []).append(d)
    for alike in groups.values():
        one = _one(alike[0], item, span, this, key, base_items, final_items, base)
        if len(alike) > 1:
            rest = [f"{_first_name(d)} ({d.span})" for d in alike[1:]]
            one = Diagnostic(one.span, f"{one.message}; the same for {_join(rest)}", one.hint, one.severity, one.code)
        out.append(one)
    if unplayed:
        names = []
        for d in unplayed:
            kind, _, rest = d.message.partition(" `")
            names.append(f"{kind} `{rest.split('`')[0]}`")
        plays = _calls_of(base_items, key, unplayed)
        them = "them" if len(names) > 1 else "it"
        hint = (f"use {them} from your version" + (f", as {base} did (`{plays}`)" if plays else "")
                + f", or remove {them} (`remove phase …`, `remove action …`) if your version does without")
        verb = "are" if len(names) > 1 else "is"
        out.append(Diagnostic(span, f"after {this}, {base}'s {_join(names)} {verb} no longer used",
                              hint, "warning", "unreachable"))
    return out


def _first_name(d: Diagnostic) -> str:
    m = re.search(r"`[^`]*`", d.message)
    return m.group(0) if m else "another line"


def _join(xs: list[str]) -> str:
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def _calls_of(base_items, key, unplayed) -> Optional[str]:
    """A line of the base's version of what `key` names that played the first unplayed part."""
    old = _find(base_items, key) if key is not None else None
    if old is None or not hasattr(old, "body"):
        return None
    wanted = {d.message.split("`")[1] for d in unplayed}
    src = old.span.source if old.span is not None else None
    stack = list(old.body)
    while stack:
        s = stack.pop(0)
        if isinstance(s, (n.Play, n.Chooses, n.ChoosesTogether)) and src is not None and s.span is not None:
            names = [s.phase] if isinstance(s, n.Play) else list(getattr(s, "actions", ()))
            if any(x in wanted for x in names):
                return src.line(s.span.line).strip()
        for field in ("body", "otherwise"):
            stack.extend(getattr(s, field, ()) or ())
        for _, b in getattr(s, "branches", ()) or ():
            stack.extend(b)
    return None


def _one(d: Diagnostic, item, span, this: str, key, base_items, final_items, base: str) -> Diagnostic:
    where = f"{d.span}: `{_quoted(d.span)}`"
    msg = f"{d.message}, in {base} (at {where}), because of {this}"
    hint = None
    old = _find(base_items, key) if key is not None else None
    new = item.item if isinstance(item, n.Replace) else None
    if isinstance(new, n.Phase) and isinstance(old, n.Phase) and old.param != new.param:
        head = _header(old)
        if old.param is not None:
            msg = f"phase `{new.name}` takes no player here, but {base} plays it for one (at {where})"
        else:
            msg = f"phase `{new.name}` takes a player here, but {base} plays it for nobody (at {where})"
        hint = f"{base} declares `{head}`: write `replace {head}:`"
    elif isinstance(new, n.Action) and isinstance(old, n.Action) and [p.name for p in old.params] != [p.name for p in new.params]:
        hint = f"{base} declares `{_header(old)}`: keep its parameters, or replace what uses them too"
    elif isinstance(item, n.Remove):
        encl = _enclosing(final_items, d.span)
        also = f" (`replace {_header(encl)}:` without it)" if encl is not None and _decl_key(encl) else ""
        hint = (f"{base} still uses {item.kind} `{item.name}` there: replace that part of {base} too{also}, "
                f"or replace the {item.kind} instead of removing it")
    elif d.code == "short-deal" or (isinstance(item, n.Replace) and isinstance(new, n.PlayersDecl)):
        hint = (d.hint or "").replace("(`players ", "(`replace players ")  # what the house rule can write
    elif old is not None:
        hint = (f"{base} relies on `{_header(old)}` there: keep your version compatible with it, "
                f"or replace that part of {base} too")
    else:
        hint = f"this line changes what that line of {base} relies on: change it, or replace that part of {base} too"
    return Diagnostic(span, msg, hint, d.severity, d.code)


def _top_items(resolved):
    from .syntax import parse_partial

    return parse_partial(resolved.source.text, resolved.source.name).module.items


def _holders(steps, file: str) -> tuple[list[int], list]:
    """The items of the overlay `file` by the line they start at (sorted; of items starting at the
    same line, the last), for `_own_hint` to find the one holding a line by bisection."""
    by_line: dict[int, object] = {}
    for item, _ in steps[1:]:
        sp = getattr(item, "span", None)
        if sp is not None and sp.file == file:
            by_line[sp.line] = item
    lines = sorted(by_line)
    return lines, [by_line[k] for k in lines]


def _own_hint(d: Diagnostic, steps, holders: tuple[list[int], list]) -> Diagnostic:
    """`unknown name `fisher`` in a replaced phase or action whose base version named it."""
    name = d.message.split("`")[1]
    lines, items = holders
    k = bisect.bisect_right(lines, d.span.line)
    holder = items[k - 1] if k else None  # the replaced phase or action whose lines hold the error
    if not isinstance(holder, n.Replace) or not isinstance(holder.item, (n.Phase, n.Action)):
        return d
    old = _find(steps[0][1], _decl_key(holder.item))
    if old is None:
        return d
    named = [old.param] if isinstance(old, n.Phase) else [p.name for p in old.params]
    if name not in named:
        return d
    head = _header(old)
    base = _base_name(steps)
    return Diagnostic(d.span, d.message, f"{base} names it in `{head}`: write `replace {head}:` to use `{name}`",
                      d.severity, d.code)


def check_all(resolved) -> Callable[[list], list[Diagnostic]]:
    """`check(items)` for `attribute`: every diagnostic the checker gives those declarations."""
    from .checker import check

    def run(items: list) -> list[Diagnostic]:
        try:
            model = check(items, resolved.variants, resolved.files, resolved.source, resolved.lost, ())
        except RuleError as exc:
            return exc.diagnostics
        return list(model.warnings)

    return run

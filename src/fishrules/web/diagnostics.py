"""A house rule's problems drawn at their lines, for the lobby: as `fishrules check` shows them.

Drawing them costs in proportion to the rule text and its problems (a stranger's 128 KiB of
mistakes), so it is done by the worker that checked the rules (work.py), which sends the drawing
back as a `Rejected`: the server's event loop only passes it on.
"""

from __future__ import annotations

from typing import Optional

from ..errors import FishrulesError, RuleError
from .html import Markup, tag

__all__ = ["diagnostics_html", "Rejected", "HOUSE_RULE_NAME"]

#: The file name a house rule pasted in the lobby is read (and shown in diagnostics) under.
HOUSE_RULE_NAME = "house-rule.fish"


class Rejected(FishrulesError):
    """Rules that do not load, with their problems drawn (`html`) and said in words (`str`)."""

    def __init__(self, message: str, html: str):
        super().__init__(message)
        self.html = html

    def __reduce__(self) -> tuple:
        return (type(self), (str(self), self.html))


def diagnostics_html(text: str, error: Optional[BaseException], name: str = HOUSE_RULE_NAME) -> Markup:
    """Every diagnostic of the rules at its line, as `fishrules check` gives it: the source with
    numbered lines, and under each line that has a problem, the problem (its header, the line with
    a caret, the hint).  Lines far from any problem are folded."""
    if error is None:
        return tag("div", {"class_": "diags ok", "data_ok": "1"}, "No problems: these rules can be played.")
    if isinstance(error, Rejected):  # drawn by the worker that checked the rules
        return Markup(error.html)
    if not isinstance(error, RuleError):
        return tag("div", {"class_": "diags bad"}, tag("p", {"class_": "diag"}, str(error)))
    lines = text.splitlines() or [""]
    at: dict[int, list] = {}
    elsewhere = []
    for d in error.shown:  # the first problems of a file of thousands, as `fishrules check` shows them
        sp = d.span
        if sp is not None and sp.file == name and 1 <= sp.line <= len(lines):
            at.setdefault(sp.line, []).append(d)
        else:
            elsewhere.append(d)
    keep = set()
    for n in at:
        keep.update(range(max(1, n - 2), min(len(lines), n + 2) + 1))
    rows: list = []
    skipped = 0
    for n, line in enumerate(lines, 1):
        if n not in keep:
            skipped += 1
            continue
        if skipped:
            rows.append(tag("li", {"class_": "fold", "value": n - skipped}, f"… {skipped} line{'s' if skipped > 1 else ''}"))
            skipped = 0
        rows.append(tag("li", {"value": n, "class_": "bad" if n in at else None}, tag("code", None, line or " ")))
        for d in at.get(n, []):
            rows.append(tag("li", {"class_": "diag " + d.severity, "value": n, "data_line": n},
                            tag("pre", None, d.render())))
    if skipped:
        rows.append(tag("li", {"class_": "fold"}, f"… {skipped} line{'s' if skipped > 1 else ''}"))
    errors = len(error.errors)
    warned = len(error.diagnostics) - errors
    more = (f" (the first {len(error.shown):,} problems are shown: fix these first)" if error.left_out else "")
    if errors:
        head = tag("p", {"class_": "count"}, f"{errors:,} error{'s' if errors != 1 else ''} in ", name, more)
    else:  # rules that play, with what `fishrules check` warns of
        head = tag("p", {"class_": "count warn"}, "These rules can be played, but ", name, " has ",
                   f"{warned:,} warning{'s' if warned != 1 else ''}", more, ":")
    return tag("div", {"class_": "diags " + ("bad" if errors else "warn"), "data_errors": errors,
                       "data_ok": None if errors else "1"},
               head,
               *(tag("pre", {"class_": "diag " + d.severity}, d.render()) for d in elsewhere),
               tag("ol", {"class_": "source"}, *rows))

"""Errors and source positions, shared by every stage.

Every diagnostic about a rule file carries a `Span` (file, line, column) and is rendered in one place,
`Diagnostic.render`, with the source line and a caret under the offending text.  Stages collect
diagnostics and raise a single `RuleError` holding all of them, sorted by position.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Sequence

import attrs

__all__ = [
    "Source",
    "Span",
    "Diagnostic",
    "FishrulesError",
    "RuleError",
    "IllegalAction",
    "OptionError",
    "StateError",
    "did_you_mean",
    "follows_from",
]


@attrs.frozen(slots=True, eq=False)
class Source:
    """The text of one rule file, kept so diagnostics can quote it."""

    name: str
    text: str

    def line(self, number: int) -> str:
        lines = self.text.splitlines()
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return ""


@attrs.frozen(slots=True, order=False)
class Span:
    """Where a piece of syntax came from.  Spans never take part in node equality."""

    source: Source = attrs.field(eq=False, repr=False)
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    @property
    def file(self) -> str:
        return self.source.name

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"

    def sort_key(self) -> tuple:
        return (self.source.name, self.line, self.column)


#: The most characters of a source line a diagnostic shows.
_SHOWN_LINE = 200


@attrs.frozen(slots=True)
class Diagnostic:
    """One problem in a rule file: where (`span`: file, line, column), what (`message`), what to do
    (`hint`, or None), and whether it stops the rules (`severity`: "error" or "warning").
    `render()` gives the text `fishrules check` prints, with the source line and a caret."""

    span: Span | None
    message: str
    hint: str | None = None
    severity: str = "error"  # or "warning"
    #: A warning's kind (`unused-define`, …): `# fishrules: ignore[CODE]` on its line silences it.
    code: str | None = attrs.field(default=None, eq=False)

    def render(self) -> str:
        if self.span is None:
            head = f"{self.severity}: {self.message}"
            return head + (f"\n  hint: {self.hint}" if self.hint else "")
        sp = self.span
        out = [f"{sp}: {self.severity}: {self.message}"]
        text = sp.source.line(sp.line).rstrip("\n")
        if text:
            gutter = f"{sp.line:>5} | "
            start = max(sp.column, 1)
            if sp.end_line == sp.line and sp.end_column > sp.column:
                width = sp.end_column - sp.column
            else:
                width = 1
            width = max(1, min(width, len(text) - start + 1 if len(text) >= start else 1))
            # A very long line is shown as a window around the caret, so one line of a hostile
            # file cannot flood the terminal.
            if len(text) > _SHOWN_LINE:
                lo = max(0, min(start - 1 - _SHOWN_LINE // 3, len(text) - _SHOWN_LINE))
                shown = text[lo:lo + _SHOWN_LINE]
                head = "…" if lo > 0 else ""
                tail = "…" if lo + _SHOWN_LINE < len(text) else ""
                text = head + shown + tail
                start = start - lo + len(head)
                width = max(1, min(width, _SHOWN_LINE - (start - 1 - len(head))))
            out.append(gutter + text)
            out.append(" " * (len(gutter) - 2) + "| " + " " * (start - 1) + "^" * width)
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)

    def sort_key(self) -> tuple:
        return self.span.sort_key() if self.span else ("", 0, 0)


class FishrulesError(Exception):
    """The base of every error fishrules raises on purpose: `RuleError`, `IllegalAction`,
    `OptionError` and `StateError`.  Anything else escaping the API is a bug in fishrules."""


class RuleError(FishrulesError):
    """A rule file is wrong, or a checked ruleset went wrong while running (a division by zero, a
    runaway loop).  Holds every diagnostic found, sorted by position."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = sorted(diagnostics, key=Diagnostic.sort_key)
        super().__init__(self.render())

    def __reduce__(self) -> tuple:  # pickled with its diagnostics (a server's workers send it whole)
        return (type(self), (self.diagnostics,))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def render(self) -> str:
        errors = [d for d in self.diagnostics if d.severity == "error"]
        body = "\n\n".join(d.render() for d in self.diagnostics)
        if len(errors) > 1:
            body += f"\n\n{len(errors)} errors"
        return body


class IllegalAction(FishrulesError):
    """An action that the rules do not allow now.  The state it was applied to is unchanged.

    `rule` names the rule that forbids it (when one does) and `span` is where that rule is written.
    """

    def __init__(self, action: str, reason: str, rule: str | None = None, span: Span | None = None):
        self.action = action
        self.reason = reason
        self.rule = rule
        self.span = span
        msg = f"{action!r} is not allowed: {reason}"
        if span is not None:
            msg += f" ({span})"
        super().__init__(msg)

    def __reduce__(self) -> tuple:
        return (type(self), (self.action, self.reason, self.rule, self.span))


class OptionError(FishrulesError, ValueError):
    """A game was started with players or options its rules do not allow."""


class StateError(FishrulesError, ValueError):
    """A saved state or a history that cannot be read back: malformed, tampered with, too big, or
    not a position these rules can reach.  The message says which field or which entry is wrong."""


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest known names, or None."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=3, cutoff=0.6)
    if not close:
        return None
    if len(close) == 1:
        return f"did you mean `{close[0]}`?"
    return "did you mean " + ", ".join(f"`{c}`" for c in close[:-1]) + f" or `{close[-1]}`?"


#: Problems reported about the whole rules that a lost line of each kind explains.
_LOST_WHOLE = {
    "game": "the rules have no title",
    "players": "the rules do not say how many may play",
    "dice": "the rules have no dice",
    "board": "needs a board",
}


def follows_from(message: str, lost: Iterable[str]) -> bool:
    """Whether a problem only follows from lines that could not be read: it names something one
    of them declared (`lost`: names, `KIND NAME`s and rule names, as the parser notes them)."""
    if not lost:
        return False
    for name in lost:
        if f"`{name}`" in message or f'"{name}"' in message:
            return True
        whole = _LOST_WHOLE.get(name)
        if whole is not None and whole in message:
            return True
    return False

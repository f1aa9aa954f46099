"""Errors and source positions, shared by every stage.

Every diagnostic about a rule file carries a `Span` (file, line, column) and is rendered in one place,
`Diagnostic.render`, with the source line and a caret under the offending text.  Stages collect
diagnostics and raise a single `RuleError` holding all of them, sorted by position.
"""

from __future__ import annotations

import difflib
import heapq
import itertools
import reprlib
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
    "short",
    "MAX_SHOWN_DIAGNOSTICS",
]


@attrs.frozen(slots=True, eq=False)
class Source:
    """The text of one rule file, kept so diagnostics can quote it."""

    name: str
    text: str
    #: The lines of `text`, split once, when a line is first asked for: a file with thousands of
    #: problems quotes thousands of lines, and each is then found (and shown) without reading the file.
    _lines: list[str] | None = attrs.field(default=None, init=False, repr=False)

    def line(self, number: int) -> str:
        """Line `number` (from 1) without its line break, or "" past the end.  Lines are counted
        at each "\\n", as the parser counts them."""
        lines = self._lines
        if lines is None:
            lines = [ln[:-1] if ln.endswith("\r") else ln for ln in self.text.split("\n")]
            object.__setattr__(self, "_lines", lines)
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

    @property
    def shown(self) -> list[Diagnostic]:
        """The diagnostics a person is shown, in order: all of them, or when there are more than
        `MAX_SHOWN_DIAGNOSTICS`, the first errors and (if there is room) the first warnings."""
        if len(self.diagnostics) <= MAX_SHOWN_DIAGNOSTICS:
            return self.diagnostics
        errors = [d for d in self.diagnostics if d.severity == "error"][:MAX_SHOWN_DIAGNOSTICS]
        room = MAX_SHOWN_DIAGNOSTICS - len(errors)
        kept = {id(d) for d in errors} | {id(d) for d in [d for d in self.diagnostics if d.severity != "error"][:room]}
        return [d for d in self.diagnostics if id(d) in kept]

    @property
    def left_out(self) -> int:
        """How many diagnostics `render` leaves out (those not `shown`)."""
        return max(0, len(self.diagnostics) - MAX_SHOWN_DIAGNOSTICS)

    def render(self) -> str:
        errors = sum(d.severity == "error" for d in self.diagnostics)
        body = "\n\n".join(d.render() for d in self.shown)
        if self.left_out:
            # A file of thousands of mistakes is not printed whole: its first ones are what to fix.
            body += (f"\n\n… and {self.left_out:,} more not shown: fishrules shows the first "
                     f"{MAX_SHOWN_DIAGNOSTICS} problems of a file; fix these first")
        if errors > 1:
            body += f"\n\n{errors:,} errors"
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


#: The most "did you mean" hints one check works out (the checker's, and an overlay's list of the
#: names there are).  Each compares a name with the names the rules know, so a file of thousands of
#: unknown names would cost thousands times thousands: past this many, a name gets no hint (its
#: error is still reported).  Ordinary files have far fewer mistakes.
MAX_HINTS = 100

#: The most problems `RuleError.render` shows (and `fishrules check` prints); the count of those
#: left out follows them.
MAX_SHOWN_DIAGNOSTICS = 200

#: A name longer than this gets no "did you mean": comparing two names costs the product of their
#: lengths, and no misspelling of a name this long is worth that.
_HINT_LONGEST = 40

#: The most known names one "did you mean" looks through (the first it is given), and the most it
#: compares with the name in full.  Rules have hundreds of names; only a file of thousands (a
#: hostile one) reaches these bounds, and its hints may then miss.
MAX_HINT_SCANNED = 1024
MAX_HINT_CANDIDATES = 200

#: The most work one "did you mean" spends on difflib's full comparisons (the sum, over the names
#: compared, of the product of the two lengths): a few dozen names of ordinary length, and always
#: more than the few an ordinary name needs.
_HINT_CELLS = 6_000

#: How close a known name must be (difflib's ratio) to be named, and how many are named at most.
_CUTOFF = 0.6
_CLOSEST = 3


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the known names closest to `name`, or None: those of `candidates` that
    `difflib.get_close_matches(name, candidates, 3, 0.6)` names, the closest first.

    Its work is bounded whatever it is given: a long name gets no hint; it looks through the first
    `MAX_HINT_SCANNED` candidates, giving each an upper bound of its ratio in time linear in its
    length (the characters the two have in common, as difflib's `quick_ratio`), and compares in
    full (quadratic) only the names whose bound could still place them among the closest three,
    most promising first, at most `MAX_HINT_CANDIDATES` of them and within `_HINT_CELLS`."""
    if not name or len(name) > _HINT_LONGEST:
        return None
    size = len(name)
    # A ratio of 0.6 needs 2 * min(len) / (sum of len) >= 0.6: a name from 3/7 to 7/3 of the
    # length (widened by one, so that rounding never drops a name difflib would take).
    lo, hi = (3 * size) // 7 - 1, (7 * size) // 3 + 1
    counts: dict[str, int] = {}
    for ch in name:
        counts[ch] = counts.get(ch, 0) + 1
    chars, times = tuple(counts), tuple(counts.values())
    bounded = []
    for c in set(itertools.islice(candidates, MAX_HINT_SCANNED)):
        if lo <= len(c) <= hi:
            common = sum(map(min, times, map(c.count, chars)))  # the characters the two have in common
            bound = 2.0 * common / (len(c) + size)  # as difflib works out its ratios
            if bound >= _CUTOFF:
                bounded.append((bound, c))
    bounded.sort(reverse=True)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(name)  # as get_close_matches does: the known name first, `name` second
    found: list[tuple[float, str]] = []
    cells = 0
    for bound, c in bounded[:MAX_HINT_CANDIDATES]:
        if len(found) >= _CLOSEST and bound < found[_CLOSEST - 1][0]:
            break  # no name left can be closer than the closest three found
        cells += len(c) * size
        if cells > _HINT_CELLS:
            break
        matcher.set_seq1(c)
        score = matcher.ratio()
        if score >= _CUTOFF:
            found = heapq.nlargest(_CLOSEST, found + [(score, c)])
    close = [c for _, c in found]
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


#: More quote marks than this in one message, and `follows_from` looks for each lost name instead.
_MOST_QUOTES = 24


def follows_from(message: str, lost: Iterable[str]) -> bool:
    """Whether a problem only follows from lines that could not be read: it names something one
    of them declared (`lost`: names, `KIND NAME`s and rule names, as the parser notes them).  The
    names the message quotes are looked up in `lost`, so a file of many lost lines and many
    problems costs no more than their sum."""
    if not lost:
        return False
    names = lost if isinstance(lost, (set, frozenset)) else set(lost)
    for quote in ("`", '"'):
        at = [i for i, ch in enumerate(message) if ch == quote]
        if len(at) > _MOST_QUOTES:  # a message quoting a name full of quote marks: name by name
            return any(f"`{name}`" in message or f'"{name}"' in message for name in names) or \
                any(name in names and whole in message for name, whole in _LOST_WHOLE.items())
        # every text between two of the message's quote marks, as `NAME` in message would find it
        for k, i in enumerate(at):
            for j in at[k + 1:]:
                if message[i + 1:j] in names:
                    return True
    return any(name in names and whole in message for name, whole in _LOST_WHOLE.items())


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 40, 40


def short(x: object) -> str:
    """A value from outside (a saved state's field, a history entry, a word of an action's text),
    quoted in a message without flooding it (however deep it is nested)."""
    r = _REPR.repr(x)
    return r if len(r) <= 60 else r[:57] + "…"

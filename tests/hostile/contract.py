"""The contract of issue 11, as constants and assertions shared by the hostile-input tests.

The tests run every hostile input through the harness (harness.py) and check its `Outcome` here, in
the pytest process.  The error classes are checked by name (`Outcome.is_a`), so that a test module
still imports, and each test fails on its own, while `fishrules.StateError` or
`fishrules.FishrulesError` do not exist yet.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import harness
from .harness import Outcome

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
RULESETS = ROOT / "rulesets"
CORPUS = HERE / "corpus"

#: The limits of `fishrules.limits`, as the contract gives them.
LIMITS = {
    "MAX_SOURCE_BYTES": 512 * 1024,
    "MAX_NUMBER": 10**15,
    "MAX_NESTING": 100,
    "MAX_DEFINE_DEPTH": 50,
    "MAX_EXTENDS_DEPTH": 16,
    "MAX_PLAYERS": 64,
    "MAX_DICE": 1000,
    "MAX_CARDS": 10_000,
    "MAX_FACES": 1000,
    "MAX_CIRCLES": 1000,
    "MAX_LINE_CIRCLES": 100,
    "MAX_BOARD_LINE_CIRCLES": 10_000,
    "MAX_ZONES": 1000,
    "MAX_ALL_ZONES": 10_000,
    "MAX_VARIANTS": 100,
    "MAX_CHOICES": 65_536,
    "MAX_SUBSET": 16,
    "MAX_LIST_LENGTH": 10_000,
    "WORK_BUDGET": 1_000_000,
    "MAX_ACTION_TEXT": 1000,
    "MAX_STATE_BYTES": 16 * 1024 * 1024,
}
L = LIMITS

#: How long a refusal may take in the worker (seconds of wall clock): "instantly", "fast", "in
#: about a second".  Generous, because CI shares two cores; what they catch is the hang or the
#: minutes-long build, not a slow second.
FAST = 5.0
#: The bound for anything else a hostile input may do.
SLOW = 20.0

#: Names that betray an internal exception (or a traceback) in a message meant for a user.
INTERNAL = (
    "Traceback", "KeyError", "ValueError", "TypeError", "IndexError", "AttributeError", "RecursionError",
    "OverflowError", "MemoryError", "UnicodeError", "UnicodeDecodeError", "UnicodeEncodeError", "OSError",
    "FileNotFoundError", "IsADirectoryError", "PermissionError", "ZeroDivisionError", "AssertionError",
    "StopIteration", "PosixPath", "[Errno", "JSONDecodeError", "object has no attribute", "not subscriptable",
    "unhashable type", "maximum recursion depth", "unsupported operand", "object is not iterable",
    "object is not callable", "invalid literal for int()", "internal error",
)

#: Base rules that load: lines 1-2 are the header; tests add declarations below.
HEAD = 'game "Hostile"\nplayers 2 to 4\n'
#: A complete, playable tiny game: the fuzzers and nesting tests hang things off it.
TINY = HEAD + """\
each player has points: number

phase game:
  repeat 3 times:
    for each player:
      player chooses poke

action poke:
  add 1 to your points

score "points": your points
"""


def readable(text: str) -> None:
    """A message meant for a person: no traceback, no internal exception name."""
    for bad in INTERNAL:
        assert bad not in text, f"the message shows the internal {bad!r}:\n{text[:3000]}"


def _forms(value: int) -> set[str]:
    out = {str(value), f"{value:,}", f"{value:_}", f"{value:,}".replace(",", " "),
           f"{value:,}".replace(",", "\u202f"), f"{value:,}".replace(",", "\u2009"), f"{value:,}".replace(",", "'")}
    for unit, size in (("KiB", 1024), ("MiB", 1024 * 1024)):
        if value >= size and value % size == 0:
            out |= {f"{value // size} {unit}", f"{value // size}{unit}", f"{value // size} {unit[0]}B"}
    k = len(str(value)) - 1
    if value == 10**k and k >= 3:
        out |= {f"10**{k}", f"10^{k}", f"1e{k}", f"10 ** {k}", f"10{''.join('⁰¹²³⁴⁵⁶⁷⁸⁹'[int(c)] for c in str(k))}"}
    return out


def names_limit(text: str, limit: str) -> bool:
    """`text` names the limit: its value written some usual way, or its name."""
    if limit in text:
        return True
    return any(re.search(r"(?<![0-9A-Za-z_])" + re.escape(f) + r"(?![0-9A-Za-z_])", text) for f in _forms(LIMITS[limit]))


def error_text(out: Outcome) -> str:
    return "\n".join([out.message] + [d.message + "\n" + (d.hint or "") for d in out.diagnostics])


def assert_rule_error(out: Outcome, *, lines: range | int | None = None, limit: str | None = None,
                      not_containing: tuple[str, ...] = ()) -> None:
    """A RuleError whose every error diagnostic has a position (line, column >= 1), whose message is
    readable, that (if given) points into `lines` and names the `limit`, and quotes none of
    `not_containing`."""
    assert out.status == "raised" and out.is_a("RuleError"), f"expected a RuleError, got {out}"
    assert out.errors, f"a RuleError without error diagnostics: {out}"
    for d in out.errors:
        assert d.positioned, f"an error diagnostic without a position (line, column >= 1): {d.rendered}"
    readable(out.message)
    if lines is not None:
        want = range(lines, lines + 1) if isinstance(lines, int) else lines
        assert any(d.line in want for d in out.errors), \
            f"expected an error at line(s) {want.start}..{want.stop - 1}, got:\n{out.message}"
    if limit is not None:
        assert names_limit(error_text(out), limit), f"the error does not name the limit {limit} = {LIMITS[limit]}:\n{out.message}"
    text = out.message + "".join(d.rendered + (d.hint or "") for d in out.diagnostics)
    for secret in not_containing:
        assert secret not in text, f"the error quotes {secret!r} (content of a file it must not read):\n{text[:3000]}"


def assert_loads(out: Outcome) -> dict:
    assert out.status == "ok", f"expected these rules to load, got {out}"
    return out.value


def assert_ok_or_rule_error(out: Outcome) -> None:
    """What any rule file may do: load, or raise a positioned RuleError; within the bounds."""
    if out.status == "ok":
        return
    assert_rule_error(out)


def assert_exc(info: dict | None, name: str) -> dict:
    """`info` (a `scenarios.describe`) is one of ours, named `name`, with a readable message."""
    assert info is not None, f"expected {name}, but nothing was raised"
    assert name in info["mro"] and info["module"].startswith("fishrules"), \
        f"expected {name}, got {info['module']}.{info['type']}: {info['message'][:2000]}"
    readable(info["message"])
    return info


def assert_raised(out: Outcome, name: str) -> Outcome:
    assert out.status == "raised" and out.is_a(name), f"expected {name}, got {out}"
    readable(out.message)
    return out


def run(func, *args, timeout: float = SLOW, **kw) -> Outcome:
    return harness.run(func, *args, timeout=timeout, **kw)


def nested(template: str, depth: int, core: str) -> str:
    """`template` (with `{}` for the inside) wrapped `depth` times around `core`."""
    left, _, right = template.partition("{}")
    return left * depth + core + right * depth


def line_no(text: str, needle: str) -> int:
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in the text")


def words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))

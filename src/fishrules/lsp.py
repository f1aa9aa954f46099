"""`fishrules lsp`: a language server for .fish rule files, over standard input and output.

Diagnostics on open and change (every syntax error, the checker's errors and the lints, with
ranges), hover (what a name is, its comment, and for an overlay which file it comes from), go to
definition and find references across `extends` chains (into the bundled rulesets too, under the
very confinement rule `extends` follows: the server reads no file a rule file could not make
fishrules read), completion (keywords, names in scope, card and zone names), document symbols,
formatting (`fishrules fmt`), and a quick fix for every "did you mean".

The analysis (`Analysis`) is plain Python; pygls and lsprotocol (the `fishrules[lsp]` extra) are
imported only when the server starts, so the rest of fishrules never loads them.

An editor's messages are untrusted input too (a server may be reached through a remote editor, a
file may be opened from anywhere), so the server bounds what it takes, and reads its messages
itself rather than with pygls's loop (which a `Content-Length` of 5,000 digits stopped, and which
answered no request whose parameters it could not read).  A header is read strictly (`_Frames`):
a malformed one is a protocol error, said on standard error in one line, and the server reads on
from the next `Content-Length:`.  A header line is at most `MAX_HEADER` bytes and a message at most
`MAX_MESSAGE` (a larger one is read and thrown away a piece at a time, its beginning kept to
answer it: a request gets an error, a document it opens or changes is dropped with a diagnostic
saying so).  Every request is answered (`_dispatch`): a message that is no JSON-RPC, parameters
that cannot be read (a position of -1 or 2**40), a request after `shutdown` get a JSON-RPC error.
Whole documents are synchronised (`Full`: applying a change is replacing the text, whatever a
flood of changes holds), at most `MAX_DOCUMENTS` open at once and each at most `MAX_DOCUMENT`
characters (a larger one is dropped at once, unread, with a diagnostic saying so); diagnostics are
worked out once a burst of changes has stopped (`SETTLE` seconds), and only the last
`MAX_ANALYSES` analyses are kept.  A request about a document the editor has not opened gets an
empty answer: the server never reads a document from disk on its own (pygls would).  A
document's `extends` follows the rule it follows everywhere (the document's own folder or below,
else a bundled ruleset; a document that is no file, the bundled rulesets only), and the server
reads no other file: the files of the chain are the ones `extends` found (`Resolved.bases`),
never a name of a message taken for a path.  No handler's exception reaches the editor with a
traceback (pygls would send one): a failed request is answered with nothing, and said on
standard error in one line.
"""

from __future__ import annotations

import bisect
import json
import re
from pathlib import Path
from typing import Any, Iterable, Optional
from urllib.parse import unquote, urlparse

from . import nodes as n
from .errors import Diagnostic, RuleError, Span
from .syntax import parse_partial

__all__ = ["Analysis", "Declaration", "analyze", "main", "KEYWORDS", "MAX_MESSAGE", "MAX_DOCUMENT", "MAX_DOCUMENTS"]

#: The longest header line and the largest message the server reads (a rule file is at most 512 KiB,
#: and JSON may write a character in six).
MAX_HEADER = 8 * 1024
MAX_MESSAGE = 4 * 1024 * 1024
#: A declared length past which a message is not even skipped: a protocol error, as a malformed
#: header is (whoever declares it would take minutes to send it, or stall the server for ever).
MAX_SKIP = 1 << 30
#: The most documents open at once, the largest one (in characters; a rule file is at most 512 KiB,
#: so anything larger cannot be checked anyway), and the analyses kept.
MAX_DOCUMENTS = 64
MAX_DOCUMENT = 1024 * 1024
MAX_ANALYSES = 16
#: Seconds without a change before a document's diagnostics are worked out again.
SETTLE = 0.2

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HINT_NAMES = re.compile(r"`([^`]+)`")

#: The words of the language, offered by completion.
KEYWORDS = sorted(set("""
game players extends option number from to yes or no player list of numbers one zone zones dice with faces
cards tiles tokens in and x each has the secret hidden internal public seen by define board circles line phase
for action some a score winners variant replace rule remove add before after at start end set subtract clear
roll all play again chooses secretly nothing require move draw shuffle reveal unavailable face up down if
otherwise then repeat times while until other than starting going where when is broken highest lowest not every any
shows showing your left right nobody you it presentation value attribute log about out
""".split()))

_BUILTINS_DOC = None


def _builtins() -> dict:
    global _BUILTINS_DOC
    if _BUILTINS_DOC is None:
        from .checker import BUILTINS

        _BUILTINS_DOC = dict(BUILTINS)
    return _BUILTINS_DOC


class Declaration:
    """Something a name stands for: its kind (define, phase, action, option, variable, zone, cards,
    parameter, variant), where it is written, its source line and the comment above it."""

    __slots__ = ("name", "kind", "span", "detail")

    def __init__(self, name: str, kind: str, span: Optional[Span], detail: str = ""):
        self.name = name
        self.kind = kind
        self.span = span
        self.detail = detail

    def comment(self) -> str:
        """The comment lines right above the declaration (or at the end of its line)."""
        if self.span is None:
            return ""
        lines = _lines(self.span.source.text)
        out = []
        i = self.span.line - 2
        while i >= 0 and lines[i].strip().startswith("#"):
            out.append(lines[i].strip()[1:].strip())
            i -= 1
        return "\n".join(reversed(out))

    def source_line(self) -> str:
        return self.span.source.line(self.span.line).strip() if self.span is not None else ""


def _declarations(items: Iterable) -> list[Declaration]:
    out: list[Declaration] = []
    for it in items:
        if isinstance(it, n.Replace):
            it = it.item
        sp = getattr(it, "span", None)
        if isinstance(it, n.Define):
            out.append(Declaration(it.name, "define", sp))
        elif isinstance(it, n.Phase):
            out.append(Declaration(it.name, "phase", sp))
            if it.param:
                out.append(Declaration(it.param, "player of the phase", sp))
        elif isinstance(it, n.Action):
            out.append(Declaration(it.name, "action", sp))
            for p in it.params:
                out.append(Declaration(p.name, "parameter of action " + it.name, p.span))
        elif isinstance(it, n.OptionDecl):
            out.append(Declaration(it.name, "option", sp))
        elif isinstance(it, n.VarDecl):
            kind = "zone" if isinstance(it.type, (n.ZoneType, n.ZonesType)) else "variable"
            owner = "each player's " if it.scope == "player" else "the game's "
            out.append(Declaration(it.name, owner + kind, sp))
        elif isinstance(it, n.CardsDecl):
            out.append(Declaration(it.name, "cards", sp))
            for a in it.attrs:
                out.append(Declaration(a.name, f"attribute of the cards {it.name}", a.span))
                for v, _ in a.values:
                    if isinstance(v, str):
                        out.append(Declaration(v, f"value of {a.name} (cards {it.name})", a.span))
        elif isinstance(it, n.DiceDecl):
            for f in it.faces:
                out.append(Declaration(f.name, "face of the dice", f.span))
        elif isinstance(it, n.Variant):
            out.append(Declaration(it.name, "variant", sp))
            out.extend(_declarations(it.items))
    return out


def _items_of(module: n.Module) -> list:
    return list(module.items)


class Analysis:
    """What the server knows of one document: its diagnostics, the declarations of the effective
    rules (bases included) and of the document itself, and the files of its `extends` chain."""

    def __init__(self, text: str, path: Optional[Path], run: bool = True, name: Optional[str] = None):
        self.text = text
        self.path = path
        self.name = str(path) if path is not None else (name or "<rules>")
        self.diagnostics: list[Diagnostic] = []
        self.own: list[Declaration] = []
        self.effective: list[Declaration] = []
        #: The files of the `extends` chain, by the name messages and spans give them.
        self.bases: dict[str, Path] = {}
        self.module: Optional[n.Module] = None
        self.presentation: Optional[Any] = None  # model.Presentation of the effective rules, once checked
        self._lines: Optional[list[str]] = None
        if run:
            self._run()

    def _run(self) -> None:
        from .api import check_resolved
        from .variants import resolve_text

        try:
            parsed = parse_partial(self.text, self.name)
        except RuleError as exc:
            self.diagnostics = exc.diagnostics
            return
        self.module = parsed.module
        self.own = _declarations(parsed.module.items)
        base_dir = self.path.parent if self.path is not None else None
        try:
            resolved = resolve_text(self.text, self.name, None, base_dir)
        except RuleError as exc:
            self.diagnostics = exc.diagnostics
            self.effective = list(self.own)
            return
        self.effective = _declarations(resolved.items) + [d for d in self.own if d.kind == "variant"]
        # the files `extends` read, as it found them: a name in a span is no path (a bundled
        # ruleset's is its bare name, which the current folder may hold as well)
        self.bases = {name: Path(path).resolve() for name, path in resolved.bases}
        try:
            model = check_resolved(resolved)
            self.diagnostics = list(model.warnings)
            self.presentation = model.presentation
        except RuleError as exc:
            self.diagnostics = exc.diagnostics

    # ---- what is where ----------------------------------------------------------------------------

    def file_of(self, name: str) -> Optional[Path]:
        """The file a span's file name stands for: this document's, or a file of its `extends`
        chain; None for the document when it is no file, or for a name of neither."""
        if name == self.name:
            return self.path
        return self.bases.get(name)

    def is_mine(self, name: str) -> bool:
        """Whether a span's file name is this document."""
        if name == self.name:
            return True
        return self.path is not None and self.bases.get(name) == _resolved(self.path)

    def lines(self) -> list[str]:
        """The document's lines, counted as the parser counts them (at each "\\n"), so that a
        position means the same line to both."""
        if self._lines is None:
            self._lines = _lines(self.text)
        return self._lines

    def line(self, line: int) -> str:
        """The document's 0-based line `line` ("" past its end)."""
        lines = self.lines()
        return lines[line] if 0 <= line < len(lines) else ""

    def word_at(self, line: int, character: int) -> Optional[tuple[str, int, int]]:
        """The name at a 0-based position (`character` in code points): (name, start, end) on that line."""
        if not 0 <= line < len(self.lines()):
            return None
        for m in _WORD.finditer(self.line(line)):
            if m.start() <= character <= m.end():
                return m.group(), m.start(), m.end()
        return None

    def lookup(self, name: str, line: Optional[int] = None) -> Optional[Declaration]:
        """The declaration a name at a line of the document means: a parameter of the action it is
        in first, then the effective rules' declarations, then the document's own."""
        if line is not None and self.module is not None:
            for it in self.module.items:
                item = it.item if isinstance(it, n.Replace) else it
                sp = getattr(item, "span", None)
                if isinstance(item, (n.Action, n.Phase)) and sp is not None and sp.line <= line + 1 <= sp.end_line:
                    for d in _declarations([item]):
                        if d.name == name and d.kind != item.__class__.__name__.lower():
                            return d
        for d in self.effective + self.own:
            if d.name == name:
                return d
        return None

    def hover(self, name: str, line: int) -> Optional[str]:
        d = self.lookup(name, line)
        if d is None:
            doc = _builtins().get(name)
            return f"**function** `{name}`: {doc}" if doc else None
        parts = [f"**{d.kind}** `{d.name}`"]
        src = d.source_line()
        if src:
            parts.append(f"```fishrules\n{src}\n```")
        comment = d.comment()
        if comment:
            parts.append(comment)
        if d.span is not None and not self.is_mine(d.span.file):
            parts.append(f"from `{d.span.file}`, line {d.span.line}")
        shown = self.shown_as(d.name)
        if shown:
            parts.append(shown)
        return "\n\n".join(parts)

    def shown_as(self, name: str) -> Optional[str]:
        """How a table words `name`, from the rules' presentation blocks (None if they say nothing)."""
        p = self.presentation
        if p is None:
            return None
        out = []
        for (kind, what, param), (label, description) in p.words.items():
            if what == name and param is None:
                out.append(f"on the table ({kind}): “{label}”" + (f" — {description}" if description else ""))
        if name in p.hidden:
            out.append("on the table: not shown (`hidden` in the presentation)")
        if name in p.logs:
            out.append(f"in the log: “{p.logs[name]}”")
        return "\n\n".join(out) or None

    def references(self, name: str) -> list[tuple[Optional[Path], int, int, int, str]]:
        """Every use of a name as a word (not in a comment or a text) in the files of the chain:
        (file, 0-based line, start, end, the line), the file None for this document."""
        texts: dict[Optional[Path], Optional[str]] = {}
        for base, file in self.bases.items():
            if not self.is_mine(base):
                texts.setdefault(file, self._text_of(base, file))
        texts[None] = self.text
        out: list[tuple[Optional[Path], int, int, int, str]] = []
        for where, text in texts.items():
            if text is None:
                continue
            for i, line in enumerate(_lines(text)):
                code = _code_part(line)
                for m in _WORD.finditer(code):
                    if m.group() == name and not _in_string(code, m.start()):
                        out.append((where, i, m.start(), m.end(), line))
        return out

    def _text_of(self, name: str, path: Path) -> Optional[str]:
        """A base's text as the analysis read it (read again only if no declaration of it is left)."""
        for d in self.effective:
            if d.span is not None and d.span.file == name:
                return d.span.source.text
        return _read(path)

    def completions(self) -> list[tuple[str, str]]:
        """(label, kind) of everything that may be written: keywords, names, functions."""
        seen: dict[str, str] = {}
        for d in self.effective + self.own:
            seen.setdefault(d.name, d.kind)
        for f in _builtins():
            seen.setdefault(f, "function")
        for w in ("players", "dice", "winners", "circles"):
            seen.setdefault(w, "collection")
        for k in KEYWORDS:
            seen.setdefault(k, "keyword")
        return sorted(seen.items())

    def symbols(self) -> list[Declaration]:
        """The document's own phases, actions, defines, options, variables, zones, cards, variants."""
        keep = ("define", "phase", "action", "option", "cards", "variant")
        return [d for d in self.own if d.kind in keep or d.kind.endswith(("variable", "zone"))]


def _read(path: Path) -> Optional[str]:
    from .variants import read_rules

    try:
        return read_rules(path)
    except RuleError:
        return None


def _resolved(path: Path) -> Optional[Path]:
    try:
        return path.resolve()
    except (OSError, ValueError, RuntimeError):
        return None


def _code_part(line: str) -> str:
    in_str = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_str = not in_str
        elif ch == "#" and not in_str:
            return line[:i]
    return line


def _in_string(code: str, at: int) -> bool:
    return code[:at].count('"') % 2 == 1


def analyze(text: str, path: Optional[str | Path], name: Optional[str] = None) -> Analysis:
    """The analysis of a document's text; `path` (None: a document that is no file, or outside
    the workspace) is where its `extends` may look, `name` what messages call it then."""
    return Analysis(text, Path(path) if path is not None else None, name=name)


def _lines(text: str) -> list[str]:
    """A text's lines as the parser and `Source.line` count them: at each "\\n", a "\\r" before
    it dropped (`str.splitlines` also breaks at form feeds and U+2028, which would put every
    position after one on the wrong line)."""
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]


def quick_fixes(d: Diagnostic) -> list[tuple[str, int, int, int]]:
    """For a "did you mean": (replacement, 0-based line, start, end) of each suggestion."""
    if d.span is None or not d.hint or "did you mean" not in d.hint:
        return []
    sp = d.span
    line = sp.source.line(sp.line)
    start = max(sp.column - 1, 0)
    end = sp.end_column - 1 if sp.end_line == sp.line and sp.end_column > sp.column else len(line)
    names = _HINT_NAMES.findall(d.message)
    quoted = re.findall(r'"([^"]+)"', d.message)
    for wrong in names + quoted:
        at = line.find(wrong, start, max(end, start + len(wrong)))
        if at >= 0:
            return [(right, sp.line - 1, at, at + len(wrong)) for right in _HINT_NAMES.findall(d.hint)]
    return []


# ---- the server -------------------------------------------------------------------------------------


def _path_of(uri: str) -> Optional[Path]:
    """The local file a document's URI names, or None: another scheme, another host, a path that
    is not absolute (it would be read from the server's current folder) or has a NUL in it."""
    try:
        parsed = urlparse(uri)
    except (ValueError, TypeError):
        return None
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = unquote(parsed.path)
    if "\x00" in path or not path.startswith("/"):
        return None
    return Path(path)


def _uri_of(path: Path) -> str:
    return path.resolve().as_uri()


#: What of a message too large to read is kept: its beginning, to say which document or request it was.
_HEAD = 64 * 1024
_LENGTH = b"content-length:"
_LENGTH_VALUE = re.compile(rb"[ \t]*([0-9]+)[ \t]*\r?\n")
_HEADER_LINE = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\x20-\x7e\t]*\r?\n")


#: What `_Frames._line` gives for a line longer than `MAX_HEADER` (skipped to its end).
_LONG = b"<a line too long>"


class _TooLarge:
    """A message longer than `MAX_MESSAGE`, thrown away: its length and its first `_HEAD` bytes."""

    def __init__(self, length: int, head: bytes):
        self.length = length
        self.head = head


class _Frames:
    """The messages of the base protocol (headers of ASCII lines, a blank line, `Content-Length`
    bytes of body), read strictly and bounded.  A malformed header (no `Content-Length` or two, a
    length that is no plain number or larger than `MAX_SKIP`, a line longer than `MAX_HEADER`,
    bytes that are no header, non-ASCII) is a protocol error: said in one line, the message is
    dropped without reading a body, and reading starts again at the next `Content-Length:` line
    (found inside a line too, so that a body left unread or a header cut short costs only its
    own message).  A line may end in LF alone (pygls took those too).  A body longer than
    `MAX_MESSAGE` is read a piece at a time and thrown away, its beginning kept."""

    def __init__(self, stdin):
        self.stdin = stdin
        self.carry = b""  # the rest of a line, from a `Content-Length:` found inside it

    def _line(self) -> Optional[bytes]:
        """The next header line, None at the end of the input, `_LONG` for a line too long."""
        if self.carry:
            line, self.carry = self.carry, b""
            return line
        line = self.stdin.readline(MAX_HEADER + 1)
        if not line:
            return None
        if len(line) <= MAX_HEADER or line.endswith(b"\n"):
            return line
        tail = line[-len(_LENGTH):]
        while line and not line.endswith(b"\n"):  # the rest of a line too long, a piece at a time
            line = self.stdin.readline(MAX_HEADER)
            tail = (tail + line)[-(MAX_HEADER + len(_LENGTH)):]
        at = tail.lower().rfind(_LENGTH)
        if at >= 0 and tail.endswith(b"\n"):
            self.carry = tail[at:]
        return _LONG

    def next(self):
        """The next message's body (bytes), a `_TooLarge`, or None at the end of the input."""
        length: Optional[int] = None
        problem: Optional[str] = None
        lines = 0
        while True:
            line = self._line()
            if line is None:
                if lines:
                    _say("the input ended in the middle of a message's headers")
                return None
            at = -1 if line is _LONG else line.lower().rfind(_LENGTH)
            if at > 0 or (at == 0 and problem is not None):
                # a new message starts here: what came before it was no message
                _say(f"protocol error: {problem or 'bytes that are no message'}; they were skipped")
                line, at, length, problem, lines = line[at:], 0, None, None, 0
            if line in (b"\r\n", b"\n"):
                if not lines:
                    continue  # a blank line between messages
                problem = problem or (None if length is not None else "a message without Content-Length")
                if problem is None and length is not None:
                    return self._body(length)
                _say(f"protocol error: {problem}; the message was skipped")
                length, problem, lines = None, None, 0
                continue
            lines += 1
            if problem is not None:
                continue
            if line is _LONG:
                problem = f"a header line longer than {MAX_HEADER:,} bytes"
            elif not line.isascii():
                problem = "a header line that is not ASCII"
            elif not _HEADER_LINE.fullmatch(line):
                problem = "a header line that is no `Name: value` line"
            elif at == 0:
                value = _LENGTH_VALUE.fullmatch(line, len(_LENGTH))
                if length is not None:
                    problem = "two Content-Length headers"
                elif value is None:
                    problem = "a Content-Length that is no number"
                elif len(value.group(1)) > len(str(MAX_SKIP)):
                    problem = f"a Content-Length of {len(value.group(1)):,} digits"
                elif int(value.group(1)) > MAX_SKIP:
                    problem = f"a Content-Length larger than {MAX_SKIP:,}"
                else:
                    length = int(value.group(1))

    def _body(self, n: int):
        if n <= MAX_MESSAGE:
            body = self.stdin.read(n)
            return body if len(body) == n else None
        head = self.stdin.read(_HEAD)
        left = n - len(head)
        while left > 0:
            chunk = self.stdin.read(min(left, 1 << 16))
            if not chunk:
                return None
            left -= len(chunk)
        return _TooLarge(n, head)


_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|([^\s{}\[\]:,"]+))')


def _head_fields(head: bytes) -> dict:
    """What the beginning of a JSON-RPC message says of its `method`, `id` and
    `params.textDocument.uri`, when they come before its long part (editors write a document's
    URI before its text)."""
    text = head.decode("utf-8", "ignore")
    wanted = {("method",): "method", ("id",): "id", ("params", "textDocument", "uri"): "uri"}
    out: dict = {}
    stack: list[list] = []  # [kind, the key being read] of each object and array we are in
    want_key = False
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            break  # the cut, inside a string most likely
        pos = m.end()
        string, punct, scalar = m.groups()
        if punct in ("{", "["):
            stack.append([punct, None])
            want_key = punct == "{"
        elif punct in ("}", "]"):
            if not stack:
                break
            stack.pop()
            want_key = False
        elif punct == ",":
            want_key = bool(stack) and stack[-1][0] == "{"
        elif punct == ":":
            pass
        else:
            try:
                value = json.loads(string if string is not None else scalar)
            except ValueError:
                break
            if want_key and stack:
                stack[-1][1] = value
                want_key = False
                continue
            key = wanted.get(tuple(f[1] for f in stack))
            if key is not None and key not in out:
                out[key] = value
    return out


def _say(text: str) -> None:
    """One line on standard error (the editor's log of the server)."""
    import sys

    try:
        print(f"fishrules lsp: {text}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _quiet_logging() -> None:
    """pygls logs a handler's exception with its traceback: the server's log says one line."""
    import logging

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            text = record.getMessage().splitlines()[0] if record.getMessage() else ""
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                text += f" ({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''})"
            return "fishrules lsp: " + text[:500]

    handler = logging.StreamHandler()
    handler.setFormatter(OneLine())
    for name in ("pygls", "fishrules"):
        log = logging.getLogger(name)
        log.handlers[:] = [handler]
        log.setLevel(logging.WARNING)
        log.propagate = False


def _guarded(answer):
    """A handler that never raises: pygls would send the editor a traceback.  A failure is said
    on standard error and answered with `answer`."""
    import functools

    def wrap(f):
        @functools.wraps(f)
        def run(*args, **kwargs):
            try:
                return f(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - whatever it is, the editor gets an answer
                _say(f"{f.__name__} failed ({type(exc).__name__}: {str(exc)[:200]})")
                return answer
        return run

    return wrap


def build_server():
    """The pygls server (imports pygls and lsprotocol).  (Long, and kept whole: pygls registers each
    feature as a function decorated on the server, so each is a short closure over the server and
    the cache of analyses, one after the other.)"""
    import asyncio

    from lsprotocol import types as t
    from pygls.lsp.server import LanguageServer

    server = LanguageServer("fishrules", "0.1.0", text_document_sync_kind=t.TextDocumentSyncKind.Full)
    cache: dict[str, Analysis] = {}
    pending: dict[str, asyncio.TimerHandle] = {}
    too_large: dict[str, str] = {}  # documents dropped, and why

    def analysis(uri: str) -> Analysis:
        doc = server.workspace.text_documents.get(unquote(uri))
        if doc is None:  # never opened (or dropped): nothing is read from disk in its place
            return Analysis("", None, run=False)
        a = cache.pop(uri, None)
        if a is None or a.text != doc.source:
            a = analyze(doc.source, _path_of(uri), name=uri[:300])
        cache[uri] = a
        while len(cache) > MAX_ANALYSES:
            del cache[next(iter(cache))]
        return a

    # Columns: fishrules counts code points (as Lark and Python do); a client counts the units of
    # the encoding it agreed on at initialize (UTF-16 unless it offered another), so a line with
    # a character past U+FFFF (an emoji) is counted differently.  Every column is converted at
    # the edge, with the text of its line.
    offsets: dict[str, list[int]] = {}  # a line's unit offset at each code point (lines not ASCII only)

    def table(text: str) -> list[int]:
        # counted once per line, not once per column asked: a reference search asks for every use
        # of a name on a line, and a line may be long
        got = offsets.get(text)
        if got is None:
            count = server.workspace.position_codec.impl.code_units_for_char
            got, seen = [0], 0
            for c in text:
                seen += count(c)
                got.append(seen)
            if len(offsets) > 256:
                offsets.clear()
            offsets[text] = got
        return got

    def units(text: str, cp: int) -> int:
        cp = min(max(cp, 0), len(text))
        return cp if text.isascii() else table(text)[cp]

    def code_points(text: str, u: int) -> int:
        # the first code point at or past unit `u` (a position inside a character goes to its end)
        return u if text.isascii() else min(bisect.bisect_left(table(text), u), len(text))

    def pos(text: str, line: int, cp: int):
        return t.Position(line, units(text, cp))

    def rng(text: str, line: int, start: int, end: int):
        return t.Range(pos(text, line, start), pos(text, line, end))

    def word(a: Analysis, position):
        """The name at a client's position: (name, start, end) in code points."""
        return a.word_at(position.line, code_points(a.line(position.line), position.character))

    def to_lsp(a: Analysis, d: Diagnostic):
        sev = t.DiagnosticSeverity.Warning if d.severity == "warning" else t.DiagnosticSeverity.Error
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        sp = d.span
        if sp is None or not a.is_mine(sp.file):
            where = f"{sp}: " if sp is not None else ""
            return t.Diagnostic(range=rng("", 0, 0, 0), message=where + message, severity=sev, source="fishrules", code=d.code)
        end_line = sp.end_line if sp.end_line >= sp.line else sp.line
        end_col = sp.end_column if (sp.end_line > sp.line or sp.end_column > sp.column) else sp.column + 1
        first = sp.source.line(sp.line)
        fixes = [(right, line, units(first, s), units(first, e)) for right, line, s, e in quick_fixes(d)]
        return t.Diagnostic(
            range=t.Range(pos(first, sp.line - 1, sp.column - 1), pos(sp.source.line(end_line), end_line - 1, end_col - 1)),
            message=message, severity=sev, source="fishrules", code=d.code,
            data={"fixes": [list(f) for f in fixes]} if fixes else None)

    def publish(uri: str) -> None:
        pending.pop(uri, None)
        if uri in too_large:
            server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[t.Diagnostic(
                range=rng("", 0, 0, 0), message=too_large[uri], severity=t.DiagnosticSeverity.Error, source="fishrules")]))
            return
        if server.workspace.text_documents.get(unquote(uri)) is None:
            return
        a = analysis(uri)
        server.text_document_publish_diagnostics(
            t.PublishDiagnosticsParams(uri=uri, diagnostics=[to_lsp(a, d) for d in a.diagnostics]))

    def settle(uri: str) -> None:
        """Publish once no change has come for `SETTLE` seconds: a burst of changes is one analysis."""
        guarded_publish = _guarded(None)(publish)
        old = pending.pop(uri, None)
        if old is not None:
            old.cancel()
        try:
            pending[uri] = asyncio.get_running_loop().call_later(SETTLE, guarded_publish, uri)
        except RuntimeError:  # no loop running (called directly): at once
            guarded_publish(uri)

    def admit(uri: str) -> bool:
        """Keep a document only within the bounds; a dropped one says why in a diagnostic."""
        docs = server.workspace.text_documents
        doc = docs.get(unquote(uri))
        if doc is None:
            return False
        why = None
        if len(doc.source) > MAX_DOCUMENT:
            why = (f"this document is larger than {MAX_DOCUMENT // (1 << 20)} MiB (a rule file is at most 512 KiB): "
                   "fishrules does not read it; close it and open it again once it is smaller")
        elif len(docs) > MAX_DOCUMENTS:
            why = (f"more than {MAX_DOCUMENTS} documents are open: fishrules does not read this one; "
                   "close some, then this one, and open it again")
        if why is None:
            too_large.pop(uri, None)
            return True
        refuse(uri, why)
        return False

    def refuse(uri: str, why: str) -> None:
        """Drop a document, and say why at once (its text is not looked at)."""
        server.workspace.text_documents.pop(unquote(uri), None)
        cache.pop(uri, None)
        handle = pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        too_large[uri] = why
        while len(too_large) > MAX_DOCUMENTS:
            del too_large[next(iter(too_large))]
        _guarded(None)(publish)(uri)

    server.fishrules_refuse = refuse  # for a message too large to read (`_refuse`)

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    @_guarded(None)
    def did_open(ls, params: t.DidOpenTextDocumentParams):
        uri = params.text_document.uri
        if admit(uri):
            settle(uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    @_guarded(None)
    def did_change(ls, params: t.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        if admit(uri):
            settle(uri)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    @_guarded(None)
    def did_save(ls, params: t.DidSaveTextDocumentParams):
        settle(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    @_guarded(None)
    def did_close(ls, params: t.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        cache.pop(uri, None)
        too_large.pop(uri, None)
        handle = pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    @_guarded(None)
    def hover(ls, params: t.HoverParams):
        a = analysis(params.text_document.uri)
        w = word(a, params.position)
        if w is None:
            return None
        text = a.hover(w[0], params.position.line)
        if text is None:
            return None
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text),
                       range=rng(a.line(params.position.line), params.position.line, w[1], w[2]))

    @server.feature(t.TEXT_DOCUMENT_DEFINITION)
    @_guarded(None)
    def definition(ls, params: t.DefinitionParams):
        a = analysis(params.text_document.uri)
        w = word(a, params.position)
        if w is None:
            return None
        d = a.lookup(w[0], params.position.line)
        if d is None or d.span is None:
            return None
        line_text = d.span.source.line(d.span.line)
        col = line_text.find(d.name, max(d.span.column - 1, 0))
        col = col if col >= 0 else max(d.span.column - 1, 0)
        where = rng(line_text, d.span.line - 1, col, col + len(d.name))
        if a.is_mine(d.span.file):
            return t.Location(uri=params.text_document.uri, range=where)
        path = a.file_of(d.span.file)
        return t.Location(uri=_uri_of(path), range=where) if path is not None else None

    @server.feature(t.TEXT_DOCUMENT_REFERENCES)
    @_guarded([])
    def references(ls, params: t.ReferenceParams):
        a = analysis(params.text_document.uri)
        w = word(a, params.position)
        if w is None:
            return []
        return [t.Location(uri=params.text_document.uri if p is None else _uri_of(p), range=rng(text, line, s, e))
                for p, line, s, e, text in a.references(w[0])]

    kinds = {
        "keyword": t.CompletionItemKind.Keyword, "function": t.CompletionItemKind.Function,
        "define": t.CompletionItemKind.Constant, "phase": t.CompletionItemKind.Module,
        "action": t.CompletionItemKind.Method, "option": t.CompletionItemKind.Property,
        "cards": t.CompletionItemKind.Class, "variant": t.CompletionItemKind.Module,
    }

    @server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=[" ", "("]))
    @_guarded(None)
    def completion(ls, params: t.CompletionParams):
        a = analysis(params.text_document.uri)
        return t.CompletionList(is_incomplete=False, items=[
            t.CompletionItem(label=label, detail=kind, kind=kinds.get(kind, t.CompletionItemKind.Variable))
            for label, kind in a.completions()])

    symbol_kinds = {
        "define": t.SymbolKind.Constant, "phase": t.SymbolKind.Module, "action": t.SymbolKind.Method,
        "option": t.SymbolKind.Property, "cards": t.SymbolKind.Class, "variant": t.SymbolKind.Namespace,
    }

    @server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_guarded([])
    def symbols(ls, params: t.DocumentSymbolParams):
        a = analysis(params.text_document.uri)
        out = []
        for d in a.symbols():
            if d.span is None:
                continue
            line_text = d.span.source.line(d.span.line)
            last = max(d.span.end_line, d.span.line)
            whole = t.Range(pos(line_text, d.span.line - 1, d.span.column - 1),
                            pos(d.span.source.line(last), last - 1, d.span.end_column - 1))
            col = max(line_text.find(d.name), 0)
            out.append(t.DocumentSymbol(name=d.name, detail=d.kind, kind=symbol_kinds.get(d.kind, t.SymbolKind.Variable),
                                        range=whole, selection_range=rng(line_text, d.span.line - 1, col, col + len(d.name))))
        return out

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
    @_guarded([])
    def code_actions(ls, params: t.CodeActionParams):
        out = []
        for diag in params.context.diagnostics[:1000]:
            data = diag.data if isinstance(diag.data, dict) else None
            fixes = (data or {}).get("fixes", [])
            for fix in fixes[:100] if isinstance(fixes, list) else []:
                if not (isinstance(fix, list) and len(fix) == 4 and isinstance(fix[0], str)
                        and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 1 << 31 for x in fix[1:])):
                    continue  # the editor sends back what the server wrote; anything else is not a fix
                right, line, s, e = fix
                edit = t.TextEdit(range=t.Range(t.Position(line, s), t.Position(line, e)), new_text=right[:200])  # units already
                out.append(t.CodeAction(title=f"Change to `{right[:200]}`", kind=t.CodeActionKind.QuickFix, diagnostics=[diag],
                                        edit=t.WorkspaceEdit(changes={params.text_document.uri: [edit]})))
        return out

    @server.feature(t.TEXT_DOCUMENT_FORMATTING)
    @_guarded(None)
    def formatting(ls, params: t.DocumentFormattingParams):
        from .fmt import format_text

        doc = server.workspace.text_documents.get(unquote(params.text_document.uri))
        if doc is None:  # never opened: nothing is read from disk in its place
            return None
        try:
            new = format_text(doc.source)
        except RuleError:
            return None
        if new == doc.source:
            return []
        return [t.TextEdit(range=t.Range(t.Position(0, 0), t.Position(len(_lines(doc.source)) + 1, 0)), new_text=new)]

    return server


def main() -> int:
    """Run the server over standard input and output until the client says exit."""
    import sys

    try:
        server = build_server()
    except ImportError:
        print("fishrules lsp needs the `lsp` extra: pip install 'fishrules[lsp]'", file=sys.stderr)
        return 2
    _quiet_logging()
    return serve(server, sys.stdin.buffer, sys.stdout.buffer)


def serve(server, stdin, stdout) -> int:
    """The server's loop over standard input and output (pygls's `start_io`, with `_Frames` for
    its reader and `_dispatch` for its handling of a message); the exit status (1 after an `exit`
    that came without `shutdown`, as the protocol says)."""
    import asyncio
    import threading

    try:
        from pygls.io_ import StdoutWriter
    except ImportError:  # pragma: no cover - a pygls other than 2.x: its own loop, unbounded
        server.start_io(stdin, stdout)
        return 0

    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))
    try:
        asyncio.run(_loop(server, _Frames(stdin)))
    except BrokenPipeError:
        _say("the editor is gone; the server stops")
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:  # the editor's `exit`
        return exc.code if isinstance(exc.code, int) else 0
    finally:
        server.shutdown()
    return 0


async def _loop(server, frames: _Frames) -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    while not server._stop_event.is_set():
        try:
            got = await loop.run_in_executor(server.thread_pool, frames.next)
        except OSError as exc:
            _say(f"the input cannot be read ({exc.strerror or type(exc).__name__}); the server stops")
            return
        if got is None:
            return
        try:
            if isinstance(got, _TooLarge):
                _refuse(server, got)
            else:
                _dispatch(server, got)
        except BrokenPipeError:
            raise
        except Exception as exc:  # noqa: BLE001 - one message's failure never stops the server
            _say(f"a message could not be handled ({type(exc).__name__}); the server goes on")


def _reply(protocol, rid, code: int, message: str) -> None:
    """A JSON-RPC error answer (`rid` None when the request's id could not be read)."""
    protocol._send_data({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def _id_of(data: dict):
    rid = data.get("id")
    return rid if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)) else None


def _shown(method) -> str:
    """A method's name for a message: only when it looks like one (the log is read on a terminal too)."""
    return method if isinstance(method, str) and re.fullmatch(r"[A-Za-z0-9_$/.-]{1,80}", method) else "a method"


_AT_A_POSITION = ("textDocument/hover", "textDocument/definition", "textDocument/references", "textDocument/completion")


def _what_is_wrong(method, params) -> str:
    """Why pygls could not read a request's parameters, as far as it can be said in a line."""
    if isinstance(params, dict) and ("position" in params or method in _AT_A_POSITION):
        position = params.get("position")
        if not (isinstance(position, dict) and all(
                isinstance(position.get(k), (int, float)) and not isinstance(position.get(k), bool)
                and 0 <= position[k] < 1 << 31 for k in ("line", "character"))):
            return 'a position is {"line": L, "character": C}, two whole numbers from 0 to 2147483647'
    return f"these are not the parameters of {_shown(method)}"


def _no_constant(name: str):
    raise ValueError(f"{name} is no JSON")


def _dispatch(server, body: bytes) -> None:
    """Handle one message as pygls would, except that every request is answered: a message that
    is no JSON gets a parse error, one that is no JSON-RPC request an invalid request, a request
    whose parameters pygls cannot read (a position of -1, 2**40, "a" or none) invalid params, and a
    request after `shutdown` an invalid request (pygls would answer none of them)."""
    protocol = server.protocol
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError):  # a UnicodeDecodeError is a ValueError
        _say("a message that is no JSON was answered with a parse error")
        _reply(protocol, None, -32700, "Parse error: the message is no JSON")
        return
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        _say("a message that is no JSON-RPC 2.0 object was answered with an error")
        _reply(protocol, None, -32600, "Invalid Request: a message is a JSON-RPC 2.0 object")
        return
    method = data.get("method")
    request = "method" in data and "id" in data
    if request and not isinstance(method, str):
        _reply(protocol, _id_of(data), -32600, "Invalid Request: a method is a string")
        return
    if request and protocol._shutdown and method != "exit":
        _reply(protocol, _id_of(data), -32600, "Invalid Request: the server is shutting down")
        return
    try:
        message = protocol.structure_message(data)
    except Exception:  # noqa: BLE001 - whatever the parameters are, the request is answered
        if request:
            _reply(protocol, _id_of(data), -32602, "Invalid params: " + _what_is_wrong(method, data.get("params")))
        else:
            _say(f"a message ({_shown(method)}) with parameters it does not take was skipped")
        return
    try:
        protocol.handle_message(message)
    except BrokenPipeError:
        raise
    except Exception as exc:  # noqa: BLE001 - pygls answers a handler's failure; this is its own
        _say(f"{_shown(method)} failed ({type(exc).__name__})")
        if request:
            _reply(protocol, _id_of(data), -32603, "Internal error")


def _refuse(server, big: _TooLarge) -> None:
    """A message too large to read: said in one line; a request is answered with an error, and a
    document it opens or changes is dropped, with a diagnostic saying why (from what the beginning
    of the message says, as the rest was not kept)."""
    fields = _head_fields(big.head)
    method = fields.get("method")
    _say(f"a message of {big.length:,} bytes ({_shown(method)}) was skipped: "
         f"the server reads messages of at most {MAX_MESSAGE:,} bytes")
    if method in ("textDocument/didOpen", "textDocument/didChange") and isinstance(fields.get("uri"), str):
        server.fishrules_refuse(fields["uri"], (
            f"this document came in a message of {big.length:,} bytes, more than the {MAX_MESSAGE // (1 << 20)} MiB "
            f"fishrules reads (a document is at most {MAX_DOCUMENT // (1 << 20)} MiB, a rule file 512 KiB): "
            "fishrules does not read it; close it and open it again once it is smaller"))
    elif isinstance(method, str) and "id" in fields:
        _reply(server.protocol, _id_of(fields), -32600,
               f"Invalid Request: a message of {big.length:,} bytes, more than the {MAX_MESSAGE:,} this server reads")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

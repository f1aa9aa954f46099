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
file may be opened from anywhere), so the server bounds what it takes: a header line of at most
`MAX_HEADER` bytes and a message of at most `MAX_MESSAGE` (larger ones are skipped, read and thrown
away a piece at a time, and said on standard error in one line); whole documents are synchronised
(`Full`: applying a change is replacing the text, whatever a flood of changes holds), at most
`MAX_DOCUMENTS` open at once and each at most `MAX_DOCUMENT` characters (a larger one is dropped,
with a diagnostic saying so); diagnostics are worked out once a burst of changes has stopped
(`SETTLE` seconds), and only the last `MAX_ANALYSES` analyses are kept.  A request about a document
the editor has not opened gets an empty answer: the server never reads a document from disk on its
own (pygls would).  A document's `extends` follows the rule it follows everywhere (the document's
own folder or below, else a bundled ruleset; a document that is no file, the bundled rulesets
only), and the server reads no other file.  No handler's exception reaches the
editor with a traceback (pygls would send one): a failed request is answered with nothing, and said
on standard error in one line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Optional
from urllib.parse import unquote, urlparse

from . import nodes as n
from .errors import Diagnostic, RuleError, Span
from .syntax import parse_partial

__all__ = ["Analysis", "Declaration", "analyze", "main", "KEYWORDS", "MAX_MESSAGE", "MAX_DOCUMENT", "MAX_DOCUMENTS"]

#: The longest header line and the largest message the server reads (a rule file is at most 512 KiB,
#: and JSON may write a character in six).
MAX_HEADER = 8 * 1024
MAX_MESSAGE = 4 * 1024 * 1024
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
otherwise repeat times while until other than starting going where when is broken highest lowest not every any
shows showing your left right nobody you it
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
        lines = self.span.source.text.splitlines()
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
        self.files: list[Path] = []
        self.module: Optional[n.Module] = None
        if run:
            self._run()

    def _run(self) -> None:
        from .api import _check
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
        files = [Path(f).resolve() for f in resolved.files] + ([self.path.resolve()] if self.path is not None else [])
        self.files = list(dict.fromkeys(files))
        try:
            model = _check(resolved)
            self.diagnostics = list(model.warnings)
        except RuleError as exc:
            self.diagnostics = exc.diagnostics

    # ---- what is where ----------------------------------------------------------------------------

    def word_at(self, line: int, character: int) -> Optional[tuple[str, int, int]]:
        """The name at a 0-based position: (name, start, end) on that line."""
        lines = self.text.splitlines()
        if not 0 <= line < len(lines):
            return None
        for m in _WORD.finditer(lines[line]):
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
        if d.span is not None and self.path is not None and Path(d.span.file).resolve() != self.path.resolve():
            parts.append(f"from `{d.span.file}`, line {d.span.line}")
        return "\n\n".join(parts)

    def references(self, name: str) -> list[tuple[Path, int, int, int]]:
        """Every use of a name as a word (not in a comment or a text) in the files of the chain:
        (file, 0-based line, start, end)."""
        out = []
        for path in self.files or ([self.path] if self.path else []):
            text = self.text if self.path is not None and path == self.path.resolve() else _read(path)
            if text is None:
                continue
            for i, line in enumerate(text.splitlines()):
                code = _code_part(line)
                for m in _WORD.finditer(code):
                    if m.group() == name and not _in_string(code, m.start()):
                        out.append((path, i, m.start(), m.end()))
        return out

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


class _Reader:
    """What pygls reads messages with, bounded: a header line longer than `MAX_HEADER` and a body
    longer than `MAX_MESSAGE` are read and thrown away, a piece at a time, in their place the
    server sees a header it ignores or a notification it ignores."""

    SKIPPED = b'{"jsonrpc": "2.0", "method": "$/fishrules/skipped"}'

    def __init__(self, stdin, executor):
        self.stdin = stdin
        self.executor = executor

    def _readline(self) -> bytes:
        line = self.stdin.readline(MAX_HEADER + 1)
        if len(line) <= MAX_HEADER or line.endswith(b"\n"):
            return line
        while line and not line.endswith(b"\n"):  # the rest of a line too long
            line = self.stdin.readline(MAX_HEADER)
        _say(f"a header line longer than {MAX_HEADER:,} bytes was skipped")
        return b"X-Skipped: too long\r\n"

    def _read(self, n: int) -> bytes:
        if n <= MAX_MESSAGE:
            return self.stdin.read(n)
        left = n
        while left > 0:
            chunk = self.stdin.read(min(left, 1 << 16))
            if not chunk:
                return b""
            left -= len(chunk)
        _say(f"a message of {n:,} bytes was skipped: the server reads messages of at most {MAX_MESSAGE:,} bytes")
        return self.SKIPPED

    def readline(self):
        import asyncio

        return asyncio.get_running_loop().run_in_executor(self.executor, self._readline)

    def readexactly(self, n: int):
        import asyncio

        return asyncio.get_running_loop().run_in_executor(self.executor, self._read, n)


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

    def rng(line: int, start: int, end: int):
        return t.Range(t.Position(line, start), t.Position(line, end))

    def to_lsp(a: Analysis, d: Diagnostic):
        sev = t.DiagnosticSeverity.Warning if d.severity == "warning" else t.DiagnosticSeverity.Error
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        sp = d.span
        mine = sp is not None and (a.path is None or sp.file == a.name or _same(sp.file, a.path))
        if not mine:
            where = f"{sp}: " if sp is not None else ""
            return t.Diagnostic(range=rng(0, 0, 0), message=where + message, severity=sev, source="fishrules", code=d.code)
        end_line = sp.end_line if sp.end_line >= sp.line else sp.line
        end_col = sp.end_column if (sp.end_line > sp.line or sp.end_column > sp.column) else sp.column + 1
        fixes = quick_fixes(d)
        return t.Diagnostic(
            range=t.Range(t.Position(sp.line - 1, max(sp.column - 1, 0)), t.Position(end_line - 1, max(end_col - 1, 0))),
            message=message, severity=sev, source="fishrules", code=d.code,
            data={"fixes": [list(f) for f in fixes]} if fixes else None)

    def publish(uri: str) -> None:
        pending.pop(uri, None)
        if uri in too_large:
            server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[t.Diagnostic(
                range=rng(0, 0, 0), message=too_large[uri], severity=t.DiagnosticSeverity.Error, source="fishrules")]))
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
            why = (f"this document is larger than {MAX_DOCUMENT // 1024} KiB (a rule file is at most 512 KiB): "
                   "fishrules does not read it; close it and open it again once it is smaller")
        elif len(docs) > MAX_DOCUMENTS:
            why = (f"more than {MAX_DOCUMENTS} documents are open: fishrules does not read this one; "
                   "close some, then this one, and open it again")
        if why is None:
            too_large.pop(uri, None)
            return True
        docs.pop(unquote(uri), None)
        cache.pop(uri, None)
        too_large[uri] = why
        while len(too_large) > MAX_DOCUMENTS:
            del too_large[next(iter(too_large))]
        return False

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    @_guarded(None)
    def did_open(ls, params: t.DidOpenTextDocumentParams):
        uri = params.text_document.uri
        admit(uri)
        settle(uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    @_guarded(None)
    def did_change(ls, params: t.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        admit(uri)
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
        w = a.word_at(params.position.line, params.position.character)
        if w is None:
            return None
        text = a.hover(w[0], params.position.line)
        if text is None:
            return None
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text),
                       range=rng(params.position.line, w[1], w[2]))

    @server.feature(t.TEXT_DOCUMENT_DEFINITION)
    @_guarded(None)
    def definition(ls, params: t.DefinitionParams):
        a = analysis(params.text_document.uri)
        w = a.word_at(params.position.line, params.position.character)
        if w is None:
            return None
        d = a.lookup(w[0], params.position.line)
        if d is None or d.span is None:
            return None
        path = a.path if (a.path is not None and (d.span.file == a.name or _same(d.span.file, a.path))) else Path(d.span.file)
        line_text = d.span.source.line(d.span.line)
        col = line_text.find(d.name, max(d.span.column - 1, 0))
        col = col if col >= 0 else max(d.span.column - 1, 0)
        if a.path is None and path == Path(d.span.file) and d.span.file == a.name:
            return t.Location(uri=params.text_document.uri, range=rng(d.span.line - 1, col, col + len(d.name)))
        return t.Location(uri=_uri_of(path), range=rng(d.span.line - 1, col, col + len(d.name)))

    @server.feature(t.TEXT_DOCUMENT_REFERENCES)
    @_guarded([])
    def references(ls, params: t.ReferenceParams):
        a = analysis(params.text_document.uri)
        w = a.word_at(params.position.line, params.position.character)
        if w is None:
            return []
        return [t.Location(uri=params.text_document.uri if a.path is None else _uri_of(p), range=rng(line, s, e))
                for p, line, s, e in a.references(w[0])]

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
            whole = t.Range(t.Position(d.span.line - 1, max(d.span.column - 1, 0)),
                            t.Position(max(d.span.end_line, d.span.line) - 1, max(d.span.end_column - 1, 0)))
            line_text = d.span.source.line(d.span.line)
            col = max(line_text.find(d.name), 0)
            out.append(t.DocumentSymbol(name=d.name, detail=d.kind, kind=symbol_kinds.get(d.kind, t.SymbolKind.Variable),
                                        range=whole, selection_range=rng(d.span.line - 1, col, col + len(d.name))))
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
                edit = t.TextEdit(range=rng(line, s, e), new_text=right[:200])
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
        lines = doc.source.splitlines()
        return [t.TextEdit(range=t.Range(t.Position(0, 0), t.Position(len(lines) + 1, 0)), new_text=new)]

    return server


def _same(name: str, path: Path) -> bool:
    try:
        return Path(name).resolve() == path.resolve()
    except (OSError, ValueError):
        return False


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
    """pygls's own loop over standard input and output (`start_io`), reading through `_Reader`;
    the exit status (1 after an `exit` that came without `shutdown`, as the protocol says)."""
    import asyncio
    import threading

    try:
        from pygls.io_ import StdoutWriter, run_async
    except ImportError:  # pragma: no cover - a pygls other than 2.x: its own loop, unbounded
        server.start_io(stdin, stdout)
        return 0

    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))
    try:
        asyncio.run(run_async(stop_event=server._stop_event, reader=_Reader(stdin, server.thread_pool),
                              protocol=server.protocol, error_handler=server.report_server_error))
    except BrokenPipeError:
        _say("the editor is gone; the server stops")
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:  # the editor's `exit`
        return exc.code if isinstance(exc.code, int) else 0
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

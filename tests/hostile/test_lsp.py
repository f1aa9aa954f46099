"""`fishrules lsp` on hostile input (issue 25): the editor's messages are untrusted.

The server runs as a process of its own (`python -m fishrules.cli lsp`, 1.5 GiB of address space at
most), spoken to byte by byte: malformed frames and bodies, huge headers and messages, positions
and URIs out of range, requests out of order, documents that `extends` outside their folder, and
floods of changes and of documents.  After each, the server still answers a good request, never
shows a traceback (not in an answer, not on standard error), never reads a file the rules may not
make fishrules read, keeps its memory bounded, and stops when told to.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install 'fishrules[lsp]')")

ROOT = Path(__file__).resolve().parents[2]
MARK = "SECRET-" + uuid.uuid4().hex[:12]
GOOD = 'game "Good"\nplayers 2 to 2\n# the points\ndefine points: 3\nphase game:\n  nothing\n'
MEMORY = 1536 << 20


def _limits() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Server:
    """A `fishrules lsp` process, written to as raw bytes and read as JSON-RPC frames."""

    def __init__(self, cwd: Path):
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.p = subprocess.Popen([sys.executable, "-m", "fishrules.cli", "lsp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env, preexec_fn=_limits)
        self.messages: list = []
        self.err = b""
        self.lock = threading.Lock()
        self.next_id = 1000
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        f = self.p.stdout
        while True:
            length = None
            while True:
                line = f.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n") and length is not None:
                    break
            body = f.read(length)
            with self.lock:
                self.messages.append(json.loads(body))

    def _read_err(self) -> None:
        while chunk := self.p.stderr.read1(65536) if hasattr(self.p.stderr, "read1") else self.p.stderr.read(65536):
            self.err += chunk

    def raw(self, data: bytes) -> None:
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, obj) -> None:
        body = json.dumps(obj).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params, timeout: float = 30):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.response(rid, timeout)

    def response(self, rid, timeout: float = 30) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                for m in self.messages:
                    if m.get("id") == rid and "method" not in m:
                        return m
            assert self.p.poll() is None, f"the server died: {self.err.decode(errors='replace')[-3000:]}"
            time.sleep(0.01)
        raise AssertionError(f"no answer to request {rid} in {timeout}s; stderr: {self.err.decode(errors='replace')[-2000:]}")

    def diagnostics(self, uri: str) -> list:
        with self.lock:
            return [m for m in self.messages if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]

    def wait_diagnostics(self, uri: str, count: int = 1, timeout: float = 30) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = self.diagnostics(uri)
            if len(found) >= count:
                return found[-1]["params"]
            assert self.p.poll() is None, f"the server died: {self.err.decode(errors='replace')[-3000:]}"
            time.sleep(0.02)
        raise AssertionError(f"no diagnostics for {uri}; stderr: {self.err.decode(errors='replace')[-2000:]}")

    def initialize(self, root: Path) -> None:
        got = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        assert "result" in got, got
        self.notify("initialized", {})

    def open(self, path_or_uri, text: str) -> str:
        uri = path_or_uri if isinstance(path_or_uri, str) else path_or_uri.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "fishrules", "version": 1,
                                                               "text": text}})
        return uri

    def hover(self, uri: str, line: int, character: int) -> dict:
        return self.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})

    def still_good(self, folder: Path) -> None:
        """The server answers a good request about a good document."""
        self.next_id += 1
        uri = self.open(folder / f"good{self.next_id}.fish", GOOD)
        got = self.hover(uri, 3, 9)
        assert "result" in got and "points" in json.dumps(got["result"]), got
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})  # the server keeps 64 at most

    def stop(self) -> int:
        try:
            got = self.request("shutdown", None, timeout=30)
            assert "result" in got, got
            self.notify("exit", None)
            self.p.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            return self.p.wait(30)
        finally:
            self.p.kill()

    def kill(self) -> None:
        self.p.kill()
        self.p.wait(10)

    def said(self, text: str, since: int = 0, timeout: float = 30) -> str:
        """Standard error after byte `since`, once it holds `text`."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            err = self.err[since:].decode(errors="replace")
            if text in err:
                return err
            time.sleep(0.01)
        raise AssertionError(f"{text!r} not said on standard error: {self.err[since:].decode(errors='replace')[-2000:]}")

    def clean(self) -> str:
        """Standard error so far, checked: no traceback, nothing secret."""
        err = self.err.decode(errors="replace")
        assert "Traceback" not in err and MARK not in err, err[-3000:]
        with self.lock:
            text = json.dumps(self.messages)
        assert "Traceback" not in text and "traceback" not in text and MARK not in text, text[-3000:]
        return err


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    s.initialize(tmp_path)
    yield s
    s.kill()


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server for the tests that only throw things at it (each checks it still answers)."""
    folder = tmp_path_factory.mktemp("lsp")
    s = Server(folder)
    s.initialize(folder)
    yield s, folder
    s.kill()


# ---- malformed frames and messages --------------------------------------------------------------------------

def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


FRAMES = {
    "no content length": b"Content-Type: x\r\n\r\n{}",
    "a length that is no number": b"Content-Length: many\r\n\r\n",
    "a negative length": b"Content-Length: -5\r\n\r\n",
    "a zero length": b"Content-Length: 0\r\n\r\n",
    "a length longer than the body": b"Content-Length: 100\r\n\r\n{}" + b" " * 98,
    "a body that is no JSON": frame(b"not json!"),
    "a body that is not UTF-8": frame(b"\xff\xfe\xfd\xfc"),
    "JSON that is not an object": frame(b"null"),
    "a list": frame(b"[1,2,3]"),
    "another JSON-RPC": frame(b'{"jsonrpc": "1.0", "id": 1, "method": 1}'),
    "no method": frame(b'{"jsonrpc": "2.0", "id": 7}'),
    "a method of another type": frame(b'{"jsonrpc": "2.0", "id": 8, "method": ["textDocument/hover"]}'),
    "params of another type": frame(b'{"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": [1, 2]}'),
    "an unknown method": frame(b'{"jsonrpc": "2.0", "id": 10, "method": "fishrules/runPython", "params": {"code": "1"}}'),
    "a response to nothing": frame(b'{"jsonrpc": "2.0", "id": 11, "result": {"x": 1}}'),
    "deep nesting": frame(b"[" * 100_000 + b"]" * 100_000),
    "a huge number": frame(b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "x"}'),
    "a header line of ten megabytes": b"X-Junk: " + b"x" * (10 << 20) + b"\r\n",
    "a thousand headers": b"X-Junk: 1\r\n" * 1000,
}


@pytest.mark.parametrize("name", FRAMES)
def test_malformed_frames_leave_the_server_answering(shared, name):
    server, tmp_path = shared
    server.raw(FRAMES[name] + b"\r\n")  # and a line's end, as a client that recovers would send
    server.still_good(tmp_path)
    server.clean()


def test_a_message_larger_than_the_server_reads_is_skipped(server, tmp_path):
    """64 MiB declared and sent: read and thrown away a piece at a time, said in one line."""
    big = b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"text": "' + \
        b"x" * (64 << 20) + b'"}}}'
    server.raw(b"Content-Length: %d\r\n\r\n" % len(big) + big)
    server.still_good(tmp_path)
    err = server.clean()
    assert "skipped" in err and "4,194,304" in err, err


def test_a_length_of_a_terabyte_is_not_allocated(tmp_path):
    s = Server(tmp_path)
    try:
        s.initialize(tmp_path)
        s.raw(b"Content-Length: 1000000000000\r\n\r\n" + b"x" * (1 << 20))
        time.sleep(1)
        assert s.p.poll() is None, s.err.decode(errors="replace")[-2000:]
        s.p.stdin.close()  # the rest never comes: the server stops at the end of its input
        assert s.p.wait(30) is not None
        s.clean()
    finally:
        s.kill()


# A header the base protocol does not allow is a protocol error: said in one line, its message
# dropped (no body is read on a length that cannot be trusted), and the very next message, sent
# with nothing between to help the server, is answered.  Each sent alone after a good message.
BAD_HEADERS = {
    "a length of 5,000 digits": b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n",
    "a length of 5,000 zeros and a digit": b"Content-Length: " + b"0" * 5000 + b"2\r\n\r\n{}",
    "a length of 20 digits": b"Content-Length: 99999999999999999999\r\n\r\n",
    "a length of a terabyte": b"Content-Length: 1099511627776\r\n\r\n",
    "a negative length": b"Content-Length: -2\r\n\r\n{}",
    "a length with a sign": b"Content-Length: +2\r\n\r\n{}",
    "a length that is no number": b"Content-Length: two\r\n\r\n{}",
    "a length with letters after it": b"Content-Length: 2abc\r\n\r\n{}",
    "a length in hexadecimal": b"Content-Length: 0x2\r\n\r\n{}",
    "a length with an exponent": b"Content-Length: 2e0\r\n\r\n{}",
    "a fractional length": b"Content-Length: 2.0\r\n\r\n{}",
    "an empty length": b"Content-Length: \r\n\r\n{}",
    "two numbers": b"Content-Length: 2 2\r\n\r\n{}",
    "a length in Arabic-Indic digits": "Content-Length: \u0662\r\n\r\n{}".encode(),
    "a length in fullwidth digits": "Content-Length: \uff12\r\n\r\n{}".encode(),
    "two lengths, the second longer": b"Content-Length: 2\r\nContent-Length: 300\r\n\r\n{}",
    "two lengths, the same": b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
    "no length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
    "no header at all": b"\r\n{}\r\n\r\n",
    "a line that is no header": b"hello there\r\n\r\n{}",
    "a header line of a megabyte": b"X-Junk: " + b"x" * (1 << 20) + b"\r\nContent-Length: 2\r\n\r\n{}",
    "a length line of a megabyte": b"Content-Length: " + b" " * (1 << 20) + b"2\r\n\r\n{}",
    "a header that is not ASCII": "X-Name: \u00e9t\u00e9\r\nContent-Length: 2\r\n\r\n{}".encode(),
    "a header that is not UTF-8": b"X-Name: \xff\xfe\r\nContent-Length: 2\r\n\r\n{}",
    "a NUL in a header's name": b"Content\x00-Length: 2\r\n\r\n{}",
    "a control character in the length": b"Content-Length: \x1b[2J2\r\n\r\n{}",
    "headers and no blank line": b"Content-Length: 2\r\n{}",
    "no line end": b"Content-Length: 2{}",
    "lines ended by CR alone": b"Content-Length: 2\r\r{}",
    "lines ended by LF alone (read)": b"Content-Length: 2\n\n{}",
    "a body shorter than its length": b"Content-Length: 200\r\n\r\n{}",
}


@pytest.mark.parametrize("name", BAD_HEADERS)
def test_a_malformed_header_is_a_protocol_error_and_the_server_goes_on(shared, name):
    server, tmp_path = shared
    since = len(server.err)
    server.still_good(tmp_path)  # a good message first: the bad one is not at the start of the stream
    server.raw(BAD_HEADERS[name])
    if name == "a body shorter than its length":
        # the next 200 bytes are its body, whatever they are: a client that sends less is not
        # waited for by dropping its message, but its body's end is where it says
        server.raw(b" " * 198)
    server.still_good(tmp_path)
    assert server.p.poll() is None
    if "(read)" not in name and "shorter" not in name:
        server.said("protocol error", since)
    err = server.clean()
    assert all(len(line) < 300 for line in err.splitlines()), "a message echoed the header"


def test_a_flood_of_malformed_headers(shared):
    """All of them, one after another, twice over, and a good request right after."""
    server, tmp_path = shared
    server.raw(b"".join(v for k, v in BAD_HEADERS.items() if "shorter" not in k) * 2)
    server.still_good(tmp_path)
    server.clean()


# ---- positions, URIs and parameters out of range ---------------------------------------------------------------

# A document with characters of two UTF-16 units (a position may fall between them).
FISHY = 'game "Good"\nplayers 2 to 2\n# the points \U0001F41F\ndefine points: 3 # \U0001F41F\U0001F41F\nphase game:\n  nothing\n'
MISSING = object()
#: Positions an editor may send, in range or not: each request at each is answered.
ODD_POSITIONS = {
    "line -1": {"line": -1, "character": 0},
    "character -5": {"line": 3, "character": -5},
    "both negative": {"line": -(2**40), "character": -1},
    "line 2**31": {"line": 2**31, "character": 0},
    "character 2**31": {"line": 3, "character": 2**31},
    "line 2**40": {"line": 2**40, "character": 0},
    "character 2**40": {"line": 0, "character": 2**40},
    "10**30": {"line": 10**30, "character": 10**30},
    "a fraction": {"line": 3.5, "character": 9.25},
    "a huge float": {"line": 1e300, "character": 1e300},
    "a negative float": {"line": -0.5, "character": 0},
    "a text": {"line": "a", "character": 0},
    "a number as a text": {"line": "3", "character": "9"},
    "booleans": {"line": True, "character": False},
    "nulls": {"line": None, "character": None},
    "objects": {"line": {}, "character": []},
    "no character": {"line": 3},
    "no line": {"character": 9},
    "empty": {},
    "a list": [3, 9],
    "a number": 3,
    "no position": MISSING,
    "the end of a line": {"line": 3, "character": 23},
    "past the end of a line": {"line": 3, "character": 10_000},
    "past the last line": {"line": 10_000, "character": 0},
    "the line after the last": {"line": 6, "character": 0},
    "the last position there is": {"line": 2**31 - 1, "character": 2**31 - 1},
    "inside a surrogate pair": {"line": 3, "character": 20},
    "between two surrogate pairs": {"line": 3, "character": 21},
    "after a surrogate pair": {"line": 2, "character": 15},
    "inside a surrogate pair at a line's end": {"line": 2, "character": 14},
}
AT_A_POSITION = ["textDocument/hover", "textDocument/definition", "textDocument/references",
                 "textDocument/completion", "textDocument/codeAction"]


def _valid(position) -> bool:
    return isinstance(position, dict) and all(
        type(position.get(k)) is int and 0 <= position[k] < 2**31 for k in ("line", "character"))


@pytest.mark.parametrize("method", AT_A_POSITION)
def test_every_request_at_any_position_is_answered(shared, method):
    """A result for a position in range, a result or an error (invalid params) for any other, and
    at once: pygls answered nothing at a position it could not read, so the editor waited for ever."""
    server, tmp_path = shared
    uri = server.open(tmp_path / "fishy.fish", FISHY)
    sent = {}
    for name, position in ODD_POSITIONS.items():
        params: dict = {"textDocument": {"uri": uri}}
        if method == "textDocument/references":
            params["context"] = {"includeDeclaration": True}
        if method == "textDocument/codeAction":
            params["context"] = {"diagnostics": []}
            params["range"] = {"start": position, "end": position} if position is not MISSING else None
        elif position is not MISSING:
            params["position"] = position
        server.next_id += 1
        sent[server.next_id] = name
        server.send({"jsonrpc": "2.0", "id": server.next_id, "method": method, "params": params})
    started = time.monotonic()
    for rid, name in sent.items():
        got = server.response(rid, timeout=max(1.0, 30 - (time.monotonic() - started)))
        assert ("result" in got) != ("error" in got), (name, got)
        if "error" in got:
            assert got["error"]["code"] == -32602 and not _valid(ODD_POSITIONS[name]), (name, got)
            assert "Traceback" not in got["error"]["message"] and len(got["error"]["message"]) < 300
        elif _valid(ODD_POSITIONS[name]) and method == "textDocument/hover":
            assert got["result"] is None or "points" in json.dumps(got["result"]), (name, got)
    server.still_good(tmp_path)
    server.clean()


def test_requests_the_server_does_not_take_are_answered(shared):
    """Every request gets an answer: one that is no JSON-RPC, of a method it does not know, with
    parameters it cannot read or too large to read; notifications of every kind get none."""
    server, tmp_path = shared
    uri = server.open(tmp_path / "doc.fish", GOOD)
    requests = [
        {"jsonrpc": "2.0", "id": "text id", "method": "textDocument/signatureHelp",
         "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}},
        {"jsonrpc": "2.0", "id": -7, "method": "textDocument/hover", "params": [1, 2]},
        {"jsonrpc": "2.0", "id": 2**40, "method": "textDocument/hover", "params": None},
        {"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {"textDocument": "x", "position": {}}},
        {"jsonrpc": "2.0", "id": 6, "method": "textDocument/documentSymbol", "params": {"textDocument": 5}},
        {"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}, "junk": "x" * (5 << 20)}},
        {"jsonrpc": "2.0", "id": 9, "method": "$/fishrules/skipped"},
    ]
    for r in requests:
        server.send(r)
    for r in requests:
        got = server.response(r["id"])
        assert "error" in got or "result" in got, got
    server.still_good(tmp_path)
    server.clean()


URIS = ["", "file://", "file:///", "file:///%00.fish", "file://elsewhere/etc/passwd", "file:relative.fish",
        "http://example.com/x.fish", "untitled:Untitled-1", "file:///" + "a/" * 50_000 + "x.fish", "\x00", "file:///etc/passwd"]


@pytest.mark.parametrize("uri", URIS, ids=range(len(URIS)))
def test_odd_document_uris(shared, uri):
    server, tmp_path = shared
    server.open(uri, 'extends "passwd"\n' + GOOD)
    for method in ("textDocument/hover", "textDocument/definition", "textDocument/documentSymbol",
                   "textDocument/formatting", "textDocument/references", "textDocument/codeAction"):
        server.next_id += 1
        server.send({"jsonrpc": "2.0", "id": server.next_id, "method": method, "params": {
            "textDocument": {"uri": uri}, "position": {"line": 3, "character": 9}, "options": {"tabSize": 2, "insertSpaces": True},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "context": {"includeDeclaration": True, "diagnostics": [{"range": {"start": {"line": 0, "character": 0},
                                                                          "end": {"line": 0, "character": 1}},
                                                                "message": "x", "data": {"fixes": [[MARK, -1, 10**20, "x"]]}}]}}})
    server.still_good(tmp_path)
    err = server.clean()
    assert "root:" not in json.dumps(server.messages), "the server showed /etc/passwd"
    del err


# ---- requests out of order ----------------------------------------------------------------------------------------


def test_requests_before_initialize_and_after_shutdown(tmp_path):
    (tmp_path / "secret.fish").write_text(f"# {MARK}\ndefine points: 1\n")
    s = Server(tmp_path)
    try:
        uri = (tmp_path / "secret.fish").as_uri()
        got = s.hover(uri, 1, 9)  # before initialize, about a document never opened
        assert MARK not in json.dumps(got)
        s.initialize(tmp_path)
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": GOOD}]})
        s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        s.still_good(tmp_path)
        got = s.request("shutdown", None)
        assert "result" in got
        s.next_id += 1
        s.send({"jsonrpc": "2.0", "id": s.next_id, "method": "textDocument/hover",
                "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 9}}})
        s.notify("exit", None)
        assert s.p.wait(30) == 0
        s.clean()
    finally:
        s.kill()


def test_a_document_never_opened_is_never_read(server, tmp_path):
    """pygls reads a document from disk when asked about one it does not hold: the server does not."""
    (tmp_path / "secret.fish").write_text(f"# {MARK}\ndefine points: 1\nphase game:\n  nothing\n")
    uri = (tmp_path / "secret.fish").as_uri()
    for method, extra in (("textDocument/hover", {"position": {"line": 1, "character": 9}}),
                          ("textDocument/definition", {"position": {"line": 1, "character": 9}}),
                          ("textDocument/documentSymbol", {}),
                          ("textDocument/formatting", {"options": {"tabSize": 2, "insertSpaces": True}}),
                          ("textDocument/completion", {"position": {"line": 1, "character": 9}})):
        got = server.request(method, {"textDocument": {"uri": uri}, **extra})
        assert MARK not in json.dumps(got) and "points" not in json.dumps(got.get("result")), (method, got)
    server.clean()


def test_exit_without_shutdown_stops_the_server(tmp_path):
    s = Server(tmp_path)
    try:
        s.initialize(tmp_path)
        s.notify("exit", None)
        assert s.p.wait(30) == 1
    finally:
        s.kill()


# ---- extends outside the document's folder ------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["../secret", "/etc/passwd", "link", "deeper/../../secret", "secret"])
def test_documents_that_extend_outside_their_folder(shared, target):
    # The secret is in the shared server's folder (its workspace and working directory), as it was
    # in that of a server of its own, and beside the document's folder: a document may reach no
    # further than its own folder, whatever the server's.
    server, root = shared
    tmp_path = root / f"extends-{uuid.uuid4().hex[:8]}"
    tmp_path.mkdir()
    for where in (root, tmp_path):
        (where / "secret.fish").write_text(f'# {MARK}\ngame "{MARK}"\nplayers 2 to 2\n# {MARK}\ndefine points: 1\n')
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "link.fish").symlink_to(tmp_path / "secret.fish")
    folder = ws if target != "secret" else tmp_path / "elsewhere"
    folder.mkdir(exist_ok=True)
    text = f'extends "{target}"\ngame "G"\ndefine mine: points\n'
    uri = server.open(folder / "doc.fish", text)
    diags = server.wait_diagnostics(uri)["diagnostics"]
    assert diags, "extending a file outside the document's folder was not refused"
    for method in ("textDocument/hover", "textDocument/definition", "textDocument/references"):
        got = server.request(method, {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 15},
                                      "context": {"includeDeclaration": True}})
        assert MARK not in json.dumps(got), (method, got)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})  # the server keeps 64 at most
    server.clean()


def test_a_bundled_name_is_the_bundled_ruleset_whatever_the_servers_folder_holds(tmp_path):
    """`extends "fishfry"` means a `fishfry.fish` beside the document, else the bundled Fishfry
    (docs/security.md): a `fishfry` or `fishfry.fish` in the server's own folder is never read,
    nor pointed to; a bare `fishfry` beside the document is not what the name means either."""
    planted = f'game "{MARK}"\nplayers 2 to 2\n# {MARK}\ndefine fish_caught: 1 # {MARK}\nphase game:\n  nothing\n'
    cwd = tmp_path / "cwd"
    docs = tmp_path / "docs"
    beside = tmp_path / "beside"
    for folder in (cwd, docs, beside):
        folder.mkdir()
    for name in ("fishfry", "fishfry.fish"):
        (cwd / name).write_text(planted)
    (docs / "fishfry").write_text(planted)
    (beside / "fishfry.fish").write_text('game "Beside"\nplayers 2 to 2\n\ndefine fish_caught: 2\nphase game:\n  nothing\n')
    bundled = (ROOT / "rulesets" / "fishfry.fish").resolve().as_uri()
    text = 'extends "fishfry"\ngame "G"\ndefine mine: fish_caught\n'
    at = {"position": {"line": 2, "character": 16}, "context": {"includeDeclaration": True}}
    s = Server(cwd)
    try:
        s.initialize(cwd)
        for doc in (docs / "doc.fish", "untitled:Untitled-1", "https://example.com/doc.fish", cwd / "sub" / "doc.fish"):
            uri = s.open(doc, text)
            diags = s.wait_diagnostics(uri)["diagnostics"]
            assert all(d["severity"] != 1 for d in diags), (doc, diags)
            hover = s.request("textDocument/hover", {"textDocument": {"uri": uri}, **at})["result"]
            assert "min(count(dice" in hover["contents"]["value"], (doc, hover)
            (where,) = [s.request("textDocument/definition", {"textDocument": {"uri": uri}, **at})["result"]]
            assert where["uri"] == bundled, (doc, where)
            refs = s.request("textDocument/references", {"textDocument": {"uri": uri}, **at})["result"]
            assert {r["uri"] for r in refs} == {bundled, uri}, (doc, refs)
        uri = s.open(beside / "doc.fish", text)
        assert all(d["severity"] != 1 for d in s.wait_diagnostics(uri)["diagnostics"])
        where = s.request("textDocument/definition", {"textDocument": {"uri": uri}, **at})["result"]
        assert where["uri"] == (beside / "fishfry.fish").resolve().as_uri() and where["range"]["start"]["line"] == 3
        refs = s.request("textDocument/references", {"textDocument": {"uri": uri}, **at})["result"]
        assert {r["uri"] for r in refs} == {where["uri"], uri}, refs
        s.clean()
    finally:
        s.kill()


# ---- floods -----------------------------------------------------------------------------------------------------


def test_a_flood_of_changes_is_one_analysis(server, tmp_path):
    """2,000 changes of a 100 KB document in one burst: diagnostics of the last version, soon, and
    not one analysis per change."""
    body = "".join(f"define d{i}: {i}\n" for i in range(6000))
    uri = server.open(tmp_path / "big.fish", GOOD + body)
    server.wait_diagnostics(uri)
    for version in range(2, 2002):
        text = GOOD + body + (f"define broken: nope{version}\n" if version == 2001 else "")
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"text": text}]})
    started = time.monotonic()
    last = None
    while time.monotonic() - started < 60:
        found = server.diagnostics(uri)
        if found and any("nope2001" in d["message"] for d in found[-1]["params"]["diagnostics"]):
            last = found
            break
        time.sleep(0.05)
    assert last is not None, "no diagnostics of the last version within a minute"
    assert len(last) < 50, f"{len(last)} analyses for one burst of changes"
    server.still_good(tmp_path)
    server.clean()


def test_incremental_changes_are_read_whole(server, tmp_path):
    """The server synchronises whole documents: 5,000 ranged edits in one message cost nothing."""
    uri = server.open(tmp_path / "doc.fish", GOOD)
    edits = [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}] * 5000
    edits.append({"text": GOOD.replace("points", "score_points")})
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": edits})
    got = server.hover(uri, 3, 9)
    assert "score_points" in json.dumps(got["result"]), got
    server.clean()


TOO_LARGE = {
    "1 MiB and a character": "x" * (1 << 20) + "\n",
    "5.3 MB": "# " + "y" * 5_300_000 + "\n" + GOOD,
    "20 MB on one line": "z" * 20_000_000,
    "1.5 MiB of characters JSON writes in six bytes": "\x01" * (3 << 19),
    "a million lines": "\n" * 1_100_000,
}


@pytest.mark.parametrize("name", TOO_LARGE)
def test_a_document_too_large_is_refused_at_once(shared, name):
    """A document past the 1 MiB of docs/security.md, whatever the size of the message carrying it
    (one larger than the server reads included), is refused at once with a diagnostic saying so,
    and not kept: opened, or an open document changed to it."""
    server, tmp_path = shared
    opened = server.open(tmp_path / "opened.fish", TOO_LARGE[name])
    started = time.monotonic()
    (diag,) = server.wait_diagnostics(opened)["diagnostics"]
    assert "larger than" in diag["message"] or "more than" in diag["message"], diag
    assert diag["severity"] == 1 and len(diag["message"]) < 400
    assert server.hover(opened, 3, 9)["result"] is None
    changed = server.open(tmp_path / "changed.fish", GOOD)
    assert "points" in json.dumps(server.hover(changed, 3, 9)["result"])
    server.notify("textDocument/didChange", {"textDocument": {"uri": changed, "version": 2},
                                             "contentChanges": [{"text": TOO_LARGE[name]}]})
    deadline = time.monotonic() + 30
    while not any("larger than" in d["message"] or "more than" in d["message"]
                  for m in server.diagnostics(changed) for d in m["params"]["diagnostics"]):
        assert time.monotonic() < deadline, "no diagnostic for a document changed to one too large"
        time.sleep(0.02)
    assert server.hover(changed, 3, 9)["result"] is None, "the document's old text was kept"
    assert time.monotonic() - started < 20
    for uri in (opened, changed):
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.still_good(tmp_path)
    server.clean()


def test_a_message_too_large_that_names_its_document_late(shared):
    """A client that writes the text before the URI: the server cannot say which document the
    message was about (it keeps only its beginning), so says it on standard error, and goes on."""
    server, tmp_path = shared
    since = len(server.err)
    body = ('{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"text": "'
            + "x" * (5 << 20) + '", "uri": "' + (tmp_path / "late.fish").as_uri() + '", "languageId": "fishrules", "version": 1}}}')
    server.raw(frame(body.encode()))
    server.said("was skipped", since)
    server.still_good(tmp_path)
    server.clean()


def test_a_flood_of_documents_and_a_document_too_large(server, tmp_path):
    """Documents beyond the server's bounds (64 open, 1 MiB each) are not kept, and say so."""
    body = "# " + "x" * (200 << 10) + "\n" + GOOD
    for i in range(150):
        server.open(tmp_path / f"d{i}.fish", body)
    big = server.open(tmp_path / "big.fish", "# " + "y" * (3 << 20) + "\n" + GOOD)
    diags = server.wait_diagnostics(big)["diagnostics"]
    assert any("larger than" in d["message"] for d in diags), diags
    late = server.wait_diagnostics((tmp_path / "d149.fish").as_uri())["diagnostics"]
    assert any("documents are open" in d["message"] for d in late), late
    for i in range(150):
        server.notify("textDocument/didClose", {"textDocument": {"uri": (tmp_path / f"d{i}.fish").as_uri()}})
    server.still_good(tmp_path)
    assert server.stop() == 0
    server.clean()

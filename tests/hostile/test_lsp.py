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


# ---- positions, URIs and parameters out of range ---------------------------------------------------------------

POSITIONS = [(-1, 0), (0, -1), (2**31, 0), (0, 2**31), (10**30, 10**30), ("a", 0), (None, None), (1.5, 2.5)]


@pytest.mark.parametrize("method", ["textDocument/hover", "textDocument/definition", "textDocument/references",
                                    "textDocument/completion"])
def test_positions_out_of_range(shared, method):
    server, tmp_path = shared
    uri = server.open(tmp_path / "doc.fish", GOOD)
    for line, character in POSITIONS:
        params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character},
                  "context": {"includeDeclaration": True}}
        server.next_id += 1
        server.send({"jsonrpc": "2.0", "id": server.next_id, "method": method, "params": params})
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
def test_documents_that_extend_outside_their_folder(server, tmp_path, target):
    (tmp_path / "secret.fish").write_text(f'# {MARK}\ngame "{MARK}"\nplayers 2 to 2\n# {MARK}\ndefine points: 1\n')
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
    server.clean()


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

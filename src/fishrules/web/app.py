"""The ASGI application of `fishrules serve` (Starlette): pages, links, the WebSocket, the guards.

Routes:

- `GET /` the lobby; `GET /new?ruleset=NAME[&variant=V]` and `POST /new` (a pasted house rule)
  the set-up of a table; `POST /check` checks a house rule as it is typed; `POST /tables` creates a
  table and sends the host to `GET /host/TOKEN`, the page of its links;
- `GET /p/TOKEN` a seat's (or the spectators') table, `WS /ws/TOKEN` its live frames and actions,
  `GET /p/TOKEN/log` the finished game as a log for `fishrules replay`;
- `GET /static/…` the script and style sheet, `GET /healthz`.

Guards, for every response: a Content-Security-Policy allowing scripts, styles and connections
from this origin only (no inline script), no framing, no referrer (the links are secrets), no
caching of pages; request bodies and WebSocket messages of bounded size; a WebSocket whose Origin
is another site's is refused; and an error is a page saying what went wrong, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections import deque
from importlib import resources
from typing import Any, Callable, Optional
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import fishrules
from fishrules import FishrulesError

from . import pages
from .store import Store
from .tables import SEAT_KINDS, Refusal, Tables, parse_options

__all__ = ["create_app", "CSP", "MOST_BODY", "MOST_MESSAGE"]

log = logging.getLogger("fishrules.web")

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
#: The largest request body taken (a house rule is at most pages.MOST_RULE_TEXT characters).
MOST_BODY = 256 * 1024
#: The largest WebSocket message taken from a browser.
MOST_MESSAGE = 8 * 1024
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class _Guard:
    """Pure ASGI middleware: security headers on every response, no caching of pages, bounded
    request bodies (413 past MOST_BODY), and a plain page instead of anything that went wrong."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope.get("path", "").startswith("/static/")
        started = False

        async def send_guarded(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in
                           {h for h, _ in _HEADERS} | {b"cache-control", b"server"}]
                headers += _HEADERS
                headers.append((b"cache-control", b"public, max-age=300" if static else b"no-store"))
                message = dict(message, headers=headers)
            await send(message)

        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > MOST_BODY):
            await _plain(send_guarded, 413, "Too large", "That is more than this server takes at once.")
            return
        seen = 0

        async def receive_bounded() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > MOST_BODY:
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, receive_bounded, send_guarded)
        except _TooLarge:
            if not started:
                await _plain(send_guarded, 413, "Too large", "That is more than this server takes at once.")
        except Exception:
            log.exception("error while answering %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await _plain(send_guarded, 500, "Something went wrong",
                             "The server could not answer this. Nothing of your game was lost; try again.")


class _TooLarge(Exception):
    pass


async def _plain(send: Any, status: int, title: str, message: str) -> None:
    body = pages.error_page(title, message).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _form(request: Request, most: int) -> dict:
    """The fields of a form sent as application/x-www-form-urlencoded (the only kind the pages
    send), at most `most` of them; the first value of a repeated name counts."""
    body = await request.body()
    if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        return {}
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=most, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        return {}
    out: dict = {}
    for k, v in pairs:
        out.setdefault(k, v)
    return out


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status)


def _error(title: str, message: str, status: int) -> HTMLResponse:
    return _html(pages.error_page(title, message), status)


class Conn:
    """One browser's WebSocket: what is to be sent waits in a queue, where a newer frame replaces
    an older one not sent yet (a slow browser gets the latest table, not every table between)."""

    def __init__(self, ws: WebSocket):
        self.ws = ws
        self.queue: deque = deque()
        self.ready = asyncio.Event()
        self.closed = False

    def push_frame(self, text: str) -> None:
        self.queue = deque(m for m in self.queue if not m.startswith('{"type":"frame"'))
        self.queue.append(text)
        self.ready.set()

    def push(self, message: dict) -> None:
        self.queue.append(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
        self.ready.set()

    async def writer(self) -> None:
        while not self.closed:
            await self.ready.wait()
            self.ready.clear()
            while self.queue:
                await self.ws.send_text(self.queue.popleft())


def create_app(store: Store, bot_delay: float = 0.4, bot_iterations: int = 100,
               seeds: Optional[Callable[[], int]] = None) -> Starlette:
    """The application serving the tables kept in `store`.  Bots wait `bot_delay` seconds before
    they play and search `bot_iterations` per decision; `seeds()` gives each new table its seed
    (by default 63 random bits).  (Long, and kept whole: each route is a short closure over
    `tables`, in the order of the table of routes at the end.)"""
    tables = Tables(store, bot_delay=bot_delay, bot_iterations=bot_iterations, seeds=seeds)

    async def token_of(token: str) -> Optional[tuple]:
        if not _TOKEN.fullmatch(token):
            return None
        try:
            return await tables.by_token(token)
        except FishrulesError:
            return None

    # ---- the lobby ---------------------------------------------------------------------------

    async def lobby(request: Request) -> Response:
        return _html(pages.lobby())

    async def rules_of(text: str, variant: Optional[str]) -> tuple[Optional[fishrules.Game], Optional[BaseException]]:
        if len(text) > pages.MOST_RULE_TEXT:
            return None, FishrulesError(f"a house rule here is at most {pages.MOST_RULE_TEXT // 1024} KiB")
        try:
            return await tables.work(tables.game_of, None, text, variant or None), None
        except FishrulesError as e:
            return None, e

    async def check(request: Request) -> Response:
        form = await _form(request, 8)
        text = str(form.get("rules") or "")
        game, err = await rules_of(text, None)
        return JSONResponse({"ok": err is None, "title": game.title if game else None,
                             "html": str(pages.diagnostics_html(text, err))})

    async def new(request: Request) -> Response:
        if request.method == "GET":
            ruleset = request.query_params.get("ruleset") or ""
            variant = request.query_params.get("variant") or None
            if ruleset not in fishrules.bundled():
                return _error("No such game", "There is no bundled game of that name.", 404)
            try:
                game = await tables.work(tables.game_of, ruleset, None, variant)
            except FishrulesError as e:
                return _error("No such variant", str(e), 404)
            return _html(pages.setup(game, ruleset, None, variant))
        form = await _form(request, 8)
        text = str(form.get("rules") or "")
        variant = str(form.get("variant") or "") or None
        game, err = await rules_of(text, variant)
        if game is None:
            return _html(pages.lobby(text, pages.diagnostics_html(text, err)), 400 if text else 200)
        return _html(pages.setup(game, None, text, variant))

    async def create(request: Request) -> Response:
        form = await _form(request, 200)
        data = {k: str(v) for k, v in form.items()}
        text = data.get("rules")
        ruleset = data.get("ruleset") if text is None else None
        variant = data.get("variant") or None
        try:
            game = await tables.work(tables.game_of, ruleset, text, variant)
        except FishrulesError as e:
            if text is not None:
                return _html(pages.lobby(text, pages.diagnostics_html(text, e)), 400)
            return _error("Cannot set up this table", str(e), 400)
        try:
            players = int(data.get("players", ""))
        except ValueError:
            players = -1
        try:
            if not (game.min_players <= players <= game.max_players):
                raise fishrules.OptionError(f"{game.title} is for {game.min_players} to {game.max_players} players")
            seats = [data.get(f"seat.{p}", "random") for p in range(players)]
            if any(k not in SEAT_KINDS for k in seats):
                raise fishrules.OptionError("each seat is a person or one of the bots")
            names = [data.get(f"name.{p}", "") for p in range(players)]
            options = parse_options(game, data)
            table, links = await tables.create(ruleset, text, variant, players, options, seats, names)
        except FishrulesError as e:
            return _html(pages.setup(game, ruleset, text, variant, error=str(e), form=data), 400)
        return RedirectResponse(f"/host/{links['host']}", status_code=303)

    async def host(request: Request) -> Response:
        found = await token_of(request.path_params["token"])
        if found is None or found[1] != "host":
            return _error("No such table", "This link is not a table's. Check that it was copied whole.", 404)
        table = found[0]
        links = await tables.db(tables.store.tokens_of, table.id)
        base = f"{request.url.scheme}://{request.url.netloc}"
        return _html(pages.links_page(base, table, links))

    # ---- a table -----------------------------------------------------------------------------

    async def play(request: Request) -> Response:
        token = request.path_params["token"]
        found = await token_of(token)
        if found is None:
            return _error("No such table", "This link is not a table's. Check that it was copied whole.", 404)
        table, role, seat = found
        if role == "host":
            return RedirectResponse(f"/host/{token}", status_code=303)
        text = table.frame(seat)
        return _html(pages.table_page(table, token, seat, json.loads(text)["html"]))

    async def download(request: Request) -> Response:
        found = await token_of(request.path_params["token"])
        if found is None:
            return _error("No such table", "This link is not a table's.", 404)
        table = found[0]
        if not table.state.is_over:
            return _error("Not yet", "The log can be downloaded once the game is over: it shows every hidden card.", 409)
        body = json.dumps(table.log(), indent=1, ensure_ascii=False) + "\n"
        return Response(body, media_type="application/json",
                        headers={"content-disposition": f'attachment; filename="table-{table.id}.json"'})

    async def ws(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        host_header = websocket.headers.get("host", "")
        if origin is not None and urlsplit(origin).netloc.lower() != host_header.lower():
            await websocket.close(code=1008)  # before accepting: the handshake is refused (403)
            return
        found = await token_of(websocket.path_params["token"])
        if found is None or found[1] == "host":
            await websocket.close(code=1008)
            return
        table, role, seat = found
        await websocket.accept()
        conn = Conn(websocket)
        tables.join(table, seat, conn)
        conn.push_frame(table.frame(seat))
        writer = asyncio.ensure_future(conn.writer())
        try:
            while True:
                text = await websocket.receive_text()
                if len(text) > MOST_MESSAGE:
                    conn.push({"type": "refused", "message": "That message is too long."})
                    continue
                try:
                    msg = json.loads(text)
                except ValueError:
                    conn.push({"type": "refused", "message": "That message could not be read."})
                    continue
                if not isinstance(msg, dict):
                    continue
                if msg.get("type") == "hello":
                    conn.push_frame(table.frame(seat))
                    continue
                if msg.get("type") != "act":
                    continue
                if seat is None:
                    conn.push({"type": "refused", "message": "Spectators watch; they do not play."})
                    continue
                try:
                    taken = await tables.act(table, seat, msg.get("at"), msg.get("action"))
                    conn.push({"type": "ok", "duplicate": taken is None, "at": msg.get("at"), "taken_at": taken})
                    if taken is None:
                        conn.push_frame(table.frame(seat))
                except Refusal as r:
                    conn.push(r.to_json())
                    if r.moved_on:
                        conn.push_frame(table.frame(seat))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            conn.closed = True
            conn.ready.set()
            tables.leave(table, seat, conn)
            writer.cancel()
            with contextlib.suppress(BaseException):
                await writer

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        if status == 404:
            return _error("Not found", "There is nothing at this address.", 404)
        if status == 405:
            return _error("Not allowed", "This address does not take that kind of request.", 405)
        return _error("Something went wrong", "The server could not answer this request.", status)

    async def crashed(request: Request, exc: Exception) -> Response:
        log.exception("error while answering %s", request.url.path, exc_info=exc)
        return _error("Something went wrong", "The server could not answer this. Nothing of your game was lost; try again.", 500)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        resumed = await tables.resume_all()
        if resumed:
            log.info("%d unfinished table(s) read back", resumed)
        yield
        await asyncio.get_running_loop().run_in_executor(None, tables.close)

    static = StaticFiles(directory=str(resources.files("fishrules.web") / "static"))
    app = Starlette(
        routes=[
            Route("/", lobby),
            Route("/check", check, methods=["POST"]),
            Route("/new", new, methods=["GET", "POST"]),
            Route("/tables", create, methods=["POST"]),
            Route("/host/{token}", host),
            Route("/p/{token}", play),
            Route("/p/{token}/log", download),
            WebSocketRoute("/ws/{token}", ws),
            Route("/healthz", healthz),
            Route("/favicon.ico", lambda request: RedirectResponse("/static/icon.svg", status_code=301)),
            Mount("/static", app=static, name="static"),
        ],
        exception_handlers={HTTPException: not_found, Exception: crashed},
        lifespan=lifespan,
    )
    app.state.tables = tables
    app.add_middleware(_Guard)
    return app

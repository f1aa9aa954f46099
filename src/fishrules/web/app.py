"""The ASGI application of `fishrules serve` (Starlette): pages, links, the WebSocket, the guards.

Routes:

- `GET /` the lobby; `GET /rules?ruleset=NAME` a bundled game's rules panel; `GET /new?ruleset=NAME[&variant=V]` and `POST /new` (a pasted house rule)
  the set-up of a table; `POST /check` checks a house rule as it is typed; `POST /tables` creates a
  table and sends the host to `GET /host/TOKEN`, the page of its links;
- `GET /p/TOKEN` a seat's (or the spectators') table, `WS /ws/TOKEN` its live frames and actions,
  `GET /p/TOKEN/log` the finished game as a log for `fishrules replay`;
- `GET /static/…` the script and style sheet, `GET /healthz` (the server answers), `GET /readyz`
  (its workers have started: 503 until then).

Guards, for every response: a Content-Security-Policy allowing scripts, styles and connections
from this origin only (no inline script), no framing, no referrer (the links are secrets), no
caching of pages; request bodies and WebSocket messages of bounded size; and an error is a page
saying what went wrong, never a traceback.  Against other sites (`Hosts`): a request must name
this server by a name it answers to (an address, `localhost`, or a name it was told: DNS
rebinding reaches nothing), a POST sent from another site's page is refused, and so is a WebSocket
whose Origin is not this server.  Rule work never runs here (see tables.py, workers.py), and how
much of it one address may start is bounded (quotas.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import re
from collections import deque
from importlib import resources
from typing import Any, Callable, Iterable, Optional
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
from .quotas import Rate
from .store import Store
from .tables import SEAT_KINDS, Refusal, Tables, parse_options

__all__ = ["create_app", "Hosts", "CSP", "MOST_BODY", "MOST_MESSAGE", "MOST_QUEUED"]

log = logging.getLogger("fishrules.web")

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
#: The largest request body taken (a house rule is at most pages.MOST_RULE_TEXT characters).
MOST_BODY = 256 * 1024
#: The largest WebSocket message taken from a browser.
MOST_MESSAGE = 8 * 1024
#: Messages waiting to be sent to one browser at most: one that does not read is let go.
MOST_QUEUED = 64
#: Checks of a house rule per second from one address (and at once), tables per hour.
CHECKS_PER_SECOND, CHECKS_AT_ONCE = 2.0, 8
TABLES_PER_HOUR = 60
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class Hosts:
    """The names this server answers to: any IP address (a page at an address is that address's
    own origin: it cannot be rebound), `localhost`, the address it listens on, and the names it was
    told (`--allowed-host`, `--public-url`).  A request naming another host is refused: that is how
    DNS rebinding (a page of evil.example whose name now points here) is kept out."""

    def __init__(self, listen: str = "127.0.0.1", allowed: Iterable[str] = (), public_url: Optional[str] = None):
        self.names = {"localhost"} | {h.strip().lower().rstrip(".") for h in allowed if h.strip()}
        if listen and listen not in ("0.0.0.0", "::"):
            self.names.add(listen.lower())
        self.public = public_url.rstrip("/") if public_url else None
        if self.public:
            self.names.add((urlsplit(self.public).hostname or "").lower())

    @staticmethod
    def _name(netloc: str) -> Optional[str]:
        try:
            name = urlsplit("//" + netloc).hostname
        except ValueError:
            return None
        return name.rstrip(".") if name else None

    def allows(self, netloc: str) -> bool:
        """Whether a Host header (`name[:port]`) names this server."""
        name = self._name(netloc)
        if not name:
            return False
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return name in self.names

    def same_site(self, origin: Optional[str], host: str) -> bool:
        """Whether an Origin header is this server's own pages: the page was served under the very
        name and port the request names (or the public address)."""
        if not origin:
            return False
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not self.allows(parts.netloc):
            return False
        if self.public and origin.rstrip("/") == self.public.split("/", 3)[0] + "//" + urlsplit(self.public).netloc:
            return True
        return parts.netloc.lower() == host.lower()

    def base(self, scheme: str, host: str) -> str:
        """The address links are built on: the public address, else the one the request named."""
        return self.public or f"{scheme}://{host}"


def _header(scope: dict, name: bytes) -> Optional[str]:
    for k, v in scope.get("headers") or ():
        if k == name:
            return v.decode("latin-1")
    return None


class _Guard:
    """Pure ASGI middleware: security headers on every response, no caching of pages, bounded
    request bodies (413 past MOST_BODY), requests for this server only (`Hosts`), no POST from
    another site's page, and a plain page instead of anything that went wrong."""

    def __init__(self, app: Any, hosts: Hosts):
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            if not self.hosts.allows(_header(scope, b"host") or ""):
                await send({"type": "websocket.close", "code": 1008})
                return
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

        host = _header(scope, b"host") or ""
        if not self.hosts.allows(host):
            await _plain(send_guarded, 421, "Not this server",
                         "This server does not answer to that name. Use the address you were given.")
            return
        if scope.get("method") not in ("GET", "HEAD") and not _from_here(scope, self.hosts, host):
            await _plain(send_guarded, 403, "Not from here",
                         "That form was sent from another site's page, so it was not taken.")
            return
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


def _from_here(scope: dict, hosts: Hosts, host: str) -> bool:
    """Whether a request that changes something comes from this server's own pages.  A browser
    says where a request comes from in Sec-Fetch-Site, and is held to it.  Without it, the Origin
    header must be this server (the pages' no-referrer policy makes a browser's form send
    `Origin: null`, so a browser too old for Sec-Fetch-Site is refused); a program that is not a
    browser says neither, and has no visitor's session to abuse."""
    site = _header(scope, b"sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = _header(scope, b"origin")
    return origin is None or hosts.same_site(origin, host)


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
    """One browser's WebSocket: what is to be sent waits in a queue, where a newer frame takes the
    place of an older one not sent yet (a slow browser gets the latest table, not every table
    between), at the same cost however long the queue.  A browser that lets more than MOST_QUEUED
    messages wait is not reading: it is let go (`overflowed`), and may connect again."""

    def __init__(self, ws: WebSocket):
        self.ws = ws
        self.queue: deque = deque()
        self.frame: Optional[list] = None  # [text] of the frame waiting in the queue, if any
        self.ready = asyncio.Event()
        self.closed = False
        self.overflowed = False

    def push_frame(self, text: str) -> None:
        if self.frame is not None:
            self.frame[0] = text
            return
        self.frame = [text]
        self._put(self.frame)

    def push(self, message: dict) -> None:
        self._put(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    def _put(self, item: Any) -> None:
        if len(self.queue) >= MOST_QUEUED:
            self.overflowed = True
            self.closed = True
        else:
            self.queue.append(item)
        self.ready.set()

    async def writer(self) -> None:
        while not self.closed:
            await self.ready.wait()
            self.ready.clear()
            while self.queue and not self.closed:
                item = self.queue.popleft()
                if isinstance(item, list):
                    self.frame = None
                    item = item[0]
                await self.ws.send_text(item)
        if self.overflowed:
            log.info("a browser that did not read its messages was let go")
            with contextlib.suppress(Exception):
                await self.ws.close(code=1008)


def create_app(store: Store, bot_delay: float = 1.5, bot_iterations: int = 100,
               seeds: Optional[Callable[[], int]] = None, hosts: Optional[Hosts] = None, workers: int = 2,
               tables_per_hour: Optional[int] = None, house_nice: int = 19) -> Starlette:
    """The application serving the tables kept in `store`.  A bot plays once the table's last
    change has been shown `bot_delay` seconds (0: at once), and searches `bot_iterations` per decision; `seeds()` gives each new table its seed
    (by default 63 random bits); `hosts` the names it answers to (by default: addresses and
    localhost); `workers` the worker processes of each lane (tables.py); `tables_per_hour` how many
    tables one address may set up (TABLES_PER_HOUR); `house_nice` the CPU priority of house rules'
    work (19, the lowest, runs only on a core nobody else wants).  (Long, and kept whole:
    each route is a short closure over `tables`, in the order of the table of routes at the end.)"""
    tables = Tables(store, bot_delay=bot_delay, bot_iterations=bot_iterations, seeds=seeds, workers=workers,
                    house_nice=house_nice)
    hosts = hosts or Hosts()
    checks = Rate(CHECKS_PER_SECOND, CHECKS_AT_ONCE)
    per_hour = TABLES_PER_HOUR if tables_per_hour is None else tables_per_hour
    creates = Rate(per_hour / 3600, per_hour)

    def client_of(request: Any) -> str:
        return request.client.host if request.client else "?"

    async def token_of(token: str) -> Optional[tuple]:
        if not _TOKEN.fullmatch(token):
            return None
        try:
            return await tables.by_token(token)
        except FishrulesError:
            return None

    # ---- the lobby ---------------------------------------------------------------------------

    async def lobby(request: Request) -> Response:
        await tables.ready()
        return _html(pages.lobby(tables.bundled))

    async def rules_of(request: Request, text: str, variant: Optional[str]) -> tuple[Any, Optional[BaseException]]:
        """A pasted house rule, checked by a worker: (its RulesInfo, None) or (None, what is wrong)."""
        if len(text) > pages.MOST_RULE_TEXT:
            return None, FishrulesError(f"a house rule here is at most {pages.MOST_RULE_TEXT // 1024} KiB")
        client = client_of(request)
        if not checks.take(client):
            return None, FishrulesError("Too many checks at once from here: wait a moment, then try again.")
        try:
            return await tables.rules_of(None, text, variant or None, client=client), None
        except (FishrulesError, Refusal) as e:
            return None, e

    async def bundled_of(request: Request) -> tuple[Any, str, Optional[str]] | Response:
        """The bundled ruleset (and variant) a GET names: (its RulesInfo, name, variant), or the
        page saying there is none."""
        ruleset = request.query_params.get("ruleset") or ""
        variant = request.query_params.get("variant") or None
        await tables.ready()
        if (ruleset, None) not in tables.bundled:
            return _error("No such game", "There is no bundled game of that name.", 404)
        try:
            return await tables.rules_of(ruleset, None, variant), ruleset, variant
        except FishrulesError as e:
            return _error("No such variant", str(e), 404)

    async def rules(request: Request) -> Response:
        found = await bundled_of(request)
        if isinstance(found, Response):
            return found
        game, ruleset, _ = found
        return _html(pages.rules_page(game, ruleset))

    async def check(request: Request) -> Response:
        form = await _form(request, 8)
        text = str(form.get("rules") or "")
        game, err = await rules_of(request, text, None)
        if isinstance(err, Refusal) and "cancelled" in err.message:
            return JSONResponse({"ok": False, "superseded": True, "title": None, "html": ""}, status_code=409)
        said = game.warnings[0] if game is not None and game.warnings else str(pages.diagnostics_html(text, err))
        return JSONResponse({"ok": err is None, "title": game.title if game else None, "html": said})

    async def new(request: Request) -> Response:
        if request.method == "GET":
            found = await bundled_of(request)
            if isinstance(found, Response):
                return found
            game, ruleset, variant = found
            return _html(pages.setup(game, ruleset, None, variant, base=tables.bundled[(ruleset, None)]))
        form = await _form(request, 8)
        text = str(form.get("rules") or "")
        variant = str(form.get("variant") or "") or None
        await tables.ready()
        game, err = await rules_of(request, text, variant)
        if game is None:
            return _html(pages.lobby(tables.bundled, text, pages.diagnostics_html(text, err)), 400 if text else 200)
        return _html(pages.setup(game, None, text, variant))

    async def create(request: Request) -> Response:
        form = await _form(request, 200)
        data = {k: str(v) for k, v in form.items()}
        text = data.get("rules")
        ruleset = data.get("ruleset") if text is None else None
        variant = data.get("variant") or None
        await tables.ready()
        if not creates.take(client_of(request)):
            return _error("Too many tables", f"At most {per_hour} new tables an hour are set up for one "
                          "address. Try again later.", 429)
        if text is not None:
            game, err = await rules_of(request, text, variant)
            if game is None:
                return _html(pages.lobby(tables.bundled, text, pages.diagnostics_html(text, err)), 400)
        else:
            try:
                game = await tables.rules_of(ruleset, None, variant)
            except FishrulesError as e:
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
        except (FishrulesError, Refusal) as e:
            return _html(pages.setup(game, ruleset, text, variant, error=str(e), form=data,
                                     base=tables.bundled.get((ruleset, None))), 400)
        return RedirectResponse(f"/host/{links['host']}", status_code=303)

    async def host(request: Request) -> Response:
        found = await token_of(request.path_params["token"])
        if found is None or found[1] != "host":
            return _error("No such table", "This link is not a table's. Check that it was copied whole.", 404)
        table = found[0]
        links = await tables.db(tables.store.tokens_of, table.id)
        base = hosts.base(request.url.scheme, request.headers.get("host", ""))
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
        text = await tables.frame(table, seat)
        return _html(pages.table_page(table, token, seat, json.loads(text)["html"]))

    async def download(request: Request) -> Response:
        found = await token_of(request.path_params["token"])
        if found is None:
            return _error("No such table", "This link is not a table's.", 404)
        table = found[0]
        if not table.over:
            return _error("Not yet", "The log can be downloaded once the game is over: it shows every hidden card.", 409)
        body = json.dumps(table.log(), indent=1, ensure_ascii=False) + "\n"
        return Response(body, media_type="application/json",
                        headers={"content-disposition": f'attachment; filename="table-{table.id}.json"'})

    async def ws(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        if origin is not None and not hosts.same_site(origin, websocket.headers.get("host", "")):
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
        writer = asyncio.ensure_future(conn.writer())
        try:
            conn.push_frame(await tables.frame(table, seat))
            while not conn.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:  # a binary frame: the pages send none
                    log.info("a WebSocket sent a binary message; it was closed")
                    await websocket.close(code=1003)
                    break
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
                    conn.push_frame(await tables.frame(table, seat))
                    continue
                if msg.get("type") not in ("act", "back"):
                    continue
                if seat is None:
                    conn.push({"type": "refused", "message": "Spectators watch; they do not play."})
                    continue
                if msg["type"] == "back":
                    try:
                        await tables.take_back(table, seat, msg.get("at"))
                        conn.push({"type": "ok", "back": True, "at": msg.get("at")})
                    except Refusal as r:
                        conn.push(r.to_json())
                        conn.push_frame(await tables.frame(table, seat))
                    continue
                try:
                    taken = await tables.act(table, seat, msg.get("at"), msg.get("action"))
                    conn.push({"type": "ok", "duplicate": taken is None, "at": msg.get("at"), "taken_at": taken})
                    if taken is None:
                        conn.push_frame(await tables.frame(table, seat))
                except Refusal as r:
                    conn.push(r.to_json())
                    if r.moved_on:
                        conn.push_frame(await tables.frame(table, seat))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            conn.closed = True
            conn.ready.set()
            tables.leave(table, seat, conn)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(writer, 1)
            writer.cancel()

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(request: Request) -> Response:
        # liveness is /healthz (the event loop answers); readiness also needs the workers started
        # and the bundled rulesets read, which a fresh server does in the background: a proxy or
        # a test sends people here only once the first page will not wait for that
        if tables.is_ready:
            return PlainTextResponse("ready")
        return PlainTextResponse("starting", status_code=503)

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
        # Tables are read back when a link is used, not here, and the workers start in the
        # background: a restarted server answers at once.
        tables.open()
        yield
        tables.close()

    static = StaticFiles(directory=str(resources.files("fishrules.web") / "static"))
    app = Starlette(
        routes=[
            Route("/", lobby),
            Route("/check", check, methods=["POST"]),
            Route("/rules", rules),
            Route("/new", new, methods=["GET", "POST"]),
            Route("/tables", create, methods=["POST"]),
            Route("/host/{token}", host),
            Route("/p/{token}", play),
            Route("/p/{token}/log", download),
            WebSocketRoute("/ws/{token}", ws),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/favicon.ico", lambda request: RedirectResponse("/static/icon.svg", status_code=301)),
            Mount("/static", app=static, name="static"),
        ],
        exception_handlers={HTTPException: not_found, Exception: crashed},
        lifespan=lifespan,
    )
    app.state.tables = tables
    app.add_middleware(_Guard, hosts=hosts)
    return app

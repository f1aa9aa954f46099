"""`fishrules serve`: every ruleset at a table in the browser, each person seeing only their own.

Needs the `web` extra (`pip install 'fishrules[web]'`: Starlette, uvicorn, psycopg).  One module
per concern:

- `store`: where tables are kept (SQLite, or PostgreSQL by URL), behind a small interface;
- `tables`: the tables in memory, actions taken (stored before anybody is told), bots;
- `render`: a position as one seat sees it, drawn from the rules (no game is known here);
- `html`, `pages`: escaped HTML, the lobby and the other pages;
- `workers`, `work`: the worker processes that do every piece of rule work, and what they run;
- `quotas`, `connections`: how much one address may ask, and connections bounded;
- `app`: the ASGI application (routes, WebSocket, security headers, errors);
- `static/`: the page's script and style sheet (no inline script: the CSP forbids it).

`serve(...)` runs it with uvicorn; `create_app(store)` gives the application to run otherwise.
"""

from __future__ import annotations

from typing import Any

__all__ = ["serve", "create_app"]


def create_app(store: Any, **kwargs: Any) -> Any:
    from .app import create_app as make

    return make(store, **kwargs)


def _tune_gc() -> None:
    """Keep the cycle collector's pauses out of the players' way.  Measured under 200 tables:
    with Python's defaults a full collection ran every 6 s and stopped everything for up to 230 ms
    (the p99 of an action's latency was 210 ms, its p95 50 ms).  What is there at start-up (the
    modules, the parser's tables) is frozen, never scanned again, and the young generation is
    collected ten times less often, so a full collection is rare: p99 46 ms.  Only this process
    (`fishrules serve`) is tuned so; a program that embeds the app keeps its own settings."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def serve(host: str = "127.0.0.1", port: int = 8000, db: str = "fishrules.sqlite", bot_delay: float = 1.5,
          bot_iterations: int = 100, log_level: str = "warning", seed: "int | None" = None,
          allowed_hosts: "tuple[str, ...]" = (), public_url: "str | None" = None, workers: int = 2,
          most_connections: "int | None" = None, most_per_address: "int | None" = None,
          header_timeout: float = 10.0, tables_per_hour: "int | None" = None, house_nice: int = 19) -> None:
    """Serve the tables kept in `db` (a SQLite file, or a postgresql:// URL) at http://host:port/
    until interrupted.  With `seed`, new tables are seeded seed, seed + 1, … (the same games again,
    for tests and demonstrations); otherwise each gets 63 random bits.  The server answers to
    addresses, `localhost`, `host`, `allowed_hosts` and the name of `public_url` (which its links
    are built on); `workers` processes do the rule work of each lane (web/tables.py); connections
    are bounded in all and per address (web/connections.py); house rules' work runs at CPU priority
    `house_nice` (19: only on a core nobody else wants)."""
    import uvicorn

    from . import connections
    from .app import MOST_MESSAGE, Hosts, create_app as make
    from .store import open_store

    store = open_store(db)
    seeds = None
    if seed is not None:
        import itertools

        counter = itertools.count(seed)
        seeds = lambda: next(counter)  # noqa: E731
    app = make(store, bot_delay=bot_delay, bot_iterations=bot_iterations, seeds=seeds, workers=workers,
               hosts=Hosts(host, allowed_hosts, public_url), tables_per_hour=tables_per_hour,
               house_nice=house_nice)
    connections.configure(most=most_connections or connections.MOST_CONNECTIONS,
                          per_address=most_per_address or connections.MOST_PER_ADDRESS, header_timeout=header_timeout)
    _tune_gc()
    # No per-message compression: a frame is a few kilobytes of HTML, and deflating each one cost
    # the server a tenth of its work under load (the `ws` library of Node servers leaves it off too).
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=MOST_MESSAGE * 2,
                http=connections.GuardedH11, timeout_keep_alive=5,
                ws_per_message_deflate=False,
                ws_ping_interval=20, ws_ping_timeout=20, server_header=False, proxy_headers=False,
                timeout_graceful_shutdown=3)

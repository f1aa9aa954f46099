"""Connections to `fishrules serve`, bounded: uvicorn's HTTP protocol with limits of its own.

uvicorn reads a request as slowly as a client sends it and takes as many connections as come:
1,030 sockets that send nothing locked everybody out.  `GuardedH11` (given to uvicorn as its HTTP
protocol) adds:

- a limit of connections in all (`most`) and from one address (`per_address`); a connection past
  either is closed at once, before anything is read;
- a header timeout: a connection that has not sent a whole request's headers `header_timeout`
  seconds after it opened (or after its last response: keep-alive) is closed, however slowly it
  trickles bytes.

WebSocket connections count too (uvicorn keeps both kinds in one set of connections); what they
may queue is bounded by the application (app.Conn).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Optional

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["GuardedH11", "configure"]

log = logging.getLogger("fishrules.web")

#: Defaults: connections in all, from one address, and seconds to send a request's headers.
MOST_CONNECTIONS = 1000
MOST_PER_ADDRESS = 256
HEADER_TIMEOUT = 10.0

_limits = {"most": MOST_CONNECTIONS, "per_address": MOST_PER_ADDRESS, "header_timeout": HEADER_TIMEOUT}


def configure(most: int = MOST_CONNECTIONS, per_address: int = MOST_PER_ADDRESS,
              header_timeout: float = HEADER_TIMEOUT) -> None:
    """Set the limits `GuardedH11` holds connections to (once, before serving)."""
    _limits.update(most=most, per_address=per_address, header_timeout=header_timeout)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol, with connection limits and a header timeout (see the module)."""

    _header_timer: Optional[asyncio.TimerHandle] = None
    _cycles = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > _limits["most"]:
            log.warning("connection refused: %d connections already", len(self.connections) - 1)
            self._drop()
            return
        addr = self.client[0] if self.client else None
        if addr is not None:
            same = sum(1 for c in self.connections if getattr(c, "client", None) and c.client[0] == addr)
            if same > _limits["per_address"]:
                log.warning("connection from %s refused: %d from there already", addr, same - 1)
                self._drop()
                return
        self._arm()

    def _drop(self) -> None:
        self.connections.discard(self)
        self.transport.abort()

    def _arm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(_limits["header_timeout"], self._headers_due, self._cycles)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before or self.transport.get_protocol() is not self:
            self._cycles += 1  # a whole request's headers came (or the connection became a WebSocket)

    def _headers_due(self, seen: int) -> None:
        self._header_timer = None
        if self._cycles != seen or self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered
        self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request's headers are due in time too

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)


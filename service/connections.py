"""Connections at the edge: how long a request may take to arrive, and how many
connections one address may hold (docs/security.md, "Connections that never finish a
request").

uvicorn bounds the wait *between* requests of a keep-alive connection
(``timeout_keep_alive``) but not the time a request takes to arrive: a connection that
sent ``POST /graphql HTTP/1.1\\r\\n`` and nothing more, or nothing at all, stayed open for
as long as its client liked, and the caps of the app (WebSockets and streams per address)
only see a request once it is whole. ``BoundedHTTP`` is uvicorn's httptools protocol with
the two bounds it lacks:

- **A request must arrive within** ``TABLESTATE_REQUEST_READ_TIMEOUT`` seconds (10), from
  the connection's start or from the first byte of a later request, its headers and body
  together; past it the connection is closed. Waiting for the next request is uvicorn's
  keep-alive timeout; the app's time to answer is the app's.
- **One address holds at most** ``TABLESTATE_MAX_CONNECTIONS_PER_ADDRESS`` connections
  (64) on one replica, of any kind: a connection upgraded to a WebSocket stays counted until
  it closes. One past it is answered 429 and closed before anything of it is read. The TCP
  peer is what counts here (no header has arrived yet): a trusted proxy, which carries many
  clients, and the exempt addresses (``TABLESTATE_RATE_EXEMPT``, ``TABLESTATE_PROBE_EXEMPT``)
  are not counted.

This follows uvicorn 0.55's ``HttpToolsProtocol`` (its parser callbacks ``on_message_begin``
and ``on_message_complete``, and ``handle_websocket_upgrade``, which hands the transport to
the WebSocket protocol). uvicorn's other HTTP protocol, h11, is not covered: the server
always runs this one.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import weakref
from typing import Any, Final

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from tablestate.ratelimit import AddressSet

log = logging.getLogger(__name__)

_WARN_EVERY: Final = 30.0  # seconds between two warnings of connections refused
_BODY: Final = b'{"errors":[{"message":"too many connections from this address",' + (
    b'"extensions":{"code":"RATE_LIMITED"}}]}'
)
TOO_MANY: Final = (
    b"HTTP/1.1 429 Too Many Requests\r\n"
    b"content-type: application/json\r\n"
    b"retry-after: 1\r\n"
    b"connection: close\r\n"
    b"content-length: " + str(len(_BODY)).encode() + b"\r\n\r\n" + _BODY
)


class Held:
    """The connections each address holds open on one server."""

    __slots__ = ("counts", "warned")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.warned = -math.inf

    def take(self, address: str, cap: int) -> bool:
        """Whether ``address`` may open one more connection; if so it is counted."""
        held = self.counts.get(address, 0)
        if held >= cap:
            now = time.monotonic()
            if now - self.warned > _WARN_EVERY:
                self.warned = now
                log.warning("connections refused: %s holds %d already", address, held)
            return False
        self.counts[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self.counts.get(address, 0) - 1
        if held > 0:
            self.counts[address] = held
        else:
            self.counts.pop(address, None)


_HELD: weakref.WeakKeyDictionary[ServerState, Held] = weakref.WeakKeyDictionary()


def held_by(server_state: ServerState) -> Held:
    """The counts of one server (every protocol of it shares them)."""
    held = _HELD.get(server_state)
    if held is None:
        held = _HELD[server_state] = Held()
    return held


class Release:
    """A connection's place in its address's count, given back once, by whichever
    protocol holds the connection when it closes."""

    __slots__ = ("address", "held")

    def __init__(self, held: Held, address: str) -> None:
        self.held: Held | None = held
        self.address = address

    def __call__(self) -> None:
        if self.held is not None:
            self.held.release(self.address)
            self.held = None


class BoundedHTTP(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a bound on the time a request takes to arrive
    and on the connections of one address (see the module's docstring)."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        read_timeout: float,
        max_per_address: int,
        uncounted: AddressSet,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._read_timeout = read_timeout
        self._cap = max_per_address
        self._uncounted = uncounted
        self._held = held_by(server_state)
        self._release: Release | None = None
        self._began = -1.0  # when the request being read began (loop time); -1: none is
        self._read_timer: asyncio.TimerHandle | None = None

    def connection_made(  # type: ignore[override]  # uvicorn's protocol says Transport
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if self._cap and host is not None and host not in self._uncounted:
            if not self._held.take(host, self._cap):
                transport.write(TOO_MANY)
                transport.close()
                return
            self._release = Release(self._held, host)
        if self._read_timeout > 0:
            self._began = self.loop.time()
            self._arm(self._read_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_reading()
        if self._release is not None:
            self._release()
            self._release = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._read_timeout > 0 and self._began < 0:
            self._began = self.loop.time()
            if self._read_timer is None:
                self._arm(self._read_timeout)

    def on_message_complete(self) -> None:
        self._began = -1.0  # the timer, when it fires, finds nothing being read
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._stop_reading()
        super().handle_websocket_upgrade()
        release, self._release = self._release, None
        if release is None:
            return
        socket = self.transport.get_protocol()
        if socket is not self and hasattr(socket, "on_lost"):
            socket.on_lost = release  # counted until the WebSocket closes
        else:
            release()

    def _arm(self, delay: float) -> None:
        self._read_timer = self.loop.call_later(delay, self._read_expired)

    def _stop_reading(self) -> None:
        self._began = -1.0
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_expired(self) -> None:
        """The timer of the request being read: one a connection at a time, armed when a
        request begins with none pending, so that a keep-alive connection's requests cost
        no timer each. It closes the connection when the request began too long ago."""
        self._read_timer = None
        if self._began < 0 or self.transport.is_closing():
            return
        left = self._began + self._read_timeout - self.loop.time()
        if left > 0:
            self._arm(left)
            return
        log.debug("%s: a request took longer than %s s to arrive", self.client, self._read_timeout)
        self.transport.close()

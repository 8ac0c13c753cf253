"""How uvicorn serves the app: its options, made from the settings in one place for
``tablestate serve`` and for the tests' servers (docs/security.md, "The edge").

- **HTTP is served by** ``connections.BoundedHTTP``, uvicorn's httptools protocol with a
  bound on the time a request takes to arrive (``TABLESTATE_REQUEST_READ_TIMEOUT``) and on
  the connections one address holds (``TABLESTATE_MAX_CONNECTIONS_PER_ADDRESS``); a
  WebSocket stays counted in the latter until it closes (``BudgetedWebSockets.on_lost``).
- **The client address** is decided by the app alone (``ratelimit.Guard.client``, from
  ``TABLESTATE_TRUSTED_PROXIES``). uvicorn's own proxy-header handling is off: it would
  replace the TCP peer by an ``X-Forwarded-For`` address (from loopback peers by default,
  or whatever its ``FORWARDED_ALLOW_IPS`` says) before the app could tell, so that a
  setting of ours saying "trust nobody" meant nothing.
- **A WebSocket message over** ``TABLESTATE_MAX_BODY`` is refused by the protocol as soon
  as a frame's header announces it (close 1009), before its payload is read: uvicorn's
  default bound is 16 MiB, which the app only saw once it was all in memory. HTTP bodies
  need no such option: uvicorn's HTTP protocols stop reading while 64 KiB of a body wait
  unread, and ``app.BodyLimit`` refuses a body past the limit as it arrives.
- **Ping and pong frames**, which the protocol answers without the app seeing them, spend
  a budget of each socket (``TABLESTATE_WS_PING_RATE`` / ``_BURST``, the same bound as
  the app puts on ``ping`` messages); past it the socket is closed with 1008.
- **What a socket sends is parsed a little at a time** (``FEED`` bytes), and not while
  the app has a message still to take: uvicorn stops reading then, but it parsed all it
  had read already, up to 256 KiB, some 40,000 ping frames (a third of a second of the
  one event loop every client shares) before any bound could look at the first of them.
  Once the server has sent its close, it reads ``CLOSING_READ`` bytes more at most,
  waiting for the client's close, rather than parsing a flood for the closing timeout.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import struct
import weakref
from collections.abc import Callable
from typing import Any, Final

from uvicorn.config import Config
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.exceptions import InvalidState
from websockets.frames import Frame, apply_mask  # type: ignore[attr-defined]  # the C speedup
from websockets.protocol import State

from tablestate.config import Settings
from tablestate.connections import BoundedHTTP
from tablestate.edge import (
    ASGIReceiveEvent,
    ASGISendEvent,
    at_frame_start,
    extended,
    message_limit,
    mid_message,
    offer,
    queue_text_frame,
    withdraw,
)
from tablestate.mailbox import Flag, Mailbox
from tablestate.ratelimit import AddressSet, Budget

PING_INTERVAL: Final = 20.0  # seconds between the server's pings; as long for the answer
CLOSE_TOO_MANY_PINGS: Final = 1008  # policy violation
FEED: Final = 1024  # bytes given to the frame parser at a time (a message is mostly less)
CLOSING_READ: Final = 16 * 1024  # read at most this after the server's close frame
HELD: Final = 64 * 1024  # bytes of frames held for one write; more leave at once
_LENGTH16: Final = struct.Struct("!BBH")
_LENGTH64: Final = struct.Struct("!BBQ")
_TEXT_FIN: Final = 0x81  # FIN, opcode 1: a whole text message in one frame

log = logging.getLogger(__name__)


def frame_size(data: bytes, at: int, limit: int | None) -> int:
    """The size of the frame that starts at ``at`` when all of it is there; 0 while some
    is still to come; -1 when its header announces a payload past ``limit``."""
    left = len(data) - at
    if left < 2:
        return 0
    second = data[at + 1]
    length, head = second & 0x7F, 2
    if length == 126:
        if left < 4:
            return 0
        length, head = int.from_bytes(data[at + 2 : at + 4], "big"), 4
    elif length == 127:
        if left < 10:
            return 0
        length, head = int.from_bytes(data[at + 2 : at + 10], "big"), 10
    if limit is not None and length > limit:
        return -1
    size = head + (4 if second & 0x80 else 0) + length
    return size if left >= size else 0


def text_frame(data: bytes) -> bytes:
    """A server's frame of one whole text message (unmasked, no extension): what
    websockets' ``send_text`` makes of it, without its frame object and checks."""
    n = len(data)
    if n < 126:
        return bytes((_TEXT_FIN, n)) + data
    if n < 65536:
        return _LENGTH16.pack(_TEXT_FIN, 126, n) + data
    return _LENGTH64.pack(_TEXT_FIN, 127, n) + data


class _Flush:
    """The connections of one server with frames held this turn of the loop: one callback
    at the turn's end writes each (a live event reaches hundreds of spectators in a turn:
    one callback, not one each)."""

    __slots__ = ("due", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.due: list[BudgetedWebSockets] = []

    def add(self, conn: BudgetedWebSockets) -> None:
        if not self.due:
            self.loop.call_soon(self.run)
        self.due.append(conn)

    def run(self) -> None:
        due, self.due = self.due, []
        for conn in due:
            try:
                conn._write()
            except Exception:  # one connection's failure must not hold back the others
                log.exception("a WebSocket write failed")


_FLUSHES: weakref.WeakKeyDictionary[ServerState, _Flush] = weakref.WeakKeyDictionary()


def _flush_of(server_state: ServerState, loop: asyncio.AbstractEventLoop) -> _Flush:
    flush = _FLUSHES.get(server_state)
    if flush is None or flush.loop is not loop:
        flush = _FLUSHES[server_state] = _Flush(loop)
    return flush


class BudgetedWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol on websockets' Sans-I/O implementation, with the ping
    and pong frames of each connection bounded: past its budget the connection is closed,
    as a server closes a client that floods it with control frames.

    The messages sent to one connection in the same turn of the event loop leave in one
    write (a move's answer and its events: one system call, not three): a message is framed
    at once, in order with every other frame of the connection, and written at the end of
    the turn, or at once past ``HELD`` bytes, so the transport's flow control still holds
    back a sender that outruns its reader.

    It is the app's ``edge.Connection``: offered in each WebSocket's scope (``run_asgi``),
    it frames the app's text messages below ASGI (``send_text_now``) and hands the app a
    message where it waits for one (``text_sink``). What it reads of websockets' connection
    beyond its API is in ``edge``."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        ping_rate: float,
        ping_burst: int,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.queue = Mailbox()  # type: ignore[assignment]  # what uvicorn's receive takes from it
        self.writable = Flag()  # type: ignore[assignment]  # what a send waits on
        self.writable.set()
        self.pings = Budget(ping_rate, ping_burst)
        self._unparsed = b""  # read, not yet parsed
        self._read_after_close = 0
        self._held = -1  # bytes of messages framed, not yet written (-1: no write due)
        self._flush = _flush_of(server_state, self.loop)  # writes them at the turn's end
        self._limit = message_limit(self.conn)  # the largest message taken
        # Frames are cut here (``_framed``) once websockets' parser is at a frame boundary,
        # unless that can no longer be (``_cut`` off: compression, a refused header).
        self._framed = False
        self._cut = True
        # The app's way to take a text message at once while it waits for one with none
        # queued (True: taken; False: queue it, as for any message): see ``_take_text``.
        self.text_sink: Callable[[str], bool] | None = None
        self._app_waits = False
        # Gives back the connection's place in its address's count (connections.py).
        self.on_lost: Callable[[], None] | None = None

    async def run_asgi(self) -> None:
        offer(self.scope, self)  # the app's way to this connection (``edge.connection_of``)
        try:
            await super().run_asgi()
        finally:
            withdraw(self.scope)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.on_lost is not None:
            self.on_lost()
            self.on_lost = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._unparsed += data
        self._feed()

    def _feed(self) -> None:
        """Parse what was read, a frame (or, before frames are cut here, ``FEED`` bytes) at
        a time, until the app has a message to take (then ``receive`` goes on), the
        connection is closing, or all is parsed."""
        data, self._unparsed = self._unparsed, b""
        end, done = len(data), 0
        while done < end and not self.read_paused and not self.transport.is_closing():
            size = FEED
            if self._framed or self._at_frame_boundary():
                size = frame_size(data, done, self._limit)
                if size == 0:
                    break  # the rest of the frame is still to come
                if size < 0:  # a header past the limit: websockets refuses it (1009)
                    self._framed, self._cut = False, False
                    size = FEED
            if self.close_sent:
                self._read_after_close += min(size, end - done)
                if self._read_after_close > CLOSING_READ:  # a flood, not a close reply
                    self.transport.close()
                    return
            piece = data[done : done + size] if done or size < end else data
            done += size
            if not self._framed or not self._take_text(piece):
                super().data_received(piece)
        if done < end and not self.transport.is_closing():
            self._unparsed = data[done:]

    def _at_frame_boundary(self) -> bool:
        """Whether frames may be cut here from now on: once the handshake is done, with no
        extension (compression), when websockets' parser waits at a frame's start with
        nothing read (a client may not send frames before the handshake's answer, but one
        that does is parsed by websockets until it is at a boundary). From then on only
        whole frames reach websockets, so it stays at one."""
        if not self._cut or not self.handshake_complete:
            return False
        conn = self.conn
        if extended(conn) or conn.state is not State.OPEN:
            self._cut = False
            return False
        self._framed = at_frame_start(conn)
        return self._framed

    def _take_text(self, frame: bytes) -> bool:
        """Hand a whole one-frame text message straight to the app, as uvicorn does once
        websockets has parsed it (False: not such a message, websockets must parse it)."""
        conn = self.conn
        if (
            frame[0] != _TEXT_FIN
            or conn.state is not State.OPEN
            or mid_message(conn)
            or self.close_sent
        ):
            return False
        length = frame[1] & 0x7F
        if not frame[1] & 0x80 or length == 127:
            return False  # unmasked (a protocol error), or a length websockets checks
        head = 4 if length == 126 else 2
        try:
            text = apply_mask(frame[head + 4 :], frame[head : head + 4]).decode()
        except UnicodeDecodeError:
            return False  # websockets and uvicorn close the socket with 1007
        sink = self.text_sink
        if sink is not None and self._app_waits and self.queue.empty() and sink(text):
            return True  # the app took it where it stands: nothing to queue, reading goes on
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()
        return True

    async def receive(self) -> ASGIReceiveEvent:
        self._app_waits = self.queue.empty()
        try:
            message = await super().receive()
        finally:
            self._app_waits = False
        if self._unparsed and not self.read_paused:
            self._feed()
        return message

    async def send(self, message: ASGISendEvent) -> None:
        if message["type"] != "websocket.send" or not self._open():
            self._write()  # what is held goes first
            await super().send(message)
            if message["type"] == "websocket.accept" and self.handshake_complete:
                self._let_go_of_the_handshake()
        else:
            await self.writable.wait()
            if not self._open():  # closed while it waited: as uvicorn answers that
                await super().send(message)
                return
            data = message.get("bytes")
            text = message.get("text")
            if text is not None and self.send_text_now(text):
                return
            try:
                if data is not None:
                    self.conn.send_binary(data)
                elif text is not None:
                    data = text.encode()
                    self.conn.send_text(data)
            except InvalidState:
                raise ClientDisconnected() from None
            self._hold(len(data or b""))
        if message["type"] == "websocket.close" and self._unparsed:
            self._feed()  # the client's close reply may be in what waits

    def send_text_now(self, text: str) -> bool:
        """Frame a text message for this connection at once, in order with its other
        frames, when nothing stands in the way: the socket open and writable, no extension
        (compression) to apply. False: nothing was done, the ASGI ``send`` must take it (it
        waits for the socket to be writable, and answers a closed one). The app's
        WebSocket endpoint calls this below ASGI for each message it sends."""
        if not self.writable.is_set() or not self._open():
            return False
        data = text.encode()
        if not queue_text_frame(self.conn, text_frame(data)):
            return False
        self._hold(len(data))
        return True

    def _hold(self, size: int) -> None:
        """``size`` more bytes are framed: written at the end of the turn, or at once past
        ``HELD``."""
        if self._held < 0:
            self._held = 0
            self._flush.add(self)
        self._held += size
        if self._held > HELD:
            self._write()

    def _let_go_of_the_handshake(self) -> None:
        """The handshake is answered: what only it needed goes (a few KB a connection). The
        request's headers are emptied in place, as websockets' parser keeps the request in
        its frame for the connection's life; the app has its own copy in the scope."""
        self.request.headers.clear()
        self.request = self.response = None  # type: ignore[assignment]  # never read again

    def _open(self) -> bool:
        """Whether messages may be framed now: the handshake done, no close sent."""
        return (
            self.handshake_complete
            and not self.close_sent
            and not self.disconnected
            and self.initial_response is None
        )

    def _write(self) -> None:
        """Write the frames held (once a turn; or sooner, past ``HELD`` bytes)."""
        if self._held < 0:
            return
        self._held = -1
        output = self.conn.data_to_send()
        if output and not self.transport.is_closing():
            self.transport.write(b"".join(output))

    def handle_ping(self) -> None:
        if self._spend():
            super().handle_ping()

    def handle_pong(self, event: Frame) -> None:
        if self._spend():
            super().handle_pong(event)

    def _spend(self) -> bool:
        """Whether one more control frame may be answered; if not, the connection is
        closed (once: frames parsed in the same read are then ignored)."""
        if self.close_sent or self.transport.is_closing():
            return False
        if self.pings.spend():
            return True
        self.conn.fail(CLOSE_TOO_MANY_PINGS, "too many pings")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.transport.close()  # the app hears of it from connection_lost
        return False


def options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options (``uvicorn.run``, ``uvicorn.Config``) that the settings decide."""
    return {
        "http": functools.partial(
            BoundedHTTP,
            read_timeout=settings.request_read_timeout,
            max_per_address=settings.max_connections_per_address,
            uncounted=AddressSet(
                (*settings.trusted_proxies, *settings.rate_exempt, *settings.probe_exempt)
            ),
        ),
        "proxy_headers": False,
        "ws": functools.partial(
            BudgetedWebSockets, ping_rate=settings.ws_ping_rate, ping_burst=settings.ws_ping_burst
        ),
        "ws_max_size": settings.max_body,
        "ws_ping_interval": PING_INTERVAL,
        "ws_ping_timeout": PING_INTERVAL,
        # Events are small: compressing each message for each subscriber costs more CPU
        # than it saves on a LAN (per-message deflate was a tenth of a fan-out's CPU).
        "ws_per_message_deflate": settings.ws_compression,
        "timeout_graceful_shutdown": 10,
    }

"""The seam below ASGI: what the app asks of a live WebSocket beyond ASGI's messages, how
the server hands it over, and every read or write of websockets' connection that its
published Sans-I/O API does not offer. Nothing else in the service reaches below ASGI;
``api/upstream.py`` is the same seam on the GraphQL side (Strawberry's code we copy).

- **The connection** (``Connection``): a WebSocket's protocol object, as the server
  (``service/server.py``, ``BudgetedWebSockets``) implements it. The app frames a text
  message through it at once, without the ASGI round trip of a message dict through
  Starlette's WebSocket and the server's ``send``, and it gives the app a message the client
  sent where the app waits for one (``text_sink``). The API layer imports this protocol,
  never the server.
- **The hand-over** is an ASGI scope extension: the server puts the connection in the
  scope of the WebSocket it serves, under ``scope["extensions"]["tablestate.connection"]``
  (``{"connection": <Connection>}``: ASGI's extensions map a name to a dict), and the app
  reads it with ``connection_of``. A scope without it (another ASGI server, a test client)
  is served through ASGI alone, message by message, as before.
- **websockets' internals** (``at_frame_start``, ``mid_message``, ``queue_text_frame``,
  ``message_limit``, ``extended``): the server cuts what a client sends into whole frames
  and takes a one-frame text message itself, and frames the text messages it sends
  itself, in order with those websockets frames (docs/performance.md: a third of a move's
  CPU was websockets' and uvicorn's per-frame work). These follow websockets 17.4 (its
  ``Protocol`` in ``websockets/protocol.py`` and ``StreamReader`` in ``streams.py``) as
  uvicorn 0.55's ``websockets_sansio_impl.py`` drives it; uvicorn's own ASGI types come
  from its private ``uvicorn._types`` and are re-exported here.

The server is uvicorn's own, extended where uvicorn takes a protocol class: ``server.py``
and ``connections.py`` subclass its WebSocket and HTTP protocols (uvicorn 0.55.0) and say
which of their methods and state they rely on.

On a lock bump of websockets or uvicorn, read the diff of those files for the names used
here and there; ``tests/service/test_server.py`` cuts frames every way and fails when a
name moves or means something else (docs/architecture.md, "The edge as one seam").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol, cast, runtime_checkable

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent, WebSocketScope
from websockets.protocol import Protocol as SansIO
from websockets.protocol import State

__all__ = [
    "CONNECTION_KEY",
    "ASGIReceiveEvent",
    "ASGISendEvent",
    "Connection",
    "at_frame_start",
    "connection_of",
    "extended",
    "message_limit",
    "mid_message",
    "offer",
    "queue_text_frame",
    "withdraw",
]

CONNECTION_KEY: Final = "tablestate.connection"  # the scope extension of the hand-over


@runtime_checkable
class Connection(Protocol):
    """What the app asks of a live WebSocket below ASGI (the server implements it)."""

    text_sink: Callable[[str], bool] | None
    """Where a one-frame text message the client sends is offered first, while the app
    waits for a message with none queued: True, taken; False, queued as any other (the
    app sets it while its message loop runs and clears it after)."""

    def send_text_now(self, text: str) -> bool:
        """Frame a text message at once, in order with the connection's other frames;
        False: nothing was done, the ASGI ``send`` must take it (the socket not open or not
        writable, or an extension to apply)."""
        ...


def offer(scope: WebSocketScope, connection: Connection) -> None:
    """Put ``connection`` in the scope of the WebSocket it serves (the server, before it
    calls the app)."""
    scope.setdefault("extensions", {})[CONNECTION_KEY] = {"connection": connection}


def withdraw(scope: WebSocketScope) -> None:
    """Take the connection out of its scope once the app is done with it: the scope is
    the connection's own, and a connection in it would make the two a cycle."""
    extensions = scope.get("extensions")
    if extensions is not None:
        extensions.pop(CONNECTION_KEY, None)


def connection_of(scope: Mapping[str, Any]) -> Connection | None:
    """The connection the server offered in this WebSocket's scope, if it did."""
    offered = (scope.get("extensions") or {}).get(CONNECTION_KEY)
    return cast("Connection | None", offered.get("connection") if offered else None)


# -- websockets 17.4's connection, below its published API ---------------------------


def at_frame_start(conn: SansIO) -> bool:
    """Whether websockets' parser waits at the start of a frame, with nothing of it read
    and no parsed event left untaken: then whole frames may be fed to it, or taken by the
    server instead, from here on. The parser (``Protocol.parse``, a generator) waits between
    frames in ``StreamReader.at_eof``, reached through ``yield from``; ``reader.buffer``
    holds what it read and did not parse, ``events`` what it parsed and nobody took."""
    waiting: Any = conn.parser
    while getattr(waiting, "gi_yieldfrom", None) is not None:
        waiting = waiting.gi_yieldfrom
    return (
        getattr(waiting, "__name__", "") == "at_eof" and not conn.reader.buffer and not conn.events
    )


def extended(conn: SansIO) -> bool:
    """Whether the handshake agreed on an extension (per-message deflate): then every
    frame must go through websockets, which applies it."""
    return bool(conn.extensions)


def mid_message(conn: SansIO) -> bool:
    """Whether websockets holds the first frames of a fragmented message (a one-frame
    message now would be a protocol error that websockets must answer)."""
    return conn.current_size is not None


def message_limit(conn: SansIO) -> int | None:
    """The largest message websockets takes (uvicorn's ``ws_max_size``)."""
    return conn.max_message_size


def queue_text_frame(conn: SansIO, frame: bytes) -> bool:
    """Queue a frame the server made (``server.text_frame``) where websockets queues its
    own (``send_frame`` appends to ``writes``; ``data_to_send`` takes them all, in order),
    unless websockets must make it: the connection not open, an extension to apply, or a
    fragmented message of its own being sent. False: nothing was queued."""
    if conn.state is not State.OPEN or conn.extensions or conn.expect_continuation_frame:
        return False
    conn.writes.append(frame)
    return True

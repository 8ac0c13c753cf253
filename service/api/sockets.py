"""The WebSocket protocols, with the edge's limits: graphql-transport-ws (where ``makeMove``
and ``tableEvents`` may run through ``api.direct``) and the legacy graphql-ws, over a
socket that bounds its messages (docs/security.md). What of Strawberry's code they copy is
in ``api.upstream``; the server's connection below ASGI comes through ``edge``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from graphql import GraphQLError, GraphQLFormattedError
from starlette.websockets import WebSocketState
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import Operation
from strawberry.subscriptions.protocols.graphql_ws.handlers import BaseGraphQLWSHandler

from tablestate.api.bounds import too_long
from tablestate.api.context import Context
from tablestate.api.upstream import SENT_AFTER_CLOSE, Adapter, TransportHandler
from tablestate.edge import Connection, connection_of
from tablestate.ratelimit import Budget, Client, refusal

if TYPE_CHECKING:  # the app that makes these handlers, which imports this module
    from tablestate.api.view import GraphQLApp

log = logging.getLogger("tablestate.api")

CLOSE_TOO_MANY_MESSAGES: Final = 1008  # policy violation


async def _operation_refused(
    handler: Any, running: int, message: Any
) -> GraphQLFormattedError | None:
    """Why one more operation on this WebSocket is refused (a GraphQL error), if it is."""
    view = handler.view
    payload = message.get("payload")
    why = too_long(payload.get("query")) if isinstance(payload, dict) else None
    if why is not None:
        return {"message": why, "extensions": {"code": "QUERY_TOO_COMPLEX"}}
    cap = handler.max_subscriptions_per_connection
    if cap is not None and running >= cap:
        view.guard.metrics.inc("tablestate_errors_total", code="RATE_LIMITED")
        return {
            "message": f"at most {cap} operations at once on one connection",
            "extensions": {"code": "RATE_LIMITED"},
        }
    context: Context = handler.context
    wait = await view.guard.admit(context.client or Client("", False))
    return refusal(wait) if wait > 0 else None


async def _admitted(handler: Any, message: Any, start: str, stop: str, running: Any) -> bool:
    """Whether a WebSocket message may be handled. An operation (``start``) is counted
    against the address where it starts (``_operation_refused``), and stopping one that
    runs is part of it; any other message (``ping``, ``pong``, a stop of nothing, ...)
    spends the socket's budget, and past that the socket is closed (1008)."""
    kind = message.get("type")
    if kind == start or (kind == stop and message.get("id") in running):
        return True
    socket: Socket = handler.websocket
    return await socket.spend()


class TransportWS(TransportHandler):
    """graphql-transport-ws, with our limits on each operation and on every other message.
    A document that does not parse is answered like any refused one, with an ``error``
    message and its code (Strawberry would close the whole connection, and its other
    subscriptions, with 4400)."""

    view: GraphQLApp

    async def handle_message(self, message: Any) -> None:
        if await _admitted(self, message, "subscribe", "complete", self.operations):
            await super().handle_message(message)

    async def handle(self) -> None:
        lane = getattr(self.websocket, "lane", None)
        if lane is not None:
            lane.text_sink = self.take_now
        try:
            await super().handle()
        finally:
            if lane is not None:
                lane.text_sink = None

    async def handle_task_exception(self, error: Exception) -> None:
        """An operation's task failed: a client that left mid-send (its ``complete`` found
        the socket closed) is no bug, anything else is logged as one."""
        if isinstance(error, WebSocketDisconnected):
            log.debug("operation ended: the client left")
            return
        await super().handle_task_exception(error)

    async def run_operation(self, operation: Operation[Context, None]) -> None:
        """The operation's task: run where ``api.direct`` can run it, else through the
        schema's executor; every outcome is answered (a refusal before execution as an
        ``error`` message with its code, a bug as ``INTERNAL``), nothing once the client
        has left."""
        try:
            if not await self.view.direct.run(operation):
                await self.stream(operation)
        except asyncio.CancelledError:
            raise
        except WebSocketDisconnected:  # the client left: nothing to answer, nothing to log
            log.debug("operation %s ended: the client left", operation.id)
        except Exception:  # a bug: the client gets INTERNAL, never silence
            log.exception("operation %s failed", operation.id)
            error = GraphQLError("internal error", extensions={"code": "INTERNAL"})
            with contextlib.suppress(Exception):
                await operation.send_initial_errors([error])
        finally:
            if not operation.completed:
                self.operations.pop(operation.id, None)

    async def handle_subscribe(self, message: Any) -> None:
        op_id = message.get("id") if isinstance(message, dict) else None
        if self.connection_acknowledged and isinstance(op_id, str) and op_id not in self.operations:
            refused = await _operation_refused(self, len(self.operations), message)
            if refused is not None:
                await self.send_message({"id": op_id, "type": "error", "payload": [refused]})
                return
        await super().handle_subscribe(message)

    async def handle_connection_init(self, message: Any) -> None:
        await super().handle_connection_init(message)
        if self.connection_init_received:
            # Strawberry cancelled the wait for it: the task, done, is not worth keeping
            # for the connection's life (about 1 KB with its entry in asyncio's tasks).
            self.connection_init_timeout_task = None


class LegacyWS(BaseGraphQLWSHandler[Context, None]):
    """The legacy graphql-ws protocol, with our limits; like graphql-transport-ws, a second
    ``connection_init`` closes the connection (4429): nobody changes identity mid-way."""

    _initialised = False

    async def handle_message(self, message: Any) -> None:
        if await _admitted(self, message, "start", "stop", self.tasks):
            await super().handle_message(message)

    async def handle_connection_init(self, message: Any) -> None:
        if self._initialised:
            await self.websocket.close(code=4429, reason="Too many initialisation requests")
            return
        self._initialised = True
        await super().handle_connection_init(message)

    async def handle_start(self, message: Any) -> None:
        op_id = message.get("id") if isinstance(message, dict) else None
        if self.connection_acknowledged and isinstance(op_id, str):
            # A start with the id of a running operation replaces it (Strawberry stops the
            # old one): not one more at once, but one more to count.
            running = len(self.tasks) - (op_id in self.tasks)
            refused = await _operation_refused(self, running, message)
            if refused is not None:
                await self.send_message({"type": "error", "id": op_id, "payload": refused})
                return
        await super().handle_start(message)


class Socket(Adapter):
    """One WebSocket: refuses messages larger than ``TABLESTATE_MAX_BODY`` (close 1009; the
    ASGI server refuses them first, ``service/server.py``) and messages that are not JSON
    objects (close 4400); holds the socket's budget of messages that start no operation;
    and takes a send to a socket that is already closed for the client leaving."""

    view: GraphQLApp  # type: ignore[assignment]  # Strawberry's says: a view of no context

    def __init__(self, view: Any, request: Any, response: Any) -> None:
        super().__init__(view, request, response)
        s = view.services.settings
        self.budget = Budget(s.ws_ping_rate, s.ws_ping_burst)
        # The server's connection below ASGI (``edge.Connection``), when it offers one: a
        # message framed in one call where ASGI takes a message dict through Starlette's
        # WebSocket and the ASGI server's ``send``, and a message the client sends taken
        # where it is read (``take_now``).
        connection = connection_of(self.ws.scope)
        self._now: Callable[[str], bool] | None = (
            connection.send_text_now if connection is not None else None
        )
        self.lane: Connection | None = connection

    async def spend(self) -> bool:
        """Spend one message of the budget; past it, close the socket (False)."""
        if self.budget.spend():
            return True
        self.view.guard.metrics.inc("tablestate_errors_total", code="RATE_LIMITED")
        await self.close(CLOSE_TOO_MANY_MESSAGES, "too many messages")
        return False

    def send_json_now(self, message: Any) -> bool:
        """Send a message at once, below ASGI, if the socket takes it now (False: nothing
        was sent; ``send_json`` must)."""
        now = self._now
        if now is None or self.ws.application_state is not WebSocketState.CONNECTED:
            return False
        encoded = self.view.encode_json(message)
        return type(encoded) is str and now(encoded)

    def send_text_now(self, text: str) -> bool:
        """``send_json_now`` of a message already encoded: its JSON text."""
        now = self._now
        return (
            now is not None and self.ws.application_state is WebSocketState.CONNECTED and now(text)
        )

    async def close(self, code: int, reason: str) -> None:
        try:
            await super().close(code, reason)
        except RuntimeError as exc:
            if not any(text in str(exc) for text in SENT_AFTER_CLOSE):
                raise
            log.debug("WebSocket closed already: %s", exc)

"""The seam on the GraphQL side: Strawberry's code that the service copies and changes, and
the one private name of Strawberry's it reads, all following strawberry-graphql 0.341.2.

The rest of the service uses Strawberry as it is published: its views, handlers and
adapters subclassed at their documented hooks, their methods extended with ``super()``.
What is here could not be: a method whose middle had to change (a refusal answered where
Strawberry closes the connection, an operation started without an ``await``, a message
framed below ASGI), copied from the version above and changed. Each says what it copies and
what differs, and why. ``edge.py`` is the same seam below ASGI.

On a lock bump of strawberry-graphql, diff the upstream functions named below between the
two versions (``strawberry/subscriptions/protocols/graphql_transport_ws/handlers.py``,
``strawberry/asgi/__init__.py``, ``strawberry/http/async_base_view.py``,
``strawberry/schema/schema.py``) and carry their changes here; tests/service/api/test_ws.py,
test_direct.py and test_http.py compare the answers (docs/architecture.md, "The edge as one
seam").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any, Final

from cross_web import HTTPException
from graphql import GraphQLError, GraphQLSchema
from starlette.websockets import WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.exceptions import MissingQueryError
from strawberry.http.exceptions import (
    NonJsonMessageReceived,
    NonTextMessageReceived,
    WebSocketDisconnected,
)
from strawberry.schema.base import BaseSchema
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
)
from strawberry.types.execution import ExecutionResult, PreExecutionError
from strawberry.types.graphql import OperationType

from tablestate.api.bounds import TOO_BIG, too_long
from tablestate.api.context import Context
from tablestate.ratelimit import Client

__all__ = ["SENT_AFTER_CLOSE", "Adapter", "TransportHandler", "answer", "execute", "graphql_schema"]

log = logging.getLogger("tablestate.api")

STRAWBERRY_VERSION: Final = "0.341.2"  # the version whose code this module follows
# What the ASGI server and Starlette say when a message is sent to a socket that is closed
# already (the client left, a keep-alive timed out, the server is shutting down): a race,
# not a bug.
SENT_AFTER_CLOSE: Final = ("after sending 'websocket.close'", "once a close message has been sent")


def graphql_schema(schema: BaseSchema) -> GraphQLSchema:
    """graphql-core's schema under a Strawberry schema: ``Schema._schema``, which Strawberry
    builds in ``Schema.__init__`` and offers no public name for. The checks and the direct
    path validate and coerce against it as Strawberry's executor does."""
    found: GraphQLSchema = schema._schema  # type: ignore[attr-defined]  # no public name
    return found


class TransportHandler(BaseGraphQLTransportWSHandler[Context, None]):
    """Strawberry's graphql-transport-ws handler with two of its methods copied and
    changed; ``api.sockets.TransportWS`` adds the service's limits around them."""

    def take_now(self, text: str) -> bool:
        """Start an operation where its ``subscribe`` message is read, when the message loop
        waits with nothing before it and nothing stands in the way (its checks need no
        await); False: nothing was done, the loop takes the message as any other.

        Copies ``handle_subscribe``: its checks (acknowledged, an id not in use, the cap of
        operations) and its start of the operation's task. Differs: synchronous, from the
        message's text (the server offers it below ASGI, ``edge.Connection.text_sink``); a
        message any check would refuse, or that the service's own limits stop (the query's
        length, the address's rate as ``Guard.admit_now`` sees it without waiting), is left
        to the loop, which answers it as ``handle_subscribe`` and ``api.sockets`` do."""
        if not self.connection_acknowledged or '"subscribe"' not in text:
            return False
        view: Any = self.view
        try:
            message = view.decode_json(text)
        except Exception:  # anything wrong with it is answered by the loop
            return False
        if type(message) is not dict or message.get("type") != "subscribe":
            return False
        op_id, payload = message.get("id"), message.get("payload")
        if type(op_id) is not str or op_id in self.operations or type(payload) is not dict:
            return False
        query = payload.get("query")
        cap = self.max_subscriptions_per_connection
        if (
            type(query) is not str
            or too_long(query) is not None
            or (cap is not None and len(self.operations) >= cap)
            or not view.guard.admit_now(self.context.client or Client("", False))
        ):
            return False
        operation = Operation(
            self, op_id, query, payload.get("variables"), payload.get("operationName")
        )
        operation.task = asyncio.create_task(self.run_operation(operation))
        operation.task.add_done_callback(self._task_done)
        self.operations[op_id] = operation
        return True

    async def stream(self, operation: Operation[Context, None]) -> None:
        """Run the operation through the schema's executor and send its results.

        Copies ``run_operation``'s stream and ``_send_result_stream``. Differs: an error
        before execution, a document that does not parse included, is answered with an
        ``error`` message (Strawberry closes the connection with 4400 for a syntax error,
        and the connection's other subscriptions with it); incremental delivery is refused
        with ``BAD_INPUT`` as its code; failures are the caller's to answer
        (``TransportWS.run_operation``: ``INTERNAL``, or nothing once the client left)."""
        results = await self.schema.stream(
            operation.query,
            variable_values=operation.variables,
            context_value=self.context,
            root_value=self.root_value,
            operation_name=operation.operation_name,
        )
        async with contextlib.aclosing(results):
            first = True
            async for result in results:
                if first and isinstance(result, PreExecutionError):
                    await operation.send_initial_errors(result.errors or [])
                    return
                if not isinstance(result, ExecutionResult):  # @defer / @stream frames
                    error = GraphQLError(
                        "incremental delivery is not supported over graphql-transport-ws",
                        extensions={"code": "BAD_INPUT"},
                    )
                    await operation.send_initial_errors([error])
                    return
                await operation.send_next(result)
                first = False
        await operation.send_operation_message({"id": operation.id, "type": "complete"})


class Adapter(ASGIWebSocketAdapter):
    """Strawberry's ASGI WebSocket adapter with its message loop and its send copied and
    changed; ``api.sockets.Socket`` holds the budget they spend and the connection they
    frame through."""

    _now: Callable[[str], bool] | None  # the connection's ``send_text_now``, if offered

    async def spend(self) -> bool:
        """Spend one message of the socket's budget (False: past it, the socket closed)."""
        raise NotImplementedError

    async def iter_json(
        self, *, ignore_parsing_errors: bool = False
    ) -> AsyncGenerator[object, None]:
        """Copies ``ASGIWebSocketAdapter.iter_json``. Differs: a message the protocol
        ignores (legacy graphql-ws skips what is not JSON) still spends the budget; a
        message past ``TABLESTATE_MAX_BODY`` closes the socket with 1009 and one that is
        not a JSON object with 4400 (Strawberry's handlers would fail on it with a
        ``KeyError`` or ``TypeError``)."""
        view: Any = self.view
        try:
            while self.ws.application_state != WebSocketState.DISCONNECTED:
                text = await self.ws.receive_text()
                try:
                    message = view.decode_json(text)
                except json.JSONDecodeError as exc:
                    if not ignore_parsing_errors:
                        raise NonJsonMessageReceived from exc
                    if not await self.spend():
                        return
                    continue
                if message is TOO_BIG:
                    await self.close(1009, "message too big")
                    return
                if not isinstance(message, dict):
                    await self.close(4400, "a message is a JSON object")
                    return
                yield message
        except KeyError as exc:
            raise NonTextMessageReceived from exc
        except WebSocketDisconnect:
            pass

    async def send_json(self, message: Any) -> None:
        """Copies ``ASGIWebSocketAdapter.send_json``. Differs: a text message is framed at
        once below ASGI where the connection takes it (``edge.Connection``); a send to a
        socket closed already is ``WebSocketDisconnected``, as a client that left, where
        Starlette and the ASGI server raise ``RuntimeError``."""
        encoded = self.view.encode_json(message)
        now = self._now
        if (
            now is not None
            and type(encoded) is str
            and self.ws.application_state is WebSocketState.CONNECTED
            and now(encoded)
        ):
            return
        try:
            if isinstance(encoded, bytes):
                await self.ws.send_bytes(encoded)
            else:
                await self.ws.send_text(encoded)
        except WebSocketDisconnect as exc:
            raise WebSocketDisconnected from exc
        except RuntimeError as exc:
            if not any(text in str(exc) for text in SENT_AFTER_CLOSE):
                raise
            log.debug("message not sent, the WebSocket is closed: %s", exc)
            raise WebSocketDisconnected from None


async def answer(operation: Operation[Any, Any], payload: dict[str, Any]) -> None:
    """A mutation's ``next`` and ``complete``: each framed at once where the socket takes
    it (``Socket.send_json_now``).

    Copies ``Operation.send_operation_message``'s bookkeeping for the two: once the
    ``next`` is sent the operation ends, and its id is free (``forget_id``), before its
    ``complete`` is sent. Differs: no ``await`` between the two where both are framed at
    once; otherwise they go through ``send_operation_message`` as before."""
    handler = operation.handler
    now = getattr(handler.websocket, "send_json_now", None)
    message: Any = {"id": operation.id, "type": "next", "payload": payload}
    if now is None or operation.completed or not now(message):
        await operation.send_operation_message(message)
        await operation.send_operation_message({"id": operation.id, "type": "complete"})
        return
    operation.completed = True
    handler.operations.pop(operation.id, None)
    complete: Any = {"id": operation.id, "type": "complete"}
    if not now(complete):
        await handler.send_message(complete)


async def execute(
    schema: BaseSchema,
    request_adapter: Any,
    context: Context,
    root_value: Any,
    request_data: Any,
    allowed: set[OperationType],
    needs_stream: str,
) -> ExecutionResult:
    """One operation over HTTP that asked for no stream.

    Copies ``AsyncBaseHTTPView.execute_single``'s call and its answers to the errors before
    execution. Differs: the operation types allowed are the caller's (no subscription:
    ``GraphQLApp.execute_single``), and a subscription is answered with ``needs_stream``,
    how to ask for a stream, instead of Strawberry's "not allowed"."""
    try:
        return await schema.execute(
            request_data.query,
            root_value=root_value,
            variable_values=request_data.variables,
            context_value=context,
            operation_name=request_data.operation_name,
            allowed_operation_types=allowed,
            operation_extensions=request_data.extensions,
        )
    except CannotGetOperationTypeError as exc:
        raise HTTPException(400, exc.as_http_error_reason()) from exc
    except InvalidOperationTypeError as exc:
        if exc.operation_type is OperationType.SUBSCRIPTION:
            raise HTTPException(400, needs_stream) from exc
        raise HTTPException(400, exc.as_http_error_reason(request_adapter.method)) from exc
    except MissingQueryError as exc:
        raise HTTPException(400, "No GraphQL query found in the request") from exc

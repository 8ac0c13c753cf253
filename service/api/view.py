"""The GraphQL endpoint: HTTP and WebSocket, token auth on both, and the edge's defences
(origins, rate limits, connection caps, frame and JSON bounds: docs/security.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import AsyncGenerator
from datetime import timedelta
from typing import Any, Final

from cross_web import HTTPException
from graphql import GraphQLError
from graphql import OperationType as GraphQLOperationType
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter, GraphQL
from strawberry.exceptions import ConnectionRejectionError, MissingQueryError
from strawberry.http.exceptions import (
    NonJsonMessageReceived,
    NonTextMessageReceived,
    WebSocketDisconnected,
)
from strawberry.http.websocket_origin import is_same_origin, normalize_origin
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    _OperationStreamClosed,
)
from strawberry.subscriptions.protocols.graphql_ws.handlers import BaseGraphQLWSHandler
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType
from strawberry.types.unset import UNSET, UnsetType

from service import _json, logs
from service.api import fanout
from service.api.checks import Checks
from service.api.context import Context, Services
from service.api.direct import Direct
from service.errors import ApiError
from service.ratelimit import Budget, Client, Guard, refusal

log = logging.getLogger("tablestate.api")

MAX_JSON_DEPTH: Final = 32  # nesting of a request's JSON (moves and options need < 10)
MAX_QUERY_CHARS: Final = 20_000  # a document longer is refused before it is parsed
CONNECTION_INIT_WAIT: Final = timedelta(seconds=15)
CLOSE_TOO_MANY_MESSAGES: Final = 1008  # policy violation
# What the ASGI server and Starlette say when a message is sent to a socket that is closed
# already (the client left, a keep-alive timed out, the server is shutting down): a race,
# not a bug.
_SENT_AFTER_CLOSE: Final = ("after sending 'websocket.close'", "once a close message has been sent")


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header; "" (malformed) for other schemes."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "malformed"
    return token.strip()


def _depth_ok(value: Any, limit: int) -> bool:
    """Whether a decoded JSON value nests at most ``limit`` levels (iteratively)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return True


def _text_ok(value: Any) -> bool:
    """Whether every string of a decoded JSON value is valid Unicode (JSON's ``\\ud800``
    escapes make lone surrogates, which no UTF-8 encoder takes)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def _error(message: str, code: str, status: int, **headers: str) -> JSONResponse:
    return JSONResponse(
        {"errors": [{"message": message, "extensions": {"code": code}}]},
        status_code=status,
        headers=headers or None,
    )


def _limited(wait: float) -> JSONResponse:
    return JSONResponse(
        {"errors": [refusal(wait)]},
        status_code=429,
        headers={"Retry-After": str(max(1, math.ceil(wait)))},
    )


class _Refused(Exception):
    """A request refused before GraphQL sees it."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


def _too_long(query: Any) -> str | None:
    if isinstance(query, str) and len(query) > MAX_QUERY_CHARS:
        return f"the document is longer than {MAX_QUERY_CHARS} characters"
    return None


async def _operation_refused(handler: Any, running: int, message: Any) -> dict[str, Any] | None:
    """Why one more operation on this WebSocket is refused (a GraphQL error), if it is."""
    view: GraphQLApp = handler.view
    payload = message.get("payload")
    why = _too_long(payload.get("query")) if isinstance(payload, dict) else None
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
    return await handler.websocket.spend()


class _TransportWS(BaseGraphQLTransportWSHandler[Context, None]):
    """graphql-transport-ws, with our limits on each operation and on every other message.
    A document that does not parse is answered like any refused one, with an ``error``
    message and its code (Strawberry would close the whole connection, and its other
    subscriptions, with 4400)."""

    async def handle_message(self, message: Any) -> None:
        if await _admitted(self, message, "subscribe", "complete", self.operations):
            await super().handle_message(message)

    async def handle_task_exception(self, error: Exception) -> None:
        """An operation's task failed: a client that left mid-send (its ``complete`` found
        the socket closed) is no bug, anything else is logged as one."""
        if isinstance(error, WebSocketDisconnected):
            log.debug("operation ended: the client left")
            return
        await super().handle_task_exception(error)

    async def _handle_pre_execution_error(self, operation: Any, result: Any) -> None:
        await operation.send_initial_errors(result.errors)

    async def _send_result_stream(self, operation: Any, result_source: Any) -> None:
        try:
            await super()._send_result_stream(operation, result_source)
        except (asyncio.CancelledError, _OperationStreamClosed):
            raise
        except WebSocketDisconnected:  # the client left: nothing to answer, nothing to log
            self.operations.pop(operation.id, None)
            raise _OperationStreamClosed from None
        except Exception:  # a bug: the client gets INTERNAL, never a bare "complete"
            log.exception("operation %s failed", operation.id)
            error = GraphQLError("internal error", extensions={"code": "INTERNAL"})
            await operation.send_initial_errors([error])

    async def run_operation(self, operation: Any) -> None:
        """A ``makeMove`` or ``tableEvents`` that ``api.direct`` can run goes there."""
        direct: Direct = self.view.direct
        plan = direct.plan(operation.query, operation.operation_name)
        prepared = None
        if plan is not None:
            prepared = direct.prepare(plan, operation.variables, operation.operation_name)
        if plan is None or prepared is None:
            await super().run_operation(operation)
            return
        try:
            await direct.run(operation, plan, *prepared)
        except (asyncio.CancelledError, _OperationStreamClosed):
            raise
        except WebSocketDisconnected:
            self.operations.pop(operation.id, None)
        except Exception:  # a bug: the client gets INTERNAL, never silence
            log.exception("operation %s failed", operation.id)
            error = GraphQLError("internal error", extensions={"code": "INTERNAL"})
            with contextlib.suppress(Exception):
                await operation.send_initial_errors([error])
            self.operations.pop(operation.id, None)

    async def handle_subscribe(self, message: Any) -> None:
        op_id = message.get("id") if isinstance(message, dict) else None
        if self.connection_acknowledged and isinstance(op_id, str) and op_id not in self.operations:
            refused = await _operation_refused(self, len(self.operations), message)
            if refused is not None:
                await self.send_message({"id": op_id, "type": "error", "payload": [refused]})  # type: ignore[typeddict-item]
                return
        await super().handle_subscribe(message)


class _LegacyWS(BaseGraphQLWSHandler[Context, None]):
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
                await self.send_message({"type": "error", "id": op_id, "payload": refused})  # type: ignore[typeddict-item]
                return
        await super().handle_start(message)


class _Socket(ASGIWebSocketAdapter):
    """One WebSocket: refuses messages larger than ``TABLESTATE_MAX_BODY`` (close 1009; the
    ASGI server refuses them first, ``service/server.py``) and messages that are not JSON
    objects (close 4400); holds the socket's budget of messages that start no operation;
    and takes a send to a socket that is already closed for the client leaving."""

    def __init__(self, view: Any, request: Any, response: Any) -> None:
        super().__init__(view, request, response)
        s = view.services.settings
        self.budget = Budget(s.ws_ping_rate, s.ws_ping_burst)

    async def spend(self) -> bool:
        """Spend one message of the budget; past it, close the socket (False)."""
        if self.budget.spend():
            return True
        self.view.guard.metrics.inc("tablestate_errors_total", code="RATE_LIMITED")
        await self.close(CLOSE_TOO_MANY_MESSAGES, "too many messages")
        return False

    async def iter_json(
        self, *, ignore_parsing_errors: bool = False
    ) -> AsyncGenerator[object, None]:
        # Strawberry's loop, where a message the protocol ignores (legacy graphql-ws skips
        # what is not JSON) still spends the budget.
        try:
            while self.ws.application_state != WebSocketState.DISCONNECTED:
                text = await self.ws.receive_text()
                try:
                    message = self.view.decode_json(text)
                except json.JSONDecodeError as exc:
                    if not ignore_parsing_errors:
                        raise NonJsonMessageReceived from exc
                    if not await self.spend():
                        return
                    continue
                if message is _TOO_BIG:
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
        try:
            await super().send_json(message)
        except RuntimeError as exc:
            if not any(text in str(exc) for text in _SENT_AFTER_CLOSE):
                raise
            log.debug("message not sent, the WebSocket is closed: %s", exc)
            raise WebSocketDisconnected from None

    async def close(self, code: int, reason: str) -> None:
        try:
            await super().close(code, reason)
        except RuntimeError as exc:
            if not any(text in str(exc) for text in _SENT_AFTER_CLOSE):
                raise
            log.debug("WebSocket closed already: %s", exc)


_TOO_BIG: Final = object()


class GraphQLApp(GraphQL[Context, None]):
    """Strawberry's ASGI app with our context, WebSocket auth, limits and JSON errors."""

    graphql_transport_ws_handler_class = _TransportWS
    graphql_ws_handler_class = _LegacyWS
    websocket_adapter_class = _Socket  # type: ignore[assignment]

    def __init__(self, services: Services, schema: Any) -> None:
        s = services.settings
        super().__init__(
            schema,
            graphql_ide="graphiql" if s.graphiql else None,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL),
            max_subscriptions_per_connection=s.max_subscriptions_per_connection,
            allowed_origins=s.allowed_origins,
            connection_init_wait_timeout=CONNECTION_INIT_WAIT,
        )
        if services.guard is None:
            services.guard = Guard(s, services.tables.store)
        self.services = services
        self.guard = services.guard
        checks = next(e for e in schema.extensions if isinstance(e, type) and issubclass(e, Checks))
        self.direct = Direct(schema, checks, enabled=s.direct_operations)

    # -- JSON --------------------------------------------------------------------------

    def decode_json(self, data: str | bytes) -> object:
        """JSON of a body or a WebSocket message: bounded in size and nesting."""
        if len(data) > self.services.settings.max_body:
            return _TOO_BIG
        try:
            value = _json.loads(data)
        except RecursionError:
            raise json.JSONDecodeError("nested too deeply", "", 0) from None
        if not _depth_ok(value, MAX_JSON_DEPTH):
            raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH}", "", 0)
        escaped = b"\\u" if isinstance(data, bytes) else "\\u"
        if escaped in data and not _text_ok(value):  # type: ignore[operator]
            raise json.JSONDecodeError("a string is not valid Unicode", "", 0)
        return value

    def encode_json(self, data: object) -> str | bytes:
        """JSON of an answer; a subscription result shared by several subscribers is
        encoded once (``api/fanout.py``)."""
        shared = fanout.shared_payload(data)
        if shared is not None:
            return fanout.encode_message(data, shared)  # type: ignore[arg-type]
        return _json.dumps(data)

    def parse_json(self, data: str | bytes) -> Any:
        value = self.decode_json(data)
        if value is _TOO_BIG:
            raise HTTPException(413, "request too large")
        if isinstance(value, list):
            # No batching: one operation per request keeps the rate limits and the cost
            # bound per request exact (docs/security.md).
            raise HTTPException(400, "batched requests are not accepted: send one operation")
        if not isinstance(value, dict):
            raise HTTPException(400, "the request body must be a JSON object")
        if (why := _too_long(value.get("query"))) is not None:
            raise _Refused("QUERY_TOO_COMPLEX", why, 400)
        return value

    async def execute_single(
        self,
        request: Any,
        request_adapter: Any,
        sub_response: Any,
        context: Context,
        root_value: Any,
        request_data: Any,
    ) -> Any:
        """One operation over HTTP: queries and mutations only (subscriptions need a
        WebSocket; Strawberry would run one as a query and fail inside)."""
        allowed = OperationType.from_http(request_adapter.method) - {OperationType.SUBSCRIPTION}
        if OperationType.MUTATION in allowed:
            moved = await self._direct_move(context, request_data)
            if moved is not None:
                return moved
        try:
            return await self.schema.execute(
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
            raise HTTPException(400, exc.as_http_error_reason(request_adapter.method)) from exc
        except MissingQueryError as exc:
            raise HTTPException(400, "No GraphQL query found in the request") from exc

    async def _direct_move(self, context: Context, request_data: Any) -> Any:
        """A ``makeMove`` that ``api.direct`` can run, run there (None: it cannot)."""
        plan = self.direct.plan(request_data.query, request_data.operation_name)
        if plan is None or plan.operation.operation is not GraphQLOperationType.MUTATION:
            return None
        prepared = self.direct.prepare(plan, request_data.variables, request_data.operation_name)
        if prepared is None:
            return None
        _, errors, data = await self.direct.move(context, plan, *prepared)
        return ExecutionResult(data=data, errors=errors or None)

    # -- auth --------------------------------------------------------------------------

    async def get_context(self, request: Request | WebSocket, response: Any = None) -> Context:
        token = None
        if isinstance(request, Request):
            token = bearer(request.headers.get("authorization"))
        context = Context(self.services, token=token, client=self.guard.client(request.scope))
        logs.request_id.set(context.request_id)
        return context

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        params = context.connection_params or {}
        token = params.get("authToken")
        if token is not None and not isinstance(token, str):
            raise ConnectionRejectionError({"code": "UNAUTHENTICATED"})
        context.token = token
        try:
            await context.credential()
        except ApiError as exc:
            raise ConnectionRejectionError({"code": exc.code, "message": exc.message}) from exc
        return UNSET

    # -- the edge ----------------------------------------------------------------------

    def origin_allowed(self, headers: Any) -> bool:
        """Browsers' requests from other origins only from ``TABLESTATE_ALLOWED_ORIGINS``
        (requests without ``Origin`` are not from a page: allowed)."""
        origin = headers.get("origin")
        if origin is None or "*" in self.allowed_origins:
            return True
        if headers.get("sec-fetch-site") == "same-origin":
            return True
        if is_same_origin(origin, headers.get("host")):
            return True
        return normalize_origin(origin) in self.allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = self.guard.client(scope)
        if scope["type"] == "websocket":
            await self._websocket(client, scope, receive, send)
            return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope=scope, receive=receive)
        response: Response
        if not self.origin_allowed(request.headers):
            response = _error("this origin may not call the API", "FORBIDDEN", 403)
        elif (wait := await self.guard.admit(client)) > 0:
            response = _limited(wait)
        else:
            try:
                response = await self.run(request)
            except HTTPException as exc:
                code = "BAD_INPUT" if exc.status_code < 500 else "INTERNAL"
                response = _error(exc.reason, code, exc.status_code)
            except _Refused as exc:
                response = _error(exc.message, exc.code, exc.status)
        await response(scope, receive, send)

    async def _websocket(self, client: Client, scope: Scope, receive: Receive, send: Send) -> None:
        websocket = WebSocket(scope, receive=receive, send=send)
        wait = await self.guard.admit(client)
        if wait > 0:
            await self._deny(websocket, _limited(wait))
            return
        if not self.guard.open_socket(client):
            cap = self.services.settings.max_ws_per_address
            denial = _error(f"at most {cap} WebSockets per address", "RATE_LIMITED", 429)
            await self._deny(websocket, denial)
            return
        try:
            await self.run(websocket)
        finally:
            self.guard.close_socket(client)

    async def _deny(self, websocket: WebSocket, response: Response) -> None:
        """Refuse a WebSocket handshake with an HTTP answer (or a 1008 close)."""
        try:
            await websocket.send_denial_response(response)
        except RuntimeError:
            await websocket.close(code=1008)

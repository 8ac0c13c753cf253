"""The GraphQL endpoint: HTTP and WebSocket, token auth on both, and the edge's defences
(origins, rate limits, connection caps, frame and JSON bounds: docs/security.md); the
WebSocket protocols themselves are in ``api/sockets.py``.

Subscriptions also run over HTTP, as a stream Strawberry writes: graphql-sse's distinct
connections mode (``Accept: text/event-stream``) and multipart HTTP (``Accept:
multipart/mixed;subscriptionSpec=1.0``). They are requests like any other at the edge
(origins, the address's rate), each stream open counts as a WebSocket against
``TABLESTATE_MAX_WS_PER_ADDRESS``, and they run the same resolvers, checks and
redaction as over a WebSocket (``api/resolvers/events.py``)."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import re
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import timedelta
from types import MappingProxyType
from typing import Any, Final

from cross_web import HTTPException
from graphql import GraphQLError
from graphql import OperationType as GraphQLOperationType
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.http.streaming import MultipartSubscriptionTransport, SSETransport
from strawberry.http.websocket_origin import is_same_origin, normalize_origin
from strawberry.subscriptions import (
    GRAPHQL_SSE_PROTOCOL,
    GRAPHQL_TRANSPORT_WS_PROTOCOL,
    GRAPHQL_WS_PROTOCOL,
    MULTIPART_SUBSCRIPTION_PROTOCOL,
)
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType
from strawberry.types.unset import UnsetType

from tablestate import _json, logs, tracing
from tablestate.api import fanout
from tablestate.api.bounds import MAX_JSON_DEPTH, TOO_BIG, depth_ok, text_ok, too_long
from tablestate.api.checks import Checks
from tablestate.api.context import Context, Services
from tablestate.api.cost import chosen_operation
from tablestate.api.direct import Direct
from tablestate.api.shape import cached_parse
from tablestate.api.sockets import LegacyWS, Socket, TransportWS
from tablestate.api.upstream import execute
from tablestate.config import LOCAL_ORIGIN
from tablestate.errors import ApiError
from tablestate.ratelimit import Client, Guard, refusal

log = logging.getLogger("tablestate.api")

CONNECTION_INIT_WAIT: Final = timedelta(seconds=15)
PROTOCOLS: Final = (
    GRAPHQL_TRANSPORT_WS_PROTOCOL,
    GRAPHQL_WS_PROTOCOL,
    GRAPHQL_SSE_PROTOCOL,
    MULTIPART_SUBSCRIPTION_PROTOCOL,
)
NEEDS_STREAM: Final = (
    "a subscription needs a stream: a WebSocket (graphql-transport-ws), or HTTP with "
    "`Accept: text/event-stream` (graphql-sse) or `Accept: multipart/mixed;subscriptionSpec=1.0`"
)


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header; "" (malformed) for other schemes."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "malformed"
    return token.strip()


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


RESPONSE_JSON: Final = "application/graphql-response+json"
_JSON: Final = "application/json"
# The media type of this request's JSON answer (``_http`` sets it, ``create_response`` and
# ``_http`` answer with it): a context variable, as Strawberry's ``run`` sits in between.
_answer: ContextVar[str] = ContextVar("tablestate_answer", default=_JSON)


def answer_type(accept: str) -> str:
    """The media type of a JSON answer to a request with this ``Accept``: GraphQL over HTTP's
    ``application/graphql-response+json`` when the client takes it at least as gladly as
    ``application/json`` (by their q values), else ``application/json`` (the spec's legacy
    type, for a client that sends no ``Accept`` or only ``*/*``)."""
    if "graphql-response+json" not in accept:
        return _JSON
    best = {_JSON: -1.0, RESPONSE_JSON: -1.0}
    for part in accept.split(","):
        kind, _, params = part.partition(";")
        kind = kind.strip().lower()
        if kind not in best:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        best[kind] = max(best[kind], q)
    return (
        RESPONSE_JSON if best[RESPONSE_JSON] > 0 and best[RESPONSE_JSON] >= best[_JSON] else _JSON
    )


def _request_error(answer: object) -> bool:
    """Whether an answer is a GraphQL request error: no data, and errors raised before
    execution (parsing, validation, the variables' coercion, the operation's limits), which
    never carry a ``path``; a field's error always does."""
    if not isinstance(answer, dict) or answer.get("data") is not None:
        return False
    errors = answer.get("errors") or ()
    return bool(errors) and all("path" not in e for e in errors)


ROUTE: Final = "/graphql"  # the route this endpoint is mounted at (service/app.py)


def _status_of(span: Any, send: Send) -> Send:
    """``send``, telling the request's span the status of its answer."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            tracing.http_status(span, message["status"])
        await send(message)

    return sending


def _takes_json(accept: str) -> bool:
    types = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    return bool(types & {"application/json", "application/graphql-response+json"})


def _is_subscription(data: GraphQLRequestData, max_tokens: int) -> bool:
    """Whether the request's operation is a subscription (a document that does not parse
    is answered as JSON, with its error)."""
    if not isinstance(data.query, str):
        return False
    try:
        document = cached_parse(data.query, max_tokens=max_tokens)
    except GraphQLError:
        return False
    operation = chosen_operation(document, data.operation_name)
    return operation is not None and operation.operation is GraphQLOperationType.SUBSCRIPTION


def _trace_operation(data: GraphQLRequestData, max_tokens: int) -> None:
    """The request's operation on its span (a document that does not parse names none)."""
    if not isinstance(data.query, str):
        return
    try:
        document = cached_parse(data.query, max_tokens=max_tokens)
    except GraphQLError:
        return
    operation = chosen_operation(document, data.operation_name)
    if operation is not None:
        name = operation.name.value if operation.name is not None else None
        tracing.graphql_operation(operation.operation.value, name)


def _brackets(text: str | bytes) -> int:
    """How many ``{`` and ``[`` a JSON text holds: its value nests no deeper (a message
    of a few brackets needs no walk to know it)."""
    if isinstance(text, bytes):
        return text.count(b"{") + text.count(b"[")
    return text.count("{") + text.count("[")


class LineFeedSSE(SSETransport):
    """graphql-sse's events with LF line ends, as most servers write them (both are valid):
    urql's parser finds an event's end at a blank LF line only."""

    def encode_event(self, event: str, data: str | None = None) -> str:
        return super().encode_event(event, data).replace("\r\n", "\n")

    def encode_comment(self, comment: str) -> str:
        return f": {comment}\n\n"


class MultipartSubscriptions(MultipartSubscriptionTransport):
    """Multipart HTTP subscriptions answered as ``multipart/mixed`` alone: Strawberry's
    Content-Type ends in ``,application/json``, which is no media type's parameter and which
    no multipart parser expects."""

    @property
    def headers(self) -> Mapping[str, str]:
        return {"Content-Type": f"multipart/mixed;boundary={self.separator};subscriptionSpec=1.0"}


# graphql-sse's single connection mode reserves a stream with a PUT, then sends operations
# naming it by a token header; Strawberry serves the distinct connections mode only.
STREAM_TOKEN: Final = "x-graphql-event-stream-token"
SINGLE_CONNECTION: Final = (
    "graphql-sse's single connection mode (a PUT reservation, then operations naming its "
    "token) is not served: use its distinct connections mode, each subscription a POST "
    "with Accept: text/event-stream (the graphql-sse client's default, singleConnection: false)"
)


class _Refused(Exception):
    """A request refused before GraphQL sees it."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


class GraphQLApp(GraphQL[Context, None]):
    """Strawberry's ASGI app with our context, WebSocket auth, limits and JSON errors."""

    stream_transport_classes_by_protocol = MappingProxyType(
        {
            MULTIPART_SUBSCRIPTION_PROTOCOL: MultipartSubscriptions,
            GRAPHQL_SSE_PROTOCOL: LineFeedSSE,
        }
    )
    graphql_transport_ws_handler_class = TransportWS
    graphql_ws_handler_class = LegacyWS
    websocket_adapter_class = Socket

    def __init__(self, services: Services, schema: Any) -> None:
        s = services.settings
        super().__init__(
            schema,
            graphql_ide="graphiql" if s.graphiql else None,
            subscription_protocols=PROTOCOLS,
            max_subscriptions_per_connection=s.max_subscriptions_per_connection,
            allowed_origins=s.allowed_origins,
            connection_init_wait_timeout=CONNECTION_INIT_WAIT,
        )
        if services.guard is None:
            services.guard = Guard(s, services.tables.store)
        self.local_origin = re.compile(LOCAL_ORIGIN) if s.local_origins else None
        self.services = services
        self.guard = services.guard
        checks = next(e for e in schema.extensions if isinstance(e, type) and issubclass(e, Checks))
        self.direct = Direct(schema, checks, enabled=s.direct_operations)

    # -- JSON --------------------------------------------------------------------------

    def decode_json(self, data: str | bytes) -> object:
        """JSON of a body or a WebSocket message: bounded in size and nesting."""
        if len(data) > self.services.settings.max_body:
            return TOO_BIG
        try:
            value = _json.loads(data)
        except RecursionError:
            raise json.JSONDecodeError("nested too deeply", "", 0) from None
        if _brackets(data) > MAX_JSON_DEPTH and not depth_ok(value, MAX_JSON_DEPTH):
            raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH}", "", 0)
        escaped = b"\\u" in data if isinstance(data, bytes) else "\\u" in data
        if escaped and not text_ok(value):
            raise json.JSONDecodeError("a string is not valid Unicode", "", 0)
        return value

    def encode_json(self, data: object) -> str | bytes:
        """JSON of an answer; a subscription result shared by several subscribers is
        encoded once (``api/fanout.py``), over a WebSocket or an HTTP stream."""
        shared = fanout.shared_payload(data)
        if shared is not None:
            return fanout.encode_message(data, shared)  # type: ignore[arg-type]  # a dict, as found
        shared = fanout.shared_result(data)
        if shared is not None:
            return fanout.encode_result(data, shared)  # type: ignore[arg-type]  # a dict, as found
        return _json.dumps(data)

    def parse_json(self, data: str | bytes) -> Any:
        value = self.decode_json(data)
        if value is TOO_BIG:
            raise HTTPException(413, "request too large")
        if isinstance(value, list):
            # No batching: one operation per request keeps the rate limits and the cost
            # bound per request exact (docs/security.md).
            raise HTTPException(400, "batched requests are not accepted: send one operation")
        if not isinstance(value, dict):
            raise HTTPException(400, "the request body must be a JSON object")
        if (why := too_long(value.get("query"))) is not None:
            raise _Refused("QUERY_TOO_COMPLEX", why, 400)
        return value

    async def parse_http_body(self, request_adapter: Any) -> Any:
        """The request; a query or a mutation from a client that takes JSON as well as a
        stream (urql asks for ``text/event-stream`` with every operation) is answered with
        JSON: no stream to hold open, and a move runs directly."""
        data = await super().parse_http_body(request_adapter)
        if tracing.enabled() and isinstance(data, GraphQLRequestData):
            _trace_operation(data, self.direct.checks.max_tokens)
        if (
            isinstance(data, GraphQLRequestData)
            and data.protocol != "http"
            and _takes_json(request_adapter.headers.get("accept", ""))
            and not _is_subscription(data, self.direct.checks.max_tokens)
        ):
            data = dataclasses.replace(data, protocol="http")
        return data

    async def execute_single(
        self,
        request: Any,
        request_adapter: Any,
        sub_response: Any,
        context: Context,
        root_value: Any,
        request_data: Any,
    ) -> Any:
        """One operation over HTTP that asked for no stream: queries and mutations only
        (a subscription is answered with how to ask for a stream)."""
        allowed = OperationType.from_http(request_adapter.method) - {OperationType.SUBSCRIPTION}
        if OperationType.MUTATION in allowed:
            moved = await self._direct_move(context, request_data)
            if moved is not None:
                return moved
        return await execute(
            self.schema, request_adapter, context, root_value, request_data, allowed, NEEDS_STREAM
        )

    def create_response(self, response_data: Any, sub_response: Response) -> Response:
        """Strawberry's JSON answer; to a client that takes ``application/graphql-response+json``
        a request error is a 400 without ``data`` (GraphQL over HTTP: the request did not
        execute), a field error stays a 200 with its ``data``."""
        if tracing.enabled() and isinstance(response_data, dict) and response_data.get("errors"):
            tracing.graphql_errors(
                [str((e.get("extensions") or {}).get("code", "")) for e in response_data["errors"]]
            )
        if _answer.get() == RESPONSE_JSON and _request_error(response_data):
            without: GraphQLHTTPResponse = {"errors": response_data["errors"]}
            if "extensions" in response_data:
                without["extensions"] = response_data["extensions"]
            response = super().create_response(without, sub_response)
            response.status_code = 400
            return response
        return super().create_response(response_data, sub_response)

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
        return UnsetType()  # UNSET, the one instance (typed Any where Strawberry names it)

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
        return self.listed(origin)

    def listed(self, origin: str) -> bool:
        """An origin of ``TABLESTATE_ALLOWED_ORIGINS`` (``*``: any), or a development server's
        on this machine (``http://localhost:PORT``, ``TABLESTATE_LOCAL_ORIGINS``)."""
        if "*" in self.allowed_origins:
            return True
        normal = normalize_origin(origin)
        if normal is None:
            return False
        if normal in self.allowed_origins:
            return True
        return self.local_origin is not None and self.local_origin.fullmatch(normal) is not None

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:
        """Strawberry's hook for a cross-origin WebSocket handshake: the same list as HTTP."""
        return self.listed(origin)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = self.guard.client(scope)
        if scope["type"] == "websocket":
            await self._websocket(client, scope, receive, send)
            return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope=scope, receive=receive)
        traced = tracing.request(
            request.headers, request.method, ROUTE, scope["path"], scope.get("scheme", "http")
        )
        with traced as span:
            if span is not None:
                send = _status_of(span, send)
            await self._http(client, request, scope, receive, send)

    async def _http(
        self, client: Client, request: Request, scope: Scope, receive: Receive, send: Send
    ) -> None:
        response: Response
        media = answer_type(request.headers.get("accept", ""))
        _answer.set(media)
        if not self.origin_allowed(request.headers):
            response = _error("this origin may not call the API", "FORBIDDEN", 403)
        elif (wait := await self.guard.admit(client)) > 0:
            response = _limited(wait)
        elif request.method == "PUT":
            response = _error(SINGLE_CONNECTION, "BAD_INPUT", 405, Allow="GET, POST")
        elif STREAM_TOKEN in request.headers:
            response = _error(SINGLE_CONNECTION, "BAD_INPUT", 400)
        else:
            try:
                response = await self.run(request)
            except HTTPException as exc:
                code = "BAD_INPUT" if exc.status_code < 500 else "INTERNAL"
                response = _error(exc.reason, code, exc.status_code)
            except _Refused as exc:
                response = _error(exc.message, exc.code, exc.status)
            if isinstance(response, StreamingResponse):
                await self._stream(client, response, scope, receive, send)
                return
        if media == RESPONSE_JSON and response.media_type == _JSON:
            response.headers["content-type"] = RESPONSE_JSON
        await response(scope, receive, send)

    async def _stream(
        self, client: Client, response: Response, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Send a stream (graphql-sse, multipart): counted as an open WebSocket of its
        address while it lasts. The stream has not started when it is refused, so nothing
        ran."""
        if not self.guard.open_socket(client):
            cap = self.services.settings.max_ws_per_address
            refused = _error(f"at most {cap} streams per address", "RATE_LIMITED", 429)
            await refused(scope, receive, send)
            return
        try:
            await response(scope, receive, send)
        finally:
            self.guard.close_socket(client)

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

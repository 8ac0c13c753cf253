"""The GraphQL endpoint: HTTP and WebSocket, token auth on both."""

from __future__ import annotations

from typing import Any

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from service import logs
from service.api.context import Context, Services
from service.errors import ApiError


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header; "" (malformed) for other schemes."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "malformed"
    return token.strip()


class GraphQLApp(GraphQL[Context, None]):
    """Strawberry's ASGI app with our context, WebSocket auth and JSON errors."""

    def __init__(self, services: Services, schema: Any) -> None:
        s = services.settings
        super().__init__(
            schema,
            graphql_ide="graphiql" if s.graphiql else None,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL),
            max_subscriptions_per_connection=s.max_subscriptions_per_connection,
            allowed_origins=s.allowed_origins,
        )
        self.services = services

    async def get_context(self, request: Request | WebSocket, response: Any = None) -> Context:
        token = None
        if isinstance(request, Request):
            token = bearer(request.headers.get("authorization"))
        context = Context(self.services, token=token)
        logs.request_id.set(context.request_id)
        return context

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        params = context.connection_params or {}
        token = params.get("authToken")
        if token is not None and not isinstance(token, str):
            raise ConnectionRejectionError({"code": "UNAUTHENTICATED"})
        context.token = token
        try:
            await context.viewer()
        except ApiError as exc:
            raise ConnectionRejectionError({"code": exc.code, "message": exc.message}) from exc
        return UNSET

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope=scope, receive=receive)
        try:
            response: Response = await self.run(request)
        except HTTPException as exc:
            code = "BAD_INPUT" if exc.status_code < 500 else "INTERNAL"
            response = JSONResponse(
                {"errors": [{"message": exc.reason, "extensions": {"code": code}}]},
                status_code=exc.status_code,
            )
        await response(scope, receive, send)

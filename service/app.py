"""The ASGI application: ``/graphql`` (HTTP + WebSocket), ``/healthz``, ``/readyz``,
``/metrics`` (``api/probes.py``)."""

from __future__ import annotations

import contextlib
import gc
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from tablestate import logs, plugins, tracing, webviews
from tablestate.api.context import Services
from tablestate.api.probes import Probes
from tablestate.api.schema import build_schema
from tablestate.api.view import GraphQLApp
from tablestate.archive.db import ArchiveUnavailable
from tablestate.config import LOCAL_ORIGIN, Settings
from tablestate.hub import Hub
from tablestate.identity import Identity
from tablestate.lobby import LobbyHub
from tablestate.metrics import Metrics
from tablestate.ratelimit import Guard
from tablestate.store.base import StateStore
from tablestate.tables import TableService

log = logging.getLogger("tablestate.app")

WEB_DIR = Path(__file__).resolve().parents[1] / "web"


def web_dir(settings: Settings) -> Path | None:
    """The reference client's folder: ``TABLESTATE_WEB_DIR``, else ``web/`` of the checkout."""
    found = Path(settings.web_dir) if settings.web_dir else WEB_DIR
    return found if (found / "index.html").is_file() else None


GC_THRESHOLDS: Final = (50_000, 20, 100)


def tune_gc() -> None:
    """Make the cyclic garbage collector cheap for a server: what start-up made (modules,
    the schema, the plugins) is frozen out of its reach, and young objects are collected
    every 50,000 allocations rather than 700. Each GraphQL operation allocates thousands
    of objects, so with the defaults the collector ran several times per move and
    traversed every live object now and then: a third of the CPU of the peer benchmark's
    phase B (docs/performance-history.md, "What the performance work changed"). Reference
    counting frees almost everything anyway; cycles merely wait a little longer."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def open_store(settings: Settings) -> StateStore:
    """The Redis store when ``REDIS_URL`` is set, else the embedded memory store."""
    if settings.redis_url:
        from tablestate.store.redis import RedisStore

        return RedisStore.from_url(
            settings.redis_url,
            prefix=settings.redis_prefix,
            max_connections=settings.redis_max_connections,
            timeout=settings.redis_timeout,
            chat_kept=settings.chat_kept,
            idempotency_kept=settings.idempotency_kept,
            cluster=settings.redis_cluster,
            ack=settings.redis_ack,
            ack_timeout=settings.redis_ack_timeout,
            snapshot_deltas=settings.snapshot_deltas,
        )
    from tablestate.store.memory import MemoryStore

    return MemoryStore(chat_kept=settings.chat_kept, idempotency_kept=settings.idempotency_kept)


class BodyLimit:
    """Refuses request bodies over ``limit`` bytes (``TABLESTATE_MAX_BODY``) with a
    ``BAD_INPUT`` error, from ``Content-Length`` or as the body arrives."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._refuse(scope, receive, send)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse(
            {"errors": [{"message": "request too large", "extensions": {"code": "BAD_INPUT"}}]},
            status_code=413,
        )
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass


_HOST: Final = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$")
_API_PATHS: Final = ("/graphql", "/healthz", "/readyz", "/metrics")


def page_policy(host: str | None) -> str:
    """The Content-Security-Policy of the web client: its own ES modules and styles only,
    no inline code, ``fetch`` and WebSockets to its own host only, never in a frame."""
    connect = "'self'"
    if host and _HOST.match(host):
        connect += f" ws://{host} wss://{host}"
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"font-src 'self'; connect-src {connect}; manifest-src 'self'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


class SecurityHeaders:
    """Headers on every HTTP answer: no MIME sniffing, no referrer, no framing; the web
    client's pages also get their Content-Security-Policy (GraphiQL, which loads its code
    from a CDN, only ``frame-ancestors``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        api = path.startswith(_API_PATHS)
        host = None
        for name, value in scope.get("headers", ()):
            if name == b"host":
                host = value.decode("latin-1")

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
                policy = "frame-ancestors 'none'" if api else page_policy(host)
                headers.setdefault("Content-Security-Policy", policy)
            await send(message)

        await self.app(scope, receive, with_headers)


class ViewFiles(StaticFiles):
    """A game's view folder (``tablestate.webviews``): ``StaticFiles`` (which also refuses a
    symbolic link leading out, and answers with the page's validators, ``ETag`` and
    ``Last-Modified``) that serves only what ``webviews.servable`` allows."""

    def get_path(self, scope: Scope) -> str:
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        found = webviews.servable(path[len(root) :] if path.startswith(root) else path)
        if found is None:
            raise HTTPException(status_code=404)
        return found


class App(Starlette):
    """Starlette, with a WebSocket to ``/graphql`` handed straight to the GraphQL endpoint.

    Nothing on the way does anything for such a socket (the middleware of ``create_app``
    only serves HTTP, Starlette's exception middleware only answers its own exceptions,
    which the endpoint never raises, and the router would pick the same endpoint), yet each
    of those layers kept a coroutine frame alive for the socket's life: some 3 KB a
    connection. Every other scope, and a WebSocket to any other path, takes the stack."""

    graphql: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            self.graphql is not None
            and scope["type"] == "websocket"
            and scope["path"] == scope.get("root_path", "") + "/graphql"
        ):
            scope["app"] = self
            await self.graphql(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    registry: plugins.Registry | None = None,
    store: StateStore | None = None,
    clock: Callable[[], float] = time.time,
) -> App:
    """The service as an ASGI app. Missing parts come from the settings (environment);
    ``clock`` (epoch seconds) drives turn clocks and grace periods (tests set it)."""
    settings = settings or Settings.from_env()
    if not logging.getLogger().handlers:
        logs.configure(settings.log_level)
    tracing.configure(settings.tracing)
    registry = registry or plugins.load(
        settings.plugins, settings.disable, trace=settings.trace_plugins
    )
    store = store or open_store(settings)
    metrics = Metrics()
    tables = TableService(settings, registry, store, metrics, clock)
    hub = Hub(store, metrics, settings.subscriber_queue, tables.reads.load_table)
    tables.on_commit = hub.local_commit
    tables.on_append = hub.appending
    guard = Guard(settings, store, metrics)
    services = Services(
        settings,
        registry,
        tables,
        hub,
        guard,
        LobbyHub(store, settings.subscriber_queue),
        Identity(settings) if settings.sign_in else None,
    )
    schema = build_schema(registry, settings, metrics)
    graphql = GraphQLApp(services, schema)

    archiver = tables.archiver
    probes = Probes(
        settings,
        store,
        metrics,
        guard,
        degraded=lambda: archiver is not None and archiver.degraded,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if settings.gc_tuning:
            tune_gc()
        verify = getattr(store, "verify", None)  # the Redis store: can it keep its promise?
        if verify is not None:
            await verify()
        if archiver is not None and settings.migrate:
            try:
                await archiver.archive.migrate()
            except ArchiveUnavailable as exc:  # play goes on; archiving waits and retries
                log.error("could not migrate the archive's database: %s", exc)
        tables.start_worker()
        try:
            yield
        finally:
            await tables.close()
            await hub.close()
            await store.close()
            metrics.close()

    routes: list[Any] = [
        # PUT reaches the endpoint only to be refused with its reason (graphql-sse single
        # connection mode, api/view.py).
        Route("/graphql", graphql, methods=["GET", "POST", "PUT"]),
        WebSocketRoute("/graphql", graphql),
        *probes.routes(),
    ]
    # Each game's own view module and the files beside it, before the page's catch-all.
    for game_id in sorted(registry.games):
        spec = registry.games[game_id].web_view
        if spec is not None:
            files = ViewFiles(directory=webviews.locate(spec).folder)
            routes.append(Mount(f"{webviews.URL_PREFIX}/{game_id}", app=files))
    site = web_dir(settings)
    if site is not None:
        routes.append(Mount("/", app=StaticFiles(directory=site, html=True), name="web"))
    app = App(routes=routes, lifespan=lifespan)
    app.graphql = graphql
    app.add_middleware(BodyLimit, limit=settings.max_body)
    # Browsers on the allowed origins may call the API with a token (no cookies are used).
    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(settings.allowed_origins),
        allow_origin_regex=LOCAL_ORIGIN if settings.local_origins else None,
        allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type"],
        max_age=600,
    )
    app.add_middleware(SecurityHeaders)
    app.state.services = services
    app.state.schema = schema
    app.state.graphql = graphql
    app.state.guard = guard
    return app

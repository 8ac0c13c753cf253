"""A real uvicorn server in the test's event loop, and a small GraphQL client over it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from tablestate.app import create_app
from tablestate.config import Settings
from tablestate.plugins import Registry
from tablestate.server import options
from tablestate.store.base import StateStore


def make_settings(**overrides: object) -> Settings:
    """Settings for tests: a fixed secret, short expiries, and loopback trusted as a proxy:
    the tests stand in for one, naming the client of a request in ``X-Forwarded-For``."""
    base = Settings(
        secret=b"test-secret", idle_ttl=3600, finished_ttl=600, trusted_proxies=("127.0.0.1",)
    )
    return base.with_overrides(**overrides)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class GraphQLFailed(AssertionError):
    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(json.dumps(errors))
        self.errors = errors
        self.code = errors[0].get("extensions", {}).get("code")


@dataclass
class Client:
    """A GraphQL client over HTTP to the test server."""

    http: httpx.AsyncClient
    url: str
    app: Any = None  # the ASGI app served (``app.state`` holds its parts)

    async def raw(self, query: str, token: str | None = None, **variables: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=headers
        )
        return r.json()  # type: ignore[no-any-return]

    async def q(self, query: str, token: str | None = None, **variables: Any) -> Any:
        """The data of a query that must succeed."""
        body = await self.raw(query, token, **variables)
        if body.get("errors"):
            raise GraphQLFailed(body["errors"])
        return body["data"]

    async def code(self, query: str, token: str | None = None, **variables: Any) -> str:
        """The error code of a query that must fail."""
        body = await self.raw(query, token, **variables)
        assert body.get("errors"), f"expected an error, got {str(body)[:500]}"
        return str(body["errors"][0]["extensions"]["code"])

    def ws(self, protocol: str = "graphql-transport-ws") -> Any:
        return connect(self.url.replace("http", "ws") + "/graphql", subprotocols=[protocol])


@contextlib.asynccontextmanager
async def serve(
    settings: Settings,
    registry: Registry | None = None,
    store: StateStore | None = None,
    clock: Callable[[], float] = time.time,
) -> AsyncIterator[Client]:
    """Run the service on a free port with uvicorn, configured as ``tablestate serve`` runs
    it, until the block ends (``clock``: the service's time, for turn clocks and grace
    periods)."""
    app = create_app(settings, registry, store, clock)
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", **options(settings)
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    if task.done():
        task.result()
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            yield Client(http, url, app)
    finally:
        server.should_exit = True
        await task


async def ws_init(conn: ClientConnection, token: str | None = None) -> dict[str, Any]:
    payload = {"authToken": token} if token else {}
    await conn.send(json.dumps({"type": "connection_init", "payload": payload}))
    return json.loads(await asyncio.wait_for(conn.recv(), 5))  # type: ignore[no-any-return]


async def ws_next(conn: ClientConnection, timeout: float = 5) -> dict[str, Any]:
    while True:
        msg = json.loads(await asyncio.wait_for(conn.recv(), timeout))
        if msg.get("type") in ("ka", "ping", "pong"):
            continue
        return msg  # type: ignore[no-any-return]


async def subscribed(c: Client) -> None:
    """Until the server counts the subscription: from then on every event of the table is
    queued for it (a subscription still replaying the log would take the game from there)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while "tablestate_subscribers 1.0" not in (await c.http.get("/metrics")).text:
        assert loop.time() < deadline, "the subscription never started"
        await asyncio.sleep(0.02)


async def overflowed(c: Client) -> None:
    """Until a subscriber's queue has overflowed (however long the bots take)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while "tablestate_slow_consumers_total 1.0" not in (await c.http.get("/metrics")).text:
        assert loop.time() < deadline, "the subscriber's queue never overflowed"
        await asyncio.sleep(0.05)

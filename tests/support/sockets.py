"""A GraphQL WebSocket read in the background: every operation's messages by id, so that a
test can run queries and moves on a socket while its subscriptions keep receiving."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import defaultdict
from collections.abc import AsyncIterator
from typing import Any

from support.server import Client, ws_init

TRANSPORT = "graphql-transport-ws"
LEGACY = "graphql-ws"


def codes_of(msg: dict[str, Any]) -> list[str]:
    """The error codes of an ``error`` or ``next``/``data`` message."""
    payload = msg.get("payload")
    if msg["type"] == "error":
        errors = payload if isinstance(payload, list) else [payload]
    else:
        errors = (payload or {}).get("errors") or []
    return [str(e.get("extensions", {}).get("code")) for e in errors]


class Socket:
    """One connection after its ``connection_ack``; ``messages[op]``: what came for ``op``."""

    def __init__(self, conn: Any, protocol: str) -> None:
        self.conn, self.protocol = conn, protocol
        self.messages: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.ends: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.arrived = asyncio.Event()
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                msg = json.loads(await self.conn.recv())
                if msg.get("type") in ("ka", "ping", "pong") or "id" not in msg:
                    continue
                op = str(msg["id"])
                self.messages[op].append(msg)
                if msg["type"] in ("complete", "error") or codes_of(msg):
                    self.ends[op].set()
                self.arrived.set()

    async def start(self, op: str, query: str, **variables: Any) -> None:
        kind = "subscribe" if self.protocol == TRANSPORT else "start"
        payload = {"query": query, "variables": variables}
        await self.conn.send(json.dumps({"id": op, "type": kind, "payload": payload}))

    async def ask(self, op: str, query: str, **variables: Any) -> dict[str, Any]:
        """Run an operation; its first answer."""
        await self.start(op, query, **variables)
        await self.wait(lambda: bool(self.answers(op)))
        return self.answers(op)[0]

    def answers(self, op: str) -> list[dict[str, Any]]:
        return [m for m in self.messages[op] if m["type"] != "complete"]

    def data(self, op: str) -> Any:
        """The data of an operation's first answer, which must hold no error."""
        (first, *_) = self.answers(op)
        assert not codes_of(first), first
        return first["payload"]["data"]

    def events(self, op: str) -> list[dict[str, Any]]:
        """The ``tableEvents`` a subscription received."""
        return [
            m["payload"]["data"]["tableEvents"]
            for m in self.messages[op]
            if m["type"] in ("next", "data") and (m["payload"].get("data") or {}).get("tableEvents")
        ]

    def codes(self, op: str) -> list[str]:
        return [c for m in self.messages[op] for c in codes_of(m)]

    async def wait(self, check: Any, timeout: float = 10) -> None:
        """Until ``check()`` holds, as messages come."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not check():
            self.arrived.clear()
            left = end - loop.time()
            assert left > 0, "the awaited message never came"
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)


@contextlib.asynccontextmanager
async def opened(c: Client, token: str | None, protocol: str = TRANSPORT) -> AsyncIterator[Socket]:
    """A socket of ``c``'s server, initialised with ``token``."""
    async with c.ws(protocol) as conn:
        assert (await ws_init(conn, token))["type"] == "connection_ack"
        socket = Socket(conn, protocol)
        try:
            yield socket
        finally:
            socket.task.cancel()

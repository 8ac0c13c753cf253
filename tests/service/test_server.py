"""The WebSocket protocol the service runs under uvicorn (``service.server``): the messages
sent to one connection in the same turn of the event loop leave in one write, in order, and
a sender past ``HELD`` bytes writes at once (so the transport's flow control holds)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import uvicorn
from websockets.asyncio.client import connect

from service.server import HELD, BudgetedWebSockets
from tests.support.server import free_port, make_settings

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class _Counted:
    """A transport that counts the writes made through it."""

    def __init__(self, transport: Any, writes: list[int]) -> None:
        self._transport = transport
        self._writes = writes

    def write(self, data: bytes) -> None:
        if data:
            self._writes.append(len(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CountingWebSockets(BudgetedWebSockets):
    writes: ClassVar[list[int]] = []
    made: ClassVar[list[BudgetedWebSockets]] = []

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        CountingWebSockets.made.append(self)
        self.transport = _Counted(self.transport, CountingWebSockets.writes)


@asynccontextmanager
async def running(
    app: Callable[[dict[str, Any], Receive, Send], Awaitable[None]],
) -> AsyncIterator[str]:
    settings = make_settings()
    port = free_port()
    ws = functools.partial(
        CountingWebSockets, ping_rate=settings.ws_ping_rate, ping_burst=settings.ws_ping_burst
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws=ws)
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    try:
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        await task


def sending(messages: list[str], then_close: bool = False) -> Any:
    """An ASGI app that accepts, waits for one message, then sends ``messages`` without
    yielding in between (and closes, if asked)."""

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await receive()  # the client's first message
        for text in messages:
            await send({"type": "websocket.send", "text": text})
        if then_close:
            await send({"type": "websocket.close", "code": 4000})
        while (await receive())["type"] != "websocket.disconnect":
            pass

    return app


async def exchange(url: str, count: int) -> tuple[list[str], list[int]]:
    """The messages received after saying hello, and the server's writes meanwhile."""
    async with connect(url) as conn:
        CountingWebSockets.writes.clear()
        await conn.send("hello")
        got = [str(await asyncio.wait_for(conn.recv(), 5)) for _ in range(count)]
        return got, list(CountingWebSockets.writes)


async def test_messages_of_one_turn_leave_in_one_write() -> None:
    messages = [f"message {i}" for i in range(3)]
    async with running(sending(messages)) as url:
        got, writes = await exchange(url, 3)
    assert got == messages
    assert len(writes) == 1, writes


async def test_a_close_leaves_after_the_messages_before_it() -> None:
    messages = ["first", "second"]
    async with running(sending(messages, then_close=True)) as url:
        async with connect(url) as conn:
            await conn.send("hello")
            assert [await conn.recv() for _ in messages] == messages
            await asyncio.wait_for(conn.wait_closed(), 5)
            assert conn.close_code == 4000


async def test_past_the_held_bytes_a_message_leaves_at_once() -> None:
    big = "x" * (HELD // 2 + 1)
    messages = [big] * 6
    async with running(sending(messages)) as url:
        got, writes = await exchange(url, 6)
    assert got == messages
    assert len(writes) >= 3, writes  # two messages pass HELD: written then, not at the turn's end
    assert max(writes) < 2 * HELD + 1024, writes


async def test_after_the_handshake_only_the_scope_keeps_the_request_headers() -> None:
    seen: list[list[tuple[bytes, bytes]]] = []

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        await receive()
        seen.append(list(scope["headers"]))
        await send({"type": "websocket.send", "text": "ok"})
        while (await receive())["type"] != "websocket.disconnect":
            pass

    CountingWebSockets.made.clear()
    async with running(app) as url:
        async with connect(url, additional_headers={"X-Probe": "kept"}) as conn:
            await conn.send("hello")
            assert await conn.recv() == "ok"
            (protocol,) = CountingWebSockets.made
            assert protocol.request is None and protocol.response is None
    assert (b"x-probe", b"kept") in seen[0]

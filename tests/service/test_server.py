"""The WebSocket protocol the service runs under uvicorn (``tablestate.server``): the messages
sent to one connection in the same turn of the event loop leave in one write, in order, and
a sender past ``HELD`` bytes writes at once (so the transport's flow control holds)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode, apply_mask
from websockets.protocol import State
from websockets.uri import parse_uri

from tablestate.server import HELD, BudgetedWebSockets, _Flush, text_frame
from tests.support.server import free_port, make_settings

LIMIT = 2**20  # the largest message the servers here take
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
    taken: ClassVar[list[bool]] = []  # whether each whole frame was taken below websockets

    def _take_text(self, frame: bytes) -> bool:
        taken = super()._take_text(frame)
        CountingWebSockets.taken.append(taken)
        return taken

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        CountingWebSockets.made.append(self)
        self.transport = _Counted(self.transport, CountingWebSockets.writes)


@asynccontextmanager
async def running(
    app: Callable[[dict[str, Any], Receive, Send], Awaitable[None]], compression: bool = False
) -> AsyncIterator[str]:
    """The app under uvicorn with our protocol; without compression (the service's default)
    text messages are framed below ASGI (``send_text_now``), with it by websockets."""
    settings = make_settings()
    port = free_port()
    ws = functools.partial(
        CountingWebSockets, ping_rate=settings.ws_ping_rate, ping_burst=settings.ws_ping_burst
    )
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws=ws,
        ws_per_message_deflate=compression,
        ws_max_size=LIMIT,
    )
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


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70_000], ids=lambda n: f"{n} bytes")
def test_a_text_frame_is_the_one_websockets_makes(size: int) -> None:
    data = ("é" * size).encode()[:size]
    assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])


@pytest.mark.parametrize("compression", [False, True], ids=["framed here", "deflated"])
async def test_messages_of_one_turn_leave_in_one_write(compression: bool) -> None:
    messages = [f"message {i}" for i in range(3)]
    async with running(sending(messages), compression) as url:
        got, writes = await exchange(url, 3)
    assert got == messages
    assert len(writes) == 1, writes


@pytest.mark.parametrize("compression", [False, True], ids=["framed here", "deflated"])
async def test_messages_of_every_length_arrive_whole(compression: bool) -> None:
    messages = ["", "ü" * 63, "x" * 126, "ß" * 40_000, "y" * 70_000]
    async with running(sending(messages), compression) as url:
        got, _ = await exchange(url, len(messages))
    assert got == messages


@pytest.mark.parametrize("compression", [False, True], ids=["framed here", "deflated"])
async def test_a_close_leaves_after_the_messages_before_it(compression: bool) -> None:
    messages = ["first", "second"]
    async with running(sending(messages, then_close=True), compression) as url:
        async with connect(url) as conn:
            await conn.send("hello")
            assert [await conn.recv() for _ in messages] == messages
            await asyncio.wait_for(conn.wait_closed(), 5)
            assert conn.close_code == 4000


async def test_past_the_held_bytes_a_message_leaves_at_once() -> None:
    big = "x" * (HELD // 2 + 1)
    messages = [big] * 6
    async with running(sending(messages)) as url:  # uncompressed: every byte counts
        got, writes = await exchange(url, 6)
    assert got == messages
    assert len(writes) >= 3, writes  # two messages pass HELD: written then, not at the turn's end
    assert max(writes) < 2 * HELD + 1024, writes


class _Conn:
    """What the flush asks of a connection: its ``_write``."""

    def __init__(self, name: str, written: list[str], fails: bool = False) -> None:
        self.name, self.written, self.fails = name, written, fails

    def _write(self) -> None:
        if self.fails:
            raise OSError("the socket broke")
        self.written.append(self.name)


async def test_one_callback_a_turn_writes_every_connection_even_past_a_failing_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop = asyncio.get_running_loop()
    flush = _Flush(loop)
    written: list[str] = []
    scheduled: list[Any] = []
    real = loop.call_soon

    def counting(callback: Any, *args: Any, **kw: Any) -> Any:
        scheduled.append(callback)
        return real(callback, *args, **kw)

    with monkeypatch.context() as patch:
        patch.setattr(loop, "call_soon", counting)
        for conn in (_Conn("a", written), _Conn("b", written, fails=True), _Conn("c", written)):
            flush.add(conn)  # type: ignore[arg-type]
    assert len(scheduled) == 1  # one callback for the turn, not one per connection
    assert written == []  # nothing leaves before the turn ends
    await asyncio.sleep(0)
    assert written == ["a", "c"]  # the broken one is logged; the others still leave
    flush.add(_Conn("d", written))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    assert written == ["a", "c", "d"]  # a later turn schedules its own


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


def echoing(heard: list[str] | None = None) -> Any:
    """An ASGI app that answers every text message with the same text (and notes it in
    ``heard``)."""

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            if heard is not None:
                heard.append(message["text"])
            else:
                await send({"type": "websocket.send", "text": message["text"]})

    return app


async def raw_exchange(
    url: str, frames: Callable[[ClientProtocol], None], cut: Callable[[bytes], list[bytes]]
) -> tuple[list[str], int | None]:
    """Open a WebSocket by hand, send the frames ``frames`` makes, its bytes in the pieces
    ``cut`` makes of them (each its own write), and read what comes back until the server
    closes or goes quiet: the texts received and the close code."""
    host, port = url.removeprefix("ws://").rstrip("/").split(":")
    client = ClientProtocol(parse_uri(url))
    reader, writer = await asyncio.open_connection(host, int(port))
    client.send_request(client.connect())
    writer.write(b"".join(client.data_to_send()))
    while client.state is not State.OPEN:
        client.receive_data(await asyncio.wait_for(reader.read(65536), 5))
        client.events_received()
    frames(client)
    for piece in cut(b"".join(client.data_to_send())):
        writer.write(piece)
        await writer.drain()
    texts: list[str] = []
    code = None
    try:
        while code is None:
            data = await asyncio.wait_for(reader.read(65536), 2)
            if not data:
                break
            client.receive_data(data)
            for event in client.events_received():
                if event.opcode is Opcode.TEXT:
                    texts.append(event.data.decode())
                elif event.opcode is Opcode.CLOSE:
                    code = Close.parse(event.data).code
    except TimeoutError:
        pass
    writer.close()
    return texts, code


def _whole(data: bytes) -> list[bytes]:
    return [data]


def _bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def _odd(data: bytes) -> list[bytes]:
    return [data[i : i + 7] for i in range(0, len(data), 7)]


MESSAGES = ["", "ü" * 62, "x" * 126, "ß" * 40_000, "y" * 70_000, '{"type":"ping"}']


@pytest.mark.parametrize("cut", [_whole, _bytewise, _odd], ids=["one write", "bytewise", "by 7"])
async def test_text_frames_reach_the_app_whole_however_they_are_cut(cut: Any) -> None:
    def frames(client: ClientProtocol) -> None:
        for text in MESSAGES:
            client.send_text(text.encode())

    CountingWebSockets.taken.clear()
    async with running(echoing()) as url:
        got, code = await raw_exchange(url, frames, cut)
    assert got == MESSAGES and code is None
    # websockets parses only the message of a 64-bit length
    assert CountingWebSockets.taken == [len(text.encode()) < 65536 for text in MESSAGES]


async def test_a_fragmented_message_and_a_ping_between_frames_reach_the_app() -> None:
    def frames(client: ClientProtocol) -> None:
        client.send_text(b"one ")
        client.send_text(b"two ", fin=False)
        client.send_ping(b"hi")
        client.send_continuation(b"three ", fin=False)
        client.send_continuation(b"four", fin=True)
        client.send_text(b"five")

    CountingWebSockets.taken.clear()
    async with running(echoing()) as url:
        got, code = await raw_exchange(url, frames, _odd)
    assert got == ["one ", "two three four", "five"] and code is None
    # the whole messages below websockets, the fragments and the ping through it
    assert CountingWebSockets.taken == [True, False, False, False, False, True]


def masked(first: int, payload: bytes) -> bytes:
    """A client's frame made by hand (its first byte as given): what a client's library
    would refuse to make."""
    assert len(payload) < 126
    mask = b"\x01\x02\x03\x04"
    return bytes((first, 0x80 | len(payload))) + mask + apply_mask(payload, mask)


@pytest.mark.parametrize(
    "bad, code",
    [
        pytest.param(masked(0x81, b"ok \xff"), 1007, id="not UTF-8"),
        pytest.param(masked(0x80, b"x"), 1002, id="a continuation of nothing"),
        pytest.param(masked(0xC1, b"x"), 1002, id="an extension's bit"),
        pytest.param(bytes((0x81, 1)) + b"x", 1002, id="unmasked"),
    ],
)
async def test_a_bad_frame_after_good_ones_closes_the_socket(bad: bytes, code: int) -> None:
    def frames(client: ClientProtocol) -> None:
        client.send_text(b"before")

    heard: list[str] = []
    async with running(echoing(heard)) as url:
        _, closed = await raw_exchange(url, frames, lambda data: [data + bad + data])
    assert heard == ["before"] and closed == code


async def test_a_frame_past_the_limit_is_refused_by_its_header() -> None:
    def frames(client: ClientProtocol) -> None:
        client.send_text(b"fits")
        client.send_text(b"x" * (LIMIT + 1))

    heard: list[str] = []
    async with running(echoing(heard)) as url:
        _, code = await raw_exchange(url, frames, lambda data: [data[:200]])
    assert heard == ["fits"] and code == 1009

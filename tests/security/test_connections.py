"""Connections that never finish a request (docs/security.md, "Connections that never
finish a request"): a connection that has not sent a whole request in
``TABLESTATE_REQUEST_READ_TIMEOUT`` is closed, and one address holds at most
``TABLESTATE_MAX_CONNECTIONS_PER_ADDRESS`` connections of any kind, while other clients are
answered. Every server here is a real uvicorn configured as ``tablestate serve`` runs it.

The attacker connects from 127.0.0.2, another client from 127.0.0.3: loopback addresses,
distinct peers to the server, neither exempt nor a trusted proxy (127.0.0.1 is both)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator

import httpx
import pytest
from support.raw_ws import TEXT, RawSocket, frame
from support.server import Client, make_settings, serve
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from tablestate.config import ConfigError, Settings
from tablestate.connections import BoundedHTTP
from tablestate.plugins import Registry
from tablestate.server import options
from tablestate.store.memory import MemoryStore

ATTACKER, OTHER = "127.0.0.2", "127.0.0.3"
PARTIAL = b"POST /graphql HTTP/1.1\r\n"
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"


def port_of(c: Client) -> int:
    return int(c.url.rsplit(":", 1)[1])


async def _open(c: Client, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket()
    sock.setblocking(False)
    sock.bind((source, 0))
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port_of(c)))
    return await asyncio.open_connection(sock=sock)


async def _closed(reader: asyncio.StreamReader, seconds: float = 10) -> bytes:
    """Everything the server sends until it closes the connection (an assertion error if
    it has not within ``seconds``)."""
    try:
        return await asyncio.wait_for(reader.read(), seconds)
    except TimeoutError:
        raise AssertionError(f"the server kept the connection open for {seconds} s") from None
    except ConnectionResetError:
        return b""


async def _answer(c: Client, source: str) -> int:
    """The status of a GraphQL query sent from ``source`` on a connection of its own."""
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(base_url=c.url, transport=transport, timeout=5) as http:
        r = await http.post("/graphql", json={"query": "{ games { id } }"})
    return r.status_code


@contextlib.asynccontextmanager
async def _server(registry: Registry, **overrides: object) -> AsyncIterator[Client]:
    settings: Settings = make_settings(**overrides)
    async with serve(settings, registry, MemoryStore()) as c:
        yield c


async def test_a_connection_that_never_finishes_a_request_is_closed(registry):
    """A partial request line, a request whose headers never end, a body that never comes,
    a connection that sends nothing, and a second request on a keep-alive connection that
    stops half-way: each is closed once the read timeout passes. A request that arrives
    whole in pieces is answered, and so is another client meanwhile."""
    async with _server(registry, request_read_timeout=0.5) as c:
        partial = await _open(c, ATTACKER)
        partial[1].write(PARTIAL)
        headers = await _open(c, ATTACKER)
        headers[1].write(PARTIAL + b"Host: test\r\nContent-Type: application/json\r\n")
        body = await _open(c, ATTACKER)
        body[1].write(PARTIAL + b"Host: test\r\nContent-Length: 100\r\n\r\n{")
        silent = await _open(c, ATTACKER)
        later = await _open(c, ATTACKER)
        later[1].write(HEALTHZ)
        head = await asyncio.wait_for(later[0].readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200"), head
        await later[0].readuntil(b"}")  # the answer's body, {"status":"ok"}
        later[1].write(PARTIAL)
        pieces = await _open(c, OTHER)
        for piece in (b"GET /healthz HTTP/1.1\r\n", b"Host: test\r\n", b"\r\n"):
            pieces[1].write(piece)
            await asyncio.sleep(0.05)
        status = await asyncio.wait_for(pieces[0].readuntil(b"\r\n"), 5)
        assert status.startswith(b"HTTP/1.1 200"), status
        assert await _answer(c, OTHER) == 200
        for reader, _ in (partial, headers, silent, later):
            assert b"200" not in await _closed(reader)
        await _closed(body[0])  # the app was waiting for the body: it hears the disconnect
        for _, writer in (partial, headers, body, silent, later, pieces):
            writer.close()
        assert await _answer(c, OTHER) == 200


async def test_one_address_holds_a_bounded_number_of_connections(registry):
    """With a cap of 4, an address holding 3 idle connections and a WebSocket has the next
    connection answered 429 and closed at once, while another address and the exempt host
    are answered; once its WebSocket closes, the address may connect again."""
    async with _server(registry, max_connections_per_address=4, request_read_timeout=30) as c:
        idle = [await _open(c, ATTACKER) for _ in range(3)]
        for _, writer in idle:
            writer.write(PARTIAL)
        ws = await RawSocket.open("127.0.0.1", port_of(c), source=ATTACKER)
        await ws.send_text(json.dumps({"type": "connection_init", "payload": {}}))
        opcode, payload = await ws.read_frame()
        assert opcode == TEXT and json.loads(payload)["type"] == "connection_ack"

        extra, extra_writer = await _open(c, ATTACKER)
        refused = await _closed(extra, 5)
        extra_writer.close()
        assert refused.startswith(b"HTTP/1.1 429"), refused
        assert b"RATE_LIMITED" in refused
        assert await _answer(c, OTHER) == 200
        async with httpx.AsyncClient(base_url=c.url, timeout=5) as host:  # exempt, uncounted
            answers = await asyncio.gather(*(host.get("/healthz") for _ in range(10)))
        assert {r.status_code for r in answers} == {200}

        ws.writer.write(frame(0x8, b"\x03\xe8"))  # close 1000
        await _closed(ws.reader)
        ws.abort()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:  # the WebSocket's place is given back when the server has closed it
            try:
                status = await _answer(c, ATTACKER)
            except httpx.TransportError:
                status = 0
            if status == 200:
                break
            assert loop.time() < deadline, "the closed WebSocket still counts"
            await asyncio.sleep(0.05)
        for _, writer in idle:
            writer.close()


def test_the_bounds_are_settings_and_the_server_runs_them():
    """The defaults (10 s, 64 connections, no probe exemption), read from the environment,
    and the HTTP protocol every server runs: the bounded one, on httptools."""
    defaults = Settings.from_env({})
    assert defaults.request_read_timeout == 10.0
    assert defaults.max_connections_per_address == 64
    assert defaults.probe_exempt == ()
    env = {
        "TABLESTATE_REQUEST_READ_TIMEOUT": "2.5",
        "TABLESTATE_MAX_CONNECTIONS_PER_ADDRESS": "8",
        "TABLESTATE_PROBE_EXEMPT": "10.0.0.0/8,127.0.0.1/32",
    }
    settings = Settings.from_env(env)
    assert settings.request_read_timeout == 2.5
    assert settings.max_connections_per_address == 8
    assert settings.probe_exempt == ("10.0.0.0/8", "127.0.0.1/32")
    with pytest.raises(ConfigError, match="TABLESTATE_PROBE_EXEMPT"):
        Settings.from_env({"TABLESTATE_PROBE_EXEMPT": "probes"})
    http = options(settings.with_overrides(trusted_proxies=("192.0.2.0/24",)))["http"]
    assert issubclass(http.func, HttpToolsProtocol) and http.func is BoundedHTTP
    assert http.keywords["read_timeout"] == 2.5 and http.keywords["max_per_address"] == 8
    uncounted = http.keywords["uncounted"]
    assert "192.0.2.7" in uncounted and "10.1.2.3" in uncounted and "127.0.0.1" in uncounted
    assert "::ffff:10.1.2.3" in uncounted and "203.0.113.1" not in uncounted

"""The edge, where a client's bytes first arrive (docs/security.md, "The edge"): an
operation's cost is counted from the values the executor will use; a frame over the limit
is refused before it is read; pings and other messages that start no operation spend a
budget of their socket; one place decides who the client is; the Strawberry we depend on
counts aliases through fragments; a socket closing while the server writes to it logs
nothing at ERROR. Every server here is a real uvicorn configured as ``tablestate serve``
runs it (``service/server.py``), on both stores."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from importlib.metadata import version
from pathlib import Path

import httpx
import pytest
from packaging.version import Version
from support.raw_ws import CONTINUATION, PING, TEXT, RawSocket, frame, header
from support.replicas import Replica, replica_env
from support.server import Client, make_settings, serve, ws_init, ws_next
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tablestate.store.base import StateStore
from tablestate.store.memory import MemoryStore
from tablestate.store.redis import RedisStore

from .kit import record

ROOT = Path(__file__).resolve().parents[2]
CREATE = """mutation { createTable(gameId: "five-crowns", seats: 2) { table { id } } }"""
# The finding: nine store reads under a page whose size came as a float.
NINE = (
    "query($t: ID!, $n: Int) { table(id: $t) { "
    + " ".join(f"a{i}: events(first: $n) {{ table {{ id }} }}" for i in range(9))
    + " } }"
)
DEFAULTED = NINE.replace("$n: Int)", "$n: Int = 1000)")
EVENTS = """query($t: ID!, $n: Int) { table(id: $t) {
  events(first: $n) { cursor type seat version at data } } }"""
SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor type } }"
TABLE = "query($t: ID!) { table(id: $t) { id version status seats { index name kind } } }"
PING_MESSAGE = json.dumps({"type": "ping"})
# An answer of some 700 KB: a few of them fill the kernel's buffers of a reader that stops.
BIG = (
    "{ "
    + " ".join(
        f"a{i}: __schema {{ types {{ name description fields {{ name description args "
        f"{{ name description }} }} }} }}"
        for i in range(20)
    )
    + " }"
)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[StateStore]:
    if request.param == "memory":
        made: StateStore = MemoryStore()
    else:
        url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
        made = RedisStore.from_url(url, prefix=prefix)
    yield made
    await made.close()


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def report(self) -> str:
        return "\n".join(self.format(r) for r in self.records)


@contextlib.contextmanager
def errors_logged() -> Iterator[_Errors]:
    """Every record at ERROR or above, uvicorn's included (its loggers do not propagate).
    Enter it once the server runs: uvicorn sets its loggers' handlers as it starts."""
    found = _Errors()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn")]
    for logger in loggers:
        logger.addHandler(found)
    try:
        yield found
        gc.collect()  # "Task exception was never retrieved" is logged when a task goes
    finally:
        for logger in loggers:
            logger.removeHandler(found)


def port_of(c: Client) -> int:
    return int(c.url.rsplit(":", 1)[1])


async def _post(url: str, query: str) -> dict:
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        body = (await http.post("/graphql", json={"query": query})).json()
    assert not body.get("errors"), body
    return body["data"]


async def _drain_until_closed(conn, timeout: float = 5) -> tuple[int, int | None]:
    """Read until the server closes: the pongs received, and the close code."""
    pongs = 0
    try:
        while True:
            message = json.loads(await asyncio.wait_for(conn.recv(), timeout))
            pongs += message.get("type") == "pong"
    except ConnectionClosed as exc:
        return pongs, exc.rcvd.code if exc.rcvd is not None else None


# -- cost: the values the executor will use ------------------------------------------------


async def test_page_sizes_count_as_the_executor_coerces_them(registry, store):
    """``1000.0`` is the Int 1000 to graphql-core, and a variable's default is what the
    executor uses when none is sent: both cost what 1000 costs (refused), over HTTP and a
    WebSocket; a small page still runs, a float one included."""
    async with serve(make_settings(), registry, store) as c:
        tid = (await c.q(CREATE))["createTable"]["table"]["id"]
        assert await c.code(NINE, t=tid, n=1000) == "QUERY_TOO_COMPLEX"
        assert await c.code(NINE, t=tid, n=1000.0) == "QUERY_TOO_COMPLEX"
        assert await c.code(DEFAULTED, t=tid) == "QUERY_TOO_COMPLEX"
        small = (await c.q(NINE, t=tid, n=1.0))["table"]
        assert [len(small[f"a{i}"]) for i in range(9)] == [1] * 9
        async with c.ws() as conn:
            assert (await ws_init(conn))["type"] == "connection_ack"
            payload = {"query": NINE, "variables": {"t": tid, "n": 1000.0}}
            await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
            answer = await ws_next(conn)
            assert answer["type"] == "error", answer
            assert answer["payload"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"


async def test_costly_pages_count_against_the_rate_limits(registry, store):
    """A read of 1000 events costs 6202: counted as 6 requests more than itself, whether
    the page size came as an int or as a float (a burst of 20: the third such read from one
    address is refused)."""
    settings = make_settings(rate_address=0.01, rate_address_burst=20)
    async with serve(settings, registry, store) as c:
        tid = (await c.q(CREATE))["createTable"]["table"]["id"]  # from loopback: exempt
        for n, address in ((1000, "198.51.100.31"), (1000.0, "198.51.100.32")):
            codes = []
            for _ in range(3):
                r = await c.http.post(
                    "/graphql",
                    json={"query": EVENTS, "variables": {"t": tid, "n": n}},
                    headers={"X-Forwarded-For": address},
                )
                body = r.json()
                codes.append(body["errors"][0]["extensions"]["code"] if "errors" in body else "OK")
            assert codes == ["OK", "OK", "RATE_LIMITED"], (n, codes)


# -- frames over the limit --------------------------------------------------------------


def _peak_rss(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc")


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def replica(request: pytest.FixtureRequest) -> Iterator[Replica]:
    """A ``tablestate serve`` process on either store, with the default limits."""
    if request.param == "memory":
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
        env.pop("REDIS_URL", None)
        env["TABLESTATE_LOG_LEVEL"] = "warning"
    else:
        redis_url = request.getfixturevalue("redis_url")
        env = replica_env(redis_url, request.getfixturevalue("redis_prefix"))
    started = Replica(env).start()
    yield started
    started.stop()


async def _oversized(port: int, fragmented: bool, size: int = 15 * 2**20) -> None:
    """One 15 MiB message, sent as one frame or as 128 KiB fragments, its payload streamed
    from one small buffer until the server hangs up."""
    ws = await RawSocket.open("127.0.0.1", port)
    chunk = bytes(2**17)
    try:
        if fragmented:
            for i in range(size // len(chunk)):
                opcode = TEXT if i == 0 else CONTINUATION
                ws.writer.write(header(opcode, len(chunk), fin=False) + chunk)
                await ws.writer.drain()
        else:
            ws.writer.write(header(TEXT, size))
            for _ in range(size // len(chunk)):
                ws.writer.write(chunk)
                await ws.writer.drain()
    except (ConnectionError, OSError):
        pass  # the server hung up: what it should do
    finally:
        ws.abort()


async def test_a_frame_over_the_limit_is_refused_before_it_is_read(replica):
    """32 messages of 15 MiB (one frame each, or 128 KiB fragments) against the default
    limit of 256 KiB: the server's peak memory grows by a few MiB at most (it grew by 860
    MiB when uvicorn buffered each whole before the app refused it), and it still serves."""
    async with httpx.AsyncClient(base_url=replica.url, timeout=10) as http:
        assert (await http.post("/graphql", json={"query": "{ games { id } }"})).status_code == 200
        await asyncio.gather(*(_oversized(replica.port, i % 2 == 1) for i in range(2)))
        assert replica.proc is not None
        before = _peak_rss(replica.proc.pid)
        await asyncio.gather(*(_oversized(replica.port, i % 2 == 1) for i in range(32)))
        grown = _peak_rss(replica.proc.pid) - before
        assert grown < 32 * 2**20, f"the server's peak memory grew by {grown / 2**20:.0f} MiB"
        assert (await http.post("/graphql", json={"query": "{ games { id } }"})).status_code == 200


async def test_the_body_limit_is_a_setting_for_http_and_websockets(registry, store):
    """``TABLESTATE_MAX_BODY`` bounds an HTTP body (413) and a WebSocket message (close
    1009, from the protocol); a message under it is answered."""
    async with serve(make_settings(max_body=4096), registry, store) as c:
        padded = {"query": "{ games { id } }", "variables": {"pad": "x" * 5000}}
        r = await c.http.post("/graphql", json=padded)
        assert r.status_code == 413 and r.json()["errors"][0]["extensions"]["code"] == "BAD_INPUT"
        async with c.ws() as conn:
            assert (await ws_init(conn))["type"] == "connection_ack"
            small = {"query": "{ games { id } }", "variables": {"pad": "x" * 3000}}
            await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": small}))
            assert (await ws_next(conn))["type"] == "next"
            await conn.send(json.dumps({"id": "2", "type": "subscribe", "payload": padded}))
            _, code = await _drain_until_closed(conn)
            assert code == 1009, code


# -- pings and other messages that start no operation ----------------------------------


async def test_messages_past_the_budget_close_the_socket(registry, store):
    """graphql-transport-ws: pings within the budget are answered, stopping running
    operations is free; a flood of pings is closed (1008) after the burst. Legacy
    graphql-ws: messages it would ignore (unknown types, text that is not JSON) spend the
    budget the same way. Another client on the same address is not disturbed."""
    settings = make_settings(ws_ping_rate=20.0, ws_ping_burst=5)
    async with serve(settings, registry, store) as c:
        tid = (await c.q(CREATE))["createTable"]["table"]["id"]
        async with c.ws() as bystander, c.ws() as conn:
            assert (await ws_init(bystander))["type"] == "connection_ack"
            assert (await ws_init(conn))["type"] == "connection_ack"
            for i in range(20):  # each counts against the address, and its stop with it
                payload = {"query": SUB, "variables": {"t": tid}}
                await conn.send(json.dumps({"id": str(i), "type": "subscribe", "payload": payload}))
            for i in range(20):
                await conn.send(json.dumps({"id": str(i), "type": "complete"}))
            pongs = 0
            for _ in range(10):  # 10 a second, within 20 a second
                await conn.send(PING_MESSAGE)
                await asyncio.sleep(0.1)
            while pongs < 10:
                pongs += json.loads(await asyncio.wait_for(conn.recv(), 5))["type"] == "pong"
            for _ in range(200):
                await conn.send(PING_MESSAGE)
            answered, code = await _drain_until_closed(conn)
            assert code == 1008, code
            assert answered <= 6, answered
            await bystander.send(
                json.dumps(
                    {"id": "b", "type": "subscribe", "payload": {"query": "{ games { id } }"}}
                )
            )
            assert (await ws_next(bystander))["type"] == "next"
        async with c.ws("graphql-ws") as legacy:
            assert (await ws_init(legacy))["type"] == "connection_ack"
            for i in range(100):
                await legacy.send("not json" if i % 2 else json.dumps({"type": "ka"}))
            _, code = await _drain_until_closed(legacy)
            assert code == 1008, code


async def test_restarting_a_legacy_operation_counts_against_the_address(registry, store):
    """Legacy graphql-ws lets a ``start`` with the id of a running operation replace it:
    each such restart runs the operation anew (a subscription replays its table), so each
    counts against the address like any operation (it used to pass uncounted)."""
    settings = make_settings(rate_address=0.01, rate_address_burst=5)
    async with serve(settings, registry, store) as c:
        tid = (await c.q(CREATE))["createTable"]["table"]["id"]
        url = c.url.replace("http", "ws") + "/graphql"
        forwarded = {"X-Forwarded-For": "198.51.100.60"}
        async with connect(url, subprotocols=["graphql-ws"], additional_headers=forwarded) as ws:
            assert (await ws_init(ws))["type"] == "connection_ack"
            payload = {"query": SUB, "variables": {"t": tid}}
            for _ in range(8):
                await ws.send(json.dumps({"id": "1", "type": "start", "payload": payload}))
            codes = []
            with contextlib.suppress(TimeoutError):
                while True:
                    message = await ws_next(ws, 2)
                    if message["type"] == "error":
                        codes.append(message["payload"]["extensions"]["code"])
            # the handshake and four starts spend the burst of five: four refused
            assert codes == ["RATE_LIMITED"] * 4, codes


async def test_ping_frames_past_the_budget_close_the_socket(registry, store):
    """WebSocket ping frames, answered by the protocol without the app, spend a budget of
    their own: a flood is closed with 1008. The app's answer to a message that arrived with
    that flood finds the socket closed: nothing is logged at ERROR."""
    settings = make_settings(ws_ping_rate=20.0, ws_ping_burst=5)
    with contextlib.ExitStack() as stack:
        async with serve(settings, registry, store) as c:
            errors = stack.enter_context(errors_logged())
            async with c.ws() as conn:
                assert (await ws_init(conn))["type"] == "connection_ack"
                for i in range(200):
                    await conn.ping(str(i))
                await asyncio.wait_for(conn.wait_closed(), 5)
                assert conn.close_code == 1008, conn.close_code
            ws = await RawSocket.open("127.0.0.1", port_of(c))
            await ws.send_text(json.dumps({"type": "connection_init", "payload": {}}))
            assert json.loads((await ws.read_frame())[1])["type"] == "connection_ack"
            # one read: a graphql-transport-ws ping for the app, then ping frames past the
            # budget, which close the socket before the app answers
            ws.writer.write(frame(TEXT, PING_MESSAGE.encode()) + frame(PING, b"") * 6)
            await ws.writer.drain()
            assert await ws.close_code() == 1008
            ws.abort()
            assert (await c.q("{ games { id } }"))["games"]
    assert not errors.records, errors.report()


async def test_a_ping_flood_does_not_starve_another_client(replica):
    """Eight sockets from one address flood pings (messages and frames) for a few seconds,
    in a process of their own, reconnecting whenever the server closes them; another
    client, from another address, keeps being answered within the bound (it waited 10 s
    for its first answer when every ping was parsed and answered)."""
    port = replica.port
    table = (await _post(replica.url, CREATE))["createTable"]["table"]["id"]
    flood = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "edge.py"), "--flood", str(port), "8", "3"],
        stdout=subprocess.PIPE,
    )
    try:
        await asyncio.sleep(0.3)
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
        samples = []
        async with httpx.AsyncClient(base_url=replica.url, transport=transport, timeout=30) as c:
            for _ in range(40):
                start = time.perf_counter()
                r = await c.post("/graphql", json={"query": TABLE, "variables": {"t": table}})
                samples.append(time.perf_counter() - start)
                assert r.status_code == 200 and not r.json().get("errors"), r.text
                await asyncio.sleep(0.05)
        record("ping flood, one address", samples)
        out, _ = flood.communicate(timeout=30)
        counts = json.loads(out.decode().strip().splitlines()[-1])
        assert counts["message"]["sockets"] > 4 and counts["frame"]["sockets"] > 4, counts
    finally:
        if flood.poll() is None:
            flood.kill()
            flood.wait()
        if flood.stdout is not None:
            flood.stdout.close()


# -- a socket closing while the server writes -------------------------------------------


async def test_a_socket_closed_mid_send_logs_no_error(registry, store):
    """A client asks for big answers, stops reading, and drops the connection while the
    server is writing to it: nothing at ERROR (the operations' sends fail because the client
    left, which is no bug; an operation's ``complete`` that found the socket gone was logged
    as a failed task)."""
    with contextlib.ExitStack() as stack:
        async with serve(make_settings(), registry, store) as c:
            errors = stack.enter_context(errors_logged())
            ws = await RawSocket.open("127.0.0.1", port_of(c), receive_buffer=2**14)
            await ws.send_text(json.dumps({"type": "connection_init", "payload": {}}))
            assert json.loads((await ws.read_frame())[1])["type"] == "connection_ack"
            for i in range(12):
                await ws.send_text(
                    json.dumps({"id": str(i), "type": "subscribe", "payload": {"query": BIG}})
                )
            await asyncio.sleep(1.0)  # the answers pile up unread
            ws.abort()
            await asyncio.sleep(0.5)
            assert (await c.q("{ games { id } }"))["games"]
    assert not errors.records, errors.report()


# -- who the client is --------------------------------------------------------------------


async def _statuses(c: Client, n: int, forwarded: bool) -> list[int]:
    out = []
    for i in range(n):
        headers = {"X-Forwarded-For": f"203.0.113.{i + 1}"} if forwarded else {}
        r = await c.http.post("/graphql", json={"query": "{ games { id } }"}, headers=headers)
        out.append(r.status_code)
    return out


async def test_no_trusted_proxy_means_no_client_chooses_its_address(registry, store):
    """With no trusted proxy, a loopback client that sends a new ``X-Forwarded-For`` with
    each request is one client, limited as one (uvicorn used to take the header's address
    first: every request a new client, never a 429); without the header it is the host
    itself, exempt. With loopback named as the proxy, each forwarded address is a client."""
    limits = {"rate_address": 1.0, "rate_address_burst": 5}
    async with serve(make_settings(trusted_proxies=(), **limits), registry, store) as c:
        statuses = await _statuses(c, 20, forwarded=True)
        assert statuses[:5] == [200] * 5 and statuses.count(429) >= 14, statuses
        assert await _statuses(c, 20, forwarded=False) == [200] * 20
    async with serve(make_settings(trusted_proxies=("127.0.0.1",), **limits), registry) as c:
        assert await _statuses(c, 20, forwarded=True) == [200] * 20


# -- the Strawberry we depend on ------------------------------------------------------------


async def test_aliases_inside_spread_fragments_are_counted(registry):
    """The floor of strawberry-graphql is a version whose alias limit counts the aliases of
    a fragment at each of its spreads (0.315.7; earlier ones let them past), the installed
    one meets it, and a fragment of 8 aliases spread 4 times (32 > 30) is refused."""
    text = (ROOT / "pyproject.toml").read_text()
    floor = re.search(r'"strawberry-graphql>=([0-9.]+)[,"]', text)  # an upper bound may follow
    assert floor is not None
    assert Version(floor.group(1)) >= Version("0.315.7")
    assert Version(version("strawberry-graphql")) >= Version(floor.group(1))
    fragment = "fragment F on Query { " + " ".join(f"a{i}: games {{ id }}" for i in range(8)) + " }"
    async with serve(make_settings(), registry, MemoryStore()) as c:
        assert (await c.q("query { ...F }\n" + fragment))["a7"]
        spread = "query { ...F ... on Query { ...F } ... on Query { ...F } ... on Query { ...F } }"
        assert await c.code(spread + "\n" + fragment) == "QUERY_TOO_COMPLEX"

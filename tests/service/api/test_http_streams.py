"""Subscriptions over HTTP: graphql-sse (distinct connections) and multipart HTTP, with the
rights, redaction, ``after:`` resumption, limits and refusals they have over WebSocket."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from support.life import LOBBY, SUB
from support.lucky import ADD_BOT, CREATE, START, open_table, play_out
from support.server import make_settings, overflowed, serve, subscribed
from support.streams import MULTIPART, SSE, subscribe

from tablestate.store.memory import MemoryStore

KINDS = [pytest.param(SSE, id="graphql-sse"), pytest.param(MULTIPART, id="multipart")]
KICK = "mutation($t: ID!, $s: Int!) { kickSeat(tableId: $t, seat: $s) { version } }"


def _events(results: list[dict]) -> list[dict]:
    assert all("errors" not in r for r in results), results
    return [r["data"]["tableEvents"] for r in results]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_table_followed_over_http_resumes_after_its_cursor(registry, kind):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        t = await open_table(c, humans=2)
        finished = await play_out(c, t)
        async with subscribe(c.http, SUB, kind, t.tokens[0], t=t.table_id, a=None) as seat:
            assert seat.response.status_code == 200
            mine = []
            while not mine or mine[-1]["cursor"] != finished["cursor"]:
                mine += _events(await seat.take(1))
        async with subscribe(c.http, SUB, kind, t=t.table_id, a=None) as spectator:
            seen = []
            while not seen or seen[-1]["cursor"] != finished["cursor"]:
                seen += _events(await spectator.take(1))
        assert [e["cursor"] for e in seen] == [e["cursor"] for e in mine]
        assert any("private" in e["data"] for e in mine)  # the seat's own cards
        assert not any("private" in e["data"] for e in seen)  # never a spectator's
        # after a cut, the client resumes after the last cursor it had: no gap, no duplicate
        k = len(mine) // 2
        async with subscribe(c.http, SUB, kind, t=t.table_id, a=mine[k]["cursor"]) as again:
            rest = _events(await again.take(len(mine) - k - 1))
        assert [e["cursor"] for e in rest] == [e["cursor"] for e in mine[k + 1 :]]


@pytest.mark.parametrize("kind", KINDS)
async def test_live_events_then_a_seat_that_changes_hands_ends_unauthenticated(registry, kind):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        t = await open_table(c, humans=2, start=False)
        async with subscribe(c.http, SUB, kind, t.tokens[1], t=t.table_id, a=None) as old:
            replay = _events(await old.take(3))  # created, two joins
            assert replay[0]["type"] == "table.created"
            kicked = (await c.q(KICK, t.host, t=t.table_id, s=1))["kickSeat"]["version"]
            while True:  # whatever came before the kick (presence), then the end
                ended = await asyncio.wait_for(old.next(), 10)
                assert ended is not None
                if "errors" in ended:
                    break
                assert ended["data"]["tableEvents"]["version"] < kicked
            assert ended["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
            assert await asyncio.wait_for(old.next(), 10) is None  # then it completes


@pytest.mark.parametrize("kind", KINDS)
async def test_refusals_over_http_streams(registry, kind):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        t = await open_table(c, humans=1, bots=1, start=False)
        cases = [
            ({"t": "no-such-table", "a": None}, None, "NOT_FOUND"),
            ({"t": t.table_id, "a": "not-a-cursor"}, None, "BAD_INPUT"),
            ({"t": t.table_id, "a": None}, f"{t.table_id}.forged", "UNAUTHENTICATED"),
        ]
        for variables, token, code in cases:
            async with subscribe(c.http, SUB, kind, token, **variables) as s:
                first = await asyncio.wait_for(s.next(), 10)
                assert first is not None and first["errors"][0]["extensions"]["code"] == code
                assert await asyncio.wait_for(s.next(), 10) is None
        # a subscription without a stream is refused, and says how to ask for one
        body = await c.raw(SUB, t=t.table_id)
        assert body["errors"][0]["extensions"]["code"] == "BAD_INPUT"
        assert "text/event-stream" in body["errors"][0]["message"]


async def test_lobby_events_over_graphql_sse(registry):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        async with subscribe(c.http, LOBBY, SSE, g="lucky-draw") as lobby:
            first = (await lobby.take(1))[0]["data"]["lobbyEvents"]
            assert first["type"] == "lobby.live"
            made = (await c.q(CREATE, g="lucky-draw", r=[], o=None, s=2))["createTable"]
            opened = (await lobby.take(1))[0]["data"]["lobbyEvents"]
            assert opened["type"] == "table.opened"
            assert opened["tableId"] == made["table"]["id"]


async def test_streams_count_against_the_address_cap(registry):
    """An address holds at most TABLESTATE_MAX_WS_PER_ADDRESS WebSockets and streams."""
    settings = make_settings(max_ws_per_address=2, rate_address=0)
    away = {"x-forwarded-for": "203.0.113.7"}  # not an exempt address
    async with serve(settings, registry, MemoryStore()) as c:
        t = await open_table(c, humans=1, bots=1, start=False)
        async with (
            subscribe(c.http, SUB, SSE, headers=away, t=t.table_id, a=None) as one,
            subscribe(c.http, SUB, MULTIPART, headers=away, t=t.table_id, a=None) as two,
        ):
            assert (await one.take(1)) and (await two.take(1))
            async with subscribe(c.http, SUB, SSE, headers=away, t=t.table_id, a=None) as three:
                assert three.response.status_code == 429
                body = json.loads(await three.response.aread())
                assert body["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        # closed streams no longer count, once the server has seen them go
        for _ in range(100):
            async with subscribe(c.http, SUB, SSE, headers=away, t=t.table_id, a=None) as four:
                if four.response.status_code == 200:
                    break
            await asyncio.sleep(0.02)
        assert four.response.status_code == 200


# Each result repeats the table's history many times over: a few dozen events weigh
# megabytes, more than the socket buffers between server and client hold.
HEAVY = (
    "subscription($t: ID!) { tableEvents(tableId: $t) { cursor type "
    + " ".join(
        f"h{i}: table {{ events(first: 1000) {{ cursor type seat data at version }} }}"
        for i in range(12)
    )
    + " } }"
)


async def test_a_reader_that_stops_reading_its_stream_gets_slow_consumer(registry):
    async with serve(make_settings(subscriber_queue=4), registry, MemoryStore()) as c:
        made = (await c.q(CREATE, g="lucky-draw", r=[], o={"handSize": 5}, s=4))["createTable"]
        tid, host = made["table"]["id"], made["hostToken"]
        for _ in range(4):
            await c.q(ADD_BOT, host, t=tid)
        port = int(c.url.rsplit(":", 1)[1])
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect(("127.0.0.1", port))
        body = json.dumps({"query": HEAVY, "variables": {"t": tid}}).encode()
        head = (
            "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        sock.sendall(head.encode() + body)
        await subscribed(c)
        await c.q(START, host, t=tid)  # four bots play the whole game at once
        await overflowed(c)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        # the reader now reads (with room to): what was buffered, then the refusal
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
        sock.setblocking(False)
        received = b""
        while b"event: complete" not in received:
            assert loop.time() < deadline, "the stream never completed"  # heartbeats flow
            chunk = await asyncio.wait_for(loop.sock_recv(sock, 1 << 20), 20)
            assert chunk, "the stream ended without completing"
            received += chunk
        sock.close()
        text = received.decode("utf-8", "replace")
        assert '"SLOW_CONSUMER"' in text
        metrics = (await c.http.get("/metrics")).text
        assert "tablestate_slow_consumers_total 1.0" in metrics


async def test_a_client_that_takes_json_too_gets_json_for_queries_and_mutations(registry):
    """urql asks for ``text/event-stream`` with every operation, JSON among the others."""
    accept = "application/graphql-response+json, application/json, text/event-stream"
    async with serve(make_settings(), registry, MemoryStore()) as c:
        body = {"query": "{ games { id } }"}
        r = await c.http.post("/graphql", json=body, headers={"accept": accept})
        # JSON, in the type of GraphQL over HTTP that it takes first
        assert r.headers["content-type"] == "application/graphql-response+json"
        assert r.json()["data"]["games"]
        r = await c.http.post("/graphql", json=body, headers={"accept": SSE})
        assert r.headers["content-type"].startswith("text/event-stream")  # a stream it asked for
        t = await open_table(c, humans=1, bots=1, start=False)
        async with subscribe(c.http, SUB, accept, t=t.table_id, a=None) as s:
            assert s.response.headers["content-type"].startswith("text/event-stream")

"""A subscriber that stops reading is dropped with SLOW_CONSUMER; the others get everything."""

from __future__ import annotations

import asyncio
import json
import socket

from support.lucky import ADD_BOT, CREATE, START
from support.server import make_settings, serve, ws_init
from websockets.asyncio.client import connect

from tablestate.store.redis import RedisStore

# Each message repeats the table's whole history many times over: a few dozen events
# then weigh megabytes, more than the socket buffers between server and client hold.
HEAVY = (
    "subscription($t: ID!) { tableEvents(tableId: $t) { cursor type "
    + " ".join(
        f"h{i}: table {{ events(first: 1000) {{ cursor type seat data at version }} }}"
        for i in range(12)
    )
    + " } }"
)
LIGHT = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor type } }"


def _tiny_socket(port: int) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", port))
    return sock


async def test_a_reader_that_stops_is_dropped_and_counted(registry, redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    async with serve(make_settings(subscriber_queue=4), registry, store) as c:
        made = (await c.q(CREATE, g="lucky-draw", r=[], o={"handSize": 5}, s=4))["createTable"]
        tid, host = made["table"]["id"], made["hostToken"]
        for _ in range(4):
            await c.q(ADD_BOT, host, t=tid)
        port = int(c.url.rsplit(":", 1)[1])
        url = c.url.replace("http", "ws") + "/graphql"
        async with (
            connect(
                url, subprotocols=["graphql-transport-ws"], sock=_tiny_socket(port), max_queue=1
            ) as slow,
            connect(url, subprotocols=["graphql-transport-ws"]) as fast,
        ):
            for ws, query in ((slow, HEAVY), (fast, LIGHT)):
                await ws_init(ws)
                sub = {"query": query, "variables": {"t": tid}}
                await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": sub}))
            await c.q(START, host, t=tid)  # four bots play the whole game at once
            got: list[str] = []
            while not got or got[-1] != "game.finished":
                msg = json.loads(await asyncio.wait_for(fast.recv(), 20))
                got.append(msg["payload"]["data"]["tableEvents"]["type"])
            assert got[0] == "table.created"
            # the slow reader now reads (with room to): what was buffered, then the refusal
            raw = slow.transport.get_extra_info("socket")
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
            tail = []
            while True:
                msg = json.loads(await asyncio.wait_for(slow.recv(), 20))
                tail.append(msg)
                if msg["type"] != "next" or msg["payload"].get("errors"):
                    break
            last = tail[-1]
            errors = last["payload"] if last["type"] == "error" else last["payload"]["errors"]
            assert errors[0]["extensions"]["code"] == "SLOW_CONSUMER"
            if last["type"] == "next":  # then the subscription is completed
                assert json.loads(await asyncio.wait_for(slow.recv(), 5))["type"] == "complete"
            assert len(tail) - 1 < len(got)
        metrics = (await c.http.get("/metrics")).text
        assert "tablestate_slow_consumers_total 1" in metrics

"""Protection: browser origins for WebSockets, bounded Redis connections."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis
from support.lucky import open_table
from support.server import make_settings, serve, ws_init, ws_next
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tablestate.store.redis import RedisStore

SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor } }"


async def test_cross_origin_websockets_need_an_allowed_origin(registry):
    async with serve(make_settings(allowed_origins=("https://play.example",)), registry) as c:
        url = c.url.replace("http", "ws") + "/graphql"
        with pytest.raises(InvalidStatus):
            async with connect(
                url, subprotocols=["graphql-transport-ws"], origin="https://evil.example"
            ):  # type: ignore[arg-type]
                pass
        async with connect(
            url, subprotocols=["graphql-transport-ws"], origin="https://play.example"
        ) as conn:  # type: ignore[arg-type]
            assert (await ws_init(conn))["type"] == "connection_ack"


@pytest.mark.redis
async def test_redis_connections_stay_bounded_whatever_the_subscribers(
    registry, redis_url, redis_prefix
):
    admin = aioredis.from_url(redis_url)
    store = RedisStore.from_url(redis_url, prefix=redis_prefix, max_connections=4)
    before = len(await admin.client_list())
    async with serve(make_settings(), registry, store) as c:
        tables = [await open_table(c, humans=2) for _ in range(4)]
        conns = []
        for i in range(60):
            conn = await c.ws().__aenter__()
            conns.append(conn)
            await ws_init(conn)
            t = tables[i % 4]
            await conn.send(
                json.dumps(
                    {
                        "id": "1",
                        "type": "subscribe",
                        "payload": {"query": SUB, "variables": {"t": t.table_id}},
                    }
                )
            )
        for conn in conns:
            assert (await ws_next(conn))["type"] == "next"
        during = len(await admin.client_list())
        for conn in conns:
            await conn.close()
        await asyncio.sleep(0.05)
    # the store's pool (4), its one pub/sub connection and the commits' own connection,
    # whatever the 60 subscribers
    assert during - before <= 4 + 1 + 1
    await admin.aclose()

"""Redis goes away and comes back: nothing lost, fast UNAVAILABLE meanwhile, self-healing."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
from support.lucky import START, TABLE
from support.replicas import RedisProcess, replica_env, replicas
from websockets.asyncio.client import connect

from .test_replicas import EVENTS, MOVE, SUB, client, new_table, play


async def _ready(url: str, path: str = "/readyz") -> int:
    async with httpx.AsyncClient(timeout=5) as http:
        return (await http.get(url + path)).status_code


async def test_tables_and_events_survive_a_redis_restart(tmp_path):
    server = RedisProcess(tmp_path, "--appendonly", "yes", "--appendfsync", "always").start()
    try:
        env = replica_env(server.url, "aof:")
        with replicas(env, 2) as (a, b):
            async with client(a) as ca, client(b) as cb:
                t = await new_table(ca)
                await ca.q(START, t.host, t=t.table_id)
                await play(ca, t, moves=6)
                before = (await ca.q(EVENTS, t=t.table_id))["table"]["events"]
                version = (await ca.q(TABLE, t=t.table_id))["table"]["version"]
                seen: list[dict] = []
                async with connect(b.ws_url, subprotocols=["graphql-transport-ws"]) as ws:
                    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
                    await ws.recv()
                    sub = {"query": SUB, "variables": {"t": t.table_id}}
                    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": sub}))
                    while len(seen) < len(before):
                        seen.append(json.loads(await ws.recv())["payload"]["data"]["tableEvents"])

                    server.kill()
                    assert await _ready(a.url) == 503
                    assert await _ready(a.url, "/healthz") == 200
                    view_token = t.tokens[0]
                    start = time.monotonic()
                    body = await ca.raw(TABLE, view_token, t=t.table_id)
                    assert (
                        time.monotonic() - start < 1.0 + 1.5
                    )  # the configured timeout, not a hang
                    assert body["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
                    move = await ca.raw(
                        MOVE, t.tokens[0], t=t.table_id, m={"luckyDraw": {"draw": True}}
                    )
                    assert move["errors"][0]["extensions"]["code"] == "UNAVAILABLE"

                    server.start()
                    for _ in range(100):
                        if await _ready(a.url) == 200 and await _ready(b.url) == 200:
                            break
                        await asyncio.sleep(0.1)
                    assert await _ready(a.url) == 200
                    assert (await cb.q(TABLE, t=t.table_id))["table"]["version"] == version
                    assert (await cb.q(EVENTS, t=t.table_id))["table"]["events"] == before
                    # play on to the end; the subscriber on B hears the rest by itself. A
                    # move answered UNAVAILABLE while the restarted server settles (its AOF
                    # is fsynced on every write) is sent again with its idempotency key
                    await play(ca, t, retries=3)
                    while seen[-1]["type"] != "game.finished":
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 15))
                        seen.append(msg["payload"]["data"]["tableEvents"])
                after = (await cb.q(EVENTS, t=t.table_id))["table"]["events"]
                assert [e["cursor"] for e in seen] == [e["cursor"] for e in after]
    finally:
        server.stop()

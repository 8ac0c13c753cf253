"""Chat, presence and the lobby across real replica processes: on one Redis (a killed
replica's seats lapse) and on a Redis Cluster (appends, presence and the lobby channel)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.life import CHAT, LOBBY, SEATS, SUB, eventually
from support.replicas import Replica, replica_env, replicas
from websockets.asyncio.client import ClientConnection, connect

from .test_cluster import cluster
from .test_replicas import client, new_table


@contextlib.asynccontextmanager
async def subscription(
    replica: Replica, query: str, variables: dict[str, Any], token: str | None = None
) -> AsyncIterator[ClientConnection]:
    async with connect(replica.ws_url, subprotocols=["graphql-transport-ws"]) as ws:
        payload = {"authToken": token} if token else {}
        await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        sub = {"query": query, "variables": variables}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": sub}))
        yield ws


async def until(ws: ClientConnection, field: str, done: Any) -> list[dict]:
    out = []
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
        assert msg["type"] == "next", msg
        out.append(msg["payload"]["data"][field])
        if done(out[-1]):
            return out


async def _connected(c: Any, table_id: str) -> list[bool]:
    return [s["connected"] for s in (await c.q(SEATS, t=table_id))["table"]["seats"]]


async def test_a_killed_replicas_seats_lapse(redis_url, redis_prefix):
    env = replica_env(redis_url, redis_prefix, TABLESTATE_PRESENCE_TTL="1")
    with replicas(env, 2) as (a, b):
        async with client(b) as cb:
            t = await new_table(cb)
            async with subscription(a, SUB, {"t": t.table_id}, t.tokens[0]) as ws:
                await until(ws, "tableEvents", lambda e: e["type"] == "seat.connected")
                # kept alive by a's refreshes, well past one ttl
                await asyncio.sleep(1.5)
                assert await _connected(cb, t.table_id) == [True, False]
                a.kill()  # no goodbye: the entry lapses on its own
                await eventually(lambda: _is(cb, t.table_id, [False, False]), timeout=10)


AWAY = "query($t: ID!) { table(id: $t) { events(first: 1000) { type seat } } }"


async def test_a_killed_replicas_seats_are_recorded_away_once_by_a_survivor(
    redis_url, redis_prefix
):
    env = replica_env(redis_url, redis_prefix, TABLESTATE_PRESENCE_TTL="1")
    with replicas(env, 2) as (a, b):
        async with client(b) as cb:
            t = await new_table(cb)
            async with (
                subscription(a, SUB, {"t": t.table_id}, t.tokens[0]) as on_a,
                subscription(b, SUB, {"t": t.table_id}, t.tokens[1]) as on_b,
            ):
                await until(on_a, "tableEvents", lambda e: e["type"] == "seat.connected")
                await until(on_b, "tableEvents", lambda e: e["seat"] == 1)
                a.kill()
                # b's subscriber hears seat 0 go away once its entry lapsed
                heard = await until(
                    on_b, "tableEvents", lambda e: e["type"] == "seat.away" and e["seat"] == 0
                )
                assert heard[-1]["seat"] == 0
                await asyncio.sleep(1.5)  # several more of b's refresh rounds
            events = (await cb.q(AWAY, t=t.table_id))["table"]["events"]
            assert [e for e in events if e == {"type": "seat.away", "seat": 0}] == [
                {"type": "seat.away", "seat": 0}
            ]


async def _is(c: Any, table_id: str, want: list[bool]) -> bool:
    return await _connected(c, table_id) == want


async def test_chat_presence_and_lobby_on_a_cluster(tmp_path):
    if subprocess.run(["which", "redis-cli"], capture_output=True).returncode != 0:
        pytest.fail("redis-cli is needed to make the cluster")
    with cluster(tmp_path) as url:
        env = replica_env(url, "so:", TABLESTATE_REDIS_CLUSTER="1")
        with replicas(env, 2) as (a, b):
            async with client(a) as ca, client(b) as cb:
                async with subscription(a, LOBBY, {"g": "lucky-draw"}) as lobby:
                    await until(lobby, "lobbyEvents", lambda e: e["type"] == "lobby.live")
                    tables = [await new_table(cb) for _ in range(3)]  # on several slots
                    seen = await until(
                        lobby,
                        "lobbyEvents",
                        lambda e: e["tableId"] == tables[-1].table_id and e["type"] != "table.opened"
                        and e["table"]["seats"][1]["kind"] == "HUMAN",
                    )  # fmt: skip
                    opened = [e["tableId"] for e in seen if e["type"] == "table.opened"]
                    assert opened == [t.table_id for t in tables]
                for t in tables:
                    async with subscription(a, SUB, {"t": t.table_id}, t.tokens[0]) as ws:
                        await until(ws, "tableEvents", lambda e: e["type"] == "seat.connected")
                        assert await _connected(cb, t.table_id) == [True, False]
                        said = (await cb.q(CHAT, t.tokens[1], t=t.table_id, x="hi"))["sendChat"]
                        got = await until(
                            ws, "tableEvents", lambda e, c=said["cursor"]: e["cursor"] == c
                        )
                        assert got[-1]["data"] == {"text": "hi", "name": "P1"}
                    await eventually(lambda t=t: _is(ca, t.table_id, [False, False]))

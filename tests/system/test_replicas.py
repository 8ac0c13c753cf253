"""Many replicas, one truth: processes sharing one Redis, killed and stopped mid-game."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import httpx
from support.lucky import ADD_BOT, CREATE, JOIN, MOVE, START, TABLE, Seated
from support.replicas import Replica, replica_env, replicas
from support.server import Client, GraphQLFailed
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

SUB = """subscription($t: ID!, $a: String) {
  tableEvents(tableId: $t, after: $a) { cursor version type seat } }"""
EVENTS = "query($t: ID!) { table(id: $t) { events(first: 1000) { cursor type } } }"


@contextlib.asynccontextmanager
async def client(replica: Replica) -> AsyncIterator[Client]:
    async with httpx.AsyncClient(base_url=replica.url, timeout=10) as http:
        yield Client(http, replica.url)


async def follow(replica: Replica, table_id: str, after: str | None, out: list[dict]) -> None:
    """Collect events until game.finished; raises ConnectionClosed if the replica goes."""
    async with connect(replica.ws_url, subprotocols=["graphql-transport-ws"]) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        variables = {"t": table_id, "a": after}
        await ws.send(
            json.dumps(
                {"id": "1", "type": "subscribe", "payload": {"query": SUB, "variables": variables}}
            )
        )
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
            assert msg["type"] == "next", msg
            event = msg["payload"]["data"]["tableEvents"]
            out.append(event)
            if event["type"] == "game.finished":
                return


async def new_table(c: Client, humans: int = 2, bots: int = 0) -> Seated:
    made = (await c.q(CREATE, g="lucky-draw", r=[], o=None, s=humans + bots))["createTable"]
    t = Seated(made["table"]["id"], made["hostToken"])
    for i in range(humans):
        joined = (await c.q(JOIN, t=t.table_id, n=f"P{i}"))["joinTable"]
        t.tokens[joined["seat"]] = joined["playerToken"]
    for _ in range(bots):
        await c.q(ADD_BOT, t.host, t=t.table_id)
    return t


async def play(
    c: Client, t: Seated, moves: int | None = None, pause: float = 0.0, retries: int = 0
) -> int:
    """Make the humans' moves until the end (or ``moves`` of them); how many were made.

    With ``retries``, a move answered ``UNAVAILABLE`` is sent again with the same
    idempotency key, as API.md asks clients to do, up to that many times: it lands once."""
    made = 0
    while moves is None or made < moves:
        table = (await c.q(TABLE, t=t.table_id))["table"]
        if table["status"] == "FINISHED":
            return made
        acting = [s for s in table["state"]["toAct"] if s in t.tokens]
        if not acting:
            await asyncio.sleep(0.01)
            continue
        token = t.tokens[acting[0]]
        mine = (await c.q(TABLE, token, t=t.table_id))["table"]
        move, key = mine["legalMoves"][0], f"move-{table['version']}"
        for attempt in range(retries + 1):
            body = await c.raw(MOVE, token, t=t.table_id, m=move, k=key)
            errors = body.get("errors") or []
            if not errors:
                break
            if errors[0]["extensions"]["code"] != "UNAVAILABLE" or attempt == retries:
                raise GraphQLFailed(errors)
            await asyncio.sleep(0.2)
        made += 1
        await asyncio.sleep(pause)
    return made


async def test_a_table_made_on_one_replica_is_played_on_another(redis_url, redis_prefix):
    with replicas(replica_env(redis_url, redis_prefix), 2) as (a, b):
        async with client(a) as ca, client(b) as cb:
            t = await new_table(ca, humans=1, bots=1)
            await cb.q(START, t.host, t=t.table_id)
            seen: list[dict] = []
            follower = asyncio.ensure_future(follow(a, t.table_id, None, seen))
            await play(cb, t)
            await asyncio.wait_for(follower, 20)
            stored = (await cb.q(EVENTS, t=t.table_id))["table"]["events"]
            assert [e["cursor"] for e in seen] == [e["cursor"] for e in stored]
            assert {"card.played", "game.finished"} <= {e["type"] for e in seen}


async def test_a_subscriber_whose_replica_is_killed_resumes_elsewhere(redis_url, redis_prefix):
    with replicas(replica_env(redis_url, redis_prefix), 2) as (a, b):
        async with client(b) as cb:
            t = await new_table(cb, humans=2)
            await cb.q(START, t.host, t=t.table_id)
            seen: list[dict] = []
            follower = asyncio.ensure_future(follow(a, t.table_id, None, seen))
            player = asyncio.ensure_future(play(cb, t, pause=0.02))
            while len(seen) < 12:
                await asyncio.sleep(0.01)
            a.kill()
            try:
                await asyncio.wait_for(follower, 10)
                raise AssertionError("the subscription outlived its replica")
            except (ConnectionClosed, OSError):
                pass
            await asyncio.wait_for(follow(b, t.table_id, seen[-1]["cursor"], seen), 30)
            await player
            stored = (await cb.q(EVENTS, t=t.table_id))["table"]["events"]
            assert [e["cursor"] for e in seen] == [e["cursor"] for e in stored]


async def test_sigterm_finishes_requests_and_closes_subscribers(redis_url, redis_prefix):
    with replicas(replica_env(redis_url, redis_prefix), 2) as (a, b):
        async with client(b) as cb, client(a) as ca:
            tables = [await new_table(cb) for _ in range(10)]
            for t in tables:
                await cb.q(START, t.host, t=t.table_id)
            views = [(await cb.q(TABLE, t.tokens[0], t=t.table_id))["table"] for t in tables]
            async with connect(a.ws_url, subprotocols=["graphql-transport-ws"]) as ws:
                await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
                await ws.recv()
                sub = {"query": SUB, "variables": {"t": tables[0].table_id}}
                await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": sub}))
                await ws.recv()
                in_flight = [
                    asyncio.ensure_future(
                        ca.raw(MOVE, t.tokens[0], t=t.table_id, m=v["legalMoves"][0])
                    )
                    for t, v in zip(tables, views, strict=True)
                ]
                # stopped once one move has landed, with the others still on their way: a
                # fixed pause here raced the moves on a loaded machine (none had arrived)
                await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                a.term(wait=False)
                results = await asyncio.gather(*in_flight, return_exceptions=True)
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), 10)
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code in (1001, 1012)
            assert a.proc is not None and a.proc.wait(20) in (0, -15)
            landed = 0
            for t, v, r in zip(tables, views, results, strict=True):
                now = (await cb.q(TABLE, t=t.table_id))["table"]["version"]
                if isinstance(r, dict) and r.get("data"):
                    assert r["data"]["makeMove"]["table"]["version"] == now == v["version"] + 1
                    landed += 1
                else:  # refused before it began: nothing written
                    assert now == v["version"], r
            assert landed >= 1


async def test_racing_moves_across_replicas_apply_once(redis_url, redis_prefix):
    with replicas(replica_env(redis_url, redis_prefix), 2) as (a, b):
        async with client(a) as ca, client(b) as cb:
            t = await new_table(ca)
            await ca.q(START, t.host, t=t.table_id)
            view = (await ca.q(TABLE, t.tokens[0], t=t.table_id))["table"]
            sends = [
                c.raw(MOVE, t.tokens[0], t=t.table_id, m=m, v=view["version"])
                for m in view["legalMoves"]
                for c in (ca, cb)
            ]
            results = await asyncio.gather(*sends)
            won = [r for r in results if not r.get("errors")]
            assert len(won) == 1
            assert {r["errors"][0]["extensions"]["code"] for r in results if r.get("errors")} == {
                "VERSION_CONFLICT"
            }
            view = (await ca.q(TABLE, t.tokens[1], t=t.table_id))["table"]
            retried = await asyncio.gather(
                *(
                    c.raw(MOVE, t.tokens[1], t=t.table_id, m=view["legalMoves"][0], k="same-key")
                    for _ in range(6)
                    for c in (ca, cb)
                )
            )
            versions = {r["data"]["makeMove"]["table"]["version"] for r in retried if r.get("data")}
            after = (await cb.q(TABLE, t=t.table_id))["table"]["version"]
            assert after == view["version"] + 1
            assert versions == {after}
            assert (
                len({json.dumps(r["data"]["makeMove"]["events"]) for r in retried if r.get("data")})
                == 1
            )

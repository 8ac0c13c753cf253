"""Seat presence through the real API, on both stores: ``Seat.connected`` follows the
seats' open subscriptions on every replica, and ``seat.connected`` / ``seat.away`` events
come without a version change."""

from __future__ import annotations

import pytest
from support.life import SEATS, SUB, events, eventually, subscribe, until
from support.lucky import ADD_BOT, CREATE, JOIN, open_table
from support.server import Client, make_settings, serve


async def _connected(c: Client, table_id: str) -> list[bool]:
    seats = (await c.q(SEATS, t=table_id))["table"]["seats"]
    return [s["connected"] for s in seats]


async def test_a_seat_is_connected_while_its_subscription_is_open(client: Client):
    t = await open_table(client, humans=2, start=False, bots=1)
    await client.q(
        "mutation($t: ID!) { createTable(gameId: $t) { hostToken } }", t="lucky-draw"
    )  # another table, to show presence is per table
    version = (await client.q(SEATS, t=t.table_id))["table"]["version"]
    assert await _connected(client, t.table_id) == [False, False, True]  # the bot is there
    async with client.ws() as first:
        await subscribe(first, SUB, {"t": t.table_id}, t.tokens[1])
        came = await until(first, lambda e: e["type"] == "seat.connected")
        assert came[-1]["seat"] == 1 and came[-1]["version"] == version
        assert await _connected(client, t.table_id) == [False, True, True]
        # a second subscription of the same seat is no new arrival
        async with client.ws() as second:
            await subscribe(second, SUB, {"t": t.table_id}, t.tokens[1])
            await until(second, lambda e: e["type"] == "seat.connected")
        tail = await events(client, t.table_id, None, a=came[-1]["cursor"])
        assert tail["events"] == []  # the second one's leaving left the seat connected
        assert await _connected(client, t.table_id) == [False, True, True]
    await eventually(lambda: _is(client, t.table_id, [False, False, True]))
    log = (await events(client, t.table_id, None, f=1000))["events"]
    presence = [(e["type"], e["seat"], e["version"]) for e in log if e["type"].startswith("seat.c")]
    presence += [(e["type"], e["seat"], e["version"]) for e in log if e["type"] == "seat.away"]
    assert presence == [("seat.connected", 1, version), ("seat.away", 1, version)]
    assert (await client.q(SEATS, t=t.table_id))["table"]["version"] == version


async def _is(c: Client, table_id: str, want: list[bool]) -> bool:
    return await _connected(c, table_id) == want


async def test_spectators_and_the_host_have_no_presence(client: Client):
    t = await open_table(client, humans=2, start=False)
    for token in (None, t.host):
        async with client.ws() as conn:
            await subscribe(conn, SUB, {"t": t.table_id}, token)
            await until(conn, lambda e: e["type"] == "seat.joined" and e["seat"] == 1)
            assert await _connected(client, t.table_id) == [False, False]
    types = [e["type"] for e in (await events(client, t.table_id, None, f=1000))["events"]]
    assert "seat.connected" not in types and "seat.away" not in types


async def test_an_empty_seat_is_never_connected_and_a_bot_always(client: Client):
    made = (await client.q(CREATE, g="lucky-draw", s=3))["createTable"]
    table_id, host = made["table"]["id"], made["hostToken"]
    await client.q(JOIN, t=table_id, n="Ann")
    assert await _connected(client, table_id) == [False, False, False]
    await client.q(ADD_BOT, host, t=table_id)
    assert await _connected(client, table_id) == [False, True, False]


@pytest.mark.redis
async def test_presence_is_shared_by_replicas(registry, redis_url, redis_prefix):
    from tablestate.store.redis import RedisStore

    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    try:
        async with serve(make_settings(), registry, stores[0]) as a:
            async with serve(make_settings(), registry, stores[1]) as b:
                t = await open_table(a, humans=2, start=False)
                async with b.ws() as conn:
                    await subscribe(conn, SUB, {"t": t.table_id}, t.tokens[0])
                    await until(conn, lambda e: e["type"] == "seat.connected")
                    assert await _connected(a, t.table_id) == [True, False]
                    # the other replica delivers the event to its own subscribers too
                    async with a.ws() as watcher:
                        await subscribe(watcher, SUB, {"t": t.table_id})
                        await until(watcher, lambda e: e["type"] == "seat.connected")
                await eventually(lambda: _is(a, t.table_id, [False, False]))
    finally:
        for store in stores:
            await store.close()

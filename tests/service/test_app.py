"""The application's start-up: the garbage collector tuned for serving, when asked; the
WebSocket to ``/graphql`` past Starlette's stack, and every other one through it."""

from __future__ import annotations

import gc

import pytest
from support.server import make_settings, serve, ws_init
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tablestate.app import GC_THRESHOLDS, open_store
from tablestate.config import Settings


async def test_gc_is_tuned_at_start_up_when_asked(registry):
    before = gc.get_threshold()
    try:
        async with serve(make_settings(gc_tuning=False), registry) as c:
            assert (await c.q("{ games { id } }"))["games"]
            assert gc.get_threshold() == before
        async with serve(make_settings(gc_tuning=True), registry) as c:
            assert (await c.q("{ games { id } }"))["games"]
            assert gc.get_threshold() == GC_THRESHOLDS
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_gc_tuning_is_on_for_the_server_unless_turned_off():
    assert Settings.from_env({}).gc_tuning
    assert not Settings.from_env({"TABLESTATE_GC_TUNING": "off"}).gc_tuning


def test_moves_in_flight_is_a_setting():
    assert Settings.from_env({}).moves_in_flight == 64
    assert Settings.from_env({"TABLESTATE_MOVES_IN_FLIGHT": "8"}).moves_in_flight == 8


@pytest.mark.redis
async def test_snapshot_deltas_is_a_setting_the_redis_store_follows(
    redis_url: str, redis_prefix: str
) -> None:
    """TABLESTATE_SNAPSHOT_DELTAS=0 (for an upgrade from a release that reads only the
    whole snapshot): a long snapshot is written whole, in the field such a release reads."""
    import redis.asyncio as aioredis

    from tablestate.store import NewEvent, TableMeta

    assert Settings.from_env({}).snapshot_deltas
    admin = aioredis.from_url(redis_url)
    long = "x" * 2000
    meta = TableMeta("five-crowns", "OPEN", 1.0)
    try:
        for value, whole in (("0", True), ("1", False)):
            env = {
                "REDIS_URL": redis_url,
                "TABLESTATE_REDIS_PREFIX": redis_prefix,
                "TABLESTATE_SECRET": "s",
            }
            settings = Settings.from_env({**env, "TABLESTATE_SNAPSHOT_DELTAS": value})
            store = open_store(settings)
            try:
                table_id = f"deltas-{value}"
                await store.create(table_id, long, meta, [NewEvent("a", "t")], ttl=60)
                snapshot_field = await admin.hget(f"{redis_prefix}{{t:{table_id}}}:s", "snap")
                assert (snapshot_field == long.encode()) is whole
                assert await store.load(table_id) == (long, 1)
            finally:
                await store.close()
    finally:
        await admin.aclose()


async def test_the_graphql_websocket_goes_straight_to_its_endpoint_and_others_to_the_router(
    registry,
):
    async with serve(make_settings(), registry) as c:
        stack = c.app.build_middleware_stack()
        entered: list[str] = []

        async def counted(scope, receive, send):  # type: ignore[no-untyped-def]
            entered.append(scope["path"])
            await stack(scope, receive, send)

        c.app.middleware_stack = counted
        async with c.ws() as ws:
            assert (await ws_init(ws))["type"] == "connection_ack"
        assert "/graphql" not in entered
        url = c.url.replace("http", "ws") + "/nowhere"
        with pytest.raises(InvalidStatus):  # the router's 404: a closed handshake
            async with connect(url):
                pass
        assert "/nowhere" in entered
        assert (await c.q("{ games { id } }"))["games"]
        assert "/graphql" in entered  # HTTP takes the stack

"""The application's start-up: the garbage collector tuned for serving, when asked; the
WebSocket to ``/graphql`` past Starlette's stack, and every other one through it."""

from __future__ import annotations

import gc

import pytest
from support.server import make_settings, serve, ws_init
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tablestate.app import GC_THRESHOLDS
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

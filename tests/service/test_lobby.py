"""The lobby's fan-out inside one replica (service/lobby.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tablestate.errors import ApiError
from tablestate.lobby import LobbyHub
from tablestate.store.memory import MemoryStore


async def test_notices_reach_the_subscribers_of_their_game():
    store = MemoryStore()
    hub = LobbyHub(store)
    async with hub.listen("lucky-draw") as mine, hub.listen("other") as theirs:
        await store.publish_lobby(json.dumps({"gameId": "lucky-draw", "tableId": "t1"}))
        assert (await asyncio.wait_for(mine.next(), 1))["tableId"] == "t1"
        assert theirs.queue.empty()


async def test_a_cut_channel_ends_every_lobby_subscription_with_unavailable():
    """The store's empty notice says notices may have been missed (its channel was cut):
    each subscriber must start again from a snapshot, so its subscription ends."""
    store = MemoryStore()
    hub = LobbyHub(store)
    async with hub.listen(None) as sub:
        await store.publish_lobby(json.dumps({"gameId": "g", "tableId": "before"}))
        await asyncio.sleep(0)
        hub._announce("")
        assert (await sub.next())["tableId"] == "before"
        with pytest.raises(ApiError) as refused:
            await sub.next()
        assert refused.value.code == "UNAVAILABLE"

"""The pub/sub connection of plain URLs (store/_pubsub.py) and the watcher on it, against a
real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import uuid4

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from tablestate.store._pipe import Address
from tablestate.store._pubsub import NAME, LeanPubSub
from tablestate.store._watcher import Watcher

pytestmark = pytest.mark.redis


def _address(url: str) -> Address:
    address = Address.of(url)
    assert address is not None
    return address


@pytest.fixture
async def link(redis_url: str) -> AsyncIterator[LeanPubSub]:
    made = LeanPubSub(_address(redis_url), keepalive=0.2, timeout=2)
    await made.connect()
    yield made
    await made.aclose()


def _channel() -> str:
    return f"{{test:{uuid4().hex[:8]}}}:ch"


async def test_messages_come_as_redis_py_hands_them_on(
    link: LeanPubSub, admin: aioredis.Redis
) -> None:
    channel = _channel()
    await link.ssubscribe(channel)
    assert await link.get_message() == {
        "type": "ssubscribe",
        "pattern": None,
        "channel": channel.encode(),
        "data": 1,
    }
    for n in range(3):
        assert await admin.execute_command("SPUBLISH", channel, f"1-{n}") == 1
    for n in range(3):
        message = await asyncio.wait_for(link.get_message(), 2)
        assert message == {
            "type": "smessage",
            "pattern": None,
            "channel": channel.encode(),
            "data": f"1-{n}".encode(),
        }
    await link.sunsubscribe(channel)
    assert (await asyncio.wait_for(link.get_message(), 2))["type"] == "sunsubscribe"
    assert await admin.execute_command("SPUBLISH", channel, "gone") == 0


async def test_silence_ends_a_wait_with_none_and_a_ping_is_answered(link: LeanPubSub) -> None:
    await link.ssubscribe(_channel())
    assert (await link.get_message())["type"] == "ssubscribe"
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await asyncio.wait_for(link.get_message(), 2) is None
    waited = loop.time() - started
    assert 0.15 <= waited < 1.0  # a round of the keepalive (0.2 s), at most two
    await link.ping()
    assert (await asyncio.wait_for(link.get_message(), 2))["type"] == "pong"


async def test_the_connection_is_named_and_its_loss_raises_after_what_it_brought(
    link: LeanPubSub, admin: aioredis.Redis
) -> None:
    channel = _channel()
    await link.ssubscribe(channel)
    await admin.execute_command("SPUBLISH", channel, "last")
    await asyncio.sleep(0.1)  # the confirmation and the message are in, not yet taken
    assert link._protocol is not None and link._protocol.transport is not None
    host, port = link._protocol.transport.get_extra_info("sockname")[:2]
    mine = [c for c in await admin.client_list() if c["addr"] == f"{host}:{port}"]
    assert [c["name"] for c in mine] == [NAME]
    await admin.client_kill_filter(_id=mine[0]["id"])
    await asyncio.sleep(0.1)
    assert link.connection is None
    assert (await link.get_message())["type"] == "ssubscribe"
    assert (await link.get_message())["data"] == b"last"
    with pytest.raises(RedisConnectionError):
        await link.get_message()
    with pytest.raises(RedisConnectionError):
        await link.ping()


async def test_a_refused_hello_fails_the_connect(redis_url: str, admin: aioredis.Redis) -> None:
    if await admin.config_get("requirepass") != {"requirepass": ""}:
        pytest.skip("this Redis asks for a password")
    address = _address(redis_url)
    wrong = Address(address.host, address.port, 0, None, "not-the-password")
    with pytest.raises(ResponseError):
        await LeanPubSub(wrong, keepalive=1, timeout=2).connect()


async def test_the_watcher_of_a_plain_url_reads_with_it_and_pings_through_silence(
    redis_url: str, admin: aioredis.Redis
) -> None:
    heard: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    client = aioredis.Redis.from_url(redis_url)
    watcher = Watcher(client, timeout=2, keepalive=0.1, address=_address(redis_url))
    watcher.listener = lambda table_id, cursor: heard.put_nowait((table_id, cursor))
    try:
        channel = _channel()
        await watcher.watch("t1", channel)
        first = watcher._pubsub
        assert isinstance(first, LeanPubSub)
        await asyncio.sleep(0.8)  # eight rounds of silence: each pinged, each answered
        assert watcher._pubsub is first and watcher.connected
        await admin.execute_command("SPUBLISH", channel, "3-0")
        assert await asyncio.wait_for(heard.get(), 2) == ("t1", "3-0")
    finally:
        await watcher.close()


def test_only_plain_urls_have_an_address() -> None:
    assert Address.of("redis://:secret@127.0.0.1:6379/2") == Address(
        "127.0.0.1", 6379, 2, None, "secret"
    )
    assert Address.of("redis://u:p@h:1/0") == Address("h", 1, 0, "u", "p")
    assert Address.of("rediss://127.0.0.1:6379/0") is None
    assert Address.of("redis+sentinel://127.0.0.1:26379/mymaster") is None

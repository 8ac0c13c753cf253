"""The commits' pipelined connection (store/_pipe.py), against a real Redis."""

from __future__ import annotations

import asyncio
from uuid import uuid4

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from tablestate.store._pipe import Pipe

pytestmark = pytest.mark.redis


def _pipe(url: str) -> Pipe:
    pipe = Pipe.for_url(url)
    assert pipe is not None
    return pipe


async def test_replies_reach_their_own_callers(redis_url: str) -> None:
    """Many commands at once (most leave in one write): each caller gets its own reply,
    an error reply raises for its caller only."""
    pipe = _pipe(redis_url)
    key = f"test:{uuid4().hex}"
    try:
        calls = [pipe.call("INCRBY", key, n) for n in range(1, 201)]
        calls.insert(100, pipe.call("NOSUCHCOMMAND", key))
        results = await asyncio.gather(*calls, return_exceptions=True)
        error = results.pop(100)
        assert isinstance(error, ResponseError)
        # INCRBY returns the running total: the n-th reply is 1 + 2 + ... + n
        assert results == [n * (n + 1) // 2 for n in range(1, 201)]
        assert await pipe.call("GET", key) == b"20100"
        assert await pipe.call("DEL", key) == 1
    finally:
        pipe.close()


async def test_a_caller_that_gives_up_leaves_the_others_their_replies(redis_url: str) -> None:
    pipe = _pipe(redis_url)
    key = f"test:{uuid4().hex}"
    try:
        await pipe.call("SET", key, "x")
        slow = asyncio.ensure_future(pipe.call("BLPOP", f"{key}:empty", 0.3))
        after = asyncio.ensure_future(pipe.call("GET", key))
        await asyncio.sleep(0.05)
        slow.cancel()  # its reply (a timeout, nil) still comes, and is dropped
        assert await after == b"x"  # Redis answers in order: after the BLPOP
        assert await pipe.call("GET", key) == b"x"
        await pipe.call("DEL", key)
    finally:
        pipe.close()


async def test_a_command_past_its_deadline_times_out_and_leaves_the_rest_in_order(
    redis_url: str,
) -> None:
    pipe = _pipe(redis_url)
    key = f"test:{uuid4().hex}"
    try:
        await pipe.call("SET", key, "x")
        slow = asyncio.ensure_future(pipe.call("BLPOP", f"{key}:empty", 0.5, timeout=0.1))
        later = asyncio.ensure_future(pipe.call("GET", key, timeout=2))
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(TimeoutError):
            await slow
        assert loop.time() - started < 0.4  # its deadline, not Redis's answer (0.5 s)
        assert not later.done()  # behind the blocked command, within its own deadline
        assert await later == b"x"
        assert await pipe.call("GET", key, timeout=1) == b"x"  # the timer set again
        await pipe.call("DEL", key)
    finally:
        pipe.close()


async def test_a_lost_connection_fails_its_callers_then_reconnects(redis_url: str) -> None:
    pipe = _pipe(redis_url)
    try:
        name = f"pipe-{uuid4().hex[:8]}"
        await pipe.call("CLIENT", "SETNAME", name)
        waiting = asyncio.ensure_future(pipe.call("BLPOP", f"test:{uuid4().hex}", 5))
        await asyncio.sleep(0.05)
        import redis.asyncio as aioredis

        admin = aioredis.Redis.from_url(redis_url)
        try:
            clients = await admin.client_list()
            mine = [c for c in clients if c.get("name") == name]
            assert len(mine) == 1
            await admin.client_kill_filter(_id=mine[0]["id"])
        finally:
            await admin.aclose()
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(waiting, 5)
        assert await pipe.call("PING") == b"PONG"  # a new connection
    finally:
        pipe.close()


async def test_the_url_says_which_database(redis_url: str) -> None:
    base = redis_url.rsplit("/", 1)[0] if redis_url.count("/") > 2 else redis_url
    pipe = _pipe(f"{base}/3")
    try:
        key = f"test:{uuid4().hex}"
        await pipe.call("SET", key, "db3")
        import redis.asyncio as aioredis

        other = aioredis.Redis.from_url(f"{base}/3")
        try:
            assert await other.get(key) == b"db3"
            await other.delete(key)
        finally:
            await other.aclose()
    finally:
        pipe.close()


def test_only_plain_urls_get_a_pipe() -> None:
    assert Pipe.for_url("redis://127.0.0.1:6379/0") is not None
    assert Pipe.for_url("redis://:secret@127.0.0.1:6379/2") is not None
    assert Pipe.for_url("rediss://127.0.0.1:6379/0") is None
    assert Pipe.for_url("unix:///tmp/redis.sock") is None
    assert Pipe.for_url("redis://127.0.0.1:6379/0?socket_keepalive=true") is None

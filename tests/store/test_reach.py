"""How the Redis store tells Redis's failures apart (``store/_reach.py``): by the class of
the error alone, whichever code raised it (redis-py, the commits' pipe, the store's own
connections), never by where it was raised."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
import redis.asyncio as aioredis
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from tablestate.store import NewEvent, RedisStore, StoreUnavailable, TableMeta
from tablestate.store._reach import _Reaching
from tablestate.store._wire import LostMidCommand, error_reply
from tablestate.store.base import StoreFull

pytestmark = pytest.mark.redis

META = TableMeta("five-crowns", "OPEN", 1.0)
EVENT = NewEvent("a", "2026-01-01T00:00:00Z")


@pytest.mark.parametrize(
    "error, becomes",
    [
        pytest.param(RedisConnectionError("closed"), StoreUnavailable, id="connection"),
        pytest.param(RedisTimeoutError("slow"), StoreUnavailable, id="redis-timeout"),
        pytest.param(TimeoutError(), StoreUnavailable, id="timeout"),
        pytest.param(ConnectionResetError(), StoreUnavailable, id="os-error"),
        pytest.param(LostMidCommand("handler closed"), StoreUnavailable, id="lost-mid-command"),
        pytest.param(BusyLoadingError("loading"), StoreUnavailable, id="loading"),
        pytest.param(ReadOnlyError("replica"), StoreUnavailable, id="read-only"),
        pytest.param(ClusterDownError("down"), StoreUnavailable, id="cluster-down"),
        pytest.param(TryAgainError("again"), StoreUnavailable, id="try-again"),
        pytest.param(MovedError("12 127.0.0.1:7000"), StoreUnavailable, id="moved"),
        pytest.param(AskError("12 127.0.0.1:7000"), StoreUnavailable, id="ask"),
        pytest.param(OutOfMemoryError("command not allowed"), StoreFull, id="oom"),
        pytest.param(ResponseError("ERR wrong type"), None, id="refused"),
        pytest.param(AttributeError("a bug of ours"), None, id="attribute-error"),
        pytest.param(RuntimeError("a bug of ours"), None, id="runtime-error"),
    ],
)
async def test_errors_are_told_apart_by_class_wherever_raised(
    error: Exception, becomes: type[Exception] | None
) -> None:
    """Raised here, in no file of redis-py's: the class alone decides. A builtin
    ``AttributeError`` or ``RuntimeError`` is a bug, never an unreachable Redis (the
    store's connections say ``LostMidCommand`` for a transport lost under a command)."""
    with pytest.raises(Exception) as raised:
        async with _Reaching(None):
            raise error
    if becomes is None:
        assert raised.value is error
    else:
        assert type(raised.value) is becomes
        assert raised.value.__cause__ is error


@pytest.mark.parametrize(
    "reply, kind",
    [
        ("OOM command not allowed when used memory > 'maxmemory'.", OutOfMemoryError),
        ("NOSCRIPT No matching script.", NoScriptError),
        ("READONLY You can't write against a read only replica.", ReadOnlyError),
        ("LOADING Redis is loading the dataset in memory", BusyLoadingError),
        ("ERR unknown command 'NOPE'", ResponseError),
    ],
)
def test_error_replies_read_by_hiredis_get_redis_pys_classes(reply: str, kind: type) -> None:
    error = error_reply(reply)
    assert isinstance(error, kind)
    assert str(error) in reply


class _ClosedHandle:
    """A connection's writer whose transport says it is open while its handle is closed,
    as uvloop's does when a failed node's reconnection closed it meanwhile."""

    def __init__(self, writer: Any) -> None:
        self._writer = writer

    def writelines(self, data: object) -> None:
        raise RuntimeError("unable to perform operation on <TCPTransport>; the handler is closed")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


async def test_a_transport_closed_under_a_command_is_a_lost_connection(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url, prefix=f"reach:{uuid4().hex[:8]}:", max_connections=1)
    pool = store._redis.connection_pool  # white box: the only connection, broken

    async def break_it() -> None:
        connection: Any = await pool.get_connection()
        connection._writer = _ClosedHandle(connection._writer)
        await pool.release(connection)

    try:
        await break_it()
        with pytest.raises(StoreUnavailable) as raised:  # a write is never sent again
            await store.rate_limit("k", 1.0, 1)
        assert isinstance(raised.value.__cause__, LostMidCommand)
        await break_it()
        assert await store.load("t") is None  # a read is, on a new connection
    finally:
        await store.close()


async def test_a_read_only_replica_refusing_the_commits_pipe_is_unavailable(
    tmp_path: Path,
) -> None:
    """The commits' pipe is the store's own reader, not redis-py's: its ``READONLY`` reply
    (a primary demoted under a failover) is still ``ReadOnlyError``, so unavailable."""
    from support.replicas import RedisProcess
    from support.server import free_port

    server = RedisProcess(tmp_path).start()
    admin = aioredis.Redis.from_url(server.url)
    store = RedisStore.from_url(server.url, prefix="reach:")
    try:
        assert store._pipe is not None  # a plain URL, acknowledged by the primary: the pipe
        await store.create("t", "s", META, [EVENT], ttl=60)
        await admin.replicaof("127.0.0.1", free_port())  # a primary that never answers
        with pytest.raises(StoreUnavailable) as raised:
            await store.commit("t", 1, "s2", META, [EVENT], ttl=60)
        assert isinstance(raised.value.__cause__, ReadOnlyError)
    finally:
        await store.close()
        await admin.aclose()
        server.stop()


async def test_a_full_redis_is_full_down_the_pipe_and_through_redis_py(tmp_path: Path) -> None:
    from support.replicas import RedisProcess

    server = RedisProcess(tmp_path).start()
    admin = aioredis.Redis.from_url(server.url)
    store = RedisStore.from_url(server.url, prefix="reach:")
    try:
        await store.create("t", "s", META, [EVENT], ttl=60)
        await admin.config_set("maxmemory-policy", "noeviction")
        used = int((await admin.info("memory"))["used_memory"])
        await admin.config_set("maxmemory", used - 64_000)
        with pytest.raises(StoreFull):  # the commit: down the pipe, read by hiredis
            await store.commit("t", 1, "s" * 100_000, META, [EVENT], ttl=60)
        with pytest.raises(StoreFull):  # chat: through redis-py's client
            await store.append("t", [NewEvent("chat", "2026-01-01T00:00:00Z", {"t": "x"})])
        assert await store.load("t") == ("s", 1)  # reads still work, nothing was applied
    finally:
        await store.close()
        await admin.aclose()
        server.stop()

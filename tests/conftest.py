"""Session-wide fixtures: a real Redis for the tests marked ``redis``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from uuid import uuid4

import pytest
import redis
from redis_server import NoRedis, RedisHandle, provide_redis

from tablestate import plugins


@pytest.fixture(scope="session")
def redis_handle() -> Iterator[RedisHandle]:
    """The session's Redis (see ``redis_server.py``). Without one, the Redis tests fail
    when ``CI`` is set and are skipped otherwise."""
    with contextlib.ExitStack() as stack:
        try:
            handle = stack.enter_context(provide_redis())
        except NoRedis as exc:
            if os.environ.get("CI"):
                pytest.fail(f"CI needs a Redis for the redis tests: {exc}")
            pytest.skip(f"no Redis server available (set REDIS_URL to use one): {exc}")
        yield handle


@pytest.fixture(scope="session")
def registry() -> plugins.Registry:
    """Every installed plugin, found through the entry points (the example plugin too)."""
    return plugins.load()


@pytest.fixture(scope="session")
def redis_url(redis_handle: RedisHandle) -> str:
    return redis_handle.url


@pytest.fixture
def redis_prefix(redis_handle: RedisHandle) -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards on a shared Redis
    (a Redis the tests started is never shared, and is never flushed either)."""
    prefix = f"test:{uuid4().hex[:8]}:"
    yield prefix
    if not redis_handle.owned:
        client = redis.Redis.from_url(redis_handle.url)
        try:
            keys = list(client.scan_iter(match=f"{prefix}*", count=500))
            if keys:
                client.delete(*keys)
        finally:
            client.close()

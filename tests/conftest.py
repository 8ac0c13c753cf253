"""Session-wide fixtures: a real Redis for the tests marked ``redis``, and a real PostgreSQL
(or a SQLite file) for the archive's tests."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING
from uuid import uuid4

import pytest
import redis
from pg_server import NoPostgres, PostgresHandle, archive_database, provide_postgres
from redis_server import NoRedis, RedisHandle, provide_redis

from tablestate import plugins

if TYPE_CHECKING:
    from tablestate.archive.db import Archive

# A service made from the environment (Settings.from_env, `tablestate serve` in a
# subprocess) keeps its default archive in a folder of the test run's own, never in the
# working directory.
os.environ.setdefault("TABLESTATE_DATA_DIR", tempfile.mkdtemp(prefix="tablestate-test-data-"))


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


@pytest.fixture(scope="session")
def postgres_handle() -> Iterator[PostgresHandle]:
    """The session's PostgreSQL (see ``pg_server.py``). Without one, the PostgreSQL tests
    fail when ``CI`` is set and are skipped otherwise."""
    with contextlib.ExitStack() as stack:
        try:
            handle = stack.enter_context(provide_postgres())
        except NoPostgres as exc:
            if os.environ.get("CI"):
                pytest.fail(f"CI needs a PostgreSQL for the archive tests: {exc}")
            pytest.skip(f"no PostgreSQL available (set TEST_DATABASE_URL to use one): {exc}")
        yield handle


@pytest.fixture(params=["sqlite", "postgresql"])
def archive_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A database of this test's own: a SQLite file, or a fresh database on the session's
    PostgreSQL (dropped afterwards), as a user's plain URL."""
    with archive_database(request.param, request, tmp_path) as url:
        yield url


@pytest.fixture
async def archive(archive_url: str) -> AsyncIterator[Archive]:
    """An ``Archive`` on ``archive_url``, migrated, closed afterwards."""
    from tablestate.archive.db import Archive  # SQLAlchemy only for the tests that use it

    archive = Archive(archive_url)
    await archive.migrate()
    yield archive
    await archive.close()

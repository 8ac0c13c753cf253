"""Where the Redis store connects and how its commits are acknowledged
(service/store/topology.py), against real redis-servers of the test's own."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import redis
from support.replicas import RedisProcess

from tablestate.config import ConfigError, Settings
from tablestate.store.base import StoreUnavailable, TableMeta
from tablestate.store.redis import RedisStore
from tablestate.store.topology import SentinelAddress, parse_sentinel_url

pytestmark = pytest.mark.redis

META = TableMeta("g", "PLAYING", 0.0)


@pytest.mark.parametrize(
    "url, expected",
    [
        pytest.param(
            "redis+sentinel://a:26379,b:26380/main",
            SentinelAddress((("a", 26379), ("b", 26380)), "main"),
            id="two-sentinels",
        ),
        pytest.param(
            "redis+sentinel://:s%40cret@a:26379/main/2",
            SentinelAddress((("a", 26379),), "main", 2, None, "s@cret"),
            id="password-and-db",
        ),
        pytest.param(
            "redis+sentinel://me:pw@a:1/m",
            SentinelAddress((("a", 1),), "m", 0, "me", "pw"),
            id="user-and-password",
        ),
    ],
)
def test_sentinel_urls_name_sentinels_primary_and_credentials(url, expected):
    assert parse_sentinel_url(url) == expected


@pytest.mark.parametrize(
    "url",
    ["redis://a:1/m", "redis+sentinel://a:1", "redis+sentinel://a/m", "redis+sentinel://a:1/m/x"],
    ids=["not-sentinel", "no-primary", "no-port", "bad-db"],
)
def test_bad_sentinel_urls_are_refused(url):
    with pytest.raises(ValueError):
        parse_sentinel_url(url)


def test_settings_name_the_acknowledgement_and_sentinels():
    env = {"TABLESTATE_SECRET": "s", "TABLESTATE_REDIS_SENTINEL": "a:26379,b:26379"}
    settings = Settings.from_env(env | {"TABLESTATE_REDIS_ACK": "Replica"})
    assert settings.redis_ack == "replica" and settings.redis_ack_timeout == 500
    assert settings.redis_url == "redis+sentinel://a:26379,b:26379/mymaster"
    for bad in (
        {"TABLESTATE_REDIS_ACK": "quorum"},
        {"TABLESTATE_REDIS_ACK_TIMEOUT": "0"},
        {"TABLESTATE_REDIS_ACK_TIMEOUT": "2000"},  # not under TABLESTATE_REDIS_TIMEOUT
        {"TABLESTATE_REDIS_SENTINEL": "a"},
        {"REDIS_URL": "redis://x:1/0"},  # both REDIS_URL and sentinels
        {"TABLESTATE_REDIS_CLUSTER": "1"},
        {"TABLESTATE_REDIS_SENTINEL": "", "REDIS_URL": "redis+sentinel://a:1"},  # no primary
    ):
        with pytest.raises(ConfigError):
            Settings.from_env(env | bad)


async def _commit(store: RedisStore, table_id: str) -> None:
    await store.create(table_id, "{}", META, [], ttl=60.0)
    await store.commit(table_id, 1, "{}", META, [], ttl=60.0)


async def test_replica_acknowledgement_times_out_without_a_replica(tmp_path: Path):
    server = RedisProcess(tmp_path, "--appendonly", "no").start()
    store = RedisStore.from_url(server.url, prefix="t:", ack="replica", ack_timeout=100)
    try:
        began = time.monotonic()
        with pytest.raises(StoreUnavailable, match="may have landed"):
            await store.create("t1", "{}", META, [], ttl=60.0)
        assert time.monotonic() - began < 2.0
        # it did land on the primary: what a resend with its idempotency key finds
        assert await store.load("t1") == ("{}", 1)
        with pytest.raises(StoreUnavailable):  # the due-index is acknowledged too
            await store.schedule("t1", 1, 0.0)
    finally:
        await store.close()
        server.stop()


async def test_a_passed_due_entry_stays_until_a_replica_holds_what_was_read(tmp_path: Path):
    # The bot worker read the table past the entry's version, but nothing tells that a
    # replica holds that read: a failover could put the table back at the entry's version,
    # which must then still be due.
    server = RedisProcess(tmp_path, "--appendonly", "no").start()
    store = RedisStore.from_url(server.url, prefix="t:", ack="replica", ack_timeout=100)
    try:
        with redis.Redis(port=server.port) as c:
            c.zadd("t:due", {"t1|3": 0.0})
            with pytest.raises(StoreUnavailable, match="no replica holds"):
                await store.unschedule("t1", 3, passed=True)
            assert c.zrange("t:due", 0, -1) == [b"t1|3"]
            await store.unschedule("t1", 3)  # done (its commit was acknowledged): dropped
            assert c.zrange("t:due", 0, -1) == []
    finally:
        await store.close()
        server.stop()


async def test_replica_acknowledgement_with_a_replica_holds_the_commit(tmp_path: Path):
    (tmp_path / "p").mkdir()
    (tmp_path / "r").mkdir()
    primary = RedisProcess(tmp_path / "p", "--appendonly", "no").start()
    replica = RedisProcess(
        tmp_path / "r", "--replicaof", "127.0.0.1", str(primary.port), "--appendonly", "no"
    ).start()
    with redis.Redis(port=replica.port) as c:
        for _ in range(200):
            if c.info("replication").get("master_link_status") == "up":
                break
            time.sleep(0.05)
    store = RedisStore.from_url(primary.url, prefix="t:", ack="replica", ack_timeout=1000)
    copy = RedisStore.from_url(replica.url, prefix="t:")
    try:
        await _commit(store, "t1")
        # acknowledged: the replica holds it already, with nothing waited for here
        assert await copy.load("t1") == ("{}", 2)
        await store.schedule("t1", 1, 0.0)
        await store.unschedule("t1", 1, passed=True)  # a replica holds version 2: dropped
        assert await store.claim_due(1.0, 1.0, 10) == ()
    finally:
        await store.close()
        await copy.close()
        replica.stop()
        primary.stop()


async def test_aof_acknowledgement_is_refused_by_a_server_without_waitaof(tmp_path: Path):
    server = RedisProcess(tmp_path, "--appendonly", "no").start()
    store = RedisStore.from_url(server.url, prefix="t:", ack="aof")
    try:
        version = (await store._redis.info("server"))["redis_version"]
        if tuple(int(p) for p in version.split(".")[:2]) >= (7, 2):
            await store.verify()  # a server that has WAITAOF accepts it
            return
        with pytest.raises(RuntimeError, match="TABLESTATE_REDIS_ACK=aof needs WAITAOF"):
            await store.verify()
    finally:
        await store.close()
        server.stop()

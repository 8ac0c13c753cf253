"""Rate limits: the bucket's arithmetic in both stores, kept in Redis on keys of their own so
that they hold across replicas, and failing open when the store is away."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis
from support.server import make_settings, serve

from tablestate.config import Settings
from tablestate.ratelimit import Client, Guard
from tablestate.store.memory import MemoryStore
from tablestate.store.redis import RedisStore

GAMES = {"query": "{ games { id } }"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_memory_bucket_arithmetic():
    clock = Clock()
    store = MemoryStore(clock=clock)
    assert [await store.rate_limit("k", 2.0, 3) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = await store.rate_limit("k", 2.0, 3)
    assert wait == pytest.approx(0.5)  # a burst of 3, then one every half second
    clock.now += 0.5
    assert await store.rate_limit("k", 2.0, 3) == 0.0
    assert await store.rate_limit("k", 2.0, 3) > 0
    assert await store.rate_limit("other", 2.0, 3) == 0.0  # buckets are per key
    clock.now += 10
    assert await store.rate_limit("k", 2.0, 3, cost=3) == 0.0  # a costly request: 3 at once
    assert await store.rate_limit("k", 2.0, 3) > 0


@pytest.mark.redis
async def test_redis_bucket_arithmetic_and_keys(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    admin = aioredis.from_url(redis_url)
    try:
        assert [await store.rate_limit("a:x", 1.0, 5) for _ in range(5)] == [0.0] * 5
        wait = await store.rate_limit("a:x", 1.0, 5)
        assert 0.8 < wait <= 1.0
        assert await store.rate_limit("a:y", 1.0, 5) == 0.0
        keys = sorted(k.decode() for k in await admin.keys(f"{redis_prefix}*"))
        assert keys == [f"{redis_prefix}rl:a:x", f"{redis_prefix}rl:a:y"]  # apart from tables
        ttl = await admin.pttl(f"{redis_prefix}rl:a:x")
        assert 0 < ttl <= 5100  # a key lives only as long as its bucket is not full
    finally:
        await admin.aclose()
        await store.close()


@pytest.mark.redis
async def test_limits_hold_across_replicas(registry, redis_url, redis_prefix):
    # buckets that refill once a minute or slower: a slow run never earns a token back
    settings = make_settings(
        rate_address=0.01, rate_address_burst=10, rate_token=0.01, rate_token_burst=4
    )
    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    admin = aioredis.from_url(redis_url)
    try:
        async with (
            serve(settings, registry, stores[0]) as a,
            serve(settings, registry, stores[1]) as b,
        ):
            address = {"X-Forwarded-For": "198.51.100.77"}
            codes = [
                (await a.http.post("/graphql", json=GAMES, headers=address)).status_code
                for _ in range(10)
            ]
            assert codes == [200] * 10
            # the address spent its burst on replica A: replica B refuses it too
            r = await b.http.post("/graphql", json=GAMES, headers=address)
            assert (
                r.status_code == 429
                and r.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
            )
            # a token's mutations too, whatever the address they come from (a start that
            # the rules refuse still counts: it is charged before it runs)
            made = await a.q(
                'mutation { createTable(gameId: "five-crowns", seats: 2) { hostToken table { id } } }'
            )
            token, tid = made["createTable"]["hostToken"], made["createTable"]["table"]["id"]
            start = {
                "query": "mutation($t: ID!) { startGame(tableId: $t) { version } }",
                "variables": {"t": tid},
            }
            for i in range(4):
                headers = {
                    "X-Forwarded-For": f"198.51.100.{100 + i}",
                    "Authorization": f"Bearer {token}",
                }
                body = (await a.http.post("/graphql", json=start, headers=headers)).json()
                assert body["errors"][0]["extensions"]["code"] == "BAD_INPUT"  # too few players
            headers = {"X-Forwarded-For": "198.51.100.200", "Authorization": f"Bearer {token}"}
            body = (await b.http.post("/graphql", json=start, headers=headers)).json()
            assert body["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
            # queries with the token are counted by address only
            assert (await b.http.post("/graphql", json=GAMES, headers=headers)).status_code == 200
            # no token is ever a key: only its hash
            keys = [k.decode() for k in await admin.keys(f"{redis_prefix}rl:*")]
            secret = token.split(".", 1)[1]
            assert keys and not any(secret in k or token in k for k in keys)
            for key in keys:
                assert (await admin.pttl(key)) > 0
    finally:
        await admin.aclose()
        for store in stores:
            await store.close()


async def _evalsha_calls(admin: aioredis.Redis) -> int:
    stats = await admin.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0))


@pytest.mark.redis
async def test_a_replica_pays_the_shared_bucket_in_chunks(redis_url, redis_prefix):
    """With a burst of 100, a replica asks Redis once per 10 requests; the shared limit
    still holds exactly: a burst is a burst, whichever replicas serve it."""
    settings = make_settings(rate_address=0.01, rate_address_burst=100)
    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    admin = aioredis.from_url(redis_url)
    try:
        a, b = (Guard(settings, store) for store in stores)
        client = Client("198.51.100.9", False)
        before = await _evalsha_calls(admin)
        assert [await a.admit(client) for _ in range(50)] == [0.0] * 50
        assert await _evalsha_calls(admin) - before <= 6
        # the two replicas together admit the burst, never more
        admitted = 0
        for i in range(200):
            admitted += (await (a if i % 2 else b).admit(client)) == 0.0
        assert 100 - 50 - 2 * 9 <= admitted <= 100 - 50
        # once it is spent, every replica refuses, with the time to wait
        assert await a.admit(client) > 0 and await b.admit(client) > 0
        # a costly request may still spend a whole burst at once, never more
        other = Client("198.51.100.10", False)
        assert await b.admit(other, cost=100) == 0.0
        assert await a.admit(other) > 0
    finally:
        await admin.aclose()
        for store in stores:
            await store.close()


async def test_limits_fail_open_when_the_store_is_away():
    store = RedisStore.from_url("redis://127.0.0.1:1", timeout=0.2)
    try:
        guard = Guard(make_settings(), store)
        started = asyncio.get_running_loop().time()
        assert await guard.admit(Client("198.51.100.1", False), "t.x") == 0.0
        assert asyncio.get_running_loop().time() - started < 2
    finally:
        await store.close()


def test_client_address_behind_proxies():
    guard = Guard(make_settings(trusted_proxies=("127.0.0.1", "10.0.0.0/8")), MemoryStore())

    def scope(peer: str, *forwarded: str) -> dict:
        headers = [(b"x-forwarded-for", f.encode()) for f in forwarded]
        return {"client": (peer, 1234), "headers": headers}

    # a direct client: its own address; the host itself is exempt
    assert guard.client(scope("203.0.113.9")) == Client("203.0.113.9", False)
    assert guard.client(scope("127.0.0.1")) == Client("127.0.0.1", True)
    # behind a proxy on a private network: the nearest address that is not a proxy
    assert guard.client(scope("10.0.0.5", "203.0.113.9")) == Client("203.0.113.9", False)
    assert (
        guard.client(scope("10.0.0.5", "198.51.100.1, 203.0.113.9, 10.0.0.7")).address
        == "203.0.113.9"
    )
    # a client cannot claim to be the host itself, nor hide behind a forged header
    assert guard.client(scope("10.0.0.5", "127.0.0.1")) == Client("127.0.0.1", False)
    assert guard.client(scope("203.0.113.9", "127.0.0.1")) == Client("203.0.113.9", False)
    assert guard.client(scope("10.0.0.5", "garbage")).address == "garbage"
    assert (
        json.dumps(guard.client(scope("::ffff:10.0.0.5", "203.0.113.9")).address) == '"203.0.113.9"'
    )


def test_by_default_no_direct_client_chooses_its_address():
    """No proxy is trusted unless named: a peer on a private network or on loopback that
    sends ``X-Forwarded-For`` is counted as itself, and a forwarded request is never exempt
    (a proxy on this host that is not named forwards everyone as one client, limited)."""
    assert Settings().trusted_proxies == () == Settings.from_env({}).trusted_proxies
    guard = Guard(Settings(), MemoryStore())

    def scope(peer: str, *forwarded: str) -> dict:
        return {
            "client": (peer, 1234),
            "headers": [(b"x-forwarded-for", f.encode()) for f in forwarded],
        }

    assert guard.client(scope("10.0.0.5", "203.0.113.9")) == Client("10.0.0.5", False)
    assert guard.client(scope("192.168.1.7", "203.0.113.9")) == Client("192.168.1.7", False)
    assert guard.client(scope("127.0.0.1", "203.0.113.9")) == Client("127.0.0.1", False)
    assert guard.client(scope("127.0.0.1")) == Client("127.0.0.1", True)
    named = Guard(Settings(trusted_proxies=("10.0.0.5",)), MemoryStore())
    assert named.client(scope("10.0.0.5", "203.0.113.9")) == Client("203.0.113.9", False)
    assert named.client(scope("10.0.0.6", "203.0.113.9")) == Client("10.0.0.6", False)


def test_a_probe_exempt_address_is_exempt_from_the_probes_limit_alone():
    """An address of ``TABLESTATE_PROBE_EXEMPT`` that connects directly is exempt when it
    asks a probe, not when it asks ``/graphql``; what it forwards never is; and the
    addresses of ``TABLESTATE_RATE_EXEMPT`` are exempt at the probes too."""
    settings = Settings(probe_exempt=("10.0.0.0/8",), trusted_proxies=("10.0.0.5",))
    guard = Guard(settings, MemoryStore())

    def scope(peer: str, *forwarded: str) -> dict:
        return {
            "client": (peer, 1234),
            "headers": [(b"x-forwarded-for", f.encode()) for f in forwarded],
        }

    assert guard.probe_client(scope("10.1.2.3")) == Client("10.1.2.3", True)
    assert guard.client(scope("10.1.2.3")) == Client("10.1.2.3", False)
    assert guard.probe_client(scope("10.0.0.5", "10.9.9.9")) == Client("10.9.9.9", False)
    assert guard.probe_client(scope("10.0.0.6", "203.0.113.9")) == Client("10.0.0.6", False)
    assert guard.probe_client(scope("203.0.113.9")) == Client("203.0.113.9", False)
    assert guard.probe_client(scope("127.0.0.1")) == Client("127.0.0.1", True)

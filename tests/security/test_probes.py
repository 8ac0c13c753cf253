"""Probes (docs/security.md, "Probes"): ``/healthz``, ``/readyz`` and ``/metrics`` are
limited per address like ``/graphql``, in the replica's memory, and ``/readyz`` pings Redis
at most once a second whatever the number of requests; the addresses of
``TABLESTATE_PROBE_EXEMPT`` are never limited there. Redis's own count of the PINGs it
answered (``INFO commandstats``) is the measure."""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter

import pytest
import redis.asyncio as aioredis
from support.server import Client, make_settings, serve

from tablestate.store.redis import RedisStore

pytestmark = pytest.mark.redis

PROBES = ("/healthz", "/readyz", "/metrics")
ATTACKER = {"X-Forwarded-For": "198.51.100.7"}  # a client the loopback proxy names


async def _pings(url: str) -> int:
    admin = aioredis.Redis.from_url(url)
    try:
        stats = await admin.info("commandstats")
    finally:
        await admin.aclose()
    return int(stats.get("cmdstat_ping", {}).get("calls", 0))


async def _flood(c: Client, path: str, n: int, headers: dict[str, str]) -> Counter[int]:
    """``n`` requests to ``path``, 20 at a time: how many got each status."""
    statuses: Counter[int] = Counter()
    for _ in range(n // 20):
        answers = await asyncio.gather(*(c.http.get(path, headers=headers) for _ in range(20)))
        statuses.update(r.status_code for r in answers)
    return statuses


async def test_a_probe_flood_from_one_address_is_limited(registry, redis_url, redis_prefix):
    """200 requests to each probe, each from an address of its own, limited to one every
    ten seconds in bursts of 40 (a slow run earns nothing back): the burst is answered,
    what passes the limit refused with 429, ``Retry-After`` and ``RATE_LIMITED``; the
    /readyz flood makes Redis answer at most a PING a second; another address is answered."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    settings = make_settings(redis_url=redis_url, rate_address=0.1, rate_address_burst=40)
    async with serve(settings, registry, store) as c:
        for i, path in enumerate(PROBES):
            attacker = {"X-Forwarded-For": f"203.0.113.{10 + i}"}
            before, start = await _pings(redis_url), time.monotonic()
            statuses = await _flood(c, path, 200, attacker)
            took = time.monotonic() - start
            assert set(statuses) == {200, 429}, (path, statuses)
            assert statuses[200] <= 40 + math.ceil(0.1 * took), (path, statuses, took)
            if path == "/readyz":
                assert await _pings(redis_url) - before <= math.ceil(took) + 1
        refused = await c.http.get("/readyz", headers=attacker)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert refused.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        other = await c.http.get("/readyz", headers={"X-Forwarded-For": "198.51.100.8"})
        assert other.status_code == 200 and other.json() == {"status": "ready"}
    await store.close()


async def test_an_exempt_address_is_never_limited_and_pings_stay_bounded(
    registry, redis_url, redis_prefix
):
    """From an address of ``TABLESTATE_PROBE_EXEMPT``, every request to a probe is answered
    (100 to each, 200 to /readyz), and the /readyz ones make Redis answer at most a PING a second; the same
    address is limited on /graphql (it is exempt from the probes' limit alone), and a
    request it forwards for another client is limited."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    settings = make_settings(
        redis_url=redis_url,
        rate_address=0.1,
        rate_address_burst=40,
        rate_exempt=(),
        probe_exempt=("127.0.0.0/8",),
    )
    async with serve(settings, registry, store) as c:
        for path in PROBES:
            before, start = await _pings(redis_url), time.monotonic()
            n = 200 if path == "/readyz" else 100
            statuses = await _flood(c, path, n, {})
            took = time.monotonic() - start
            assert statuses == Counter({200: n}), (path, statuses)
            if path == "/readyz":
                assert await _pings(redis_url) - before <= math.ceil(took) + 1
        queries = await asyncio.gather(
            *(c.http.post("/graphql", json={"query": "{ games { id } }"}) for _ in range(60))
        )
        assert 429 in {r.status_code for r in queries}
        assert (await _flood(c, "/healthz", 60, ATTACKER))[429] > 0
    await store.close()

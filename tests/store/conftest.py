"""Fixtures of the store's tests against a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis


@pytest.fixture
async def admin(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A plain client of the tests' Redis, to look at what the code under test did."""
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()

"""The Redis store's rate limits: one token bucket per key (``<prefix>rl:<key>``), spent
by one script.
"""

from __future__ import annotations

from redis.commands.core import AsyncScript

from tablestate.store import _wire
from tablestate.store._reach import Link, Reach


class RedisRateBuckets(Reach):
    """``RateBuckets`` on Redis, the part of ``RedisStore`` that every replica's limits
    share."""

    _limit: AsyncScript

    def __init__(self, link: Link) -> None:
        super().__init__(link)
        self._limit = link.redis.register_script(_wire.script("rate_limit.lua"))

    async def rate_limit(self, key: str, rate: float, burst: int, cost: int = 1) -> float:
        interval = max(1, round(1_000_000 / rate))
        async with self._reach():
            wait = await self._limit(keys=[f"{self._prefix}rl:{key}"], args=[interval, burst, cost])
        return int(wait) / 1_000_000

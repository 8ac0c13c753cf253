"""The Redis store's quick play queue: each pool's keys in one hash slot
(``<prefix>{q:<pool>}``: ``:w`` the waiting ids by age, ``:s`` when each was last seen,
``:t:<id>`` each ticket, ``:l`` the pool's matcher lease), changed by one script
(``quickplay.lua``); ``<prefix>qpools`` names the pools that may hold waiting tickets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from redis.commands.core import AsyncScript

from tablestate.store import _wire
from tablestate.store._reach import Link, Reach


class RedisQuickPlay(Reach):
    """``QuickPlayQueue`` on Redis."""

    _script: AsyncScript

    def __init__(self, link: Link) -> None:
        super().__init__(link)
        self._script = link.redis.register_script(_wire.script("quickplay.lua"))
        self._pools = f"{self._prefix}qpools"

    def _pool(self, pool: str) -> str:
        return f"{self._prefix}{{q:{pool}}}"

    def _ticket_key(self, ticket_id: str) -> str:
        return f"{self._pool(ticket_id.partition('.')[0])}:t:{ticket_id}"

    async def enqueue(
        self, pool: str, ticket_id: str, ticket: str, at: float, *, limit: int, ttl: float
    ) -> bool:
        tag = self._pool(pool)
        keys = [f"{tag}:w", f"{tag}:s", self._ticket_key(ticket_id)]
        args: list[str | int] = ["e", ticket_id, ticket, repr(at), limit]
        args.append(max(1, math.ceil(ttl * 1000)))
        async with self._reach():
            added = int(await self._script(keys=keys, args=args))
            if added:
                await self._redis.sadd(self._pools, pool)
        return bool(added)

    async def ticket(self, ticket_id: str) -> str | None:
        async with self._reach():
            found = await self._reading(self._redis.get, self._ticket_key(ticket_id))
        return None if found is None else _wire.text(found)

    async def waiting(self, pool: str) -> tuple[tuple[str, float], ...]:
        tag = self._pool(pool)
        async with self._reach():
            ids = [
                _wire.text(i) for i in await self._reading(self._redis.zrange, f"{tag}:w", 0, -1)
            ]
            if not ids:
                await self._redis.srem(self._pools, pool)
                return ()
            texts = await self._reading(self._redis.mget, [self._ticket_key(i) for i in ids])
            seen = await self._reading(self._redis.hmget, f"{tag}:s", ids)
        return tuple(
            (_wire.text(text), float(_wire.text(at)))
            for text, at in zip(texts, seen, strict=True)
            if text is not None and at is not None
        )

    async def seen(self, ticket_id: str, at: float) -> int | None:
        tag = self._pool(ticket_id.partition(".")[0])
        async with self._reach():
            ahead = int(
                await self._script(keys=[f"{tag}:w", f"{tag}:s"], args=["n", ticket_id, repr(at)])
            )
        return None if ahead < 0 else ahead

    async def settle(self, pool: str, outcomes: Mapping[str, str], *, ttl: float) -> bool:
        tag = self._pool(pool)
        keys = [f"{tag}:w", f"{tag}:s", *(self._ticket_key(i) for i in outcomes)]
        args: list[str | int] = ["s", max(1, math.ceil(ttl * 1000))]
        for ticket_id, text in outcomes.items():
            args += [ticket_id, text]
        async with self._reach():
            done = await self._script(keys=keys, args=args)
        return bool(int(done))

    async def pools(self) -> tuple[str, ...]:
        async with self._reach():
            found = await self._reading(self._redis.smembers, self._pools)
        return tuple(sorted(_wire.text(p) for p in found))

    async def lease(self, name: str, owner: str, ttl: float) -> bool:
        key, ms = f"{self._prefix}lease:{name}", max(1, math.ceil(ttl * 1000))
        async with self._reach():
            if await self._redis.set(key, owner, nx=True, px=ms):
                return True
            held = await self._redis.get(key)
            if held is not None and _wire.text(held) == owner:
                await self._redis.pexpire(key, ms)  # renewed by its holder
                return True
        return False

"""The Redis store's presence: who is connected at each table, kept by one script on the
table's own key (``:p``), each entry living until its deadline.
"""

from __future__ import annotations

import math

from redis.commands.core import AsyncScript

from tablestate.store import _wire
from tablestate.store._reach import Link, Reach


class RedisPresence(Reach):
    """``Presence`` on Redis, the part of ``RedisStore`` that knows who is connected."""

    _presence: AsyncScript

    def __init__(self, link: Link) -> None:
        super().__init__(link)
        self._presence = link.redis.register_script(_wire.script("presence.lua"))

    def _presence_key(self, table_id: str) -> str:
        return f"{self._tag(table_id)}:p"

    async def presence(self, table_id: str, seat: int, member: str, on: bool, ttl: float) -> bool:
        args = ["1" if on else "0", seat, member, max(1, math.ceil(ttl * 1000))]
        async with self._reach():
            changed = await self._presence(keys=[self._presence_key(table_id)], args=args)
        return bool(int(changed))

    async def connected(self, table_id: str) -> frozenset[int]:
        async with self._reach():
            rows = await self._presence(keys=[self._presence_key(table_id)], args=["r", 0, "", 0])
        return frozenset(int(_wire.text(r).partition("|")[0]) for r in rows)

    async def lapsed(self, table_id: str) -> frozenset[int]:
        async with self._reach():
            rows = await self._presence(keys=[self._presence_key(table_id)], args=["l", 0, "", 0])
        return frozenset(int(_wire.text(r)) for r in rows)

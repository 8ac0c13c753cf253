"""The Redis store's due-index: the tables waiting on a bot or a clock, one sorted set
(``<prefix>due``) of ``<table>|<version>`` by the time each falls due.
"""

from __future__ import annotations

import math

from redis.commands.core import AsyncScript

from tablestate.store import _wire
from tablestate.store._reach import Link, Reach
from tablestate.store.base import StoreUnavailable
from tablestate.store.topology import Acknowledger


class RedisDueIndex(Reach):
    """``DueIndex`` on Redis, the part of ``RedisStore`` that bots and clocks wait on."""

    _claim: AsyncScript

    def __init__(self, link: Link, name: str = "due") -> None:
        super().__init__(link)
        self._key = f"{self._prefix}{name}"
        self._claim = link.redis.register_script(_wire.script("claim_due.lua"))

    async def schedule(
        self, table_id: str, version: int, due: float, *, only_sooner: bool = False
    ) -> None:
        key, entry = self._key, {f"{table_id}|{version}": due}
        async with self._reach():
            # ZADD LT (Redis 6.2+): adds a new entry, lowers an existing one, never raises it.
            if self._ack is None:
                await self._redis.zadd(key, entry, lt=only_sooner)
                return
            # The entry is written before its commit: a failover must not lose it after
            # the commit was acknowledged, or the table would wait on a bot forever.
            _, confirmed = await self._ack.run(
                key, lambda pipe: pipe.zadd(key, entry, lt=only_sooner)
            )
            if not confirmed:
                raise StoreUnavailable("no replica acknowledged a due-index entry in time")

    async def unschedule(self, table_id: str, version: int, *, passed: bool = False) -> None:
        async with self._reach():
            if passed and self._ack is not None and self._ack.waits:
                await self._witness(self._ack, table_id)
            await self._redis.zrem(self._key, f"{table_id}|{version}")

    async def _witness(self, ack: Acknowledger, table_id: str) -> None:
        """Wait until a replica holds everything the table's primary held when this was
        sent: a write to the table's slot (a short-lived ``:w`` key), then its
        acknowledgement. The replication stream is ordered, so a replica that holds this
        write holds every commit before it, among them the version a reader saw."""
        key = f"{self._tag(table_id)}:w"
        _, confirmed = await ack.run(key, lambda pipe: pipe.set(key, b"1", px=60_000))
        if not confirmed:
            raise StoreUnavailable("no replica holds the table's later version yet")

    async def claim_due(self, now: float, lease: float, limit: int) -> tuple[tuple[str, int], ...]:
        if limit <= 0:
            return ()
        async with self._reach():
            members = await self._claim(
                keys=[self._key], args=[repr(now), repr(now + lease), limit]
            )
        claimed = []
        for member in members:
            table_id, _, version = _wire.text(member).rpartition("|")
            claimed.append((table_id, int(version)))
        return tuple(claimed)


class RedisArchiveQueue(Reach):
    """``ArchiveQueue`` on Redis: a due-index of its own (``<prefix>archive``, entries
    ``<table>|0``), and the expiry set on a table's keys once it is archived."""

    def __init__(self, link: Link) -> None:
        super().__init__(link)
        self._due = RedisDueIndex(link, "archive")

    async def schedule_archive(
        self, table_id: str, due: float, *, only_sooner: bool = True
    ) -> None:
        await self._due.schedule(table_id, 0, due, only_sooner=only_sooner)

    async def claim_archive(self, now: float, lease: float, limit: int) -> tuple[str, ...]:
        return tuple(table_id for table_id, _ in await self._due.claim_due(now, lease, limit))

    async def archived(self, table_id: str, ttl: float | None) -> None:
        if ttl is None:
            await self._due.unschedule(table_id, 0)
            return
        ms = max(1, math.ceil(ttl * 1000))
        async with self._reach():
            # Every key of the table is in its hash slot: one pipeline, no transaction.
            pipe = self._redis.pipeline(transaction=False)
            for key in self._keys(table_id):
                pipe.pexpire(key, ms)
            await pipe.execute()
        await self._due.unschedule(table_id, 0)

"""Chat and presence: events without game state.

They are appended at the table's current version (``TableStore.append``) and never change
it. A seat's chat reaches everyone; anyone else's (spectators, a host without a seat)
reaches viewers without a seat only. Presence marks a seat connected while it has a
``tableEvents`` subscription open on any replica (entries with a TTL, refreshed).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from tablestate.engine import chat as chat_rules
from tablestate.engine import opening
from tablestate.engine import table as eng
from tablestate.engine.rights import ANYONE, Caller, here_check, may_watch, rights, watch_refusal
from tablestate.errors import ApiError
from tablestate.store.base import (
    SPECTATORS,
    CursorsSpent,
    NewEvent,
    Presence,
    RateBuckets,
    StoredEvent,
    StoreUnavailable,
    TableStore,
)
from tablestate.tables.commit import now_iso
from tablestate.tables.loading import Tables, refuse
from tablestate.tables.notices import LocalCommit

log = logging.getLogger("tablestate.social")


class Appends:
    """Appends events at a table's version and hands them to this replica's hub."""

    def __init__(
        self,
        tables: Tables,
        store: TableStore,
        local_commit: LocalCommit,
        appending: Callable[[str, bool], None],
    ) -> None:
        self.tables = tables
        self.store = store
        self.local_commit = local_commit
        self.appending = appending

    async def say(self, table_id: str, event: NewEvent, table: eng.Table) -> StoredEvent:
        """Append ``event`` (``table``: the table as loaded for it; the hub gets it when the
        event is at its version). The hub is told before it is sent, so that a commit of
        this replica answered first is not taken to follow what its subscribers hold."""
        self.appending(table_id, True)
        try:
            try:
                stored = await self.tables.call("append", self.store.append(table_id, [event]))
            except CursorsSpent as exc:  # spectators' numbers at this version (2^26 a seat's)
                raise ApiError(
                    "RATE_LIMITED", "too many spectators' messages at this version of the table"
                ) from exc
            if not stored:
                raise ApiError("NOT_FOUND", "no such table")
            same = table.version == stored[-1].version
            self.local_commit(table_id, stored, table if same else None, "")
        finally:
            self.appending(table_id, False)
        return stored[0]


class Chat:
    """``sendChat``."""

    def __init__(
        self,
        appends: Appends,
        buckets: RateBuckets,
        clock: Callable[[], float],
        *,
        rate: float,
        burst: int,
        spectators: str = ANYONE,
    ) -> None:
        self.appends = appends
        self.tables = appends.tables
        self.buckets = buckets
        self.clock = clock
        self.rate = rate
        self.burst = burst
        self.spectators = spectators  # who may watch (and so talk) without a seat

    async def send(
        self,
        caller: Caller | None,
        table_id: str,
        text: str,
        name: str | None,
        address: str,
    ) -> StoredEvent:
        """A chat message: seats' to everyone, others' (spectators, a host without a seat)
        to viewers without a seat only."""
        loaded = await self.tables.must_load(table_id)
        held = rights(caller, loaded.table)
        refused = here_check(held)
        if refused is not None:
            raise refuse(refused)
        if not may_watch(held, loaded.table, self.spectators):
            raise refuse(watch_refusal(loaded.table, self.spectators))
        clean = chat_rules.clean_text(text)
        if clean is None:
            raise ApiError(
                "BAD_INPUT",
                f"a message is 1 to {chat_rules.MAX_CHAT} characters, without control characters",
            )
        seat = held.seat
        data: dict[str, Any] = {"text": clean}
        if seat is not None:
            data["name"] = loaded.table.seats[seat].name
            key, kind, audience = f"{seat}", chat_rules.SEAT_MESSAGE, None
        else:
            who = opening.clean_name(name) if name is not None else None
            if who is None:
                raise ApiError(
                    "BAD_INPUT", f"a spectator's message needs a name of 1 to {opening.MAX_NAME} "
                    "printable characters",
                )  # fmt: skip
            data["name"] = who
            if held.host:  # the host, without a seat
                data["host"] = True
                key = "host"
            else:
                key = "a:" + hashlib.sha256(address.encode()).hexdigest()[:24]
            kind, audience = chat_rules.SPECTATOR_MESSAGE, SPECTATORS
        if self.rate > 0:
            limit = self.buckets.rate_limit(f"chat:{table_id}:{key}", self.rate, self.burst)
            wait = await self.tables.call("rate_limit", limit)
            if wait > 0:
                raise ApiError("RATE_LIMITED", f"too many messages; retry in {wait:.2f} s")
        event = NewEvent(kind, now_iso(self.clock), data, seat, {}, audience)
        return await self.appends.say(table_id, event, loaded.table)


class Attendance:
    """Presence: which seats have a subscription open, on any replica."""

    def __init__(
        self, appends: Appends, store: Presence, clock: Callable[[], float], *, ttl: float
    ) -> None:
        self.appends = appends
        self.tables = appends.tables
        self.store = store
        self.clock = clock
        self.ttl = ttl
        self.replica = uuid.uuid4().hex  # this process's presence entries
        self._open: dict[tuple[str, int], int] = {}  # (table, seat) -> subscriptions here
        self._task: asyncio.Task[None] | None = None

    async def connected(self, table_id: str) -> frozenset[int]:
        """The seats with an open subscription on any replica."""
        return await self.tables.call("connected", self.store.connected(table_id))

    @contextlib.asynccontextmanager
    async def present(self, table_id: str, seat: int | None) -> AsyncIterator[None]:
        """While the block runs, ``seat`` counts as connected (nothing for None). Best
        effort: presence never refuses or ends a subscription."""
        if seat is None:
            yield
            return
        key = (table_id, seat)
        self._open[key] = self._open.get(key, 0) + 1
        if self._open[key] == 1:
            await self._lapses(table_id)  # a seat back from a dead replica: away first
            await self._mark(table_id, seat, True)
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._refresh())
        try:
            yield
        finally:
            self._open[key] -= 1
            if self._open[key] == 0:
                del self._open[key]
                await asyncio.shield(self._mark(table_id, seat, False))

    async def _mark(self, table_id: str, seat: int, on: bool) -> None:
        try:
            changed = await self.store.presence(table_id, seat, self.replica, on, self.ttl)
            loaded = await self.tables.load(table_id) if changed else None
            # A table that has ended records no more comings and goings.
            if loaded is not None and loaded.table.status in (eng.OPEN, eng.PLAYING):
                kind = "seat.connected" if on else "seat.away"
                event = NewEvent(kind, now_iso(self.clock), {}, seat)
                await self.appends.say(table_id, event, loaded.table)
        except (StoreUnavailable, ApiError) as exc:
            log.warning("presence of a seat not recorded: %s", exc)

    async def _lapses(self, table_id: str) -> None:
        """Record ``seat.away`` for the seats whose entries lapsed (their replica died):
        the store tells each lapse to one caller, so one replica alone writes it."""
        try:
            away = await self.store.lapsed(table_id)
            loaded = await self.tables.load(table_id) if away else None
            if loaded is None or loaded.table.status not in (eng.OPEN, eng.PLAYING):
                return
            for seat in sorted(away):
                event = NewEvent("seat.away", now_iso(self.clock), {}, seat)
                await self.appends.say(table_id, event, loaded.table)
        except (StoreUnavailable, ApiError) as exc:
            log.warning("lapsed presence of a table not recorded: %s", exc)

    async def _refresh(self) -> None:
        """Keep this replica's entries alive; a replica that dies lets them lapse, and the
        replicas that serve the same tables notice and record its seats as away."""
        while self._open:
            await asyncio.sleep(self.ttl / 3)
            for table_id, seat in list(self._open):
                await self._mark(table_id, seat, True)
            for table_id in {table_id for table_id, _ in self._open}:
                await self._lapses(table_id)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

"""The Redis store's tables: the commit (one Lua script), loads, event reads, appended
events, and the listings written apart from the commit (every table by game and status,
each signed-in user's tables), best effort.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Sequence
from typing import Any, Final

from redis.commands.core import AsyncScript

from tablestate.store import _deltas, _listing, _wire
from tablestate.store._reach import Link, Reach
from tablestate.store.base import (
    BadCursor,
    CommitResult,
    CursorsSpent,
    Idempotency,
    IdempotencyRecord,
    NewEvent,
    Page,
    StoredEvent,
    StoreUnavailable,
    TableExists,
    TableMeta,
    cursor_key,
    game_events,
    merge_first,
    stamp,
)

logger = logging.getLogger("tablestate.store.redis")  # one logger, the whole store's

_APPLIED: Final = 1
_RECORDED: Final = 2
_BASE_GONE: Final = 3
_WHOLE: Final = ""  # commit.lua's ARGV[14]: the snapshot written whole
_REBASE: Final = "r"  # whole, as the base of the differences to come


class RedisTables(Reach):
    """``TableStore`` and ``UserTables`` on Redis, the part of ``RedisStore`` that keeps
    the tables themselves."""

    _commit: AsyncScript
    _read: AsyncScript
    _append_script: AsyncScript

    def __init__(
        self,
        link: Link,
        *,
        max_events: int | None,
        chat_kept: int,
        idempotency_kept: int,
        snapshot_deltas: bool = True,
    ) -> None:
        super().__init__(link)
        # The bases of the snapshots written as differences (store/_deltas.py); None: every
        # snapshot whole.
        self._bases = _deltas.Bases() if snapshot_deltas else None
        self._max_events = max_events
        self._chat_kept = chat_kept
        self._idempotency_kept = idempotency_kept
        self._commit = link.redis.register_script(_wire.script("commit.lua"))
        self._read = link.redis.register_script(_wire.script("events.lua"))
        self._append_script = link.redis.register_script(_wire.script("append.lua"))

    def _list_key(self, game_id: str | None, status: str | None) -> str:
        p = self._prefix
        if game_id is None:
            return f"{p}tables:all" if status is None else f"{p}tables:s:{status}"
        return f"{p}tables:g:{game_id}" if status is None else f"{p}tables:gs:{status}:{game_id}"

    async def _apply(
        self,
        table_id: str,
        create: bool,
        expected_version: int,
        snapshot: str,
        meta: TableMeta,
        events: Sequence[NewEvent],
        ttl: float,
        idempotency: Idempotency | None,
        entry: str | None,
    ) -> CommitResult:
        version = expected_version + 1
        stored = stamp(version, game_events(events))
        encoded = [e.to_json() for e in stored]
        field, record = "", ""
        if idempotency is not None:
            field = f"{idempotency.seat}:{idempotency.key}"
            record = (
                f'{{"move_hash":{json.dumps(idempotency.move_hash)},"version":{version},'
                f'"events":[{",".join(encoded)}]}}'
            )
        form, body = self._form(table_id, create, snapshot)
        args: list[str | int] = [
            "1" if create else "0",
            expected_version,
            max(1, math.ceil(ttl * 1000)),
            body,
            meta.game_id,
            meta.status,
            repr(meta.created_at),
            "" if entry is None else "+" + entry,
            field,
            record,
            self._max_events or 0,
            self._idempotency_kept,
            "0" if self._ack is not None else "1",
            form,
        ]
        for event, text in zip(stored, encoded, strict=True):
            args += [event.cursor, text]
        keys = self._keys(table_id)
        reply = await self._send(keys, args, ttl, stored)
        outcome, current = int(reply[0]), int(reply[1])
        if outcome == _BASE_GONE:  # another process wrote the table since: whole again
            form, args[3], args[13] = _REBASE, snapshot, _REBASE
            reply = await self._send(keys, args, ttl, stored)
            outcome, current = int(reply[0]), int(reply[1])
        if self._bases is not None:
            if outcome == _APPLIED and form == _REBASE:
                self._bases.put(table_id, version, snapshot)
            elif outcome == _APPLIED and form == _WHOLE:
                self._bases.drop(table_id)
        if outcome == _RECORDED:
            return CommitResult(ok=False, version=current, record=_wire.record(reply[2]))
        if outcome != _APPLIED:
            return CommitResult(ok=False, version=current)
        previous = _wire.text(reply[2])
        if (create or previous != meta.status) and not meta.private:
            await self._index(table_id, meta, previous)
        appended = _wire.text(reply[3]) if len(reply) > 3 else ""
        return CommitResult(ok=True, version=version, events=stored, appended=appended)

    def _form(self, table_id: str, create: bool, snapshot: str) -> tuple[str, str]:
        """How a commit writes ``snapshot``: commit.lua's ARGV[14] and ARGV[4]."""
        if self._bases is None or len(snapshot) < _deltas.SHORTEST:
            return _WHOLE, snapshot
        base = None if create else self._bases.get(table_id)
        if base is not None:
            difference = base.delta(snapshot)
            if difference is not None:
                return str(base.version), difference
        return _REBASE, snapshot

    async def _send(
        self, keys: list[str], args: list[str | int], ttl: float, stored: Sequence[StoredEvent]
    ) -> Any:
        """The commit script's reply to ``args``."""
        async with self._reach(bounded=self._ack is not None):
            if self._ack is None:
                return await self._run(self._commit, keys, args)  # bounded on its own
            last = str(args[-2]) if stored else ""
            ttl_ms = max(1, math.ceil(ttl * 1000))
            return await self._ack.commit(self._commit, keys, args, ttl_ms, last=last)

    async def _index(self, table_id: str, meta: TableMeta, previous: str) -> None:
        """Best effort: the commit has landed whatever happens here."""
        row = {table_id: meta.created_at}
        try:
            async with self._reach():
                pipe = self._redis.pipeline(transaction=False)
                pipe.zadd(self._list_key(None, None), row)
                pipe.zadd(self._list_key(meta.game_id, None), row)
                pipe.zadd(self._list_key(None, meta.status), row)
                pipe.zadd(self._list_key(meta.game_id, meta.status), row)
                if previous and previous != meta.status:
                    pipe.zrem(self._list_key(None, previous), table_id)
                    pipe.zrem(self._list_key(meta.game_id, previous), table_id)
                await pipe.execute()
        except StoreUnavailable as exc:
            logger.warning("table listing not updated for a commit: %s", exc)

    async def create(
        self,
        table_id: str,
        snapshot: str,
        meta: TableMeta,
        events: Sequence[NewEvent],
        *,
        ttl: float,
    ) -> tuple[StoredEvent, ...]:
        result = await self._apply(table_id, True, 0, snapshot, meta, events, ttl, None, None)
        if not result.ok:
            raise TableExists(table_id)
        return result.events

    async def load(self, table_id: str) -> tuple[str, int] | None:
        async with self._reach():
            version, whole, base, of, difference = await self._reading(
                self._redis.hmget, self._keys(table_id)[0], ["v", "snap", "base", "b", "d"]
            )
        if version is None:
            return None
        if whole is not None:
            return _wire.text(whole), int(version)
        if base is None or of is None:
            return None
        text = _wire.text(base)
        if self._bases is not None:
            # The base kept already, with its searches and pauses, when it is this one: the
            # same version and text (a failover or a restart may have lost a base of this
            # version that this process wrote, and another have written its own since).
            kept = self._bases.get(table_id)
            if kept is None or kept.version != int(of) or kept.text != text:
                self._bases.put(table_id, int(of), text)
        if difference:
            text = _deltas.patch(text, _wire.text(difference))
        return text, int(version)

    async def commit(
        self,
        table_id: str,
        expected_version: int,
        snapshot: str,
        meta: TableMeta,
        events: Sequence[NewEvent],
        *,
        ttl: float,
        idempotency: Idempotency | None = None,
        log: str | None = None,
    ) -> CommitResult:
        return await self._apply(
            table_id, False, expected_version, snapshot, meta, events, ttl, idempotency, log
        )

    async def idempotency(self, table_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        keys, field = self._keys(table_id), f"{seat}:{key}"
        async with self._reach():
            raw = await self._reading(self._redis.hget, keys[0], "i:" + field)
            if raw is None:  # a table made before the records moved into its hash
                raw = await self._reading(self._redis.hget, keys[2], field)
        return None if raw is None else _wire.record(raw)

    async def events(
        self, table_id: str, after: str | None = None, limit: int = 100, *, seated: bool = False
    ) -> tuple[StoredEvent, ...]:
        if after is not None:
            cursor_key(after)  # BadCursor when malformed, before Redis refuses the id
        elif limit <= 0:
            return ()
        args = ["after", after or "", max(limit, 0), "1" if seated else "0"]
        async with self._reach():
            reply: Any = await self._reading(self._read, keys=self._streams(table_id), args=args)
        if not int(reply[0]):
            raise BadCursor(f"cursor {after!r} is not one of this table's kept events")
        rows = merge_first([_wire.rows(r) for r in reply[1:]], _wire.row_key, limit, newest=False)
        return tuple(_wire.event(r) for r in rows)

    async def last_events(
        self, table_id: str, n: int, *, seated: bool = False
    ) -> tuple[StoredEvent, ...]:
        if n <= 0:
            return ()
        args = ["last", "", n, "1" if seated else "0"]
        async with self._reach():
            reply: Any = await self._reading(self._read, keys=self._streams(table_id), args=args)
        rows = merge_first([_wire.rows(r) for r in reply[1:]], _wire.row_key, n, newest=True)
        return tuple(_wire.event(r) for r in reversed(rows))

    async def moves(self, table_id: str) -> tuple[str, ...]:
        async with self._reach():
            entries = await self._reading(self._redis.lrange, self._keys(table_id)[3], 0, -1)
        return tuple(_wire.text(e) for e in entries)

    async def list(
        self, game_id: str | None, status: str | None, first: int, after: str | None
    ) -> Page:
        key = self._list_key(game_id, status)
        async with self._reach():
            return await _listing.newest(self._redis, key, self._snapshot_key, first, after)

    def _snapshot_key(self, table_id: str) -> str:
        return self._keys(table_id)[0]

    def _user_key(self, user_id: str) -> str:
        # A hash: user ids are the issuer's URL and its subject, any text of any length.
        return f"{self._prefix}users:{hashlib.sha256(user_id.encode()).hexdigest()[:32]}"

    async def add_user_table(self, user_id: str, table_id: str, at: float, *, ttl: float) -> None:
        key, ms = self._user_key(user_id), max(1, math.ceil(ttl * 1000))
        async with self._reach():
            pipe = self._redis.pipeline(transaction=False)
            pipe.zadd(key, {table_id: at})
            pipe.pexpire(key, ms, nx=True)  # a new set: its first expiry
            pipe.pexpire(key, ms, gt=True)  # else only ever put off
            await pipe.execute()

    async def user_tables(
        self, user_id: str, status: str | None, first: int, after: str | None
    ) -> Page:
        key = self._user_key(user_id)
        async with self._reach():
            return await _listing.newest(self._redis, key, self._snapshot_key, first, after, status)

    async def append(self, table_id: str, events: Sequence[NewEvent]) -> tuple[StoredEvent, ...]:
        if not events:
            return ()
        keys = self._keys(table_id)
        # The script puts the cursor and version in front of the rest of each event.
        args: list[str | int] = [self._chat_kept]
        for e in events:
            args += [3 if e.audience is None else 4, stamp(0, [e])[0].to_json().split(",", 2)[2]]
        async with self._reach():
            reply = await self._append_script(
                keys=[keys[0], keys[1], keys[6], keys[7], keys[4]], args=args
            )
        if not reply:
            return ()
        version = int(reply[0])
        if version < 0:
            raise CursorsSpent(f"no cursor left at the version of {table_id} for spectators")
        return tuple(
            StoredEvent(
                _wire.text(cursor),
                version,
                e.type,
                e.at,
                e.data,
                e.seat,
                e.private,
                e.audience,
            )
            for cursor, e in zip(reply[1:], events, strict=True)
        )

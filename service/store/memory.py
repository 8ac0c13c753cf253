"""The embedded store: the whole store contract inside one process (the default).

Every method runs its critical section without an ``await``, so on one event loop each
call is atomic, exactly like the Redis store's one-script commit. Expiry is lazy: a table
past its deadline is dropped when something next looks at it.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import final

from tablestate.store.base import (
    CHAT_KEPT,
    IDEMPOTENCY_KEPT,
    SPECTATOR_BASE,
    BadCursor,
    CommitResult,
    Idempotency,
    IdempotencyRecord,
    Listener,
    LobbyListener,
    NewEvent,
    Page,
    StoredEvent,
    TableExists,
    TableMeta,
    appended_cursors,
    audience_place,
    cursor_key,
    cursor_parts,
    game_events,
    merge_first,
    page_cursor,
    parse_page_cursor,
    stamp,
)

_MAX_LIMIT_KEYS = 100_000  # past this, keys whose bucket is full again are dropped


@dataclass(slots=True)
class _Log:
    """Events in cursor order, with the cursor key of each."""

    events: list[StoredEvent] = field(default_factory=list)
    keys: list[tuple[int, int]] = field(default_factory=list)
    dropped: bool = False  # older events were dropped to keep this log bounded

    def add(self, events: Sequence[StoredEvent], keep: int | None) -> None:
        self.events.extend(events)
        self.keys.extend(cursor_key(e.cursor) for e in events)
        if keep is not None and len(self.events) > keep:
            excess = len(self.events) - keep
            del self.events[:excess]
            del self.keys[:excess]
            self.dropped = True

    def at(self, version: int) -> bool:
        """Whether its newest event is of ``version``."""
        return bool(self.events) and self.events[-1].version == version

    def has(self, cursor: str, key: tuple[int, int]) -> bool:
        i = bisect.bisect_left(self.keys, key)
        return i < len(self.keys) and self.events[i].cursor == cursor

    def after(
        self, key: tuple[int, int] | None, n: int
    ) -> Iterator[tuple[tuple[int, int], StoredEvent]]:
        start = 0 if key is None else bisect.bisect_right(self.keys, key)
        return zip(self.keys[start : start + n], self.events[start : start + n], strict=True)

    def newest(self, n: int) -> Iterator[tuple[tuple[int, int], StoredEvent]]:
        return zip(reversed(self.keys[-n:]), reversed(self.events[-n:]), strict=True)


@dataclass(slots=True)
class _Table:
    snapshot: str
    version: int
    meta: TableMeta
    expires_at: float
    game: _Log = field(default_factory=_Log)  # every commit's events
    chat: _Log = field(default_factory=_Log)  # appended, for every viewer
    quiet: _Log = field(default_factory=_Log)  # appended, with an audience
    moves: list[str] = field(default_factory=list)
    records: dict[tuple[int, str], IdempotencyRecord] = field(default_factory=dict)

    def resumable(self, cursor: str, key: tuple[int, int]) -> bool:
        """Whether a cursor is a place to resume from: one of the kept events (of any
        log, whoever reads), or one that may name a dropped chat message (older than the
        oldest kept of a log that dropped some)."""
        if any(log.has(cursor, key) for log in (self.game, self.chat, self.quiet)):
            return True
        return any(
            log.dropped and log.keys and key < log.keys[0] for log in (self.chat, self.quiet)
        )

    def logs(self, seated: bool) -> tuple[_Log, ...]:
        """The logs a reader reads: one with a seat never reads events with an audience."""
        return (self.game, self.chat) if seated else (self.game, self.chat, self.quiet)


def _key(pair: tuple[tuple[int, int], StoredEvent]) -> tuple[int, int]:
    return pair[0]


def page_of(rows: list[tuple[float, str]], first: int, after: str | None) -> Page:
    """The page of ``(created_at, table id)`` rows after ``after``, newest first."""
    bound = parse_page_cursor(after) if after is not None else None
    kept = sorted((r for r in rows if bound is None or r < bound), reverse=True)
    page = kept[: max(first, 0)]
    following = page_cursor(*page[-1]) if page and len(kept) > len(page) else None
    cursors = tuple(page_cursor(*row) for row in page)
    return Page(tuple(table_id for _, table_id in page), following, cursors)


@final
class MemoryStore:
    """The ``StateStore`` of a single process.

    Args:
        clock: Monotonic seconds used for expiry; tests inject a fake one.
        max_events: Keep only the newest of each table's own game events (None: keep
            all). A cursor older than what is kept is a ``BadCursor``.
        chat_kept: Appended events (chat, presence) kept per table and log, the newest.
        idempotency_kept: Idempotency records kept per table, the newest.
    """

    db_system: str | None = None  # no database: spans of its calls name none

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_events: int | None = None,
        chat_kept: int = CHAT_KEPT,
        idempotency_kept: int = IDEMPOTENCY_KEPT,
    ) -> None:
        for name, value in [
            ("max_events", max_events),
            ("chat_kept", chat_kept),
            ("idempotency_kept", idempotency_kept),
        ]:
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, not {value}")
        self._clock = clock
        self._max_events = max_events
        self._chat_kept = chat_kept
        self._idempotency_kept = idempotency_kept
        self._tables: dict[str, _Table] = {}
        self._due: dict[tuple[str, int], float] = {}
        self._to_archive: dict[str, float] = {}
        # Quick play: pool -> waiting ticket id -> (JSON, made at, last seen); every
        # ticket's newest JSON and when it is dropped; leases: name -> (owner, until).
        self._waiting: dict[str, dict[str, tuple[str, float, float]]] = {}
        self._tickets: dict[str, tuple[str, float]] = {}
        self._leases: dict[str, tuple[str, float]] = {}
        self._listener: Listener | None = None
        self._watched: set[str] = set()
        self._limits: dict[str, float] = {}  # rate limit key -> theoretical arrival time
        self._presence: dict[str, dict[tuple[int, str], float]] = {}  # table -> entry -> end
        self._lobby_listener: LobbyListener | None = None
        self._lobby_watched = False
        self._users: dict[str, dict[str, float]] = {}  # user -> its tables -> created_at

    def _live(self, table_id: str) -> _Table | None:
        table = self._tables.get(table_id)
        if table is not None and table.expires_at <= self._clock():
            del self._tables[table_id]
            return None
        return table

    def _append(self, table: _Table, events: tuple[StoredEvent, ...], log: str | None) -> None:
        table.game.add(events, self._max_events)
        if log is not None:
            table.moves.append(log)

    def _announce(self, table_id: str, events: tuple[StoredEvent, ...]) -> None:
        if events and self._listener is not None and table_id in self._watched:
            asyncio.get_running_loop().call_soon(self._listener, table_id, events[-1].cursor)

    async def create(
        self,
        table_id: str,
        snapshot: str,
        meta: TableMeta,
        events: Sequence[NewEvent],
        *,
        ttl: float,
    ) -> tuple[StoredEvent, ...]:
        if self._live(table_id) is not None:
            raise TableExists(table_id)
        table = _Table(snapshot, 1, meta, self._clock() + ttl)
        stored = stamp(1, game_events(events))
        self._append(table, stored, None)
        self._tables[table_id] = table
        self._announce(table_id, stored)
        return stored

    async def load(self, table_id: str) -> tuple[str, int] | None:
        table = self._live(table_id)
        return None if table is None else (table.snapshot, table.version)

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
        table = self._live(table_id)
        if table is None:
            return CommitResult(ok=False, version=0)
        if idempotency is not None:
            record = table.records.get((idempotency.seat, idempotency.key))
            if record is not None:
                return CommitResult(ok=False, version=table.version, record=record)
        if table.version != expected_version:
            return CommitResult(ok=False, version=table.version)
        version = expected_version + 1
        appended = max(
            (
                log.events[-1].cursor
                for log in (table.chat, table.quiet)
                if log.keys
                if log.keys[-1][0] == expected_version
            ),
            key=cursor_key,
            default="",
        )
        stored = stamp(version, game_events(events))
        table.snapshot, table.version, table.meta = snapshot, version, meta
        table.expires_at = self._clock() + ttl
        self._append(table, stored, log)
        if idempotency is not None:
            records = table.records
            records[(idempotency.seat, idempotency.key)] = IdempotencyRecord(
                idempotency.move_hash, version, stored
            )
            kept = self._idempotency_kept
            if len(records) > kept + kept // 10:  # as the Redis store: a tenth at a time
                while len(records) > kept:  # oldest first: insertion order
                    del records[next(iter(records))]
        self._announce(table_id, stored)
        return CommitResult(ok=True, version=version, events=stored, appended=appended)

    async def idempotency(self, table_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        table = self._live(table_id)
        return None if table is None else table.records.get((seat, key))

    async def events(
        self, table_id: str, after: str | None = None, limit: int = 100, *, seated: bool = False
    ) -> tuple[StoredEvent, ...]:
        table = self._live(table_id)
        wanted: tuple[int, int] | None = None
        if after is not None:
            wanted = cursor_key(after)
            if table is None or not table.resumable(after, wanted):
                raise BadCursor(f"cursor {after!r} is not one of this table's kept events")
        if table is None or limit <= 0:
            return ()
        parts = [log.after(wanted, limit) for log in table.logs(seated)]
        return tuple(e for _, e in merge_first(parts, _key, limit, newest=False))

    async def last_events(
        self, table_id: str, n: int, *, seated: bool = False
    ) -> tuple[StoredEvent, ...]:
        table = self._live(table_id)
        if table is None or n <= 0:
            return ()
        parts = [log.newest(n) for log in table.logs(seated)]
        return tuple(e for _, e in reversed(merge_first(parts, _key, n, newest=True)))

    async def moves(self, table_id: str) -> tuple[str, ...]:
        table = self._live(table_id)
        return () if table is None else tuple(table.moves)

    async def list(
        self, game_id: str | None, status: str | None, first: int, after: str | None
    ) -> Page:
        rows: list[tuple[float, str]] = []
        for table_id in list(self._tables):
            table = self._live(table_id)
            if table is None:
                continue
            if game_id is not None and table.meta.game_id != game_id:
                continue
            if status is not None and table.meta.status != status:
                continue
            if not table.meta.private:
                rows.append((table.meta.created_at, table_id))
        return page_of(rows, first, after)

    async def add_user_table(self, user_id: str, table_id: str, at: float, *, ttl: float) -> None:
        # Tables expire on their own: the notes of those gone are dropped as they are read.
        self._users.setdefault(user_id, {})[table_id] = at

    async def user_tables(
        self, user_id: str, status: str | None, first: int, after: str | None
    ) -> Page:
        notes = self._users.get(user_id, {})
        rows: list[tuple[float, str]] = []
        for table_id, created_at in list(notes.items()):
            table = self._live(table_id)
            if table is None:
                del notes[table_id]
            elif status is None or table.meta.status == status:
                rows.append((created_at, table_id))
        if not notes:
            self._users.pop(user_id, None)
        return page_of(rows, first, after)

    async def append(self, table_id: str, events: Sequence[NewEvent]) -> tuple[StoredEvent, ...]:
        table = self._live(table_id)
        if table is None or not events:
            return ()
        logs = (table.game, table.chat, table.quiet)
        version = table.version
        seen = [cursor_parts(log.events[-1].cursor)[1] for log in logs if log.at(version)]
        seats = 1 + max((n for n in seen if n < SPECTATOR_BASE), default=-1)
        heard = max((audience_place(n) for n in seen if n >= SPECTATOR_BASE), default=None)
        numbers = appended_cursors(version, seats, heard, [e.audience for e in events])
        stored = tuple(
            replace(s, cursor=c) for s, c in zip(stamp(version, events), numbers, strict=True)
        )
        table.chat.add([e for e in stored if e.audience is None], self._chat_kept)
        table.quiet.add([e for e in stored if e.audience is not None], self._chat_kept)
        self._announce(table_id, stored)
        return stored

    def _seats_live(self, table_id: str) -> dict[tuple[int, str], float]:
        now = self._clock()
        return {k: end for k, end in self._presence.get(table_id, {}).items() if end > now}

    async def presence(self, table_id: str, seat: int, member: str, on: bool, ttl: float) -> bool:
        before = any(s == seat for s, _ in self._seats_live(table_id))
        entries = self._presence.setdefault(table_id, {})
        if on:
            entries[(seat, member)] = self._clock() + ttl
        else:
            entries.pop((seat, member), None)
        if not entries:
            self._presence.pop(table_id, None)
        return before != any(s == seat for s, _ in self._seats_live(table_id))

    async def connected(self, table_id: str) -> frozenset[int]:
        return frozenset(s for s, _ in self._seats_live(table_id))

    async def lapsed(self, table_id: str) -> frozenset[int]:
        entries = self._presence.get(table_id, {})
        live = self._seats_live(table_id)
        gone = {seat for seat, member in entries if (seat, member) not in live}
        if live:
            self._presence[table_id] = live
        else:
            self._presence.pop(table_id, None)
        held = {s for s, _ in live}
        return frozenset(s for s in gone if s not in held)

    def set_lobby_listener(self, listener: LobbyListener) -> None:
        self._lobby_listener = listener

    async def watch_lobby(self) -> None:
        self._lobby_watched = True

    async def unwatch_lobby(self) -> None:
        self._lobby_watched = False

    async def publish_lobby(self, notice: str) -> None:
        if self._lobby_watched and self._lobby_listener is not None:
            asyncio.get_running_loop().call_soon(self._lobby_listener, notice)

    async def schedule(
        self, table_id: str, version: int, due: float, *, only_sooner: bool = False
    ) -> None:
        entry = (table_id, version)
        if only_sooner and entry in self._due:
            due = min(due, self._due[entry])
        self._due[entry] = due

    async def unschedule(self, table_id: str, version: int, *, passed: bool = False) -> None:
        self._due.pop((table_id, version), None)

    async def claim_due(self, now: float, lease: float, limit: int) -> tuple[tuple[str, int], ...]:
        ready = sorted((due, entry) for entry, due in self._due.items() if due <= now)
        claimed = tuple(entry for _, entry in ready[: max(limit, 0)])
        for entry in claimed:
            self._due[entry] = now + lease
        return claimed

    async def schedule_archive(
        self, table_id: str, due: float, *, only_sooner: bool = True
    ) -> None:
        if only_sooner:
            due = min(due, self._to_archive.get(table_id, due))
        self._to_archive[table_id] = due

    async def claim_archive(self, now: float, lease: float, limit: int) -> tuple[str, ...]:
        ready = sorted((due, table_id) for table_id, due in self._to_archive.items() if due <= now)
        claimed = tuple(table_id for _, table_id in ready[: max(limit, 0)])
        for table_id in claimed:
            self._to_archive[table_id] = now + lease
        return claimed

    async def archived(self, table_id: str, ttl: float | None) -> None:
        self._to_archive.pop(table_id, None)
        table = self._live(table_id)
        if table is not None and ttl is not None:
            table.expires_at = self._clock() + ttl

    async def enqueue(
        self, pool: str, ticket_id: str, ticket: str, at: float, *, limit: int, ttl: float
    ) -> bool:
        waiting = self._waiting.setdefault(pool, {})
        if len(waiting) >= limit:
            return False
        waiting[ticket_id] = (ticket, at, at)
        now = self._clock()
        if len(self._tickets) % 256 == 255:  # now and then, forget the settled ones past ttl
            self._tickets = {k: v for k, v in self._tickets.items() if v[1] > now}
        self._tickets[ticket_id] = (ticket, now + ttl)
        return True

    async def ticket(self, ticket_id: str) -> str | None:
        found = self._tickets.get(ticket_id)
        if found is None or found[1] <= self._clock():
            self._tickets.pop(ticket_id, None)
            return None
        return found[0]

    async def waiting(self, pool: str) -> tuple[tuple[str, float], ...]:
        rows = sorted(self._waiting.get(pool, {}).items(), key=lambda kv: (kv[1][1], kv[0]))
        return tuple((text, seen) for _, (text, _, seen) in rows)

    async def seen(self, ticket_id: str, at: float) -> int | None:
        waiting = self._waiting.get(ticket_id.partition(".")[0], {})
        if ticket_id not in waiting:
            return None
        text, made, _ = waiting[ticket_id]
        waiting[ticket_id] = (text, made, at)
        return sum(1 for k, v in waiting.items() if (v[1], k) < (made, ticket_id))

    async def settle(self, pool: str, outcomes: Mapping[str, str], *, ttl: float) -> bool:
        waiting = self._waiting.get(pool, {})
        if any(ticket_id not in waiting for ticket_id in outcomes):
            return False
        for ticket_id, text in outcomes.items():
            del waiting[ticket_id]
            self._tickets[ticket_id] = (text, self._clock() + ttl)
        if not waiting:
            self._waiting.pop(pool, None)
        return True

    async def pools(self) -> tuple[str, ...]:
        return tuple(self._waiting)

    async def lease(self, name: str, owner: str, ttl: float) -> bool:
        holder = self._leases.get(name)
        now = self._clock()
        if holder is not None and holder[0] != owner and holder[1] > now:
            return False
        self._leases[name] = (owner, now + ttl)
        return True

    def set_listener(self, listener: Listener) -> None:
        self._listener = listener

    async def watch(self, table_id: str) -> None:
        self._watched.add(table_id)

    async def unwatch(self, table_id: str) -> None:
        self._watched.discard(table_id)

    async def rate_limit(self, key: str, rate: float, burst: int, cost: int = 1) -> float:
        # GCRA, as in rate_limit.lua: one timestamp per key.
        now = self._clock()
        interval = 1.0 / rate
        tat = max(self._limits.get(key, now), now)
        following = tat + cost * interval
        allowed_at = following - burst * interval
        if allowed_at > now:
            return allowed_at - now
        if len(self._limits) >= _MAX_LIMIT_KEYS:
            self._limits = {k: t for k, t in self._limits.items() if t > now}
        self._limits[key] = following
        return 0.0

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._watched.clear()

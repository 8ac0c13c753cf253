"""The store contract shared by the memory and Redis stores.

A table is an opaque snapshot (JSON text the engine writes), a version, an event log and a
move log. Every change is a ``commit`` that lands whole or not at all, and only if the
table is still at ``expected_version``. Events get their cursor from the store:
``<version>-<n>``, the n-th event (from 0) of the commit that made that version.

Events every viewer sees (a commit's, seats' chat, presence) are numbered ``0, 1, 2, ...``
at each version, with no gap. Events for viewers without a seat only (spectators' chat) are
numbered in a space of their own, above anything the others are ever given:
``<version>-<2^52 + s * 2^26 + m>``, the m-th such event after the first ``s`` events of
that version that every viewer sees. They come between those events in cursor order
(``cursor_key``), and a seat never sees a gap in its numbers nor a cursor of theirs.

A table's events are kept in three logs that share one cursor order: the game's own (every
commit's events, never dropped), the appended events every viewer sees (seats' chat,
presence) and the appended events with an audience (spectators' chat). The two appended
logs keep their newest ``chat_kept`` events each, so chat never grows a table without
bound, and a reader with a seat never reads the third log at all, so its work per page is
bounded by the page whatever the spectators say.
"""

from __future__ import annotations

import functools
import heapq
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeVar

from tablestate import _json
from tablestate.engine import rights


class StoreError(Exception):
    """Base of the store's errors."""


class StoreUnavailable(StoreError):
    """The backing server cannot be reached (API: ``UNAVAILABLE``)."""


class StoreFull(StoreUnavailable):
    """The backing server is at its memory limit and refuses writes (API: ``UNAVAILABLE``);
    nothing of the refused write was applied, and reads still work."""


class BadCursor(StoreError):
    """A cursor that is malformed, from another table, or older than what is kept
    (API: ``BAD_INPUT``)."""


class TableExists(StoreError):
    """``create`` with an id that is taken."""


class CursorsSpent(StoreError):
    """``append`` found no cursor left at the table's version for an event with an audience
    (``SPECTATOR_STEP`` of them after one event every viewer sees, or as many events every
    viewer sees at the version): nothing was appended; the table's next commit opens new
    ones (API: ``RATE_LIMITED``)."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event before it is stored: the store gives it its cursor and version."""

    type: str
    at: str  # ISO 8601, UTC, set by the caller
    data: dict[str, Any] = field(default_factory=dict)
    seat: int | None = None
    private: dict[str, dict[str, Any]] = field(default_factory=dict)  # str(seat) -> part
    audience: str | None = None  # None: every viewer; SPECTATORS: viewers without a seat


# ``audience`` of an event seen only by viewers without a seat (spectators' chat).
SPECTATORS: Final = rights.SPECTATORS

CHAT_KEPT: Final = 100
"""Appended events (chat, presence) kept per table and log, by default: the newest ones."""

IDEMPOTENCY_KEPT: Final = 100
"""Idempotency records kept per table, by default: the newest ones."""

LOBBY: Final = "*lobby"
"""The pseudo table id under which the lobby channel is watched (no table id has ``*``)."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as stored and replayed; ``to_json``/``from_json`` are its wire form."""

    cursor: str
    version: int
    type: str
    at: str
    data: dict[str, Any]
    seat: int | None = None
    private: dict[str, dict[str, Any]] = field(default_factory=dict)
    audience: str | None = None

    def to_json(self) -> str:
        d: dict[str, Any] = {
            "cursor": self.cursor,
            "version": self.version,
            "type": self.type,
            "at": self.at,
            "data": self.data,
            "seat": self.seat,
            "private": self.private,
        }
        if self.audience is not None:  # only then: older events keep their exact form
            d["audience"] = self.audience
        return _json.dumps(d)

    @classmethod
    def from_json(cls, text: str | bytes) -> StoredEvent:
        d = _json.loads(text)
        return cls(
            d["cursor"],
            d["version"],
            d["type"],
            d["at"],
            d["data"],
            d["seat"],
            d["private"],
            d.get("audience"),
        )


_U64_MAX = 2**64 - 1
_T = TypeVar("_T")

SPECTATOR_BASE: Final = 1 << 52
"""Where the numbers of events with an audience (spectators' chat) start, at each version."""
SPECTATOR_STEP: Final = 1 << 26
"""Numbers of events with an audience after each event every viewer sees (and the most
events every viewer sees at one version that such events may follow)."""
_SPECTATOR_END: Final = SPECTATOR_BASE + SPECTATOR_STEP * SPECTATOR_STEP  # 2^53: exact in Lua


def cursor_parts(cursor: str) -> tuple[int, int]:
    """``"12-3"`` -> ``(12, 3)``, the numbers written. Raises ``BadCursor`` when malformed,
    or when it is numbered for an audience past what is ever given."""
    v, sep, n = cursor.partition("-")
    # isdigit() alone admits non-ASCII digits ("²") that int() refuses; parts must also fit
    # a Redis stream id (two unsigned 64-bit integers).
    if len(cursor) > 40 or not (sep and v.isascii() and n.isascii()):
        raise BadCursor(f"malformed cursor {cursor[:40]!r}")
    if not (v.isdigit() and n.isdigit()) or int(v) > _U64_MAX or int(n) >= _SPECTATOR_END:
        raise BadCursor(f"malformed cursor {cursor[:40]!r}")
    return int(v), int(n)


@functools.lru_cache(maxsize=4096)  # an event's cursor is read some five times on its way
def cursor_key(cursor: str) -> tuple[int, int]:
    """A cursor's place in its table's order, for comparing: ``"12-3"`` -> ``(12, 3 << 27)``;
    an event with an audience numbered ``2^52 + s * 2^26 + m`` comes after the event ``s - 1``
    every viewer sees, and before ``s``: ``(12, ((s - 1) << 27) + 1 + m)``. Raises
    ``BadCursor`` when malformed."""
    v, n = cursor_parts(cursor)
    if n < SPECTATOR_BASE:
        return v, n << 27
    s, m = divmod(n - SPECTATOR_BASE, SPECTATOR_STEP)
    return v, ((s - 1) << 27) + 1 + m


def audience_place(n: int) -> tuple[int, int]:
    """``(s, m)`` of the number ``n`` of an event with an audience (``n >= SPECTATOR_BASE``)."""
    return divmod(n - SPECTATOR_BASE, SPECTATOR_STEP)


def appended_cursors(
    version: int, seats: int, heard: tuple[int, int] | None, audiences: Sequence[str | None]
) -> tuple[str, ...]:
    """The cursors of events appended at ``version`` (their ``audiences``, in order), after
    ``seats`` events there that every viewer sees and, ``heard``, the ``(s, m)`` of the
    newest event with an audience there (None: none). The Redis store's ``append.lua``
    numbers them the same way.

    Raises:
        CursorsSpent: an event with an audience would need a number past the space.
    """
    out: list[str] = []
    for audience in audiences:
        if audience is None:
            out.append(f"{version}-{seats}")
            seats += 1
            continue
        m = heard[1] + 1 if heard is not None and heard[0] == seats else 0
        if seats >= SPECTATOR_STEP or m >= SPECTATOR_STEP:
            raise CursorsSpent(f"no cursor left at version {version} for spectators")
        heard = seats, m
        out.append(f"{version}-{SPECTATOR_BASE + seats * SPECTATOR_STEP + m}")
    return tuple(out)


def stamp(version: int, events: Sequence[NewEvent]) -> tuple[StoredEvent, ...]:
    """The events of the commit that makes ``version``, with their cursors ``<version>-<n>``."""
    return tuple(
        StoredEvent(f"{version}-{n}", version, e.type, e.at, e.data, e.seat, e.private, e.audience)
        for n, e in enumerate(events)
    )


def game_events(events: Sequence[NewEvent]) -> Sequence[NewEvent]:
    """``events`` of a commit, checked: the game's own are for every viewer."""
    for e in events:
        if e.audience is not None:
            raise ValueError(f"a commit's events are for every viewer, not {e.audience!r}")
    return events


def merge_first(
    logs: Iterable[Iterable[_T]], key: Callable[[_T], tuple[int, int]], n: int, newest: bool
) -> list[_T]:
    """The first ``n`` items of logs each in cursor order (``newest``: each newest first)."""
    return list(itertools.islice(heapq.merge(*logs, key=key, reverse=newest), max(n, 0)))


@dataclass(frozen=True, slots=True)
class TableMeta:
    """What table listings need, written with each commit (best effort, apart)."""

    game_id: str
    status: str  # OPEN | PLAYING | FINISHED
    created_at: float  # epoch seconds; listings are newest first
    private: bool = False  # private tables are never listed


@dataclass(frozen=True, slots=True)
class Idempotency:
    """An idempotency key of a commit: scoped to (table, seat); ``move_hash`` identifies
    the move so that the same key with another move can be told apart."""

    seat: int
    key: str
    move_hash: str


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    """What a key recorded: the move's hash, the version it made, the events it produced."""

    move_hash: str
    version: int
    events: tuple[StoredEvent, ...]


@dataclass(frozen=True, slots=True)
class CommitResult:
    """The outcome of a commit.

    ``ok``: it landed; ``version`` is the new version and ``events`` carry their cursors;
    ``appended`` is the newest cursor appended (chat, presence) at the version it followed,
    or "" when there is none.
    Not ``ok`` with ``record`` None: a version conflict; ``version`` is the table's current
    version. ``record`` set: the idempotency key was already recorded (by a racing request);
    nothing was applied, and the record says what the first request did.
    """

    ok: bool
    version: int
    events: tuple[StoredEvent, ...] = ()
    record: IdempotencyRecord | None = None
    appended: str = ""


@dataclass(frozen=True, slots=True)
class Page:
    """A page of table ids, newest first, and the cursor of the next page (None: last);
    ``cursors``: each table's own (the page after it), in the same order."""

    table_ids: tuple[str, ...]
    next: str | None
    cursors: tuple[str, ...] = ()


def page_cursor(created_at: float, table_id: str = "") -> str:
    """The ``Page.next`` of a listing whose last row is this table (both stores). Without a
    table id, a place between rows that names no table (``"<created_at>|"``): the rows
    after it are those made strictly before ``created_at``."""
    return f"{created_at!r}|{table_id}"


def parse_page_cursor(text: str) -> tuple[float, str]:
    """``page_cursor``'s inverse (the table id "" for a place between rows); rows come
    after it when ``(created_at, table id)`` is less. Raises ``BadCursor`` when malformed."""
    score, sep, table_id = text.partition("|")
    try:
        created_at = float(score)
    except ValueError:
        raise BadCursor(f"malformed page cursor {text[:40]!r}") from None
    if not sep or created_at != created_at:  # NaN orders nowhere
        raise BadCursor(f"malformed page cursor {text[:40]!r}")
    return created_at, table_id


Listener = Callable[[str, str], None]  # listener(table_id, cursor): events up to cursor
# listener(notice): a lobby notice (JSON), any replica's; "" when notices may have been missed
LobbyListener = Callable[[str], None]


class TableStore(Protocol):
    """Tables: their snapshots, versions, events and move logs."""

    # The database behind the store, as OpenTelemetry's ``db.system`` names it on a store
    # call's span ("redis"); None for the memory store, which is no database.
    db_system: str | None

    async def create(
        self,
        table_id: str,
        snapshot: str,
        meta: TableMeta,
        events: Sequence[NewEvent],
        *,
        ttl: float,
    ) -> tuple[StoredEvent, ...]:
        """A new table at version 1 with these events. Raises ``TableExists``."""

    async def load(self, table_id: str) -> tuple[str, int] | None:
        """``(snapshot, version)``, or None for no such (or an expired) table."""

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
        """Atomically: if the table is at ``expected_version`` (and the idempotency key is
        not recorded), write the snapshot at ``expected_version + 1``, append the events
        and the ``log`` entry (the move, for replay), record the key, reset the table's
        expiry to ``ttl`` seconds, and announce the new cursor. A table that does not
        exist is a conflict at version 0.

        The table keeps the newest ``idempotency_kept`` records, and at most a tenth more:
        past that, recording one more drops the oldest beyond ``idempotency_kept``, whose
        keys then count as new again. A commit's events are for every viewer (``audience``
        None; ``ValueError`` otherwise): they are the game's own, never dropped."""

    async def idempotency(self, table_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        """The record of an idempotency key, if any."""

    async def events(
        self, table_id: str, after: str | None = None, limit: int = 100, *, seated: bool = False
    ) -> tuple[StoredEvent, ...]:
        """Up to ``limit`` events after the cursor (from the first when None), in order.

        ``seated``: the reader holds a seat, so events with an audience (for viewers
        without a seat) are left out, and not even read: the work is bounded by ``limit``
        whatever their number. The cursor may still be one of theirs.

        Raises ``BadCursor`` for a cursor this table never had or no longer keeps; a
        cursor older than an appended event the table dropped (``chat_kept``) is taken as
        a place to resume from, since it may name a dropped one."""

    async def last_events(
        self, table_id: str, n: int, *, seated: bool = False
    ) -> tuple[StoredEvent, ...]:
        """The newest ``n`` events, oldest first (``seated`` as for ``events``)."""

    async def moves(self, table_id: str) -> tuple[str, ...]:
        """The table's log entries, in commit order."""

    async def list(
        self, game_id: str | None, status: str | None, first: int, after: str | None
    ) -> Page:
        """Table ids, newest first, filtered; ``after`` is a ``Page.next``."""

    async def append(self, table_id: str, events: Sequence[NewEvent]) -> tuple[StoredEvent, ...]:
        """Append events that change no state (chat, presence) at the table's current
        version, atomically with respect to commits; announced like a commit. Cursors as
        ``appended_cursors`` gives them: ``<version>-<n>`` with the next free ``n`` for an
        event every viewer sees, a number of the spectators' own space for one with an
        audience (so that a seat's numbers have no gap). The version, the snapshot and the
        table's expiry stay as they are. Returns () when there is no such table.

        Appended events are kept apart from the game's, in two logs (every viewer's, and
        those with an audience), each trimmed to its newest ``chat_kept`` events.

        Raises:
            CursorsSpent: no number is left at this version for an event with an audience
            (nothing was appended)."""


class UserTables(Protocol):
    """Each signed-in user's tables (``myTables``): written apart from commits, best effort."""

    async def add_user_table(self, user_id: str, table_id: str, at: float, *, ttl: float) -> None:
        """Note ``table_id`` (made at ``at``) for ``user_id``, whose notes live ``ttl`` s more."""

    async def user_tables(
        self, user_id: str, status: str | None, first: int, after: str | None
    ) -> Page:
        """Its noted tables still there (of ``status``), paged like ``list``; the others'
        notes are dropped. A note may outlive what the user held: callers ask the table."""


class DueIndex(Protocol):
    """When tables wait on a bot or a clock: any replica claims what falls due."""

    async def schedule(
        self, table_id: str, version: int, due: float, *, only_sooner: bool = False
    ) -> None:
        """Record in the due-index that the table waits at ``version`` (a bot, a clock)
        until epoch second ``due``. With ``only_sooner`` an entry already there is never
        put off, only brought forward: two commits racing for one version each write the
        entry before they commit, and the loser's must not delay the winner's deadline (an
        entry that falls due too soon is harmless: whoever claims it finds nothing due and
        schedules the real time)."""

    async def unschedule(self, table_id: str, version: int, *, passed: bool = False) -> None:
        """Drop that entry of the due-index (done, or moved on). ``passed``: dropped because
        the table was read at a later version. Where commits wait for a replica, a read
        can show a commit that no replica holds yet, which a failover would still lose
        (the table back at ``version``, waiting on an entry gone): such an entry is
        dropped only once a replica holds what was read.

        Raises:
            StoreUnavailable: no replica confirmed it in time; the entry stays, and falls
            due again after its lease.
        """

    async def claim_due(self, now: float, lease: float, limit: int) -> tuple[tuple[str, int], ...]:
        """Entries due by ``now``, each pushed ``lease`` seconds into the future so that
        no other replica takes it meanwhile; a claimer that dies lets it fall due again."""


class ArchiveQueue(Protocol):
    """Finished tables waiting to be archived (``service/tables/archiving.py``): any replica
    claims one, writes it into the archive, then lets the store forget it."""

    async def schedule_archive(
        self, table_id: str, due: float, *, only_sooner: bool = True
    ) -> None:
        """Record that the table is to be archived from epoch second ``due`` on (with
        ``only_sooner``, an entry already there is only brought forward)."""

    async def claim_archive(self, now: float, lease: float, limit: int) -> tuple[str, ...]:
        """Tables due by ``now``, each pushed ``lease`` seconds on so that no other replica
        takes it meanwhile; a claimer that dies lets it fall due again."""

    async def archived(self, table_id: str, ttl: float | None) -> None:
        """The table is in the archive: drop its entry, and let the store forget the table
        (every key of it) ``ttl`` seconds from now (None: drop the entry alone; its table
        is not to be archived, or is gone)."""


class QuickPlayQueue(Protocol):
    """Quick play's tickets (``service/tables/quickplay.py``): each waits in its pool until a
    matcher settles it (matched, cancelled, expired). A ticket's id starts with its pool's
    and a dot, so that every key of a pool is in one place."""

    async def enqueue(
        self, pool: str, ticket_id: str, ticket: str, at: float, *, limit: int, ttl: float
    ) -> bool:
        """Add a waiting ticket (JSON), seen at ``at``, kept ``ttl`` s at most; False (and
        nothing added) when its pool holds ``limit`` waiting tickets already."""

    async def ticket(self, ticket_id: str) -> str | None:
        """The ticket as last written (waiting, or settled), or None when unknown."""

    async def waiting(self, pool: str) -> tuple[tuple[str, float], ...]:
        """The pool's waiting tickets, oldest first: (JSON, when it was last seen)."""

    async def seen(self, ticket_id: str, at: float) -> int | None:
        """Note that the ticket's holder still listens at ``at``: the number of its pool's
        tickets waiting ahead of it (made before it; the same made-at, by id), or None when
        it no longer waits."""

    async def settle(self, pool: str, outcomes: Mapping[str, str], *, ttl: float) -> bool:
        """Atomically: if every ticket named still waits, write each one's outcome (JSON,
        kept ``ttl`` s) and take them out of the waiting; else change nothing (False)."""

    async def pools(self) -> tuple[str, ...]:
        """The pools that may hold waiting tickets."""

    async def lease(self, name: str, owner: str, ttl: float) -> bool:
        """Hold the lease ``name`` for ``ttl`` s (taken, or renewed by its holder): True
        when ``owner`` holds it now."""


class Feeds(Protocol):
    """Announcements of new events (per watched table) and of lobby notices."""

    def set_listener(self, listener: Listener) -> None:
        """The one callback (the hub's) told of new events of the watched tables."""

    async def watch(self, table_id: str) -> None:
        """Start telling the listener of this table's new events (any replica's commits)."""

    async def unwatch(self, table_id: str) -> None:
        """Stop telling the listener of this table."""

    def set_lobby_listener(self, listener: LobbyListener) -> None:
        """The one callback told of lobby notices (every replica's)."""

    async def watch_lobby(self) -> None:
        """Start telling the lobby listener of notices."""

    async def unwatch_lobby(self) -> None:
        """Stop telling the lobby listener."""

    async def publish_lobby(self, notice: str) -> None:
        """Tell every replica watching the lobby (best effort: no history is kept)."""


class Presence(Protocol):
    """Which seats have a live connection, on any replica."""

    async def presence(self, table_id: str, seat: int, member: str, on: bool, ttl: float) -> bool:
        """Mark one connection holder (``member``: a replica's id) of a seat as connected
        for ``ttl`` seconds (``on``; again to refresh) or gone. Entries past their ttl
        count as gone. Returns whether the seat as a whole changed between connected (any
        live entry) and away (none)."""

    async def connected(self, table_id: str) -> frozenset[int]:
        """The seats of the table with a live presence entry."""

    async def lapsed(self, table_id: str) -> frozenset[int]:
        """Drop the entries past their ttl (a replica that died let them lapse); the seats
        that are away now because of it. Each lapse is returned once, to one caller, so
        that one replica alone records the seat as away."""


class RateBuckets(Protocol):
    """Rate limits shared by every replica."""

    async def rate_limit(self, key: str, rate: float, burst: int, cost: int = 1) -> float:
        """Count ``cost`` requests against the limit ``key`` (``rate`` per second, bursts of
        up to ``burst``): 0.0 when allowed, else the seconds to wait (nothing counted).
        Kept apart from every table (in Redis: a key of its own, so every replica shares
        it); ``key`` holds no secret (callers hash tokens)."""


class StateStore(
    TableStore,
    UserTables,
    DueIndex,
    ArchiveQueue,
    QuickPlayQueue,
    Feeds,
    Presence,
    RateBuckets,
    Protocol,
):
    """The whole contract both stores keep (the same contract tests run on both): each
    part of the service asks only for the protocol it uses."""

    async def ping(self) -> bool:
        """Whether the backing server answers now."""

    async def close(self) -> None:
        """Release connections and background tasks."""

"""The Redis store: every table lives in Redis, so any replica serves any table.

A table's keys share the hash tag ``{t:<id>}`` (so the commit script also runs on Redis
Cluster): ``<prefix>{t:<id>}:s`` (hash: version, snapshot, meta), ``:e`` (the game's event
stream, ids are the cursors), ``:c`` and ``:x`` (appended events: for every viewer, and
with an audience; trimmed), ``:i`` (idempotency records) with ``:io`` (their fields, oldest
first), ``:m`` (move log) and the shard channel ``:ev`` on which each commit announces its
last cursor. Listings
(``<prefix>tables:...``), each signed-in user's tables (``<prefix>users:<hash of the user>``)
and the due-index (``<prefix>due``) are global keys written apart from the commit, best
effort; so are the rate limits (``<prefix>rl:...``, one key each).

Over 400 lines, on purpose: this is the whole store contract on one server, and every part
of it shares the client, the key scheme above and the one mapping of Redis's failures to
the contract's (``_reach``). The parts that stand alone are apart already: the commit pipe
(``_pipe.py``), the pub/sub readers (``_watcher.py``), reply parsing (``_wire.py``), pages
of listings (``_listing.py``) and the Lua scripts.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final, final

from redis.asyncio import BlockingConnectionPool, Connection, ConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    ClusterError,
    MovedError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from service.store import _listing, _wire
from service.store._pipe import Pipe
from service.store._watcher import ClusterWatchers, Watcher
from service.store.base import (
    CHAT_KEPT,
    IDEMPOTENCY_KEPT,
    LOBBY,
    BadCursor,
    CommitResult,
    Idempotency,
    IdempotencyRecord,
    Listener,
    LobbyListener,
    NewEvent,
    Page,
    StoredEvent,
    StoreError,
    StoreFull,
    StoreUnavailable,
    TableExists,
    TableMeta,
    cursor_key,
    game_events,
    merge_first,
    stamp,
)
from service.store.topology import SENTINEL_SCHEME, Acknowledger, sentinel_clients

logger = logging.getLogger(__name__)

_UNREACHABLE: Final = (
    RedisConnectionError,
    RedisTimeoutError,
    TimeoutError,
    OSError,
    ClusterDownError,
    RedisClusterException,
    # A failover under way: a demoted primary, a replica loading its copy, a slot on its
    # way to another node (ClusterError: redirected until redis-py gave up). Nothing of the
    # command ran; the client retries.
    ClusterError,
    ReadOnlyError,
    BusyLoadingError,
    TryAgainError,
    MovedError,
    AskError,
)
_APPLIED: Final = 1
_RECORDED: Final = 2


def _raised_in_redis(exc: BaseException) -> bool:
    """Whether ``exc`` came through redis-py's own code (not the store's)."""
    tb, part = exc.__traceback__, f"{os.sep}redis{os.sep}"
    while tb is not None:
        if part in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


@final
class RedisStore:
    """The ``StateStore`` shared by every replica.

    Build it with ``from_url``. Commands share one bounded, blocking pool; live
    notifications use one more connection (sharded pub/sub), opened on the first
    ``watch``. An unreachable Redis raises ``StoreUnavailable`` within ``timeout``.
    """

    def __init__(
        self,
        client: Redis | RedisCluster,
        pubsub_client: Redis | None,
        *,
        prefix: str,
        timeout: float,
        max_events: int | None = None,
        chat_kept: int = CHAT_KEPT,
        idempotency_kept: int = IDEMPOTENCY_KEPT,
        pipe: Pipe | None = None,
        ack: Acknowledger | None = None,
    ) -> None:
        for name, value in [
            ("max_events", max_events),
            ("chat_kept", chat_kept),
            ("idempotency_kept", idempotency_kept),
        ]:
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, not {value}")
        self._chat_kept = chat_kept
        self._idempotency_kept = idempotency_kept
        self._redis = client
        self._pipe = pipe  # the commits' own connection (store/_pipe.py), if any
        # How commits are acknowledged (store/topology.py); None: by the primary alone.
        self._ack = ack if ack is not None and ack.waits else None
        self._prefix = prefix
        self._timeout = timeout
        self._max_events = max_events
        self._commit = client.register_script(_wire.script("commit.lua"))
        self._claim = client.register_script(_wire.script("claim_due.lua"))
        self._limit = client.register_script(_wire.script("rate_limit.lua"))
        self._append_script = client.register_script(_wire.script("append.lua"))
        self._read = client.register_script(_wire.script("events.lua"))
        self._presence = client.register_script(_wire.script("presence.lua"))
        self._listener: Listener | None = None
        self._lobby_listener: LobbyListener | None = None
        self._watcher: Watcher | ClusterWatchers
        if isinstance(client, RedisCluster):
            self._watcher = ClusterWatchers(client, timeout=timeout)
        else:
            assert pubsub_client is not None
            self._watcher = Watcher(pubsub_client, timeout=timeout)
        self._watcher.listener = self._dispatch

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = "ts:",
        max_connections: int = 50,
        timeout: float = 2.0,
        max_events: int | None = None,
        chat_kept: int = CHAT_KEPT,
        idempotency_kept: int = IDEMPOTENCY_KEPT,
        cluster: bool = False,
        ack: str = "primary",
        ack_timeout: int = 500,
    ) -> RedisStore:
        """A store on the Redis at ``url``.

        Args:
            url: ``redis://``, ``rediss://`` or ``unix://`` URL (with ``cluster``, of any
                node of the cluster), or ``redis+sentinel://`` naming the sentinels and
                the primary they watch (store/topology.py).
            prefix: Put before every key, so several deployments (or tests) share a Redis.
            max_connections: Command connections at most, whatever the load; callers
                wait for a free one (up to ``timeout``). Commits have one more of their own
                (``store/_pipe.py``) with a ``redis://`` URL.
            timeout: Seconds any call may take before it raises ``StoreUnavailable``.
            max_events: Keep only the newest of each table's own game events (None: keep
                all).
            chat_kept: Appended events (chat, presence) kept per table and stream.
            idempotency_kept: Idempotency records kept per table, the newest.
            cluster: Redis Cluster: commands go to the node owning each table's slot (a
                bounded pool per node), and notifications come over one sharded pub/sub
                connection per node that owns watched tables.
            ack: When a commit counts as made: ``primary``, ``replica`` or ``aof``
                (store/topology.py); past ``ack_timeout`` milliseconds unacknowledged, it
                raises ``StoreUnavailable`` (it may still have landed).
        """
        # No retries: a lost reply to a commit must not be sent twice, and callers
        # want a fast UNAVAILABLE rather than a slow success.
        common: dict[str, Any] = {
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "socket_keepalive": True,
            "retry": Retry(NoBackoff(), 0),
        }
        kept: dict[str, Any] = {
            "max_events": max_events,
            "chat_kept": chat_kept,
            "idempotency_kept": idempotency_kept,
        }
        if cluster:
            client = RedisCluster.from_url(url, max_connections=max_connections, **common)
            acks = Acknowledger(client, ack, ack_timeout, pool_timeout=timeout, common=common)
            return cls(client, None, prefix=prefix, timeout=timeout, ack=acks, **kept)
        if url.startswith(SENTINEL_SCHEME):
            primary, pubsub = sentinel_clients(url, max_connections=max_connections, common=common)
            acks = Acknowledger(primary, ack, ack_timeout)
            return cls(primary, pubsub, prefix=prefix, timeout=timeout, ack=acks, **kept)
        # Every command call is bounded by ``_reach`` already; a socket timeout on top
        # would arm two more timers per command (a third of the Redis client's CPU).
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=timeout,
            **common | {"socket_timeout": None},
        )
        if pool.connection_class is Connection:
            pool.connection_class = _wire.PackedConnection
        pubsub_pool = ConnectionPool.from_url(
            url, max_connections=1, client_name="tablestate-pubsub", **common
        )
        client = Redis(connection_pool=pool)
        acks = Acknowledger(client, ack, ack_timeout)
        return cls(
            client,
            Redis(connection_pool=pubsub_pool),
            prefix=prefix,
            timeout=timeout,
            # WAIT holds its connection: acknowledged commits take the pool's instead
            pipe=Pipe.for_url(url) if not acks.waits else None,
            ack=acks,
            **kept,
        )

    # -- keys -------------------------------------------------------------------------

    def _keys(self, table_id: str) -> list[str]:
        """snapshot, game events, idempotency, move log, channel, idempotency order,
        appended events for every viewer, appended events with an audience."""
        tag = f"{self._prefix}{{t:{table_id}}}"
        return [
            f"{tag}:s",
            f"{tag}:e",
            f"{tag}:i",
            f"{tag}:m",
            f"{tag}:ev",
            f"{tag}:io",
            f"{tag}:c",
            f"{tag}:x",
        ]

    def _streams(self, table_id: str) -> list[str]:
        keys = self._keys(table_id)
        return [keys[1], keys[6], keys[7]]

    def _list_key(self, game_id: str | None, status: str | None) -> str:
        p = self._prefix
        if game_id is None:
            return f"{p}tables:all" if status is None else f"{p}tables:s:{status}"
        return f"{p}tables:g:{game_id}" if status is None else f"{p}tables:gs:{status}:{game_id}"

    @contextlib.asynccontextmanager
    async def _reach(self) -> AsyncIterator[None]:
        """Bound a call by ``timeout`` and turn every way of not reaching Redis (refused,
        dropped, slow, pool exhausted) into ``StoreUnavailable``."""
        try:
            async with asyncio.timeout(self._timeout):
                yield
        except _UNREACHABLE as exc:
            raise StoreUnavailable(f"Redis unreachable: {str(exc) or type(exc).__name__}") from exc
        except (AttributeError, RuntimeError) as exc:
            # redis-py's Cluster client can write on a connection that a failed node's
            # reconnection left without its writer (``None.writelines``), or whose
            # transport closed meanwhile ("the handler is closed"): unreachable too.
            if not _raised_in_redis(exc):
                raise
            raise StoreUnavailable(f"Redis connection lost mid-command: {exc}") from exc
        except ResponseError as exc:
            # At maxmemory (noeviction) Redis refuses a write, or a script's first write,
            # so nothing of it was applied. redis-py names the error, hiredis (the commits'
            # pipe) leaves its "OOM" prefix.
            if isinstance(exc, OutOfMemoryError) or str(exc).startswith("OOM"):
                raise StoreFull(f"Redis is full: {exc}") from exc
            raise

    @staticmethod
    async def _reading(command: Any, *args: Any, **kwargs: Any) -> Any:
        """A read-only command, sent again once on a connection that turns out dead: a
        pooled connection idle since Redis restarted can pass the pool's check and only
        then meet the closed socket (redis-py lends it, the read finds EOF). Redis never
        saw the first attempt, and a read is safe to repeat anyway; writes are never
        repeated here (a lost reply to a commit must not be sent twice)."""
        try:
            return await command(*args, **kwargs)
        except RedisConnectionError:
            return await command(*args, **kwargs)

    async def _run(self, script: Any, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """A script, down the commits' pipe when there is one."""
        if self._pipe is None:
            return await script(keys=keys, args=args)
        try:
            return await self._pipe.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await script(keys=keys, args=args)  # redis-py loads it, then runs it

    # -- tables -----------------------------------------------------------------------

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
        args: list[str | int] = [
            "1" if create else "0",
            expected_version,
            max(1, math.ceil(ttl * 1000)),
            snapshot,
            meta.game_id,
            meta.status,
            repr(meta.created_at),
            "" if entry is None else "+" + entry,
            field,
            record,
            self._max_events or 0,
            self._idempotency_kept,
            "0" if self._ack is not None else "1",
        ]
        for event, text in zip(stored, encoded, strict=True):
            args += [event.cursor, text]
        keys = self._keys(table_id)
        async with self._reach():
            if self._ack is None:
                reply = await self._run(self._commit, keys, args)
            else:
                last = str(args[-2]) if stored else ""
                ttl_ms = max(1, math.ceil(ttl * 1000))
                reply = await self._ack.commit(self._commit, keys, args, ttl_ms, last=last)
        outcome, current = int(reply[0]), int(reply[1])
        if outcome == _RECORDED:
            return CommitResult(ok=False, version=current, record=_wire.record(reply[2]))
        if outcome != _APPLIED:
            return CommitResult(ok=False, version=current)
        previous = _wire.text(reply[2])
        if (create or previous != meta.status) and not meta.private:
            await self._index(table_id, meta, previous)
        return CommitResult(ok=True, version=version, events=stored)

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
            version, snapshot = await self._reading(
                self._redis.hmget, self._keys(table_id)[0], ["v", "snap"]
            )
        if version is None or snapshot is None:
            return None
        return _wire.text(snapshot), int(version)

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
        async with self._reach():
            raw = await self._reading(self._redis.hget, self._keys(table_id)[2], f"{seat}:{key}")
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
        version, first = int(reply[0]), int(reply[1])
        return tuple(
            StoredEvent(
                f"{version}-{first + i}",
                version,
                e.type,
                e.at,
                e.data,
                e.seat,
                e.private,
                e.audience,
            )
            for i, e in enumerate(events)
        )

    # -- presence ---------------------------------------------------------------------

    def _presence_key(self, table_id: str) -> str:
        return f"{self._prefix}{{t:{table_id}}}:p"

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

    # -- lobby ------------------------------------------------------------------------

    def _lobby_channel(self) -> str:
        return f"{self._prefix}{{lobby}}:ev"

    def set_lobby_listener(self, listener: LobbyListener) -> None:
        self._lobby_listener = listener

    async def watch_lobby(self) -> None:
        await self._watcher.watch(LOBBY, self._lobby_channel())

    async def unwatch_lobby(self) -> None:
        await self._watcher.unwatch(LOBBY)

    async def publish_lobby(self, notice: str) -> None:
        async with self._reach():
            await self._redis.spublish(self._lobby_channel(), notice)

    def _dispatch(self, table_id: str, message: str) -> None:
        """The watcher's news: a table's new cursor, or a lobby notice ("" after a
        reconnection: the lobby keeps no history, so its subscribers start again)."""
        if table_id == LOBBY:
            if self._lobby_listener is not None:
                self._lobby_listener(message)
        elif self._listener is not None:
            self._listener(table_id, message)

    # -- due-index --------------------------------------------------------------------

    async def schedule(
        self, table_id: str, version: int, due: float, *, only_sooner: bool = False
    ) -> None:
        key, entry = f"{self._prefix}due", {f"{table_id}|{version}": due}
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

    async def unschedule(self, table_id: str, version: int) -> None:
        async with self._reach():
            await self._redis.zrem(f"{self._prefix}due", f"{table_id}|{version}")

    async def claim_due(self, now: float, lease: float, limit: int) -> tuple[tuple[str, int], ...]:
        if limit <= 0:
            return ()
        async with self._reach():
            members = await self._claim(
                keys=[f"{self._prefix}due"], args=[repr(now), repr(now + lease), limit]
            )
        claimed = []
        for member in members:
            table_id, _, version = _wire.text(member).rpartition("|")
            claimed.append((table_id, int(version)))
        return tuple(claimed)

    # -- rate limits ------------------------------------------------------------------

    async def rate_limit(self, key: str, rate: float, burst: int, cost: int = 1) -> float:
        interval = max(1, round(1_000_000 / rate))
        async with self._reach():
            wait = await self._limit(keys=[f"{self._prefix}rl:{key}"], args=[interval, burst, cost])
        return int(wait) / 1_000_000

    # -- live notifications -----------------------------------------------------------

    def set_listener(self, listener: Listener) -> None:
        self._listener = listener

    async def watch(self, table_id: str) -> None:
        await self._watcher.watch(table_id, self._keys(table_id)[4])

    async def unwatch(self, table_id: str) -> None:
        await self._watcher.unwatch(table_id)

    async def verify(self) -> None:
        """At start-up: refuse an acknowledgement the server cannot give (``aof``
        before Redis 7.2), with a message naming the setting."""
        if self._ack is not None:
            async with self._reach():
                await self._ack.verify()

    async def ping(self) -> bool:
        try:
            async with self._reach():
                return bool(await self._redis.ping())
        except (StoreError, RedisError):
            return False

    async def close(self) -> None:
        if self._pipe is not None:
            self._pipe.close()
        await self._watcher.close()
        if self._ack is not None:
            await self._ack.close()
        await self._redis.aclose()
        if isinstance(self._redis, Redis):
            await self._redis.connection_pool.aclose()
            # Sentinel: the connections that ask the sentinels where the primary is
            manager = getattr(self._redis.connection_pool, "sentinel_manager", None)
            for sentinel in getattr(manager, "sentinels", ()):
                await sentinel.aclose()

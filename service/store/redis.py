"""The Redis store: every table lives in Redis, so any replica serves any table.

``RedisStore`` builds the clients and the store's parts, one object of one module each,
all given the same ``Link`` (client, key prefix, timeout; ``_reach.py``, which also holds
the key scheme and the mapping of Redis's failures): the tables, their commit and listings
(``_tables.py``), the feeds (``_feeds.py``), the due-index (``_due.py``), presence
(``_presence.py``) and the rate limits (``_buckets.py``). Beside them: the commit pipe
(``_pipe.py``), the pub/sub readers (``_watcher.py``; a plain URL's connection read by
``_pubsub.py``), reply parsing and the connections (``_wire.py``), pages of listings
(``_listing.py``), Sentinel and acknowledgement (``topology.py``) and the Lua scripts.
"""

from __future__ import annotations

from typing import Any, final

from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from tablestate.store import _wire
from tablestate.store._buckets import RedisRateBuckets
from tablestate.store._due import RedisArchiveQueue, RedisDueIndex
from tablestate.store._feeds import RedisFeeds
from tablestate.store._pipe import Address, Pipe
from tablestate.store._presence import RedisPresence
from tablestate.store._quickplay import RedisQuickPlay
from tablestate.store._reach import Link, Reach
from tablestate.store._tables import RedisTables
from tablestate.store._watcher import ClusterWatchers, Watcher
from tablestate.store.base import CHAT_KEPT, IDEMPOTENCY_KEPT, StoreError
from tablestate.store.topology import SENTINEL_SCHEME, Acknowledger, sentinel_clients


@final
class RedisStore:
    """The ``StateStore`` shared by every replica.

    Build it with ``from_url``. Commands share one bounded, blocking pool; live
    notifications use one more connection (sharded pub/sub), opened on the first
    ``watch``. An unreachable Redis raises ``StoreUnavailable`` within ``timeout``.

    Its parts are objects of their own, each given the store's ``Link`` and what else it
    needs (its scripts it registers itself); each call of the contract is a part's method,
    bound here once, so a call costs no step of the store's.
    """

    db_system: str | None = "redis"

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
        pubsub_address: Address | None = None,
        snapshot_deltas: bool = True,
    ) -> None:
        for name, value in [
            ("max_events", max_events),
            ("chat_kept", chat_kept),
            ("idempotency_kept", idempotency_kept),
        ]:
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, not {value}")
        # How commits are acknowledged (store/topology.py); None: by the primary alone.
        acks = ack if ack is not None and ack.waits else None
        link = Link(client, prefix, timeout, pipe, acks)
        self._redis, self._pipe, self._ack = client, pipe, acks
        self._ground = Reach(link)
        self._keys = self._ground._keys  # a table's keys (the benchmarks clear them)
        self._watcher: Watcher | ClusterWatchers
        if isinstance(client, RedisCluster):
            self._watcher = ClusterWatchers(client, timeout=timeout)
        else:
            assert pubsub_client is not None
            self._watcher = Watcher(pubsub_client, timeout=timeout, address=pubsub_address)

        tables = RedisTables(
            link,
            max_events=max_events,
            chat_kept=chat_kept,
            idempotency_kept=idempotency_kept,
            snapshot_deltas=snapshot_deltas,
        )
        self.create = tables.create
        self.load = tables.load
        self.commit = tables.commit
        self.idempotency = tables.idempotency
        self.events = tables.events
        self.last_events = tables.last_events
        self.moves = tables.moves
        self.list = tables.list
        self.append = tables.append
        self.add_user_table = tables.add_user_table
        self.user_tables = tables.user_tables

        due = RedisDueIndex(link)
        self.schedule = due.schedule
        self.unschedule = due.unschedule
        self.claim_due = due.claim_due

        quick = RedisQuickPlay(link)
        self.enqueue = quick.enqueue
        self.ticket = quick.ticket
        self.waiting = quick.waiting
        self.seen = quick.seen
        self.settle = quick.settle
        self.pools = quick.pools
        self.lease = quick.lease

        archive = RedisArchiveQueue(link)
        self.schedule_archive = archive.schedule_archive
        self.claim_archive = archive.claim_archive
        self.archived = archive.archived

        feeds = RedisFeeds(link, self._watcher)
        self.set_listener = feeds.set_listener
        self.watch = feeds.watch
        self.unwatch = feeds.unwatch
        self.set_lobby_listener = feeds.set_lobby_listener
        self.watch_lobby = feeds.watch_lobby
        self.unwatch_lobby = feeds.unwatch_lobby
        self.publish_lobby = feeds.publish_lobby

        presence = RedisPresence(link)
        self.presence = presence.presence
        self.connected = presence.connected
        self.lapsed = presence.lapsed

        self.rate_limit = RedisRateBuckets(link).rate_limit

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
        snapshot_deltas: bool = True,
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
            snapshot_deltas: Write a long snapshot as its difference from an earlier one
                of the table (store/_deltas.py); off, every snapshot whole (as a release
                before this one wrote them: turn it off while such a release still runs).
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
            "snapshot_deltas": snapshot_deltas,
        }
        if cluster:
            nodes = RedisCluster.from_url(url, max_connections=max_connections, **common)
            _wire.guard(nodes)
            acks = Acknowledger(nodes, ack, ack_timeout, pool_timeout=timeout, common=common)
            return cls(nodes, None, prefix=prefix, timeout=timeout, ack=acks, **kept)
        if url.startswith(SENTINEL_SCHEME):
            primary, pubsub = sentinel_clients(url, max_connections=max_connections, common=common)
            _wire.guard(primary)
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
        pool.connection_class = _wire.guarded(pool.connection_class)  # packed, if plain
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
            pubsub_address=Address.of(url),
            ack=acks,
            **kept,
        )

    async def verify(self) -> None:
        """At start-up: refuse an acknowledgement the server cannot give (``aof``
        before Redis 7.2), with a message naming the setting."""
        if self._ack is not None:
            async with self._ground._reach():
                await self._ack.verify()

    async def ping(self) -> bool:
        try:
            async with self._ground._reach():
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

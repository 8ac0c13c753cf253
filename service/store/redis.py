"""The Redis store: every table lives in Redis, so any replica serves any table.

``RedisStore`` builds the clients and puts the store's parts together, one module each,
all on the same client, key scheme and mapping of Redis's failures (``_reach.py``): the
tables, their commit and listings (``_tables.py``), the feeds (``_feeds.py``), the
due-index (``_due.py``), presence (``_presence.py``) and the rate limits
(``_buckets.py``). Beside them: the commit pipe (``_pipe.py``), the pub/sub readers
(``_watcher.py``; a plain URL's connection read by ``_pubsub.py``), reply parsing
(``_wire.py``), pages of listings (``_listing.py``), Sentinel and acknowledgement
(``topology.py``) and the Lua scripts.
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
from tablestate.store._due import RedisDueIndex
from tablestate.store._feeds import RedisFeeds
from tablestate.store._pipe import Address, Pipe
from tablestate.store._presence import RedisPresence
from tablestate.store._tables import RedisTables
from tablestate.store._watcher import ClusterWatchers, Watcher
from tablestate.store.base import CHAT_KEPT, IDEMPOTENCY_KEPT, StoreError
from tablestate.store.topology import SENTINEL_SCHEME, Acknowledger, sentinel_clients


@final
class RedisStore(RedisTables, RedisFeeds, RedisDueIndex, RedisPresence, RedisRateBuckets):
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
        pubsub_address: Address | None = None,
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
        self._listener = None
        self._lobby_listener = None
        if isinstance(client, RedisCluster):
            self._watcher = ClusterWatchers(client, timeout=timeout)
        else:
            assert pubsub_client is not None
            self._watcher = Watcher(pubsub_client, timeout=timeout, address=pubsub_address)
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
            _wire.guard(client)
            acks = Acknowledger(client, ack, ack_timeout, pool_timeout=timeout, common=common)
            return cls(client, None, prefix=prefix, timeout=timeout, ack=acks, **kept)
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

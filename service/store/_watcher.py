"""Live notifications of the Redis store: one sharded pub/sub connection, one reader task.

Each commit script ``SPUBLISH``es its last cursor on the table's shard channel. The
watcher subscribes the channels of the watched tables on a single connection and tells
the listener ``(table_id, cursor)``. When that connection drops it reconnects with
backoff, subscribes again, and then tells the listener ``(table_id, "")`` for every
watched table: "you may have missed something; fetch".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final, final

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from tablestate.store._pipe import Address
from tablestate.store._pubsub import LeanPubSub
from tablestate.store.base import Listener, StoreUnavailable

logger = logging.getLogger(__name__)

# A ResponseError (say, a server without sharded pub/sub) is retried too, with backoff:
# notifications matter enough to keep trying, and the log says why they do not come.
_LOST: Final = (RedisError, OSError, TimeoutError)
_SILENT_ROUNDS: Final = 3  # keepalive rounds without any reply before the link counts as dead


@final
class Watcher:
    """Follows the shard channels of the watched tables.

    Args:
        client: A client whose pool holds the single pub/sub connection, with no retries
            (a drop must surface here, not be papered over inside redis-py).
        timeout: Seconds ``watch`` waits for Redis to confirm a subscription.
        keepalive: Seconds of silence after which the connection is pinged.
        backoff: First and largest pause between reconnection attempts.
        address: The address of a plain ``redis://`` URL: the connection is then read by
            ``store/_pubsub.py`` instead of redis-py's ``PubSub`` (the client's pool
            unused).
    """

    def __init__(
        self,
        client: Redis,
        *,
        timeout: float,
        keepalive: float = 5.0,
        backoff: tuple[float, float] = (0.05, 2.0),
        address: Address | None = None,
    ) -> None:
        self.listener: Listener | None = None
        # Told when the connection drops (a Cluster node may have failed over).
        self.on_lost: Callable[[], None] | None = None
        self._client = client
        self._timeout = timeout
        self._keepalive = keepalive
        self._backoff = backoff
        self._channels: dict[str, str] = {}  # table id -> channel
        self._tables: dict[bytes, str] = {}  # channel, as Redis sends it -> table id
        self._waiting: dict[bytes, list[asyncio.Future[None]]] = {}
        self._catch_up: set[str] = set()
        self._address = address
        self._pubsub: PubSub | LeanPubSub | None = None
        self._task: asyncio.Task[None] | None = None

    async def watch(self, table_id: str, channel: str) -> None:
        """Subscribe, and return once Redis has confirmed it (so no later commit is
        missed). Raises ``StoreUnavailable`` if it does not within ``timeout``."""
        if table_id in self._channels:
            return
        name = channel.encode()
        self._channels[table_id] = channel
        self._tables[name] = table_id
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run(), name="tablestate-pubsub")
        confirmed: asyncio.Future[None] = loop.create_future()
        self._waiting.setdefault(name, []).append(confirmed)
        try:
            await self._send("SSUBSCRIBE", channel)
            async with asyncio.timeout(self._timeout):
                await confirmed
        except TimeoutError:
            self._forget(table_id)
            raise StoreUnavailable("Redis did not confirm a subscription in time") from None
        finally:
            waiting = self._waiting.get(name, [])
            if confirmed in waiting:
                waiting.remove(confirmed)
            if not waiting:
                self._waiting.pop(name, None)

    @property
    def connected(self) -> bool:
        """Whether the pub/sub connection is up."""
        pubsub = self._pubsub
        return pubsub is not None and pubsub.connection is not None

    def watched(self) -> dict[str, str]:
        """Table id -> channel of every watched table."""
        return dict(self._channels)

    async def unwatch(self, table_id: str) -> None:
        channel = self._forget(table_id)
        if channel is not None:
            await self._send("SUNSUBSCRIBE", channel)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait([task])
        self._channels.clear()
        self._tables.clear()
        self._catch_up.clear()
        for waiters in self._waiting.values():
            for waiter in waiters:
                waiter.cancel()
        self._waiting.clear()
        await self._client.aclose()
        await self._client.connection_pool.aclose()

    def _forget(self, table_id: str) -> str | None:
        channel = self._channels.pop(table_id, None)
        if channel is not None:
            self._tables.pop(channel.encode(), None)
        self._catch_up.discard(table_id)
        return channel

    async def _send(self, command: str, channel: str) -> None:
        pubsub = self._pubsub
        if pubsub is None or pubsub.connection is None or not pubsub.connection.is_connected:
            return  # the reader subscribes every watched channel when it (re)connects
        try:
            if command == "SSUBSCRIBE":
                await pubsub.ssubscribe(channel)
            else:
                await pubsub.sunsubscribe(channel)
        except _LOST as exc:
            logger.debug("%s not sent (%s); the reader will resubscribe", command, exc)

    async def _run(self) -> None:
        delay, dropped = self._backoff[0], False
        while True:
            pubsub = self._open()
            try:
                await pubsub.connect()
                # From here on watch() subscribes by itself; the channels watched before
                # this line are subscribed just below, with no await in between.
                self._pubsub = pubsub
                if dropped:
                    self._catch_up = set(self._channels)
                # One command per channel: SSUBSCRIBE takes channels of one slot only, and a
                # node owns many (a Cluster node's watched tables).
                for channel in list(self._channels.values()):
                    await pubsub.ssubscribe(channel)
                delay = self._backoff[0]
                await self._read(pubsub)
            except _LOST as exc:
                logger.warning("pub/sub connection lost (%s); retrying in %.2f s", exc, delay)
                if self.on_lost is not None:
                    self.on_lost()
            finally:
                self._pubsub = None
                with contextlib.suppress(*_LOST):
                    await pubsub.aclose()
            dropped = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._backoff[1])

    def _open(self) -> PubSub | LeanPubSub:
        if self._address is not None:
            return LeanPubSub(self._address, keepalive=self._keepalive, timeout=self._timeout)
        return self._client.pubsub()

    async def _read(self, pubsub: PubSub | LeanPubSub) -> None:
        silent = 0
        while True:
            message = await pubsub.get_message(timeout=self._keepalive)
            if message is None:
                silent += 1
                if silent >= _SILENT_ROUNDS:
                    raise TimeoutError("no reply on the pub/sub connection")
                await pubsub.ping()
                continue
            silent = 0
            await self._dispatch(message)

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind, channel = message["type"], message["channel"]
        table_id = self._tables.get(channel) if channel is not None else None
        if kind == "smessage" and table_id is not None:
            self._notify(table_id, message["data"].decode())
        elif kind == "ssubscribe":
            for waiter in self._waiting.pop(channel, []):
                if not waiter.done():
                    waiter.set_result(None)
            if table_id is None:  # unwatched while the subscription was on its way
                await self._send("SUNSUBSCRIBE", channel.decode())
            elif table_id in self._catch_up:
                self._catch_up.discard(table_id)
                self._notify(table_id, "")

    def _notify(self, table_id: str, cursor: str) -> None:
        listener = self.listener
        if listener is None:
            return
        try:
            listener(table_id, cursor)
        except Exception:  # one table's failing listener must not stop every table's news
            logger.exception("listener failed for a table notification")


@final
class ClusterWatchers:
    """Live notifications on Redis Cluster: a ``Watcher`` (one sharded pub/sub connection)
    per node that owns the slot of a watched table's channel.

    A failover is followed: when a node's connection drops, the slot map is reloaded
    (every ``follow`` seconds, until each of that node's tables is on a node that
    answers), its tables are watched on the slots' new owners, and the listener is told
    ``(table_id, "")`` for each: "fetch what you missed"."""

    def __init__(self, cluster: RedisCluster, *, timeout: float, follow: float = 0.25) -> None:
        self.listener: Listener | None = None
        self._cluster = cluster
        self._timeout = timeout
        self._follow = follow
        self._nodes: dict[str, Watcher] = {}
        self._where: dict[str, Watcher] = {}  # table id -> the watcher following it
        self._moving: asyncio.Task[None] | None = None

    def _for(self, channel: str) -> Watcher:
        node = self._cluster.get_node_from_key(channel)
        if node is None:
            raise StoreUnavailable("no cluster node owns that slot")
        found = self._nodes.get(node.name)
        if found is None:
            pool = ConnectionPool(
                host=node.host,
                port=node.port,
                max_connections=1,
                client_name="tablestate-pubsub",
                socket_timeout=self._timeout,
                socket_connect_timeout=self._timeout,
                retry=Retry(NoBackoff(), 0),
            )
            found = self._nodes[node.name] = Watcher(
                Redis(connection_pool=pool), timeout=self._timeout
            )
            found.on_lost = self._lost
        found.listener = self._relay
        return found

    def _relay(self, table_id: str, cursor: str) -> None:
        if self.listener is not None:
            self.listener(table_id, cursor)

    def _lost(self) -> None:
        if self._moving is None or self._moving.done():
            self._moving = asyncio.ensure_future(self._move())

    async def _move(self) -> None:
        """Reload the slot map until no watched table is left on a node that is down."""
        while any(not w.connected for w in set(self._where.values())):
            await asyncio.sleep(self._follow)
            try:
                async with asyncio.timeout(self._timeout):
                    await self._cluster.nodes_manager.initialize()
            except (*_LOST, RedisError) as exc:
                logger.debug("slot map not reloaded (%s); trying again", exc)
                continue
            for table_id, watcher in list(self._where.items()):
                channel = watcher.watched().get(table_id)
                if channel is None:
                    continue
                try:
                    moved = self._for(channel)
                except StoreUnavailable:
                    continue
                if moved is watcher:
                    continue
                try:
                    await moved.watch(table_id, channel)
                except StoreUnavailable:
                    continue  # the next round tries again
                self._where[table_id] = moved
                await watcher.unwatch(table_id)
                self._relay(table_id, "")  # its events meanwhile: fetch them
            for name, watcher in list(self._nodes.items()):
                if not watcher.watched() and watcher not in self._where.values():
                    del self._nodes[name]
                    await watcher.close()

    async def watch(self, table_id: str, channel: str) -> None:
        try:
            async with asyncio.timeout(self._timeout):
                await self._cluster.initialize()
        except (*_LOST, RedisError) as exc:
            raise StoreUnavailable(f"Redis Cluster unreachable: {exc}") from exc
        watcher = self._for(channel)
        await watcher.watch(table_id, channel)
        self._where[table_id] = watcher

    async def unwatch(self, table_id: str) -> None:
        watcher = self._where.pop(table_id, None)
        if watcher is not None:
            await watcher.unwatch(table_id)

    async def close(self) -> None:
        if self._moving is not None:
            self._moving.cancel()
            await asyncio.wait([self._moving])
        for watcher in self._nodes.values():
            await watcher.close()
        self._nodes.clear()
        self._where.clear()

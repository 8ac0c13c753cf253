"""Where the Redis store's connections go: one server, a primary that Sentinel watches, or
a Cluster; and how a commit is acknowledged (``TABLESTATE_REDIS_ACK``).

Failovers are followed by redis-py itself: a Sentinel pool asks the sentinels for the
primary's address at every new connection (and drops a connection whose server turned
replica), a Cluster client reloads its slot map after a node stops answering. Nothing here
retries a write: a commit whose reply is lost is answered ``UNAVAILABLE`` and the client's
resend, with its idempotency key, finds what landed.

Acknowledgement: ``primary`` answers once the primary ran the commit script; ``replica``
sends ``WAIT 1 <timeout>`` after it on the same connection (WAIT counts the replicas that
hold every write of its own connection so far), and ``aof`` sends ``WAITAOF 1 1
<timeout>`` (Redis 7.2+: fsynced by the primary and by a replica).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, final
from urllib.parse import unquote

from redis.asyncio import BlockingConnectionPool, Connection, Redis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.sentinel import Sentinel
from redis.exceptions import AskError, MovedError, NoScriptError, RedisError, ResponseError

from tablestate.store import _wire
from tablestate.store.base import StoreUnavailable

logger = logging.getLogger(__name__)

SENTINEL_SCHEME: Final = "redis+sentinel://"
ACKS: Final = ("primary", "replica", "aof")
_APPLIED: Final = 1  # commit.lua's outcomes
_RECORDED: Final = 2


@dataclass(frozen=True)
class SentinelAddress:
    """What a ``redis+sentinel://[[user]:password@]host:port[,host:port...]/<primary
    name>[/<db>]`` URL names."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None


def parse_sentinel_url(url: str) -> SentinelAddress:
    """The sentinels, primary name and credentials of a ``redis+sentinel://`` URL.

    Raises:
        ValueError: naming what is wrong with the URL.
    """
    if not url.startswith(SENTINEL_SCHEME):
        raise ValueError(f"not a {SENTINEL_SCHEME} URL")
    rest = url[len(SENTINEL_SCHEME) :]
    credentials, _, rest = rest.rpartition("@")
    hosts, _, path = rest.partition("/")
    sentinels = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"sentinel {item!r} is not host:port")
        sentinels.append((host, int(port)))
    parts = [p for p in path.split("/") if p]
    if not parts:
        raise ValueError("the URL names no primary (redis+sentinel://host:port/<name>)")
    if len(parts) > 2 or (len(parts) == 2 and not parts[1].isdigit()):
        raise ValueError(f"bad path {path!r}: /<primary name>[/<db>]")
    username = password = None
    if credentials:
        user, colon, secret = credentials.partition(":")
        username = unquote(user) or None
        password = unquote(secret) if colon else unquote(user)
        if not colon:
            username = None
    return SentinelAddress(
        tuple(sentinels),
        parts[0],
        int(parts[1]) if len(parts) == 2 else 0,
        username,
        password,
    )


def sentinel_clients(
    url: str, *, max_connections: int, common: dict[str, Any]
) -> tuple[Redis, Redis]:
    """Command and pub/sub clients of the primary that the sentinels of ``url`` name."""
    address = parse_sentinel_url(url)
    auth: dict[str, Any] = {
        "username": address.username,
        "password": address.password,
        "db": address.db,
    }
    sentinel = Sentinel(
        list(address.sentinels),
        sentinel_kwargs={k: v for k, v in common.items() if k != "socket_keepalive"},
        **common,
    )
    commands = sentinel.master_for(address.service, max_connections=max_connections, **auth)
    pubsub = sentinel.master_for(
        address.service, max_connections=1, client_name="tablestate-pubsub", **auth
    )
    return commands, pubsub


@final
class Acknowledger:
    """Runs a write, then its acknowledgement, on one connection (see the module).

    Args:
        client: The store's client (a plain or Sentinel ``Redis``, or a ``RedisCluster``).
        mode: One of ``ACKS``.
        timeout: Milliseconds the acknowledgement may take.
        node_connections: Connections per Cluster node for acknowledged writes.
        pool_timeout: Seconds to wait for a free one.
    """

    def __init__(
        self,
        client: Redis | RedisCluster,
        mode: str,
        timeout: int,
        *,
        node_connections: int = 20,
        pool_timeout: float = 2.0,
        common: dict[str, Any] | None = None,
    ) -> None:
        if mode not in ACKS:
            raise ValueError(f"acknowledgement is one of {', '.join(ACKS)}, not {mode!r}")
        self.mode = mode
        self.timeout = timeout
        self._client = client
        self._nodes: dict[str, Redis] = {}
        self._node_connections = node_connections
        self._pool_timeout = pool_timeout
        self._common = common or {}
        self._refreshing: asyncio.Task[None] | None = None

    @property
    def waits(self) -> bool:
        """Whether writes wait for more than the primary."""
        return self.mode != "primary"

    async def verify(self) -> None:
        """Refuse a mode the server cannot keep (``aof`` before Redis 7.2).

        Raises:
            RuntimeError: naming the setting and the server's version.
        """
        if self.mode != "aof":
            return
        info = await self._client.info("server")
        if isinstance(self._client, RedisCluster):
            info = next(iter(info.values())) if info and "redis_version" not in info else info
        version = str(info.get("redis_version", "0"))
        major, minor = (int(p) for p in ([*version.split("."), "0"])[:2])
        if (major, minor) < (7, 2):
            raise RuntimeError(
                f"TABLESTATE_REDIS_ACK=aof needs WAITAOF (Redis 7.2 or later); this Redis is "
                f"{version}: use TABLESTATE_REDIS_ACK=replica or primary"
            )

    def _node_client(self, key: str) -> Redis:
        assert isinstance(self._client, RedisCluster)
        node = self._client.get_node_from_key(key)
        if node is None:
            raise StoreUnavailable("no cluster node owns that slot")
        found = self._nodes.get(node.name)
        if found is None:
            pool = BlockingConnectionPool(
                host=node.host,
                port=node.port,
                max_connections=self._node_connections,
                timeout=self._pool_timeout,
                # a write on a connection that a failed read closed meanwhile (its writer
                # None) raises ConnectionError: the node went away under it
                connection_class=_wire.guarded(Connection),
                **self._common,
            )
            found = self._nodes[node.name] = Redis(connection_pool=pool)
        return found

    def _refresh(self) -> None:
        """Reload the Cluster's slot map in the background (a node failed or a slot
        moved); until then such writes are ``UNAVAILABLE``."""
        if not isinstance(self._client, RedisCluster):
            return
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._reload(self._client))

    @staticmethod
    async def _reload(cluster: RedisCluster) -> None:
        with contextlib.suppress(RedisError, OSError):
            await cluster.nodes_manager.initialize()

    async def run(
        self, key: str, build: Callable[[Pipeline], object], script: Any = None
    ) -> tuple[list[Any], bool]:
        """The replies of the commands ``build`` adds to a pipeline on the connection of
        ``key``'s primary, and whether the acknowledgement came in time. A ``script``
        (redis-py's) that the server does not hold (a promoted replica) is loaded, and the
        pipeline sent again: nothing of it ran the first time.

        Raises:
            ResponseError: the first error reply.
            StoreUnavailable: the Cluster named another node (its map is reloaded).
        """
        client = self._node_client(key) if isinstance(self._client, RedisCluster) else None
        either = client if client is not None else self._client
        target: Redis = either  # type: ignore[assignment]  # or a Cluster: the same commands
        for attempt in (0, 1):
            pipe = target.pipeline(transaction=False)
            build(pipe)
            if self.mode == "replica":
                pipe.execute_command("WAIT", 1, self.timeout)
            elif self.mode == "aof":
                pipe.execute_command("WAITAOF", 1, 1, self.timeout)
            try:
                replies = await pipe.execute(raise_on_error=False)
            except (ConnectionError, OSError, RedisError):
                self._refresh()
                raise
            first = replies[0]
            if isinstance(first, NoScriptError) and script is not None and attempt == 0:
                await target.script_load(script.script)
                continue
            if isinstance(first, MovedError | AskError):
                self._refresh()
                raise StoreUnavailable(f"the Cluster moved that table's slot: {first}")
            for reply in replies:
                if isinstance(reply, ResponseError):
                    raise reply
            return list(replies), self._confirmed(replies[-1])
        raise AssertionError("unreachable")  # pragma: no cover

    async def commit(
        self, script: Any, keys: list[str], args: list[str | int], ttl_ms: int, *, last: str
    ) -> Any:
        """The commit script (``commit.lua``: ``keys``, ``args``), then its acknowledgement;
        the script's reply. The PEXPIRE after it is a write of this connection whatever the
        script did, so the acknowledgement also covers an outcome read from an earlier
        commit (an idempotency key's record, a newer version) that may not have reached a
        replica yet. Once acknowledged, the commit's ``last`` cursor is announced on the
        table's channel (``keys[4]``; the script did not): no replica's subscribers hear of
        a commit that a failover may still lose.

        Raises:
            StoreUnavailable: not acknowledged in time (the commit may have landed).
        """

        def build(pipe: Pipeline) -> None:
            pipe.evalsha(script.sha, len(keys), *keys, *args)
            pipe.pexpire(keys[0], ttl_ms)

        replies, confirmed = await self.run(keys[0], build, script)
        reply = replies[0]
        if not confirmed:
            raise StoreUnavailable(
                f"no replica acknowledged the commit within {self.timeout} ms; "
                "it may have landed: resend with the same idempotency key"
            )
        outcome = int(reply[0])
        if outcome in (_APPLIED, _RECORDED):
            try:  # a record's commit may not have been announced: "" asks for a fetch
                await self._client.spublish(keys[4], last if outcome == _APPLIED else "")
            except (RedisError, OSError, TimeoutError) as exc:  # the commit stands: the next
                # one, or a watcher's reconnection, tells the subscribers
                logger.warning("a commit was not announced: %s", exc)
        return reply

    def _confirmed(self, reply: Any) -> bool:
        if self.mode == "replica":
            return int(reply) >= 1
        if self.mode == "aof":
            local, replicas = (int(x) for x in reply)
            return local >= 1 and replicas >= 1
        return True

    async def close(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
        for node in self._nodes.values():
            await node.aclose()
            await node.connection_pool.aclose()
        self._nodes.clear()

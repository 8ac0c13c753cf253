"""What every part of the Redis store is built on: its ``Link`` (the client, the commits'
pipe, the acknowledgement, the key prefix and the timeout), the key scheme and the one
mapping of Redis's failures to the contract's (``_reach``).

A table's keys share the hash tag ``{t:<id>}`` (so the commit script also runs on Redis
Cluster): ``<prefix>{t:<id>}:s`` (hash: version, snapshot, meta, and the idempotency
records, fields ``i:<seat>:<key>``), ``:e`` (the game's event stream, ids are the cursors),
``:c`` and ``:x`` (appended events: for every viewer, and with an audience; trimmed),
``:io`` (the fields of the idempotency records, oldest first), ``:i`` (the records of a
table made by an earlier release), ``:m`` (move log), ``:p`` (presence), ``:w`` (a
short-lived write whose acknowledgement tells that a replica holds the table as read) and
the shard channel ``:ev`` on which each commit announces its last cursor. Listings
(``<prefix>tables:...``), each signed-in user's tables (``<prefix>users:<hash of the
user>``) and the due-index (``<prefix>due``) are global keys written apart from the commit,
best effort; so are the rate limits (``<prefix>rl:...``, one key each), and the lobby's
channel is ``<prefix>{lobby}:ev``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterError,
    MovedError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from tablestate.store._pipe import Pipe
from tablestate.store.base import StoreFull, StoreUnavailable
from tablestate.store.topology import Acknowledger

# Told apart by class alone, wherever they were raised: redis-py's parser and the store's
# own readers (store/_wire.py) give error replies their classes, and the store's connections
# raise ``ConnectionError`` (``_wire.LostMidCommand``) for a transport closed under a command.
# redis-py's ConnectionError and TimeoutError are not the builtins' (nor OSError's), so both
# kinds are named.
_UNREACHABLE: Final = (
    RedisConnectionError,  # with its kinds: the pool exhausted, _wire.LostMidCommand, ...
    RedisTimeoutError,
    TimeoutError,
    OSError,
    RedisClusterException,
    # A failover under way: a demoted primary, a slot on its way to another node
    # (ClusterError: redirected until redis-py gave up; ClusterDownError is one). Nothing of
    # the command ran; the client retries.
    ClusterError,
    ReadOnlyError,
    BusyLoadingError,
    TryAgainError,
    MovedError,
    AskError,
)


@dataclass(frozen=True, slots=True)
class Link:
    """What ``RedisStore`` gives each of its parts: the same for all of them."""

    redis: Redis | RedisCluster
    prefix: str
    timeout: float
    pipe: Pipe | None = None  # the commits' own connection (store/_pipe.py), if any
    ack: Acknowledger | None = None  # how commits are acknowledged; None: by the primary alone


class Reach:
    """The ground under each part of ``RedisStore`` (each is built on the store's ``Link``):
    a table's keys, and the way every call reaches Redis."""

    __slots__ = ("_ack", "_pipe", "_prefix", "_redis", "_timeout")

    def __init__(self, link: Link) -> None:
        self._redis = link.redis
        self._pipe = link.pipe
        self._ack = link.ack
        self._prefix = link.prefix
        self._timeout = link.timeout

    def _tag(self, table_id: str) -> str:
        """What every key of the table starts with: the prefix and its hash tag."""
        return f"{self._prefix}{{t:{table_id}}}"

    def _keys(self, table_id: str) -> list[str]:
        """snapshot, game events, idempotency, move log, channel, idempotency order,
        appended events for every viewer, appended events with an audience."""
        tag = self._tag(table_id)
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

    def _reach(self, bounded: bool = True) -> _Reaching:
        """``async with`` around a call: bounded by ``timeout`` (unless the call bounds
        itself: ``bounded`` false), and every way of not reaching Redis (refused, dropped,
        slow, pool exhausted) turned into ``StoreUnavailable``."""
        return _Reaching(self._timeout if bounded else None)

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
        """A script, down the commits' pipe when there is one (its calls are bounded by
        ``timeout``: call it within ``_reach(bounded=False)``), else through redis-py."""
        if self._pipe is None:
            async with asyncio.timeout(self._timeout):
                return await script(keys=keys, args=args)
        try:
            return await self._pipe.call(
                "EVALSHA", script.sha, len(keys), *keys, *args, timeout=self._timeout
            )
        except NoScriptError:
            pass
        async with asyncio.timeout(self._timeout):
            return await script(keys=keys, args=args)  # redis-py loads it, then runs it


class _Reaching:
    """The context of ``Reach._reach``: a class, not a generator's context manager (which
    costs an object, an async generator and two steps of it per store call)."""

    __slots__ = ("_timer",)

    def __init__(self, timeout: float | None) -> None:
        self._timer = asyncio.timeout(timeout) if timeout is not None else None

    async def __aenter__(self) -> None:
        if self._timer is not None:
            await self._timer.__aenter__()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        if self._timer is not None:
            try:
                await self._timer.__aexit__(kind, exc, tb)
            except TimeoutError as timed_out:  # the bound cancelled the call
                exc = timed_out
        if exc is None:
            return
        if isinstance(exc, _UNREACHABLE):
            raise StoreUnavailable(f"Redis unreachable: {str(exc) or type(exc).__name__}") from exc
        if isinstance(exc, OutOfMemoryError):
            # At maxmemory (noeviction) Redis refuses a write, or a script's first write,
            # so nothing of it was applied.
            raise StoreFull(f"Redis is full: {exc}") from exc

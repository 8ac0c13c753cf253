"""What the Redis store sends and reads on the wire: its Lua scripts, the decoding of
replies (the clients do not decode them, so they come as bytes), error replies as redis-py's
exception classes, and the connections the store's clients use (one packs commands in C;
each tells a transport closed under a command as a lost connection).

Follows redis-py 8.2: ``AbstractConnection``'s ``send_packed_command`` and ``read_response``,
a pool's ``connection_class``, and the Cluster client's ``nodes_manager`` (whose
``connection_kwargs`` name the connection class of every node it meets).
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Final, TypeVar

import hiredis
from redis.asyncio import Connection, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import (
    BusyLoadingError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError

from tablestate import _json
from tablestate.store.base import IdempotencyRecord, StoredEvent, cursor_key

Row = tuple[tuple[int, int], Any]
"""A stream entry keyed by its cursor: ``((version, n), [b"e", json])``."""


def script(name: str) -> str:
    """The text of one of the store's Lua scripts."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def text(value: object) -> str:
    """A reply as text."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    raise TypeError(f"unexpected reply {value!r:.80}")


def rows(reply: Any) -> list[Row]:
    """Stream entries as a script returns them, ``[id, [b"e", json]]``, keyed by cursor."""
    return [(cursor_key(text(entry_id)), fields) for entry_id, fields in reply]


def event(row: Row) -> StoredEvent:
    return StoredEvent.from_json(text(row[1][1]))


def row_key(row: Row) -> tuple[int, int]:
    return row[0]


def record(raw: str | bytes) -> IdempotencyRecord:
    """An idempotency record as the commit script keeps it."""
    d = _json.loads(raw)
    events = tuple(StoredEvent(**e) for e in d["events"])
    return IdempotencyRecord(d["move_hash"], d["version"], events)


# The error replies the store acts on, by their first word, as redis-py's parser names them
# (``redis._parsers.base.BaseParser.EXCEPTION_CLASSES``): a connection read by hiredis
# directly (the commits' pipe, the lean pub/sub) raises the same classes as redis-py's.
_ERROR_REPLIES: Final[dict[str, type[RedisError]]] = {
    "OOM": OutOfMemoryError,
    "NOSCRIPT": NoScriptError,
    "READONLY": ReadOnlyError,
    "LOADING": BusyLoadingError,
    "TRYAGAIN": TryAgainError,
}


def error_reply(message: str) -> RedisError:
    """An error reply as redis-py's class of it (``ResponseError`` for the others); like
    redis-py's parser, the class stands for the reply's first word."""
    code, _, rest = message.partition(" ")
    kind = _ERROR_REPLIES.get(code)
    return ResponseError(message) if kind is None else kind(rest)


class LostMidCommand(RedisConnectionError):
    """redis-py met a transport closed under a command: a builtin ``AttributeError`` or
    ``RuntimeError`` out of it (a failed node's reconnection left the connection without
    its writer, ``None.writelines``; uvloop's "the handler is closed") rather than its own
    ``ConnectionError``. The connection is lost, as that error says."""


_TRANSPORT_GONE: Final = (AttributeError, RuntimeError)


class Guarded(AbstractConnection):
    """A connection whose I/O raises ``LostMidCommand`` where its transport failed with a
    builtin error: the store tells errors apart by their class, whatever code raised them."""

    __slots__ = ()

    async def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
        try:
            await super().send_packed_command(*args, **kwargs)
        except _TRANSPORT_GONE as exc:
            raise LostMidCommand(f"Redis connection lost mid-command: {exc}") from exc

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().read_response(*args, **kwargs)
        except _TRANSPORT_GONE as exc:
            raise LostMidCommand(f"Redis connection lost mid-command: {exc}") from exc


class PackedConnection(Guarded, Connection):
    """redis-py's asyncio connection, packing commands with hiredis's C packer (as its
    synchronous client does) rather than byte by byte in Python."""

    __slots__ = ()

    def pack_command(self, *args: Any) -> list[bytes]:
        if type(args[0]) is str and " " not in args[0]:
            try:
                return [hiredis.pack_command(args)]
            except TypeError:
                pass  # a value hiredis refuses: redis-py's packer says what is wrong
        return super().pack_command(*args)


C = TypeVar("C", bound=AbstractConnection)
_GUARDED: dict[type[AbstractConnection], type[AbstractConnection]] = {}


def guarded(base: type[C]) -> type[C]:
    """``base`` with ``Guarded``'s I/O (``PackedConnection`` for a plain connection)."""
    if issubclass(base, Guarded):
        return base
    if base is Connection:
        return PackedConnection  # type: ignore[return-value]  # C is Connection here
    made = _GUARDED.get(base)
    if made is None:
        made = _GUARDED[base] = type(f"Guarded{base.__name__}", (Guarded, base), {"__slots__": ()})
    return made  # type: ignore[return-value]  # a subclass of base


def guard(client: Redis | RedisCluster) -> None:
    """Give every connection ``client`` opens from now on ``Guarded``'s I/O."""
    if isinstance(client, RedisCluster):
        manager = client.nodes_manager
        kwargs = manager.connection_kwargs
        kwargs["connection_class"] = guarded(kwargs.get("connection_class", Connection))
        for node in manager.startup_nodes.values():
            node.connection_class = guarded(node.connection_class)
        return
    pool = client.connection_pool
    pool.connection_class = guarded(pool.connection_class)

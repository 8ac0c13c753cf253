"""What the Redis store sends and reads on the wire: its Lua scripts, the decoding of
replies (the clients do not decode them, so they come as bytes) and a connection that packs
commands in C."""

from __future__ import annotations

from importlib import resources
from typing import Any

import hiredis
from redis.asyncio import Connection

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


def record(raw: object) -> IdempotencyRecord:
    """An idempotency record as the commit script keeps it."""
    d = _json.loads(raw)  # type: ignore[arg-type]
    events = tuple(StoredEvent(**e) for e in d["events"])
    return IdempotencyRecord(d["move_hash"], d["version"], events)


class PackedConnection(Connection):
    """redis-py's asyncio connection, packing commands with hiredis's C packer (as its
    synchronous client does) rather than byte by byte in Python."""

    def pack_command(self, *args: Any) -> list[bytes]:
        if type(args[0]) is str and " " not in args[0]:
            try:
                return [hiredis.pack_command(args)]
            except TypeError:
                pass  # a value hiredis refuses: redis-py's packer says what is wrong
        return super().pack_command(*args)

"""Where tables live: the ``StateStore`` contract, the embedded ``MemoryStore`` and the
shared ``RedisStore`` (imported on first use, so the memory store needs no Redis client)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tablestate.store.base import (
    BadCursor,
    CommitResult,
    Idempotency,
    IdempotencyRecord,
    Listener,
    NewEvent,
    Page,
    StateStore,
    StoredEvent,
    StoreError,
    StoreFull,
    StoreUnavailable,
    TableExists,
    TableMeta,
    cursor_key,
)
from tablestate.store.memory import MemoryStore

if TYPE_CHECKING:
    from tablestate.store.redis import RedisStore

__all__ = [
    "BadCursor",
    "CommitResult",
    "Idempotency",
    "IdempotencyRecord",
    "Listener",
    "MemoryStore",
    "NewEvent",
    "Page",
    "RedisStore",
    "StateStore",
    "StoreError",
    "StoreFull",
    "StoreUnavailable",
    "StoredEvent",
    "TableExists",
    "TableMeta",
    "cursor_key",
]


def __getattr__(name: str) -> Any:
    if name == "RedisStore":
        from tablestate.store.redis import RedisStore

        return RedisStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

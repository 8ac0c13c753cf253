"""The lobby's live notices inside one replica: one store channel, fanned out in process.

Every replica publishes a notice when a public table opens, changes while OPEN, or leaves
OPEN (``service/tables/notices.py``); the store delivers each notice to every replica watching the
lobby (Redis: one sharded pub/sub channel; the memory store: in process). Each subscriber is
shown a notice only as it may see it (``seen_as``): no notice names a table to one that may
not watch it. The channel keeps
no history: a lobby screen starts from a snapshot of the open tables and then takes the
notices, each an upsert or removal keyed by table id. When the store's channel was cut (a
Redis failover or restart: notices may have been missed meanwhile), every lobby
subscription here ends with ``UNAVAILABLE``, so that its client subscribes again and
starts from a new snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from tablestate.errors import ApiError
from tablestate.mailbox import Mailbox, offer, unless_slow
from tablestate.store.base import StateStore, StoreUnavailable

log = logging.getLogger("tablestate.lobby")

_MISSED = object()  # queued when notices may have been missed: the subscription ends


@dataclass(eq=False)
class Listening:
    """One lobby subscriber's queue of notices (dicts), for one game or all."""

    game_id: str | None
    queue: Mailbox[Any]
    slow: bool = field(default=False)

    async def next(self) -> dict[str, Any]:
        item = unless_slow(await self.queue.get())
        if item is _MISSED:
            raise ApiError("UNAVAILABLE", "lobby notices may have been missed: subscribe again")
        notice: dict[str, Any] = item
        return notice


def seen_as(notice: dict[str, Any], before: bool, now: bool) -> dict[str, Any] | None:
    """A notice as a subscriber sees it who could watch the table before the change
    (``before``) and may watch it now (``now``); None: nothing (it never learns of a table it
    may not watch). A table that it sees for the first time is opened to it; one that it
    may watch no more is closed to it, with no status (what became of it is not its to
    know)."""
    if now:
        if not before and notice.get("type") == "table.updated":
            return {**notice, "type": "table.opened"}
        return notice
    if before and notice.get("type") in ("table.updated", "table.closed"):
        return {**notice, "type": "table.closed", "status": None}
    return None


class LobbyHub:
    """Fan-out of lobby notices to this replica's lobby subscribers."""

    def __init__(self, store: StateStore, queue_size: int = 256) -> None:
        self.store = store
        self.queue_size = queue_size
        self._listening: set[Listening] = set()
        self._lock = asyncio.Lock()
        self._watching = False
        store.set_lobby_listener(self._announce)

    def _announce(self, notice: str) -> None:
        if not notice:  # the store's channel was cut and is back: notices may be missing
            for sub in list(self._listening):
                offer(sub, _MISSED)
            return
        try:
            item = json.loads(notice)
        except ValueError:
            log.warning("malformed lobby notice dropped")
            return
        if not isinstance(item, dict):
            return
        for sub in list(self._listening):
            if sub.game_id is None or item.get("gameId") == sub.game_id:
                offer(sub, item)

    @contextlib.asynccontextmanager
    async def listen(self, game_id: str | None) -> AsyncIterator[Listening]:
        """Notices from now on, while the block runs (raises ``ApiError`` UNAVAILABLE when
        the store cannot be watched)."""
        sub = Listening(game_id, Mailbox(self.queue_size))
        self._listening.add(sub)
        try:
            async with self._lock:
                if not self._watching:
                    try:
                        await self.store.watch_lobby()
                    except StoreUnavailable as exc:
                        raise ApiError("UNAVAILABLE", "the store is unreachable") from exc
                    self._watching = True
            yield sub
        finally:
            self._listening.discard(sub)
            await asyncio.shield(self._unwatch_if_idle())

    async def _unwatch_if_idle(self) -> None:
        async with self._lock:
            if self._listening or not self._watching:
                return
            self._watching = False
            with contextlib.suppress(StoreUnavailable):
                await self.store.unwatch_lobby()

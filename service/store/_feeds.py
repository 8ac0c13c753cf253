"""The Redis store's feeds: each table's new cursors and the lobby's notices, heard over
sharded pub/sub (``store/_watcher.py``) and handed to the listeners the hub sets.
"""

from __future__ import annotations

from tablestate.store._reach import Link, Reach
from tablestate.store._watcher import ClusterWatchers, Watcher
from tablestate.store.base import LOBBY, Listener, LobbyListener


class RedisFeeds(Reach):
    """``Feeds`` on Redis, the part of ``RedisStore`` that hears of other replicas'
    commits and of lobby changes, from ``watcher`` (whose news it hands on)."""

    def __init__(self, link: Link, watcher: Watcher | ClusterWatchers) -> None:
        super().__init__(link)
        self._watcher = watcher
        self._listener: Listener | None = None
        self._lobby_listener: LobbyListener | None = None
        watcher.listener = self._dispatch

    def set_listener(self, listener: Listener) -> None:
        self._listener = listener

    async def watch(self, table_id: str) -> None:
        await self._watcher.watch(table_id, self._keys(table_id)[4])

    async def unwatch(self, table_id: str) -> None:
        await self._watcher.unwatch(table_id)

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

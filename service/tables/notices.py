"""What other parts of the service hear of commits: the hub (this replica's subscribers)
and the lobby (every replica's ``lobbyEvents``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from service.engine import table as eng
from service.store.base import Feeds, StoredEvent, StoreUnavailable
from service.tables.commit import Collaborator
from service.tables.loading import Loaded

log = logging.getLogger("tablestate.notices")

LocalCommit = Callable[[str, tuple[StoredEvent, ...], "eng.Table | None"], None]


class Deliveries(Collaborator):
    """Hands every commit's events, with the table they made, to the hub at once (its
    subscribers here need not wait for the store's announcement)."""

    def __init__(self, local_commit: LocalCommit) -> None:
        self.local_commit = local_commit

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...]
    ) -> None:
        self.local_commit(done.table.id, events, done.table)


def lobby_notice(kind: str, table: eng.Table) -> str:
    """A lobby notice as published: ``table.opened``, ``table.updated`` or
    ``table.closed`` (with the status it left OPEN for)."""
    return json.dumps(
        {"type": kind, "tableId": table.id, "gameId": table.game_id, "status": table.status},
        separators=(",", ":"),
    )


class LobbyNotices(Collaborator):
    """Tells lobbies of a public table opening, changing while open, or closing."""

    def __init__(self, feeds: Feeds) -> None:
        self.feeds = feeds

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...]
    ) -> None:
        await self.tell(before.table, done.table)

    async def tell(self, before: eng.Table | None, after: eng.Table) -> None:
        """The notice of a table's change from ``before`` (None: new) to ``after``."""
        if after.private:
            return
        if before is None:
            kind = "table.opened"
        elif before.status != eng.OPEN:
            return
        else:
            kind = "table.updated" if after.status == eng.OPEN else "table.closed"
        try:
            await self.feeds.publish_lobby(lobby_notice(kind, after))
        except StoreUnavailable as exc:
            log.warning("lobby notice not sent: %s", exc)

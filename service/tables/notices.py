"""What other parts of the service hear of commits: the hub (this replica's subscribers),
the lobby (every replica's ``lobbyEvents``) and each signed-in user's list of tables
(``myTables``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from tablestate.engine import table as eng
from tablestate.engine.options import core
from tablestate.store.base import Feeds, StoredEvent, StoreUnavailable, UserTables
from tablestate.tables.commit import Collaborator, created_at
from tablestate.tables.loading import Loaded

log = logging.getLogger("tablestate.notices")

# (table id, events, the table at their version or None, the newest cursor appended at
# the version a commit followed or "")
LocalCommit = Callable[[str, tuple[StoredEvent, ...], "eng.Table | None", str], None]


class Deliveries(Collaborator):
    """Hands every commit's events, with the table they made, to the hub at once (its
    subscribers here need not wait for the store's announcement)."""

    def __init__(self, local_commit: LocalCommit) -> None:
        self.local_commit = local_commit

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...], appended: str
    ) -> None:
        self.local_commit(done.table.id, events, done.table, appended)


def lobby_notice(kind: str, table: eng.Table, before: eng.Table | None = None) -> str:
    """A lobby notice as published: ``table.opened``, ``table.updated`` or
    ``table.closed`` (with the status it left OPEN for), and whether spectators may watch
    the table now (``spectators``) and before the change (``before``; absent for a new
    table), so that each replica shows each subscriber what it may watch alone
    (``service/lobby.py``, ``seen_as``)."""
    notice: dict[str, object] = {
        "type": kind,
        "tableId": table.id,
        "gameId": table.game_id,
        "status": table.status,
        "spectators": bool(core(table.options, "spectators")),
    }
    if before is not None:
        notice["before"] = bool(core(before.options, "spectators"))
    return json.dumps(notice, separators=(",", ":"))


class LobbyNotices(Collaborator):
    """Tells lobbies of a public table opening, changing while open, or closing."""

    def __init__(self, feeds: Feeds) -> None:
        self.feeds = feeds

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...], appended: str
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
            await self.feeds.publish_lobby(lobby_notice(kind, after, before))
        except StoreUnavailable as exc:
            log.warning("lobby notice not sent: %s", exc)


def bound_users(table: eng.Table) -> frozenset[str]:
    """The signed-in users a table binds: its seats' and its host's."""
    found = {s.user for s in table.seats if s.user is not None}
    if table.host_user is not None:
        found.add(table.host_user)
    return frozenset(found)


class UserIndex(Collaborator):
    """Notes a table among each signed-in user's tables when the user comes to it, and again
    when its status changes (so the note lives as long as the table may), best effort like
    the listings. A user who leaves keeps the note: ``myTables`` asks the table's records."""

    def __init__(self, users: UserTables, ttl: float) -> None:
        self.users = users
        self.ttl = ttl

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...], appended: str
    ) -> None:
        users = bound_users(done.table)
        if done.table.status == before.table.status:
            users -= bound_users(before.table)
        await self.note(done.table, users)

    async def note(self, table: eng.Table, users: frozenset[str]) -> None:
        """Note ``table`` among each of ``users``' tables."""
        if not users:  # most commits: no signed-in user comes or goes
            return
        at = created_at(table)
        for user in sorted(users):
            try:
                await self.users.add_user_table(user, table.id, at, ttl=self.ttl)
            except StoreUnavailable as exc:
                log.warning("a user's table list not updated: %s", exc)

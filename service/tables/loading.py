"""Tables as this replica reads them: loaded from the store, decoded once per version.

``Loaded`` is a table with its game, rule set and decoded game state; ``Tables`` reads and
caches them (the table this replica last committed or read is tried first by moves: the
commit's version check catches a stale copy). ``Tables.call`` is how every part of the
service calls the store: timed, and ``UNAVAILABLE`` when it cannot be reached.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from tablestate import logs, tracing
from tablestate.archive.db import Archive, ArchivedTable, ArchiveUnavailable
from tablestate.engine import table as eng
from tablestate.engine.game import GameDef, Move, Rejected
from tablestate.engine.rights import HELD, Credential, MalformedToken, User, rights
from tablestate.engine.ruleset import RuleSet
from tablestate.engine.views import Sight
from tablestate.errors import ApiError
from tablestate.metrics import Metrics
from tablestate.plugins import Registry
from tablestate.store.base import (
    BadCursor,
    Page,
    StoredEvent,
    StoreFull,
    StoreUnavailable,
    TableStore,
    UserTables,
    cursor_key,
    page_cursor,
    parse_page_cursor,
)

log = logging.getLogger("tablestate.archive")

CACHE_SIZE: Final = 2048
ARCHIVED_KEPT: Final = 64  # archived tables kept read (with their events)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Loaded:
    """A table with its game, rule set and decoded game state (None while OPEN)."""

    table: eng.Table
    game: GameDef[Any]
    rules: RuleSet
    state: Any

    @property
    def version(self) -> int:
        return self.table.version

    def view(self, sight: Sight) -> dict[str, Any] | None:
        """The game state as ``sight`` sees it (None while OPEN)."""
        return sight.state(self.table, self.game, self.state)

    def to_act(self) -> tuple[int, ...]:
        if self.state is None:
            return ()
        return eng.to_act(self.table, self.game, self.state)

    def legal_moves(self, seat: int | None) -> list[Move]:
        if seat is None or self.state is None or seat not in self.to_act():
            return []
        return list(self.game.legal_moves(self.state, seat, self.rules))


def refuse(rejected: Rejected) -> ApiError:
    """The API error of an engine's refusal (``ILLEGAL_MOVE`` says why in ``reason``)."""
    reason = rejected.reason if rejected.code == "ILLEGAL_MOVE" else None
    return ApiError(rejected.code, rejected.reason, reason)


class Tables:
    """Reads tables from the store and keeps the newest decoded ones."""

    def __init__(
        self, registry: Registry, store: TableStore, metrics: Metrics, users: UserTables
    ) -> None:
        self.registry = registry
        self.store = store
        self.users = users
        self.metrics = metrics
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        # The archive of finished tables, read once the store forgot one (None: no archive).
        self.archive: Archive | None = None
        self._archived: OrderedDict[str, ArchivedTable] = OrderedDict()

    async def call(self, op: str, call: Awaitable[T]) -> T:
        """Await a store call, timed as ``op`` (the label of ``tablestate_store_seconds``:
        the store method's name); an unreachable or full store is ``UNAVAILABLE``."""
        start = time.perf_counter()
        try:
            with tracing.store_span(op, self.store.db_system):
                return await call
        except StoreFull as exc:
            raise ApiError("UNAVAILABLE", "the store is full; retry later") from exc
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc
        finally:
            self.metrics.observe("tablestate_store_seconds", time.perf_counter() - start, op=op)

    def cached(self, table_id: str) -> Loaded | None:
        """The newest copy of the table this replica holds, unread (it may be stale)."""
        return self._cache.get(table_id)

    async def load(self, table_id: str) -> Loaded | None:
        """The table now, or None. Decoding is cached per (table, version)."""
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 64:
            return None
        logs.table_id.set(table_id)
        found = await self.call("load", self.store.load(table_id))
        if found is None:
            archived = await self.archived(table_id)
            if archived is None:
                self._cache.pop(table_id, None)
                return None
            found = archived.snapshot, archived.version
        snapshot, version = found
        cached = self._cache.get(table_id)
        if cached is not None and cached.version == version:
            self._cache.move_to_end(table_id)
            return cached
        return self.remember(eng.Table.decode(snapshot, version))

    def remember(self, table: eng.Table, state: Any = None) -> Loaded:
        """Keep ``table`` (at its version; ``state``: its decoded game state, if known)."""
        game = self.registry.games.get(table.game_id)
        if game is None:
            raise ApiError("UNAVAILABLE", f"game {table.game_id!r} is not installed here")
        rules = self.registry.ruleset(table.game_id, table.house_rules)
        if state is None and table.game is not None:
            state = eng.decode_state(table, game)
        loaded = Loaded(table, game, rules, state)
        self._cache[table.id] = loaded
        self._cache.move_to_end(table.id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return loaded

    async def archived(self, table_id: str) -> ArchivedTable | None:
        """The table as the archive keeps it (None: not there, or no archive). The newest
        few read are kept: an archived table never changes.

        Raises:
            ApiError: ``UNAVAILABLE`` when the archive's database does not answer.
        """
        if self.archive is None:
            return None
        kept = self._archived.get(table_id)
        if kept is not None:
            self._archived.move_to_end(table_id)
            return kept
        start = time.perf_counter()
        try:
            with tracing.store_span("archive_load", self.archive.dialect):
                found = await self.archive.load(table_id)
        except ArchiveUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the archive is unreachable; retry later") from exc
        finally:
            elapsed = time.perf_counter() - start
            self.metrics.observe("tablestate_store_seconds", elapsed, op="archive_load")
        if found is not None:
            self._archived[table_id] = found
            while len(self._archived) > ARCHIVED_KEPT:
                self._archived.popitem(last=False)
        return found

    async def load_table(self, table_id: str) -> eng.Table | None:
        """The table now as stored (None: no such table)."""
        loaded = await self.load(table_id)
        return loaded.table if loaded is not None else None

    async def must_load(self, table_id: str) -> Loaded:
        """The table now. Raises ``NOT_FOUND`` for none."""
        loaded = await self.load(table_id)
        if loaded is None:
            raise ApiError("NOT_FOUND", "no such table")
        return loaded

    async def authenticate(self, token: str | None) -> Credential | None:
        """The credential of a token that its table knows now; None for no token. A
        connection authenticates once; what the credential holds is asked again at every
        operation and delivery (``service/engine/rights.py``).

        Raises:
            ApiError: ``UNAUTHENTICATED`` for a malformed or unknown token.
        """
        try:
            credential = Credential.of_token(token)
        except MalformedToken as exc:
            raise ApiError("UNAUTHENTICATED", str(exc)) from None
        if credential is None:
            return None
        loaded = await self.load(credential.table_id)
        if loaded is None or rights(credential, loaded.table).standing != HELD:
            raise ApiError("UNAUTHENTICATED", "unknown token")
        return credential

    # -- reading what tables hold ---------------------------------------------------

    async def events(
        self,
        table_id: str,
        after: str | None,
        first: int,
        last: int | None,
        *,
        seated: bool = False,
    ) -> tuple[StoredEvent, ...]:
        """Events after a cursor, or the newest ``last``; ``seated``: for a reader with a
        seat (the store leaves out, and never reads, events it may not see)."""
        kept = self._archived.get(table_id)
        if kept is not None:  # read from the archive: the store had forgotten it
            return archived_events(kept, after, first, last, seated=seated)
        try:
            if last is not None:
                found = self.store.last_events(table_id, last, seated=seated)
                stored = await self.call("last_events", found)
            else:
                stored = await self.call(
                    "events", self.store.events(table_id, after, first, seated=seated)
                )
        except BadCursor as exc:
            archived = await self._forgotten(table_id)
            if archived is None:
                raise ApiError("BAD_INPUT", str(exc)) from exc
            return archived_events(archived, after, first, last, seated=seated)
        # Every table has an event, and a cursor of a table the store forgot is refused: an
        # empty answer asks the archive only where it may mean "forgotten" (never for a
        # reader polling after its cursor, which would pay a store read each time).
        wanted = last if last is not None else first
        if stored or self.archive is None or after is not None or wanted <= 0:
            return stored
        archived = await self._forgotten(table_id)
        if archived is None:
            return stored
        return archived_events(archived, after, first, last, seated=seated)

    def only_archived(self, table_id: str) -> bool:
        """Whether the table was last read from the archive (the store had forgotten it,
        and never holds it again: a table's id is never made twice)."""
        return table_id in self._archived

    async def _forgotten(self, table_id: str) -> ArchivedTable | None:
        """The archived table, if the store no longer has it (one more store read: only
        when the store's answer was empty or refused)."""
        if self.archive is None:
            return None
        if await self.call("load", self.store.load(table_id)) is not None:
            return None
        return await self.archived(table_id)

    async def list(
        self, game_id: str | None, status: str | None, first: int, after: str | None
    ) -> tuple[list[Loaded], Page]:
        """A page of tables, newest first."""
        page = await self.call("list", self.store.list(game_id, status, first, after))
        found = await asyncio.gather(*(self.load(t) for t in page.table_ids))
        return [f for f in found if f is not None], page

    async def mine(
        self, user: User, status: str | None, first: int, after: str | None
    ) -> tuple[builtins.list[Loaded], Page]:  # ``list`` is the method above, here
        """A page of the index of ``user``'s tables, newest first: the tables of it where the
        user holds a seat or the host's rights, and the page as read. The index may name
        tables the user no longer holds anything at: each table's own records decide
        (``rights``)."""
        page = await self.call("user_tables", self.users.user_tables(user.id, status, first, after))
        if self.archive is not None and status in (None, eng.FINISHED, eng.CANCELLED):
            page = await self._with_archived(user, page, first, after)
        loaded = await asyncio.gather(*(self.load(t) for t in page.table_ids))
        held = [
            t
            for t in loaded
            if t is not None
            and rights(user, t.table).standing == HELD
            and (status is None or t.table.status == status)
        ]
        return held, page

    async def _with_archived(self, user: User, live: Page, first: int, after: str | None) -> Page:
        """The newest ``first`` of the store's page and the archive's tables of ``user``,
        after the same place: the store forgets a finished table a while after the archive
        has it, so a table may be in both (once in the page). Without an answer from the
        archive, the store's page alone (logged)."""
        assert self.archive is not None
        bound = parse_page_cursor(after) if after is not None else None
        try:
            found = await self.archive.user_tables(user.id, first, bound)
        except ArchiveUnavailable as exc:
            log.warning("myTables without the archive's tables: %s", exc)
            return live
        rows = {
            tid: (parse_page_cursor(c)[0], tid)
            for tid, c in zip(live.table_ids, live.cursors, strict=True)
        }
        for table_id, created_at in found:
            rows.setdefault(table_id, (created_at, table_id))
        ordered = sorted(rows.values(), reverse=True)
        page = ordered[:first]
        more = len(ordered) > first or live.next is not None or len(found) >= first
        return Page(
            tuple(tid for _, tid in page),
            page_cursor(*page[-1]) if page and more else None,
            tuple(page_cursor(*row) for row in page),
        )

    async def moves(self, table_id: str) -> builtins.list[dict[str, Any]]:
        """The table's move log (for replay)."""
        entries = await self.call("moves", self.store.moves(table_id))
        if not entries:
            archived = await self._forgotten(table_id)
            if archived is not None:
                entries = archived.moves
        return [json.loads(m) for m in entries]


def archived_events(
    table: ArchivedTable, after: str | None, first: int, last: int | None, *, seated: bool
) -> tuple[StoredEvent, ...]:
    """An archived table's events as the store would give them: after a cursor (from the
    first when None), or the newest ``last``; ``seated`` leaves out those with an audience.

    Raises:
        ApiError: ``BAD_INPUT`` for a malformed cursor.
    """
    events = [StoredEvent.from_json(text) for text in table.events]
    if seated:
        events = [e for e in events if e.audience is None]
    if last is not None:
        return tuple(events[-last:]) if last > 0 else ()
    if after is not None:
        try:
            bound = cursor_key(after)
        except BadCursor as exc:
            raise ApiError("BAD_INPUT", str(exc)) from exc
        events = [e for e in events if cursor_key(e.cursor) > bound]
    return tuple(events[: max(first, 0)])

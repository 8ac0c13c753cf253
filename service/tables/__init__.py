"""The table side of one replica: tables read and committed, and everything around a commit.

``TableService`` only composes the parts; none of them calls back into it, and the arrows
run one way (``docs/architecture.md``):

- ``loading.Tables``: tables read from the store, decoded once per version; reads of events,
  listings and move logs; authentication of tokens;
- ``commit.Committer``: the one commit path (load, rights, rules, commit, after-commit), with
  its collaborators: ``clocks.UndoRecords``, ``clocks.Clocks``, ``bots.Bots``,
  ``notices.Deliveries`` (the hub), ``notices.LobbyNotices`` and ``notices.UserIndex``
  (each signed-in user's tables);
- the operations, which import the committer: ``operations.Operations`` (tables, seats, the
  host's, undo), ``moves.Moves``, ``rematch.Rematches``;
- ``social``: chat and presence, appended without a commit.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tablestate.archive.db import Archive
from tablestate.config import Settings
from tablestate.engine import table as eng
from tablestate.engine.bots import Budget
from tablestate.metrics import Metrics
from tablestate.plugins import Registry
from tablestate.store.base import StateStore, StoredEvent
from tablestate.tables.archiving import HOLD, Archiver
from tablestate.tables.bots import Bots
from tablestate.tables.clocks import Clocks, UndoRecords
from tablestate.tables.commit import Change, Committed, Committer, Operation
from tablestate.tables.loading import Loaded, Tables
from tablestate.tables.moves import Moves
from tablestate.tables.notices import Deliveries, LobbyNotices, LocalCommit, UserIndex
from tablestate.tables.operations import Operations
from tablestate.tables.play import Play, Seeds
from tablestate.tables.quickplay import QuickPlay
from tablestate.tables.rematch import Rematches
from tablestate.tables.social import Appends, Attendance, Chat

__all__ = ["Change", "Committed", "Loaded", "Operation", "TableService"]


class TableService:
    """The parts of one replica's table side, on one store (see the module).

    ``on_commit`` is told of every commit and append this replica makes, with the table
    as committed (the hub delivers them to local subscribers at once)."""

    def __init__(
        self,
        settings: Settings,
        registry: Registry,
        store: StateStore,
        metrics: Metrics | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.store = store
        self.metrics = metrics = metrics or Metrics()
        self.clock = clock
        self.on_commit: LocalCommit | None
        self.on_commit = None
        # Told of each append this replica sends (True) and hands over or gives up (False).
        self.on_append: Callable[[str, bool], None] | None = None
        self.reads = Tables(registry, store, metrics, store)
        self.seeds = Seeds(settings.secret)
        self.play = Play(self.seeds, clock)
        self.committer = Committer(
            self.reads,
            store,
            metrics,
            clock,
            retries=settings.move_retries,
            idle_ttl=float(settings.idle_ttl),
            finished_ttl=float(settings.finished_ttl),
        )
        self.clocks = Clocks(store, self.committer, self.play)
        self.bots = Bots(
            self.reads,
            store,
            self.committer,
            self.play,
            self.clocks,
            delay=settings.bot_delay,
            lease=settings.bot_lease,
            budget=Budget(settings.bot_iterations, settings.bot_budget_ms or None),
            workers=settings.bot_workers,
        )
        self.lobby = LobbyNotices(store)
        self.users = UserIndex(store, float(settings.idle_ttl))
        self.committer.collaborators = [
            UndoRecords(),
            self.clocks,
            self.bots,
            Deliveries(self._delivered),
            self.lobby,
            self.users,
        ]
        # The archive of finished tables (service/tables/archiving.py): a finished table
        # then stays in the store until it is archived, and its reads fall back on it.
        self.archiver: Archiver | None = None
        if settings.database_url is not None:
            archive = Archive(settings.database_url)
            self.reads.archive = archive
            self.committer.finished_ttl = HOLD
            self.archiver = Archiver(
                store,
                store,
                archive,
                metrics,
                clock,
                finished_ttl=float(settings.finished_ttl),
            )
            self.committer.collaborators.append(self.archiver)
        self.operations = Operations(
            self.committer,
            store,
            registry,
            self.seeds,
            self.lobby,
            self.users,
            require_sign_in=settings.require_sign_in,
        )
        self.moves = Moves(self.committer, store, self.play, in_flight=settings.moves_in_flight)
        self.rematches = Rematches(self.operations)
        appends = Appends(self.reads, store, self._delivered, self._appending)
        self.chat = Chat(
            appends,
            store,
            clock,
            rate=settings.chat_rate,
            burst=settings.chat_burst,
            spectators=settings.spectators,
        )
        self.attendance = Attendance(appends, store, clock, ttl=settings.presence_ttl)
        if self.archiver is not None:
            self.archiver.say = appends.say
        self.quick = QuickPlay(registry, store, self.reads, self.operations, clock)

    def _delivered(
        self,
        table_id: str,
        events: tuple[StoredEvent, ...],
        table: eng.Table | None,
        appended: str,
    ) -> None:
        if self.on_commit is not None:
            self.on_commit(table_id, events, table, appended)

    def _appending(self, table_id: str, on: bool) -> None:
        if self.on_append is not None:
            self.on_append(table_id, on)

    def start_worker(self, interval: float = 0.25) -> None:
        """Start the due-index worker (bots, clocks, grace periods) and the archive's."""
        self.bots.start_worker(interval)
        self.quick.start_worker()
        if self.archiver is not None:
            self.archiver.start_worker()

    async def close(self) -> None:
        await self.attendance.close()
        await self.bots.close()
        await self.quick.close()
        if self.archiver is not None:
            await self.archiver.close()
            await self.archiver.archive.close()

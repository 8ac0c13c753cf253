"""The one commit path: load, rights, rules, commit, after-commit.

Every change to a table goes through ``Committer.commit``, top to bottom:

1. **load** the table (the copy the caller already holds, or the store's);
2. **rights**: what the caller's credential holds at this version (``engine/rights.py``),
   and whether the operation allows it;
3. **rules**: the operation's pure step makes the ``Change`` (or a ``Rejected``);
4. the **collaborators** settle it (clocks charged, the undo record's one version) and
   write what must exist before it lands (the due-index entry a bot or a clock waits on);
5. **commit** it at the loaded version, in one store call; a lost race goes back to 1;
6. **after-commit**: the collaborators are told (the hub delivers the events, a bot is
   set to move, the lobby is told).

The committer knows nothing of bots, clocks, chat or the lobby: they are collaborators it
is handed, each a plain class of its own concern (``clocks.py``, ``bots.py``, ...).
Operations import the committer, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from tablestate import tracing
from tablestate.engine import table as eng
from tablestate.engine.clock import iso
from tablestate.engine.evolve import evolve
from tablestate.engine.game import Event, Rejected
from tablestate.engine.rights import Caller, Rights, rights
from tablestate.errors import ApiError
from tablestate.metrics import Metrics
from tablestate.store.base import (
    CommitResult,
    Idempotency,
    NewEvent,
    StoredEvent,
    TableMeta,
    TableStore,
)
from tablestate.tables.loading import Loaded, Tables, refuse


@dataclass(frozen=True, slots=True)
class Change:
    """What an operation makes of a table: its new record, game state and events.

    ``extra`` is what the operation hands back besides (a new seat's index);
    ``movers`` the seats that acted (their clocks restart), ``timed_out`` the seat whose
    clock ran out (its reserve is spent), ``log`` the move log's entry (for replay)."""

    table: eng.Table
    state: Any
    events: Sequence[Event]
    extra: Any = None
    movers: tuple[int, ...] = ()
    timed_out: int | None = None
    log: str | None = None


Rules = Callable[[Loaded, Rights], "Change | Rejected"]
Allow = Callable[[Rights], "Rejected | None"]


def anyone(held: Rights) -> Rejected | None:
    """Rights every caller has (a spectator included)."""
    return None


@dataclass(frozen=True, slots=True)
class Operation:
    """A change to a table: who may make it (``allow``) and what it does (``rules``), both
    asked again at every version the commit is tried on."""

    kind: str  # its name in the metrics
    rules: Rules
    allow: Allow = anyone


@dataclass(frozen=True, slots=True)
class Committed:
    """A landed commit: the table after it, its events (with cursors), the ``extra``."""

    loaded: Loaded
    events: tuple[StoredEvent, ...]
    extra: Any = None


class Collaborator:
    """A concern told of every commit (each step does nothing unless overridden)."""

    def settle(self, before: Loaded, change: Change) -> Change:
        """What every commit does besides its own change (pure)."""
        return change

    async def status_change(self, before: Loaded, change: Change) -> Change:
        """What a commit that changes the table's status (starts, finishes or cancels it)
        adds to its change, reading what it needs (rare: once or twice in a table's life,
        so every commit does not pay for an await per collaborator)."""
        return change

    async def before_commit(self, before: Loaded, change: Change) -> None:
        """Write what must exist before the commit lands (it is at ``before.version + 1``).

        Raises:
            ApiError: ``UNAVAILABLE``: then nothing is committed."""

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...], appended: str
    ) -> None:
        """The commit landed (``done`` is the table after it; ``appended``: the newest
        cursor appended at the version it followed, or ""): react (best effort, quickly:
        the caller's answer waits for this)."""


def now_iso(clock: Callable[[], float]) -> str:
    """The clock's time as the ISO 8601 text tables and events carry."""
    return iso(clock())


def new_events(events: Sequence[Event], at: str) -> list[NewEvent]:
    """The engine's events as the store takes them, all made ``at``."""
    return [
        NewEvent(
            e.type,
            at,
            dict(e.data),
            e.seat,
            {str(k): dict(v) for k, v in e.private.items()},
        )
        for e in events
    ]


def created_at(table: eng.Table) -> float:
    """When the table was created, in epoch seconds (listings are newest first)."""
    return _epoch(table.created_at)


@lru_cache(maxsize=4096)  # a table's creation time is read at every commit, and never changes
def _epoch(stamp: str) -> float:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


class Committer:
    """Commits operations on tables, for one replica (see the module)."""

    def __init__(
        self,
        tables: Tables,
        store: TableStore,
        metrics: Metrics,
        clock: Callable[[], float],
        *,
        retries: int,
        idle_ttl: float,
        finished_ttl: float,
    ) -> None:
        self.tables = tables
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.retries = retries
        self.idle_ttl = idle_ttl
        self.finished_ttl = finished_ttl
        self.collaborators: list[Collaborator] = []

    def ttl(self, table: eng.Table) -> float:
        """How long the store keeps the table after this commit."""
        if table.status in (eng.FINISHED, eng.CANCELLED):
            return self.finished_ttl
        return self.idle_ttl

    async def commit(
        self,
        table_id: str,
        operation: Operation,
        caller: Caller | None = None,
        *,
        expected: int | None = None,
        idempotency: Idempotency | None = None,
        loaded: Loaded | None = None,
    ) -> Committed:
        """Commit ``operation`` for ``caller`` (None: the service itself, or a spectator):
        load, rights, rules, commit, after-commit; on a lost race, again from the load.

        ``expected``: the version the caller saw (once, then ``VERSION_CONFLICT``);
        ``loaded``: a copy of the table to try first (its version is checked at commit).

        Raises:
            ApiError: the operation's refusal, ``NOT_FOUND``, ``VERSION_CONFLICT`` or
            ``UNAVAILABLE``.
        """
        attempts = 1 if expected is not None else self.retries + 1
        traced = None
        if tracing.enabled():
            traced = {"tablestate.table_id": table_id, "tablestate.kind": operation.kind}
        with tracing.span("tablestate.commit", traced):
            for _ in range(attempts):
                with tracing.span("load"):
                    before = loaded if loaded is not None else await self.tables.must_load(table_id)
                if expected is not None and before.version != expected:
                    raise ApiError(
                        "VERSION_CONFLICT",
                        f"the table is at version {before.version}, not {expected}",
                    )
                with tracing.span("rules"):
                    held = rights(caller, before.table)
                    change = operation.allow(held) or operation.rules(before, held)
                    if isinstance(change, Rejected):
                        raise refuse(change)
                    for collaborator in self.collaborators:
                        change = collaborator.settle(before, change)
                    if change.table.status != before.table.status:
                        for collaborator in self.collaborators:
                            change = await collaborator.status_change(before, change)
                with tracing.span("write"):
                    result = await self._write(table_id, before, change, idempotency)
                if result.ok:
                    self.metrics.inc("tablestate_commits_total", kind=operation.kind)
                    done = self.tables.remember(
                        evolve(change.table, version=result.version), change.state
                    )
                    with tracing.span("fan_out"):
                        for collaborator in self.collaborators:
                            await collaborator.after_commit(
                                before, done, result.events, result.appended
                            )
                    return Committed(done, result.events, change.extra)
                if result.record is not None:  # this key was recorded (first, or by a race)
                    if idempotency is not None and (
                        result.record.move_hash != idempotency.move_hash
                    ):
                        raise ApiError(
                            "BAD_INPUT", "this idempotency key was used for another move"
                        )
                    return Committed(await self.tables.must_load(table_id), result.record.events)
                self.metrics.inc("tablestate_commit_conflicts_total")
                loaded = None
        raise ApiError("VERSION_CONFLICT", "the table kept changing; retry")

    async def _write(
        self, table_id: str, before: Loaded, change: Change, idempotency: Idempotency | None
    ) -> CommitResult:
        """The collaborators' due-index entries, then the one store call of the commit."""
        for collaborator in self.collaborators:
            await collaborator.before_commit(before, change)
        table = change.table
        meta = TableMeta(table.game_id, table.status, created_at(table), table.private)
        return await self.tables.call(
            "commit",
            self.store.commit(
                table_id,
                before.version,
                table.encode(),
                meta,
                new_events(change.events, now_iso(self.clock)),
                ttl=self.ttl(table),
                idempotency=idempotency,
                log=change.log,
            ),
        )

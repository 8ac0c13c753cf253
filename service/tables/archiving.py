"""Finished tables into the archive, exactly once, before the store forgets them.

The commit that finishes (or cancels) a table writes an entry into the store's archive
queue *before* it lands, and keeps the table without end (``HOLD``) rather than for
``TABLESTATE_FINISHED_TTL``: a replica that dies right after its commit leaves the entry,
and another claims it after a lease. Right after the commit this replica archives the table
itself: it reads the snapshot, every event and the move log, and writes them, with the
seats and the ratings, in one transaction of the archive (``tablestate.archive.db``), which
keeps a table once whoever writes it and however often (a second write changes no rating).
Only then does the store get its expiry: ``TABLESTATE_FINISHED_TTL`` after the table
finished, and the entry goes. Where that is further off than ``FINAL_PASS``, the table stays
held and its entry falls due again shortly before, for a last pass that adds what was
appended since (chat after the game) to the archived log; only that pass sets the expiry.

When the database fails, play goes on: the entry falls due again with a backoff (doubling,
up to ``MAX_BACKOFF``), the table waits in the store, ``tablestate_archive_degraded`` is 1
and ``/readyz`` says ``degraded``, and a log line says so once per failure and once when it
heals. A finished table committed again (a rematch's link) is written again, so the
archive holds its newest version.

A rated table's finishing event (``game.finished``) tells each rated seat's change under
``ratings``: ``[{"seat", "player": {"kind", "id"}, "before": {"mu", "sigma", "ordinal"},
"after": ...}]``, computed from the ratings as they stand when the table finishes (read
within ``PREVIEW_WAIT``). The archive computes them again, in the transaction that changes
them; where that differs (another table of a player finished in between) or the finishing
event told none (the database did not answer in time), an appended ``table.rated`` event
tells what was kept, in the same form.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from tablestate.archive import ratings
from tablestate.archive.db import (
    Archive,
    ArchivedSeat,
    ArchivedTable,
    ArchiveUnavailable,
    Player,
    RatingChange,
    Standing,
)
from tablestate.engine import table as eng
from tablestate.engine.bots import level_of
from tablestate.errors import ApiError
from tablestate.metrics import Metrics
from tablestate.store.base import (
    ArchiveQueue,
    NewEvent,
    StoredEvent,
    StoreUnavailable,
    TableStore,
)
from tablestate.tables._background import Background
from tablestate.tables.commit import Change, Collaborator, _epoch, now_iso
from tablestate.tables.loading import Loaded

log = logging.getLogger("tablestate.archive")

ENDED: Final = frozenset({eng.FINISHED, eng.CANCELLED})
# How long the store keeps a finished table that is not archived yet: without end, in
# effect (ten years), so that a database down for long loses nothing.
HOLD: Final = 10 * 365 * 24 * 3600.0
LEASE: Final = 30.0  # a claimed entry falls due again after this, if its claimer died
FIRST_BACKOFF: Final = 1.0
MAX_BACKOFF: Final = 300.0
PAGE: Final = 1000  # events read per store call
# A table whose store expiry is further off than this is archived again shortly before it,
# with what was appended since (its entry then falls due FINAL_PASS / 2 before).
FINAL_PASS: Final = 4 * LEASE

RATED: Final = "table.rated"
FINISHED_EVENT: Final = "game.finished"  # the service's event of a finished game
PREVIEW_WAIT: Final = 0.5  # seconds a finishing commit waits for the ratings it tells

Say = Callable[[str, NewEvent, eng.Table], Any]  # Appends.say


def variant_of(table: eng.Table) -> str:
    """The rules a table was played by, as ratings tell them apart: "" for the game's own,
    else its house rules' ids, sorted, joined by "+"."""
    return "+".join(sorted(table.house_rules))


def player_of(seat: eng.Seat) -> Player | None:
    """Whom a seat's result rates: its signed-in user, or its bot's level; None for an
    anonymous seat (or an empty one)."""
    if seat.kind == eng.BOT:
        return Player("bot", level_of(seat.bot_level))
    if seat.kind == eng.HUMAN and seat.user is not None:
        return Player("user", seat.user)
    return None


def standings(table: eng.Table) -> tuple[Standing, ...]:
    """The seats of a finished table as the ratings see them, or () when it is not rated:
    cancelled, fewer than two players, or no signed-in user among them."""
    if table.status != eng.FINISHED or table.result is None:
        return ()
    seats = [s for s in table.seats if s.kind != eng.EMPTY]
    if len(seats) < 2 or not any(s.kind == eng.HUMAN and s.user for s in seats):
        return ()
    places = ratings.ranks(table.result, [s.index for s in seats])
    return tuple(
        Standing(s.index, player_of(s), place) for s, place in zip(seats, places, strict=True)
    )


def _filled(pairs: list[tuple[float, float] | None]) -> list[tuple[float, float]]:
    return [pair or ratings.DEFAULT for pair in pairs]


def _by_seat(told: dict[str, Any]) -> int:
    return int(told["seat"])


def told_in(events: tuple[str, ...]) -> list[dict[str, Any]] | None:
    """The rating changes a table's finishing event told (None: it told none)."""
    for text in reversed(events):
        event = StoredEvent.from_json(text)
        if event.type == FINISHED_EVENT:
            found = event.data.get("ratings")
            return sorted(found, key=_by_seat) if isinstance(found, list) else None
    return None


def rating_json(change: RatingChange) -> dict[str, Any]:
    """A rating change as events and the API tell it."""

    def side(mu: float, sigma: float) -> dict[str, float]:
        return {"mu": mu, "sigma": sigma, "ordinal": ratings.ordinal(mu, sigma)}

    return {
        "seat": change.seat,
        "player": {"kind": change.player.kind, "id": change.player.id},
        "before": side(change.mu_before, change.sigma_before),
        "after": side(change.mu_after, change.sigma_after),
    }


class Archiver(Collaborator, Background):
    """Archives this replica's finished tables, and runs the archive queue's worker."""

    def __init__(
        self,
        store: TableStore,
        queue: ArchiveQueue,
        archive: Archive,
        metrics: Metrics,
        clock: Callable[[], float],
        *,
        finished_ttl: float,
        say: Say | None = None,
    ) -> None:
        self.store = store
        self.queue = queue
        self.archive = archive
        self.metrics = metrics
        self.clock = clock
        self.finished_ttl = finished_ttl
        self.say = say
        self.degraded = False
        self._backoff: dict[str, float] = {}
        Background.__init__(self, log, "archive worker")

    # -- around commits -----------------------------------------------------------

    async def status_change(self, before: Loaded, change: Change) -> Change:
        """The finishing event of a rated table says each rated seat's rating change, as
        the ratings stand now (read within ``PREVIEW_WAIT``; without an answer, or while
        the database fails, it says none, and ``table.rated`` tells them once archived).
        The archive computes them again when it archives the table, in the transaction
        that changes them: where another table changed a player's rating in between, its
        ``table.rated`` event tells what was kept."""
        table = change.table
        if table.status != eng.FINISHED or self.degraded:
            return change
        rated = standings(table)
        if not rated:
            return change
        try:
            async with asyncio.timeout(PREVIEW_WAIT):
                before_ratings = await self._current(table, rated)
        except (ArchiveUnavailable, TimeoutError) as exc:
            log.info("the finishing event of %s goes without its ratings: %s", table.id, exc)
            return change
        except Exception:  # a broken archive (say, not migrated) must not stop the game
            log.exception("the finishing event of %s goes without its ratings", table.id)
            return change
        after = ratings.rate(before_ratings, [s.rank for s in rated])
        told = [
            rating_json(
                RatingChange(table.id, table.game_id, variant_of(table), s.seat, s.player, *b, *a)
            )
            for s, b, a in zip(rated, _filled(before_ratings), after, strict=True)
            if s.player is not None
        ]
        events = [
            replace(e, data={**e.data, "ratings": told}) if e.type == FINISHED_EVENT else e
            for e in change.events
        ]
        return replace(change, events=events)

    async def _current(
        self, table: eng.Table, rated: tuple[Standing, ...]
    ) -> list[tuple[float, float] | None]:
        """Each standing's rating now (None: none yet, or an anonymous seat)."""
        found: list[tuple[float, float] | None] = []
        for standing in rated:
            rating = None
            if standing.player is not None:
                rating = await self.archive.rating(
                    table.game_id, variant_of(table), standing.player
                )
            found.append(None if rating is None else (rating.mu, rating.sigma))
        return found

    async def before_commit(self, before: Loaded, change: Change) -> None:
        """Enter a table that this commit ends into the archive queue BEFORE the commit
        lands (due after a lease: this replica archives it at once itself).

        Raises:
            ApiError: ``UNAVAILABLE`` when the entry cannot be written: nothing is
            committed, so no finished table is left that nobody would archive.
        """
        if change.table.status not in ENDED:
            return
        try:
            await self.queue.schedule_archive(change.table.id, self.clock() + LEASE)
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...], appended: str
    ) -> None:
        if done.table.status in ENDED and not self._closing:
            self._spawn(self.run(done.table.id))

    # -- archiving ----------------------------------------------------------------

    async def run(self, table_id: str) -> bool:
        """Archive the table if it is finished and still in the store; True once it is
        archived (or there is nothing to archive). On a failure the entry falls due again
        after a backoff."""
        try:
            return await self._archive(table_id)
        except ArchiveUnavailable as exc:
            self._failed(table_id, exc)
        except StoreUnavailable as exc:
            log.warning("archiving %s waits: the store is unreachable (%s)", table_id, exc)
        except Exception as exc:  # a broken archive (not migrated?): retried all the same
            log.exception("archiving %s failed", table_id)
            self._failed(table_id, exc)
        return False

    async def _archive(self, table_id: str) -> bool:
        found = await self.store.load(table_id)
        if found is None:  # expired already (archived earlier, or never held)
            await self.queue.archived(table_id, None)
            return True
        table = eng.Table.decode(*found)
        if table.status not in ENDED:
            # An entry whose commit never landed: the table plays on.
            await self.queue.archived(table_id, None)
            return True
        archived = await self._read(table)
        start = time.perf_counter()
        recorded = await self.archive.record(archived, standings(table), ratings.rate)
        self.metrics.observe("tablestate_store_seconds", time.perf_counter() - start, op="archive")
        if self.degraded:
            log.info("the archive's database answers again")
            self.degraded = False
            self.metrics.set("tablestate_archive_degraded", 0)
        self._backoff.pop(table_id, None)
        if recorded.first:
            self.metrics.inc("tablestate_archived_total", status=table.status)
            kept = sorted((rating_json(c) for c in recorded.changes), key=_by_seat)
            if kept and kept != told_in(archived.events) and self.say is not None:
                event = NewEvent(
                    RATED,
                    now_iso(self.clock),
                    {"ratings": kept},
                )
                try:
                    await self.say(table_id, event, table)
                except (ApiError, StoreUnavailable) as exc:  # the ratings are kept anyway
                    log.warning("could not tell %s's rating changes: %s", table_id, exc)
                # The archived log ends with what it tells.
                await self.archive.record(await self._read(table), (), None)
        left = archived.finished_at + self.finished_ttl - self.clock()
        if left > FINAL_PASS:
            # What is appended later (chat after the game) is archived by a last pass,
            # shortly before the store may forget the table.
            await self.queue.schedule_archive(
                table_id, self.clock() + left - FINAL_PASS / 2, only_sooner=False
            )
        else:
            await self.queue.archived(table_id, max(1.0, left))
        return True

    async def _read(self, table: eng.Table) -> ArchivedTable:
        """Everything the store holds of a finished table, as the archive keeps it."""
        events: list[str] = []
        after: str | None = None
        while True:
            page = await self.store.events(table.id, after, PAGE)
            events += [e.to_json() for e in page]
            if len(page) < PAGE:
                break
            after = page[-1].cursor
        moves = await self.store.moves(table.id)
        scores = list((table.result or {}).get("scores", ()))
        seats = tuple(
            ArchivedSeat(
                s.index,
                s.kind,
                s.name,
                s.user,
                int(scores[s.index]) if s.index < len(scores) else None,
            )
            for s in table.seats
        )
        return ArchivedTable(
            table_id=table.id,
            game_id=table.game_id,
            status=table.status,
            variant=variant_of(table),
            host_user=table.host_user,
            created_at=_epoch(table.created_at),
            finished_at=_epoch(table.updated_at),
            version=table.version,
            snapshot=table.encode(),
            events=tuple(events),
            moves=tuple(moves),
            seats=seats,
        )

    def _failed(self, table_id: str, exc: Exception) -> None:
        """A database failure: count it, say so once, and let the entry fall due again
        after a backoff (the claim pushed it one lease on; a shorter wait brings it
        forward)."""
        self.metrics.inc("tablestate_archive_failures_total")
        if not self.degraded:
            log.warning("the archive's database fails (%s); finished tables wait in the store", exc)
            self.degraded = True
            self.metrics.set("tablestate_archive_degraded", 1)
        wait = min(MAX_BACKOFF, self._backoff.get(table_id, FIRST_BACKOFF / 2) * 2)
        self._backoff[table_id] = wait
        self._spawn(self._retry_at(table_id, self.clock() + wait))

    async def _retry_at(self, table_id: str, due: float) -> None:
        try:
            # Set, not only brought forward: the claim already pushed it a lease on, and a
            # longer backoff must put it off further.
            await self.queue.schedule_archive(table_id, due, only_sooner=False)
        except StoreUnavailable:
            pass  # it falls due after its lease anyway

    # -- the worker ---------------------------------------------------------------

    async def run_due_once(self, limit: int = 20) -> int:
        """Claim due entries and archive them; the number claimed."""
        due = await self.queue.claim_archive(self.clock(), LEASE, limit)
        for table_id in due:
            await self.run(table_id)
        return len(due)

    def start_worker(self, interval: float = 1.0) -> None:
        super().start_worker(interval)

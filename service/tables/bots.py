"""Bots move as commits of their own, driven by the store's due-index.

Before a commit that leaves a bot to act lands, ``Bots.before_commit`` records the wait in
the due-index (table, version, due after a lease); once it landed, the committing replica
moves at once (or after ``TABLESTATE_BOT_DELAY``). Any replica's worker claims entries that
fall due, so a replica that dies right after a human's move stalls nothing; the version
check makes each bot move happen exactly once. The same worker fires due clocks and grace
periods (``Clocks.fire``).

A bot thinks off the event loop, in a pool of ``TABLESTATE_BOT_WORKERS`` threads, so a
strong bot's search never holds up another table's moves; it decides from its seat's
information set alone (``service/engine/bots.py``), at the level stored on its seat, with
the table's generator at the version it moves at.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from tablestate.engine import table as eng
from tablestate.engine.bots import NORMAL, STRONG, Budget, choose, level_of, search
from tablestate.engine.game import Rejected
from tablestate.engine.rng import Rng
from tablestate.errors import ApiError
from tablestate.store.base import DueIndex, StoredEvent, StoreUnavailable
from tablestate.tables._background import Background
from tablestate.tables.clocks import Clocks
from tablestate.tables.commit import Change, Collaborator, Committer, Operation
from tablestate.tables.loading import Loaded, Tables
from tablestate.tables.play import Play

log = logging.getLogger("tablestate.bots")


def bot_seats(table: eng.Table, to_act: tuple[int, ...]) -> list[int]:
    bots = table.bots()
    return [s for s in to_act if s in bots]


class Bots(Collaborator, Background):
    """Moves the bots of this replica's tables, and runs the due-index worker."""

    def __init__(
        self,
        tables: Tables,
        due: DueIndex,
        committer: Committer,
        play: Play,
        clocks: Clocks,
        *,
        delay: float,
        lease: float,
        budget: Budget | None = None,
        workers: int = 2,
    ) -> None:
        self.tables = tables
        self.due = due
        self.committer = committer
        self.play = play
        self.clocks = clocks
        self.clock: Callable[[], float] = committer.clock
        self.delay = delay
        self.lease = lease
        self.budget = budget or Budget()
        self._pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="bot")
        Background.__init__(self, log, "due-index worker")

    # -- around commits -----------------------------------------------------------

    async def before_commit(self, before: Loaded, change: Change) -> None:
        """Record in the due-index, BEFORE the commit lands, that the table will then wait
        on a bot: a replica that dies right after its commit leaves the entry behind, and
        another replica's worker makes the move once it falls due, after a lease. An entry
        whose commit never landed is dropped when claimed (the table's version is not the
        one it names).

        Raises:
            ApiError: ``UNAVAILABLE`` when the entry cannot be written: then nothing is
            committed, so no table is left waiting on a bot nobody will move.
        """
        table = change.table
        if change.state is None or not table.bots():
            return
        if not bot_seats(table, eng.to_act(table, before.game, change.state)):
            return
        # Due only after a lease: it is the fallback for a replica that dies right after its
        # commit. Were it due sooner, another replica could claim it before the commit lands,
        # find the table still at the version before, and drop it.
        due = self.clock() + max(self.lease, self.delay)
        try:
            await self.due.schedule(table.id, before.version + 1, due, only_sooner=True)
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc

    async def after_commit(
        self, before: Loaded, done: Loaded, events: tuple[StoredEvent, ...], appended: str
    ) -> None:
        if self._closing or not bot_seats(done.table, done.to_act()):
            return
        if self.delay:
            self._spawn(self._delayed(done.table.id, done.version))
        else:
            self._spawn(self.run(done.table.id, done.version))

    async def _delayed(self, table_id: str, version: int) -> None:
        """Bring the entry written before the commit forward to the configured delay (best
        effort: if this fails, the entry still falls due after the lease)."""
        try:
            await self.due.schedule(table_id, version, self.clock() + self.delay, only_sooner=True)
        except StoreUnavailable:
            log.warning("due-index unreachable; the bot moves after the lease")

    # -- moving -------------------------------------------------------------------

    def move_for(self, loaded: Loaded, seat: int, level: str = NORMAL) -> dict[str, Any]:
        """The move a bot of ``level`` makes for ``seat`` at this version (seeded by it).
        A seat whose time ran out is played at the default, normal."""
        rng = Rng(self.play.seeds.game(loaded.table) + b"bot", loaded.version)
        game, state, rules = loaded.game, loaded.state, loaded.rules
        move = dict(choose(game, state, seat, level, rng, rules, self.budget))
        if isinstance(self.play.apply(loaded, seat, move), Rejected):
            log.error(
                "bot of %s chose an illegal move; it plays its first legal one", loaded.game.id
            )
            move = dict(loaded.legal_moves(seat)[0])
        return move

    async def run(self, table_id: str, version: int) -> None:
        """Make the bot move a table waits on at ``version``, once, if still due."""
        try:
            loaded = await self.tables.load(table_id)
            if loaded is None or loaded.version != version:
                # Moved on (or gone): with replica acknowledgement, dropped only once a
                # replica holds the version read, which a failover could otherwise undo.
                await self.due.unschedule(table_id, version, passed=loaded is not None)
                return
            seats = bot_seats(loaded.table, loaded.to_act())
            if not seats:
                # No bot to act: a clock or a grace period may be due.
                if await self.clocks.fire(loaded, self.move_for):
                    await self.due.unschedule(table_id, version)
                return
            seat = seats[0]
            level = level_of(loaded.table.seats[seat].bot_level)
            # A search (the strong level; the normal one of a game whose bot is the generic
            # search): off the event loop, within its budget.
            if level == STRONG or (level == NORMAL and loaded.game.bot is search):
                loop = asyncio.get_running_loop()
                move = await loop.run_in_executor(self._pool, self.move_for, loaded, seat, level)
            else:  # a heuristic of well under a millisecond: a thread hop would cost more
                move = self.move_for(loaded, seat, level)
            entry = json.dumps({"seat": seat, "move": move})

            def step(cur: Loaded, _held: Any) -> Change | Rejected:
                out = self.play.apply(cur, seat, move)
                return out if isinstance(out, Rejected) else replace(out, log=entry)

            try:
                await self.committer.commit(
                    table_id, Operation("bot", step), expected=version, loaded=loaded
                )
                self.committer.metrics.inc("tablestate_bot_moves_total")
            except ApiError as exc:
                if exc.code != "VERSION_CONFLICT":
                    raise
                # Another replica moved first: its commit may not be on a replica yet, so
                # the entry is dropped only once one holds it, as above.
                await self.due.unschedule(table_id, version, passed=True)
                return
            await self.due.unschedule(table_id, version)
        except (ApiError, StoreUnavailable) as exc:
            log.warning("bot move on a table failed: %s", exc)

    # -- the worker ---------------------------------------------------------------

    async def run_due_once(self, limit: int = 50) -> int:
        """Claim due entries and run them; the number claimed."""
        due = await self.due.claim_due(self.clock(), self.lease, limit)
        for table_id, version in due:
            self._spawn(self.run(table_id, version))
        return len(due)

    def start_worker(self, interval: float = 0.25) -> None:
        super().start_worker(interval)

    async def close(self) -> None:
        await super().close()
        self._pool.shutdown(wait=False, cancel_futures=True)

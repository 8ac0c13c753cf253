"""Bots move as commits of their own, driven by the store's due-index.

After a commit that leaves a bot to act, the committing replica records the wait in the
due-index (table, version, due time) and, with no delay configured, moves at once. Any
replica's worker claims entries that fall due, so a replica that dies right after a
human's move stalls nothing; the version check makes each bot move happen exactly once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

from service.engine.game import Rejected
from service.engine.rng import Rng
from service.errors import ApiError
from service.store.base import StoreUnavailable

if TYPE_CHECKING:
    from service.tables import Loaded, TableService

log = logging.getLogger("tablestate.bots")


class BotDriver:
    """The bot half of ``TableService`` (a mixin: it uses the service's loading and
    committing)."""

    _tasks: set[asyncio.Task[None]]
    _worker: asyncio.Task[None] | None
    _closing: bool

    def _init_bots(self) -> None:
        self._tasks = set()
        self._worker = None
        self._closing = False

    def _bot_seats(self: TableService, loaded: Loaded) -> list[int]:
        bots = loaded.table.bots()
        return [s for s in loaded.to_act() if s in bots]

    def _after_commit(self: TableService, loaded: Loaded) -> None:
        if self._closing or not self._bot_seats(loaded):
            return
        if self.settings.bot_delay:
            self._spawn(self._delay_bot(loaded.table.id, loaded.version))
        else:
            self._spawn(self.run_bot(loaded.table.id, loaded.version))

    async def _delay_bot(self: TableService, table_id: str, version: int) -> None:
        """Bring the entry written before the commit forward to the configured delay (best
        effort: if this fails, the entry still falls due after the lease)."""
        try:
            await self.store.schedule(
                table_id, version, self.clock() + self.settings.bot_delay, only_sooner=True
            )
        except StoreUnavailable:
            log.warning("due-index unreachable; the bot moves after the lease")

    def _spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _expect_bot(self: TableService, table_id: str, version: int) -> None:
        """Record in the due-index, BEFORE the commit that makes ``version`` lands, that the
        table will then wait on a bot: a replica that dies right after its commit leaves
        the entry behind, and another replica's worker makes the move once it falls due,
        after a lease. A live committer moves at once, or brings the entry forward to the
        configured delay. An entry whose commit never landed is dropped when claimed (the
        table's version is not the one it names).

        Raises:
            ApiError: ``UNAVAILABLE`` when the entry cannot be written: then nothing is
            committed, so no table is left waiting on a bot nobody will move.
        """
        # Due only after a lease: it is the fallback for a replica that dies right after its
        # commit. Were it due sooner, another replica could claim it before the commit lands,
        # find the table still at the version before, and drop it.
        due = self.clock() + max(self.settings.bot_lease, self.settings.bot_delay)
        try:
            await self.store.schedule(table_id, version, due, only_sooner=True)
        except StoreUnavailable as exc:
            # Without its entry the bot's turn could be lost for good: refuse the commit
            # (the caller answers UNAVAILABLE and retries; a bot's own turn stays due).
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc

    async def run_bot(self: TableService, table_id: str, version: int) -> None:
        """Make the bot move a table waits on at ``version``, once, if still due."""
        try:
            loaded = await self.load(table_id)
            if loaded is None or loaded.version != version:
                await self.store.unschedule(table_id, version)
                return
            seats = self._bot_seats(loaded)
            if not seats:
                # No bot to act: a clock or a grace period may be due (service/life.py).
                if await self.run_timers(loaded):
                    await self.store.unschedule(table_id, version)
                return
            seat = seats[0]
            move = self.bot_move(loaded, seat)
            try:
                await self._mutate(
                    table_id,
                    lambda cur: self._apply(cur, seat, move),
                    kind="bot",
                    expected=version,
                    log_entry=lambda cur: json.dumps({"seat": seat, "move": move}),
                    loaded=loaded,
                    movers=(seat,),
                )
                self.metrics.inc("tablestate_bot_moves_total")
            except ApiError as exc:
                if exc.code != "VERSION_CONFLICT":
                    raise
            await self.store.unschedule(table_id, version)
        except (ApiError, StoreUnavailable) as exc:
            log.warning("bot move on a table failed: %s", exc)

    def bot_move(self: TableService, loaded: Loaded, seat: int) -> dict[str, Any]:
        """The move the game's bot makes for ``seat`` at this version (seeded by it)."""
        rng = Rng(self.game_seed(loaded.table) + b"bot", loaded.version)
        move = dict(loaded.game.bot(loaded.state, seat, rng, loaded.rules))
        if isinstance(self._apply(loaded, seat, move), Rejected):
            log.error(
                "bot of %s chose an illegal move; it plays its first legal one", loaded.game.id
            )
            move = dict(loaded.legal_moves(seat)[0])
        return move

    async def run_due_once(self: TableService, limit: int = 50) -> int:
        """Claim due entries and run them; the number claimed."""
        due = await self.store.claim_due(self.clock(), self.settings.bot_lease, limit)
        for table_id, version in due:
            self._spawn(self.run_bot(table_id, version))
        return len(due)

    async def _work(self: TableService, interval: float) -> None:
        while not self._closing:
            try:
                await self.run_due_once()
            except StoreUnavailable:
                pass
            except Exception:  # the worker must outlive any one bad table; it is logged
                log.exception("due-index worker")
            await asyncio.sleep(interval)

    def start_worker(self, interval: float = 0.25) -> None:
        if self._worker is None:
            self._worker = asyncio.ensure_future(self._work(interval))

    async def close(self) -> None:
        self._closing = True
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

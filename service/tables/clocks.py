"""Turn clocks and grace periods, around every commit.

Deadlines (a seat's clock, the end of a grace period) live in the due-index: before a
commit lands, ``Clocks.before_commit`` records there the version the table will wait at and
its earliest deadline; any replica's worker claims the entry when it falls due
(``service/tables/bots.py``) and fires it here (``Clocks.fire``), with ``expectedVersion``
= that version, so it happens exactly once and no replica is special. The pure rules are in
``service/engine/clock.py`` and ``seating.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tablestate.engine import clock, seating
from tablestate.engine import table as eng
from tablestate.engine.evolve import evolve
from tablestate.engine.game import Rejected
from tablestate.errors import ApiError
from tablestate.store.base import DueIndex, StoreUnavailable
from tablestate.tables.commit import Change, Collaborator, Committer, Operation
from tablestate.tables.loading import Loaded
from tablestate.tables.play import Play

BotMove = Callable[[Loaded, int], dict[str, Any]]


class UndoRecords(Collaborator):
    """The record an undo needs lives one version: any other commit drops it."""

    def settle(self, before: Loaded, change: Change) -> Change:
        table = change.table
        if table.undo is not None and table.undo is before.table.undo:
            return replace(change, table=replace(table, undo=None))
        return change


class Clocks(Collaborator):
    """Charges, starts and stops the clocks at every commit, and fires due deadlines."""

    def __init__(self, due: DueIndex, committer: Committer, play: Play) -> None:
        self.due = due
        self.committer = committer
        self.play = play
        self.clock = committer.clock

    def settle(self, before: Loaded, change: Change) -> Change:
        if clock.turn_seconds(change.table) <= 0:
            return change  # no clocks at this table: nothing to charge, start or stop
        state = change.state
        after = eng.to_act(change.table, before.game, state) if state is not None else ()
        table, started = clock.settle(
            change.table,
            before.to_act(),
            after,
            movers=change.movers,
            now=self.clock(),
            timed_out=change.timed_out,
        )
        return evolve(change, table=table, events=[*change.events, *started])

    async def before_commit(self, before: Loaded, change: Change) -> None:
        """Record the table's earliest deadline at the version the commit makes, before it
        lands: whichever replica is alive then fires it.

        Raises:
            ApiError: ``UNAVAILABLE`` when the entry cannot be written (nothing is
            committed, so no deadline is lost).
        """
        due = clock.next_due(change.table)
        if due is None:
            return
        try:
            await self.due.schedule(before.table.id, before.version + 1, due, only_sooner=True)
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc

    async def fire(self, loaded: Loaded, bot_move: BotMove) -> bool:
        """Fire what is due at the table now (grace periods first, then a clock); when
        nothing is, move its due-index entry to the next deadline (or drop it). Whether
        the entry is done with."""
        table_id, version = loaded.table.id, loaded.version
        now = self.clock()
        if any(s.rejoin_by is not None and s.rejoin_by <= now for s in loaded.table.seats):

            def grace(cur: Loaded, _held: Any) -> Change:
                table, events = seating.grace_over(cur.table, now=now, at=clock.iso(now))
                return Change(table, cur.state, events)

            await self._once(table_id, Operation("grace", grace), version, loaded)
            return True
        seat = clock.expired(loaded.table, loaded.to_act(), now)
        if seat is not None:
            move = bot_move(loaded, seat)

            def timeout(cur: Loaded, _held: Any) -> Change | Rejected:
                table, events, _ = clock.time_out(cur.table, seat)
                out = self.play.apply(replace(cur, table=table), seat, move)
                if isinstance(out, Rejected):
                    return out
                entry = json.dumps({"seat": seat, "move": move, "timeout": True})
                return replace(out, events=[*events, *out.events], timed_out=seat, log=entry)

            if await self._once(table_id, Operation("timeout", timeout), version, loaded):
                self.committer.metrics.inc("tablestate_clock_timeouts_total")
            return True
        due = clock.next_due(loaded.table)
        if due is None:
            return True
        await self.due.schedule(table_id, version, due)
        return False

    async def _once(
        self, table_id: str, operation: Operation, version: int, loaded: Loaded
    ) -> bool:
        """Commit ``operation`` at ``version``, once: whether this replica made it."""
        try:
            await self.committer.commit(table_id, operation, expected=version, loaded=loaded)
        except ApiError as exc:
            if exc.code != "VERSION_CONFLICT":
                raise
            return False
        return True

"""Table life while playing: turn clocks, undo, seats that leave, rejoin or change hands.

A mixin of ``TableService``, like ``BotDriver``. Deadlines (a seat's clock, the end of a
grace period) share the bots' due-index: before a commit lands, the committer records in
it the version the table will wait at and its earliest deadline; any replica's worker
claims the entry when it falls due and commits the timeout (or the bot taking the seat)
with ``expectedVersion`` = that version, so it happens exactly once and no replica is
special. The pure rules of it are in ``service/engine/clock.py``, ``seating.py`` and
``undo.py``.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from service.engine import clock, seating, undo
from service.engine import table as eng
from service.engine.game import Event, Move, Outcome, Rejected
from service.engine.rights import Credential, token_hash
from service.errors import ApiError
from service.store.base import StoredEvent, StoreUnavailable

if TYPE_CHECKING:
    from service.tables import Loaded, TableService

log = logging.getLogger("tablestate.life")


class TableLife:
    """Clocks, undo and seat changes of ``TableService``."""

    # -- bookkeeping of every commit ----------------------------------------------

    def _settle(
        self: TableService,
        loaded: Loaded,
        table: eng.Table,
        state: Any,
        events: Sequence[Event],
        movers: tuple[int, ...],
        timed_out: int | None,
    ) -> tuple[eng.Table, list[Event]]:
        """What every commit does besides its own change: the undo record lives one version
        only, and the clocks are charged, started and stopped."""
        if table.undo is not None and table.undo is loaded.table.undo:
            table = replace(table, undo=None)
        before = loaded.to_act()
        after = eng.to_act(table, loaded.game, state) if state is not None else ()
        table, started = clock.settle(
            table, before, after, movers=movers, now=self.clock(), timed_out=timed_out
        )
        return table, [*events, *started]

    async def _expect_deadline(
        self: TableService, table_id: str, version: int, table: eng.Table
    ) -> None:
        """Record in the due-index, before the commit that makes ``version`` lands, the
        table's earliest deadline at that version: whichever replica is alive then fires it.

        Raises:
            ApiError: ``UNAVAILABLE`` when the entry cannot be written (nothing is committed,
            so no deadline is lost).
        """
        due = clock.next_due(table)
        if due is None:
            return
        try:
            await self.store.schedule(table_id, version, due, only_sooner=True)
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc

    def _human_move(self: TableService, cur: Loaded, seat: int, move: Move) -> Any:
        out = self._apply(cur, seat, move)
        if isinstance(out, Rejected):
            return out
        table, state, events, _ = out
        table = undo.record(
            cur.table,
            table,
            game=cur.game,
            state_before=cur.state,
            outcome=Outcome(state, tuple(events)),
            seat=seat,
            move=move,
        )
        if table.seats[seat].rejoin_by is not None:
            # A move from a player who left is a rejoin.
            back = seating.rejoin(table, seat=seat, at=table.updated_at)
            if not isinstance(back, Rejected):
                table, more = back
                events = [*more, *events]
        return table, state, events, None

    # -- due deadlines --------------------------------------------------------------

    async def run_timers(self: TableService, loaded: Loaded) -> bool:
        """Fire what is due at the table now (grace periods first, then a clock); when
        nothing is, move its due-index entry to the next deadline (or drop it). Returns
        whether the entry is done with."""
        table_id, version = loaded.table.id, loaded.version
        now = self.clock()
        if any(s.rejoin_by is not None and s.rejoin_by <= now for s in loaded.table.seats):

            def grace(cur: Loaded) -> Any:
                table, events = seating.grace_over(cur.table, now=now, at=self._at())
                return table, cur.state, events, None

            await self._fire(table_id, grace, "grace", version, loaded)
            return True
        seat = clock.expired(loaded.table, loaded.to_act(), now)
        if seat is not None:
            move = self.bot_move(loaded, seat)

            def timeout(cur: Loaded) -> Any:
                table, events, _ = clock.time_out(cur.table, seat)
                out = self._apply(replace(cur, table=table), seat, move)
                if isinstance(out, Rejected):
                    return out
                return out[0], out[1], [*events, *out[2]], None

            entry = json.dumps({"seat": seat, "move": move, "timeout": True})
            if await self._fire(
                table_id, timeout, "timeout", version, loaded, log=entry, seat=seat
            ):
                self.metrics.inc("tablestate_clock_timeouts_total")
            return True
        due = clock.next_due(loaded.table)
        if due is None:
            return True
        await self.store.schedule(table_id, version, due)
        return False

    async def _fire(
        self: TableService,
        table_id: str,
        op: Any,
        kind: str,
        version: int,
        loaded: Loaded,
        log: str | None = None,
        seat: int | None = None,
    ) -> bool:
        """Commit ``op`` at ``version``, once: whether this replica made it."""
        try:
            await self._mutate(
                table_id,
                op,
                kind=kind,
                expected=version,
                log_entry=(lambda cur: log) if log is not None else None,
                loaded=loaded,
                movers=(seat,) if seat is not None else (),
                timed_out=seat,
            )
        except ApiError as exc:
            if exc.code != "VERSION_CONFLICT":
                raise
            return False
        return True

    def _at(self: TableService) -> str:
        return clock.iso(self.clock())

    # -- operations -------------------------------------------------------------------

    async def undo(
        self: TableService, caller: Credential | None, table_id: str
    ) -> tuple[Loaded, tuple[StoredEvent, ...]]:
        """Take back the caller's last move (``undoMove``)."""
        loaded, seat = await self.seated(caller, table_id, "undo")

        def step(cur: Loaded, seat: int) -> Any:
            out = undo.take_back(cur.table, seat=seat, at=self._at())
            if isinstance(out, Rejected):
                return out
            table, events = out
            return table, eng.decode_state(table, cur.game), events, None

        done, events, _ = await self._mutate(
            table_id,
            self.seat_op(caller, seat, "undo", step),
            kind="undo",
            log_entry=lambda cur: json.dumps({"seat": seat, "undo": True}),
            loaded=loaded,
            movers=(seat,),
        )
        return done, events

    async def rejoin(self: TableService, caller: Credential | None, table_id: str) -> Loaded:
        """Come back to a seat left within its grace period, with the same token."""
        loaded, seat = await self.seated(caller, table_id, "rejoin")

        def step(cur: Loaded, seat: int) -> Any:
            out = seating.rejoin(cur.table, seat=seat, at=self._at())
            if isinstance(out, Rejected):
                return out
            return out[0], cur.state, out[1], None

        op = self.seat_op(caller, seat, "rejoin", step)
        done, _, _ = await self._mutate(table_id, op, kind="rejoin", loaded=loaded)
        return done

    async def replace_seat(
        self: TableService, caller: Credential | None, table_id: str, seat: int, name: str
    ) -> tuple[Loaded, str]:
        """The host hands ``seat`` to a new player: a fresh token, the old one refused."""
        token = f"{table_id}.{secrets.token_urlsafe(32)}"
        digest = token_hash(token)
        done = await self.host_op(
            caller,
            table_id,
            lambda cur: seating.replace_player(
                cur.table, seat=seat, name=name, token_hash=digest, at=self._at()
            ),
            "replace",
        )
        return done, token

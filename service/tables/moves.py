"""A player's move: refused in the order of docs/architecture.md, applied once, committed.

The table this replica last saw is tried first, without reading it again: the commit's
version check catches a stale copy, and a refusal met on a cached copy is checked again on
a fresh one before it is given. So a move costs one round trip to the store on a replica
that saw the table's last commit. Moves beyond ``TABLESTATE_MOVES_IN_FLIGHT`` wait their
turn here, where waiting costs no store timeout.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Final

from tablestate import _json
from tablestate.engine import seating, undo
from tablestate.engine import table as eng
from tablestate.engine.evolve import evolve
from tablestate.engine.game import Move, Outcome, Rejected
from tablestate.engine.rights import Caller, Rights, holding, rights, seat_of
from tablestate.errors import ApiError
from tablestate.store.base import Idempotency, StoredEvent, TableStore
from tablestate.tables.commit import Change, Committer, Operation
from tablestate.tables.loading import Loaded, refuse
from tablestate.tables.play import Play

MAX_IDEMPOTENCY_KEY: Final = 200


def move_hash(move: Move) -> str:
    return hashlib.sha256(json.dumps(move, sort_keys=True).encode()).hexdigest()


class Moves:
    """``makeMove``, for one replica."""

    def __init__(
        self, committer: Committer, store: TableStore, play: Play, *, in_flight: int
    ) -> None:
        self.committer = committer
        self.tables = committer.tables
        self.store = store
        self.play = play
        self._moving = asyncio.Semaphore(in_flight)

    async def make(
        self,
        caller: Caller | None,
        table_id: str,
        game_id: str | None,
        move: Move,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[Loaded, tuple[StoredEvent, ...]]:
        """The caller's move (``game_id``: the game its move input is for): the table after
        it and its events; a replayed idempotency key gives the first outcome."""
        if caller is None:
            raise ApiError("UNAUTHENTICATED", "a move needs a seat token")
        async with self._moving:
            cached = self.tables.cached(table_id)
            if cached is not None:
                try:
                    return await self._make(caller, cached, game_id, move,
                                            expected_version, idempotency_key)  # fmt: skip
                except ApiError as exc:
                    if exc.code == "UNAVAILABLE":
                        raise
            loaded = await self.tables.must_load(table_id)
            return await self._make(
                caller, loaded, game_id, move, expected_version, idempotency_key
            )

    async def _make(
        self,
        caller: Caller,
        loaded: Loaded,
        game_id: str | None,
        move: Move,
        expected_version: int | None,
        idempotency_key: str | None,
    ) -> tuple[Loaded, tuple[StoredEvent, ...]]:
        table_id = loaded.table.id
        seat = seat_of(rights(caller, loaded.table), "move")
        if isinstance(seat, Rejected):
            raise refuse(seat)
        idem = None
        if idempotency_key is not None:
            if not 0 < len(idempotency_key) <= MAX_IDEMPOTENCY_KEY:
                raise ApiError(
                    "BAD_INPUT", f"an idempotency key is 1 to {MAX_IDEMPOTENCY_KEY} characters"
                )
            idem = Idempotency(seat, idempotency_key, move_hash({game_id or "": move}))
        try:
            return await self._try(caller, loaded, game_id, move, seat, expected_version, idem)
        except ApiError as exc:
            if idem is None or exc.code == "UNAVAILABLE":
                raise
            # Refused: unless the key was recorded, by this move made once already (the
            # table has moved on since, so the rules may refuse it now). The record is read
            # only here: a move the rules accept meets it in the commit, which checks it
            # before the version.
            record = await self.tables.call(
                "idempotency", self.store.idempotency(table_id, seat, idem.key)
            )
            if record is None:
                raise
            if record.move_hash != idem.move_hash:
                raise ApiError(
                    "BAD_INPUT", "this idempotency key was used for another move"
                ) from None
            return await self.tables.must_load(table_id), record.events

    async def _try(
        self,
        caller: Caller,
        loaded: Loaded,
        game_id: str | None,
        move: Move,
        seat: int,
        expected_version: int | None,
        idem: Idempotency | None,
    ) -> tuple[Loaded, tuple[StoredEvent, ...]]:
        table_id = loaded.table.id
        if loaded.table.status != eng.PLAYING:
            raise ApiError("TABLE_NOT_PLAYING", "the table is not playing")
        if game_id != loaded.game.id:
            raise ApiError("BAD_INPUT", f"this table plays {loaded.game.id}; send that game's move")
        entry = _json.dumps({"seat": seat, "move": move})

        def rules(cur: Loaded, _held: Rights) -> Change | Rejected:
            return self.human(cur, seat, move, entry)

        operation = Operation("move", rules, holding(seat, "move"))
        done = await self.committer.commit(
            table_id,
            operation,
            caller,
            expected=expected_version,
            idempotency=idem,
            loaded=loaded,
        )
        return done.loaded, done.events

    def human(self, cur: Loaded, seat: int, move: Move, entry: str) -> Change | Rejected:
        """A human's move: applied, with what an undo needs; a player who left and moves
        again has rejoined."""
        out = self.play.apply(cur, seat, move)
        if isinstance(out, Rejected):
            return out
        table = undo.record(
            cur.table,
            out.table,
            game=cur.game,
            state_before=cur.state,
            outcome=Outcome(out.state, tuple(out.events)),
            seat=seat,
            move=move,
        )
        events = list(out.events)
        if table.seats[seat].rejoin_by is not None:
            back = seating.rejoin(table, seat=seat, at=table.updated_at)
            if not isinstance(back, Rejected):
                table, more = back
                events = [*more, *events]
        return evolve(out, table=table, events=events, log=entry)

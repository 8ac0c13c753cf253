"""GraphQL types of a table and its events, as a viewer with given rights sees them.

Every field reads the table as loaded and the rights the viewer holds at it
(``service/engine/rights.py``); nothing else in the request's context decides what a
viewer sees (``api/fanout.py`` relies on it).

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import enum
from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from tablestate.api.context import Context
from tablestate.api.types.games import Game, HouseRule
from tablestate.api.types.nodes import Node, PageInfo
from tablestate.api.types.seats import GameResult, Seat, _Once, _seat_of
from tablestate.engine.rights import Rights
from tablestate.engine.schema import GameState, from_view, global_id, resolver, state_id
from tablestate.engine.views import SPECTATING, Sight
from tablestate.errors import ApiError
from tablestate.hub import Delivery
from tablestate.plugins import camel
from tablestate.store.base import StoredEvent
from tablestate.tables import Loaded

Info = strawberry.Info[Context, None]
MAX_EVENTS = 1000


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@strawberry.enum(description="Where a table is in its life.")
class TableStatus(enum.Enum):
    OPEN = "OPEN"
    PLAYING = "PLAYING"
    FINISHED = "FINISHED"
    CANCELLED = "CANCELLED"


def event_id(table_id: str, cursor: str) -> str:
    """The global id of a table's event."""
    return global_id("TableEvent", table_id, cursor)


def _event_id(self: "TableEvent") -> strawberry.ID:
    return strawberry.ID(event_id(self.table_id, self.cursor))


def _event_at(self: "TableEvent") -> datetime:
    return _dt(self.stamp)


@strawberry.type(description="Something that happened at a table.")
class TableEvent:
    # ``id`` and ``at`` are made when asked for: most subscribers select neither.
    id: strawberry.ID = strawberry.field(
        description="The event's id, unique across types (an event never changes, but for "
        "the viewer's own part of it).",
        resolver=_event_id,
    )
    cursor: str = strawberry.field(description="Opaque and increasing; resume with `after:`.")
    version: int = strawberry.field(description="The table's version once this applied.")
    type: str = strawberry.field(description="Dotted type, e.g. card.drawn.")
    seat: int | None = strawberry.field(description="The seat that acted, if any.")
    at: datetime = strawberry.field(description="When it was committed.", resolver=_event_at)
    data: JSON = strawberry.field(
        description="The public part; your own private part under `private`."
    )
    table_id: strawberry.Private[str]
    stamp: strawberry.Private[str] = ""  # when it was committed, as stored
    # Results of executions on this event, shared by the subscribers shown the same
    # (api/fanout.py, keyed by ``Sight``: engine/views.py). ``sight``: what the viewer it
    # was made for sees (its seat, its host rights).
    shared: strawberry.Private[dict[Any, Any] | None] = None
    sight: strawberry.Private[Sight] = SPECTATING

    @resolver(description="The table as you see it (its newest version).")
    async def table(self, info: Info) -> "Table | None":
        loaded = await info.context.services.tables.reads.load(self.table_id)
        if loaded is None:
            return None
        return table_of(loaded, await _viewing(info, loaded, self))

    @classmethod
    def of(cls, event: StoredEvent, table_id: str, seat: int | None) -> "TableEvent":
        return cls(
            cursor=event.cursor,
            version=event.version,
            type=event.type,
            seat=event.seat,
            data=JSON(Sight(seat).event(event)),
            table_id=table_id,
            stamp=event.at,
        )

    @classmethod
    def delivered(cls, item: Delivery, table_id: str, sight: Sight) -> "TableEvent":
        """The event as ``sight`` sees it: one object per sight of a delivery, which every
        subscriber of that sight shares; its results are kept with those of every sight
        shown the same data of it (``Sight.of_event``, api/fanout.py). A delivery is one
        table's: the sight alone keys its object (the results' keys are 3-tuples)."""
        found = item.memo.get(sight)
        if found is None:
            e = item.event
            sees = sight.of_event(e)
            found = item.memo[sight] = cls(
                cursor=e.cursor,
                version=e.version,
                type=e.type,
                seat=e.seat,
                data=JSON(item.data_for(sees)),
                table_id=table_id,
                stamp=e.at,
                shared=item.memo.setdefault(("results", table_id, sees), {}),
                sight=sight,
            )
        return found


@strawberry.type(description="One event of a page of a table's events.")
class TableEventEdge:
    cursor: str = strawberry.field(description="The event's cursor.")
    node: TableEvent = strawberry.field(description="The event.")


@strawberry.type(description="A page of a table's events, oldest first (Relay's connection).")
class TableEventConnection:
    edges: list[TableEventEdge] = strawberry.field(description="The events and their cursors.")
    nodes: list[TableEvent] = strawberry.field(description="The events.")
    page_info: PageInfo = strawberry.field(description="Paging.")


@strawberry.type(description="A table: its seats, rules, state and events.")
class Table(Node):
    _loaded: strawberry.Private[Loaded]
    # What the viewer holds at this table, asked at this version (service/engine/rights.py).
    _rights: strawberry.Private[Rights]

    # A resolver in place of Node's plain field: Strawberry takes either; mypy's dataclass
    # view of the two classes takes only a field (``table_of`` builds a Table for it).
    @resolver(  # type: ignore[misc]  # a resolver for Node's field
        description="The table id (also its global id: `node(id:)` takes it)."
    )
    def id(self) -> strawberry.ID:  # type: ignore[override]  # a resolver for Node's field
        return strawberry.ID(self._loaded.table.id)

    @resolver(description="The game played here.")
    def game(self, info: Info) -> Game:
        return Game.of(self._loaded.game.id, info.context.services.registry)

    @resolver(description="OPEN, PLAYING or FINISHED.")
    def status(self) -> TableStatus:
        return TableStatus(self._loaded.table.status)

    @resolver(description="+1 on every commit (a move, a seat change, a rule toggle).")
    def version(self) -> int:
        return self._loaded.version

    @resolver(description="The newest event's cursor (null: none yet).")
    async def cursor(self, info: Info) -> str | None:
        # The newest of the events this viewer may see: a seat's cursor never moves for an
        # event it does not get (spectators' chat).
        newest = await visible_events(info, self._loaded.table.id, self._rights.seat, None, 0, 1)
        return newest[-1].cursor if newest else None

    @resolver(description="The table options, defaults filled in.")
    def options(self) -> JSON:
        return JSON(dict(self._loaded.table.options))

    @resolver(description="The house rules enabled at this table.")
    def house_rules(self, info: Info) -> list[HouseRule]:
        reg = info.context.services.registry
        return [
            HouseRule.of(reg.house_rules[r], reg)
            for r in self._loaded.table.house_rules
            if r in reg.house_rules
        ]

    @resolver(description="Every seat, empty ones included.")
    def seats(self, info: Info) -> list[Seat]:
        return seats_of(self._loaded, info.context)

    @resolver(description="The game state as you may see it; null while OPEN.")
    def state(self) -> GameState | None:
        sight = Sight.of(self._rights)
        seat = sight.seat
        view = self._loaded.view(sight)
        state_type = self._loaded.game.state_type
        if view is None or state_type is None:
            return None
        key = state_id(state_type.__name__, self._loaded.table.id, self._loaded.version, seat)
        return from_view(state_type, view, key)  # type: ignore[no-any-return]  # a GameState

    @resolver(description="Your legal moves now; each is a valid MoveInput.")
    def legal_moves(self) -> list[JSON]:
        field = camel(self._loaded.game.id)
        return [JSON({field: dict(m)}) for m in self._loaded.legal_moves(self._rights.seat)]

    @resolver(description="Events after a cursor, or the newest `last` of them.")
    async def events(
        self,
        info: Info,
        after: str | None = None,
        first: int = 100,
        last: int | None = None,
    ) -> list[TableEvent]:
        if not 0 <= first <= MAX_EVENTS or (last is not None and not 0 <= last <= MAX_EVENTS):
            raise ApiError("BAD_INPUT", f"first and last are 0 to {MAX_EVENTS}")
        tid = self._loaded.table.id
        seat = self._rights.seat
        found = await visible_events(info, tid, seat, after, first, last)
        return [TableEvent.of(e, tid, seat) for e in found]

    @resolver(
        description="A page of the events you may see, oldest first, as a Relay connection: "
        "`first` after `after` (paging forward; `first` 0 to 1000, 100 when neither is "
        "given), or the newest `last`. Cursors are those of `events` and `tableEvents`."
    )
    async def events_connection(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
    ) -> TableEventConnection:
        if first is not None and last is not None:
            raise ApiError("BAD_INPUT", "first or last, not both")
        size = last if last is not None else (first if first is not None else 100)
        if not 0 <= size <= MAX_EVENTS:
            raise ApiError("BAD_INPUT", f"first and last are 0 to {MAX_EVENTS}")
        tid, seat = self._loaded.table.id, self._rights.seat
        if last is not None:
            found = await visible_events(info, tid, seat, None, 0, size + 1)
            more_before, more_after = len(found) > size, False
            found = found[len(found) - size :] if size else []
        else:
            found = await visible_events(info, tid, seat, after, size + 1, None)
            more_before, more_after = after is not None, len(found) > size
            found = found[:size]
        events = [TableEvent.of(e, tid, seat) for e in found]
        return TableEventConnection(
            edges=[TableEventEdge(cursor=e.cursor, node=e) for e in events],
            nodes=events,
            page_info=PageInfo(
                end_cursor=events[-1].cursor if events else None,
                has_next_page=more_after,
                has_previous_page=more_before,
                start_cursor=events[0].cursor if events else None,
            ),
        )

    @resolver(description="Whether the table is private: unlisted, joined with its code.")
    def private(self) -> bool:
        return self._loaded.table.private

    @resolver(description="A private table's join code: shown to its host only.")
    def join_code(self) -> str | None:
        return self._loaded.table.join_code if self._rights.host else None

    @resolver(description="The table this one is the rematch of, if any.")
    def rematch_of(self) -> strawberry.ID | None:
        found = self._loaded.table.rematch_of
        return strawberry.ID(found) if found is not None else None

    @resolver(description="This table's rematch, once `rematch` opened it.")
    def rematch(self) -> strawberry.ID | None:
        found = self._loaded.table.rematch
        return strawberry.ID(found) if found is not None else None

    @resolver(description="The outcome; null until FINISHED.")
    def result(self) -> GameResult | None:
        res = self._loaded.table.result
        if res is None:
            return None
        return GameResult(
            id=strawberry.ID(global_id("GameResult", self._loaded.table.id)),
            winners=list(res["winners"]),
            scores=list(res["scores"]),
        )

    @resolver(description="SHA-256 hex of the table's secret seed.")
    def shuffle_commitment(self) -> str:
        return self._loaded.table.commitment

    @resolver(description="The secret seed, revealed once FINISHED.")
    def shuffle_seed(self) -> str | None:
        return self._loaded.table.revealed_seed

    @resolver(description="The client seeds given at joinTable, by seat index.")
    def client_seeds(self) -> list[str | None]:
        return [s.client_seed for s in self._loaded.table.seats]

    @resolver(description="When the table was created.")
    def created_at(self) -> datetime:
        return _dt(self._loaded.table.created_at)

    @resolver(description="When the table last changed.")
    def updated_at(self) -> datetime:
        return _dt(self._loaded.table.updated_at)


@strawberry.type(description="One table of a page of tables.")
class TableEdge:
    cursor: str = strawberry.field(description="Pass as `after` for the tables after this one.")
    node: Table = strawberry.field(description="The table.")


@strawberry.type(description="A page of tables, newest first (Relay's connection).")
class TableConnection:
    nodes: list[Table] = strawberry.field(description="The tables, newest first.")
    page_info: PageInfo = strawberry.field(description="Paging.")
    edges: list[TableEdge] = strawberry.field(
        default_factory=list, description="The tables and their cursors."
    )


async def visible_events(
    info: Info, table_id: str, seat: int | None, after: str | None, first: int, last: int | None
) -> list[StoredEvent]:
    """Events as ``Table.events`` gives them: those the viewer may see (``Sight.sees``),
    as many as asked for when the table has them (hidden ones do not use up a page). The
    store keeps spectators' events apart and a seat's read never reads them, so a page is
    one store call; the loops below only turn over spectators' messages that an older
    version of the service kept in the game's own stream."""
    tables = info.context.services.tables
    seated = seat is not None
    sight = Sight(seat)
    if last is not None:
        want = last
        while True:
            found = await tables.reads.events(table_id, None, 0, want, seated=seated)
            shown = [e for e in found if sight.sees(e)]
            if len(shown) >= last or len(found) < want or want >= 10 * MAX_EVENTS:
                return shown[-last:] if last else []
            want = min(10 * MAX_EVENTS, want * 2 + (last - len(shown)))
    out: list[StoredEvent] = []
    cursor = after
    while len(out) < first:
        found = await tables.reads.events(table_id, cursor, first, None, seated=seated)
        out += [e for e in found if sight.sees(e)]
        if len(found) < first:
            break  # the log ends here
        cursor = found[-1].cursor
    return out[:first]


async def _viewing(info: Info, loaded: Loaded, event: TableEvent) -> Rights:
    """What the viewer of an event holds at its table, to be shown it: its own rights; but
    where the event's results are shared by the viewers of its sight beyond its own fields
    (``Sight.whole_key``), the table is shown as that sight sees it, whatever the viewer's
    credential holds by then (a spectator who took a seat since its subscription began).

    Raises:
        ApiError: ``FORBIDDEN`` for a spectator who may not watch it (``may_watch``).
    """
    held = await info.context.viewing(loaded)
    sight = event.sight
    if event.shared is None or sight.whole_key() is None:
        return held
    return Rights(sight.seat, sight.host, held.standing)


def seats_of(loaded: Loaded, context: Context) -> list[Seat]:
    """The table's seats, empty ones included."""
    table = loaded.table
    result = table.result
    now = context.services.tables.clock()
    present = _Once(lambda: context.services.tables.attendance.connected(table.id))
    return [
        _seat_of(
            table,
            s,
            result["scores"][s.index] if result and s.kind != "EMPTY" else None,
            now,
            present,
        )
        for s in table.seats
    ]


def table_of(loaded: Loaded, held: Rights) -> Table:
    """The table as a viewer holding ``held`` (asked at this table) sees it."""
    # Node's ``id`` is a resolver here (Table.id), not the init field mypy takes it for.
    return Table(_loaded=loaded, _rights=held)  # type: ignore[call-arg]  # id: a resolver

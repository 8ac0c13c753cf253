"""Assembles the schema: the core types of API.md plus what the installed games bring
(their state types, and one field each in ``MoveInput``).

No ``from __future__ import annotations``: the classes below are built inside a function.
"""

import enum
import json
import math
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaxAliasesLimiter, QueryDepthLimiter
from strawberry.scalars import JSON
from strawberry.schema.config import StrawberryConfig
from strawberry.types.base import get_object_definition
from strawberry.types.execution import ExecutionContext

from service.api.checks import Checks
from service.api.context import Context
from service.api.errors import classify_all
from service.api.fanout import SharingExecutor
from service.api.types import (
    CreateTablePayload,
    Game,
    JoinTablePayload,
    LobbyEvent,
    MovePayload,
    PageInfo,
    Plugin,
    RematchPayload,
    TableConnection,
    TableEvent,
    TableStatus,
    Viewer,
    table_of,
)
from service.api.types import (
    Table as TableType,
)
from service.config import Settings
from service.engine.rights import HELD, LOST, SPECTATOR, Credential, lost, rights, visible
from service.errors import ApiError
from service.lobby import LobbyHub
from service.metrics import Metrics
from service.plugins import Registry, camel, pascal
from service.store.base import BadCursor, cursor_key
from service.tables import Loaded

Info = strawberry.Info[Context, None]
MAX_OPTIONS_BYTES = 16_384
MAX_RULES = 64
MAX_PAGE = 100
MAX_CHAT_INPUT = 4_000  # characters of sendChat's text before it is even normalized
LOBBY_SNAPSHOT = 500  # open tables at most in a lobbyEvents snapshot


class TablestateSchema(strawberry.Schema):
    """The schema; every error gets its ``extensions.code`` here (see ``api.errors``)."""

    metrics: Metrics | None = None

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        classify_all(errors, self.metrics)


def move_to_json(value: Any, schema: strawberry.Schema) -> Any:
    """A Strawberry input value as the JSON a client would send (GraphQL field names)."""
    definition = get_object_definition(value) if not isinstance(value, type) else None
    if definition is not None:
        out: dict[str, Any] = {}
        for f in definition.fields:
            v = getattr(value, f.python_name, strawberry.UNSET)
            if v is strawberry.UNSET or v is None:
                continue
            out[schema.config.name_converter.get_graphql_name(f)] = move_to_json(v, schema)
        return out
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, list | tuple):
        return [move_to_json(v, schema) for v in value]
    return value


def plain_input(value: Any) -> Any:
    """An input value as graphql-core coerced it (GraphQL field names already) as the JSON
    a client would send: what ``move_to_json`` makes of Strawberry's objects."""
    if isinstance(value, dict):
        return {
            k: plain_input(v)
            for k, v in value.items()
            if v is not None and v is not strawberry.UNSET
        }
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, list | tuple):
        return [plain_input(v) for v in value]
    return value


async def make_move_payload(
    context: Context,
    table_id: str,
    as_json: dict[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
) -> MovePayload:
    """``makeMove`` with its move as JSON (``{"<game field>": <that game's move>}``)."""
    caller = await context.credential()
    game_field, inner = next(iter(as_json.items()), (None, None))
    game_id = context.services.registry.game_of_field(game_field)
    loaded, events = await context.services.tables.moves.make(
        caller,
        table_id,
        game_id,
        inner or {},
        expected_version=expected_version,
        idempotency_key=idempotency_key,
    )
    held = rights(caller, loaded.table)
    return MovePayload(
        table=table_of(loaded, held),
        events=[TableEvent.of(e, loaded.table.id, held.seat) for e in events],
    )


async def event_stream(
    context: Context, table_id: str, after: str | None
) -> AsyncGenerator[TableEvent, None]:
    """``tableEvents``: the table's events after ``after`` as the caller sees them, then
    live ones (the resolver's body; ``api.direct`` runs it too).

    The caller's rights are asked at every event, at the newest table known then: once
    they no longer hold what they held when the subscription began (a seat, host
    rights), it ends with ``UNAUTHENTICATED``, before anything else is sent."""
    services = context.services
    caller = await context.credential()
    loaded = await services.tables.reads.load(table_id)
    if loaded is None:
        raise ApiError("NOT_FOUND", "no such table")
    if after is not None:
        try:
            cursor_key(after)
        except BadCursor as exc:
            raise ApiError("BAD_INPUT", str(exc)) from exc
    start = rights(caller, loaded.table)
    if start.standing == LOST:
        raise ApiError("UNAUTHENTICATED", "this token no longer holds its seat")
    if start.standing != HELD:
        start = SPECTATOR  # a token for another table watches as a spectator
    seat, host = start.seat, start.host
    follows = start.standing == HELD
    async with services.tables.attendance.present(table_id, seat):
        async for item, table in services.hub.subscribe(table_id, after, seat, follows):
            if follows:
                if table is None:  # not known to the hub: read it
                    table = await services.tables.reads.load_table(table_id)
                if lost(start, rights(caller, table)):
                    raise ApiError("UNAUTHENTICATED", "this token no longer holds its seat")
            if visible(item.event, seat):
                yield TableEvent.delivered(item, table_id, seat, host)


def as_token(loaded: Loaded, token: str | None) -> TableType:
    """The table as the holder of a token just made for it sees it."""
    return table_of(loaded, rights(Credential.of_token(token), loaded.table))


async def admit_table(context: Context) -> None:
    """Count a new table against its client address (``TABLESTATE_TABLES_PER_ADDRESS``).

    Raises:
        ApiError: ``RATE_LIMITED`` when the address made its tables for now.
    """
    guard, client = context.services.guard, context.client
    if guard is None or client is None:
        return
    wait = await guard.admit_table(client)
    if wait > 0:
        raise ApiError(
            "RATE_LIMITED", f"too many tables from this address; retry in {math.ceil(wait)} s"
        )


async def as_caller(
    info: Info, table_id: strawberry.ID, op: Callable[[Any, str], Awaitable[Loaded]]
) -> TableType:
    """Run a table operation as the caller (``op(credential, table_id)``): the table after
    it, as the caller sees it."""
    caller = await info.context.credential()
    loaded = await op(caller, str(table_id))
    return table_of(loaded, rights(caller, loaded.table))


def _raw_make_move(
    _root: Any,
    info: Any,
    tableId: str,
    move: dict[str, Any],
    expectedVersion: int | None = None,
    idempotencyKey: str | None = None,
) -> Any:
    return make_move_payload(
        info.context, str(tableId), plain_input(move), expectedVersion, idempotencyKey
    )


def _move_input(registry: Registry) -> type:
    games = sorted(registry.games.values(), key=lambda g: g.id)
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for g in games:
        if g.move_input_type is None:
            continue
        name = camel(g.id)
        annotations[name] = g.move_input_type | None
        namespace[name] = strawberry.field(
            default=strawberry.UNSET, description=f"A move of {g.name}."
        )
    if not annotations:
        annotations["noGame"] = bool | None
        namespace["noGame"] = strawberry.field(
            default=strawberry.UNSET, description="Present only while no game is installed."
        )
    namespace["__annotations__"] = annotations
    cls = type("MoveInput", (), namespace)
    return strawberry.input(one_of=True, description="A move: one field per installed game.")(cls)


def _check_names(registry: Registry) -> None:
    for g in registry.games.values():
        for kind, tp in (("State", g.state_type), ("MoveInput", g.move_input_type)):
            if tp is None:
                continue
            definition = get_object_definition(tp, strict=True)
            want = pascal(g.id) + kind
            if definition.name != want:
                raise ValueError(f"game {g.id!r}: its {kind} type must be named {want!r}")


def build_schema(
    registry: Registry, settings: Settings | None = None, metrics: Metrics | None = None
) -> TablestateSchema:
    """The schema of the installed plugins."""
    settings = settings or Settings()
    _check_names(registry)
    move_input = _move_input(registry)

    @strawberry.type
    class Query:
        @strawberry.field(description="Every installed game.")
        def games(self, info: Info) -> list[Game]:
            reg = info.context.services.registry
            return [Game.of(g, reg) for g in sorted(reg.games)]

        @strawberry.field(description="One game, or null.")
        def game(self, info: Info, id: strawberry.ID) -> Game | None:
            reg = info.context.services.registry
            return Game.of(str(id), reg) if str(id) in reg.games else None

        @strawberry.field(description="One table as you may see it, or null.")
        async def table(self, info: Info, id: strawberry.ID) -> TableType | None:
            caller = await info.context.credential()
            loaded = await info.context.services.tables.reads.load(str(id))
            return table_of(loaded, rights(caller, loaded.table)) if loaded is not None else None

        @strawberry.field(description="Tables, newest first.")
        async def tables(
            self,
            info: Info,
            game_id: strawberry.ID | None = None,
            status: TableStatus | None = None,
            first: int = 20,
            after: str | None = None,
        ) -> TableConnection:
            if not 0 < first <= MAX_PAGE:
                raise ApiError("BAD_INPUT", f"first is 1 to {MAX_PAGE}")
            if after is not None and len(after) > 200:
                raise ApiError("BAD_INPUT", "malformed cursor")
            caller = await info.context.credential()
            tables = info.context.services.tables
            try:
                found, page = await tables.reads.list(
                    str(game_id) if game_id is not None else None,
                    status.value if status is not None else None,
                    first,
                    after,
                )
            except BadCursor as exc:
                raise ApiError("BAD_INPUT", str(exc)) from exc
            nodes = [table_of(t, rights(caller, t.table)) for t in found]
            return TableConnection(
                nodes=nodes, page_info=PageInfo(end_cursor=page.next, has_next_page=bool(page.next))
            )

        @strawberry.field(description="Who the sent token says you are (null: a spectator).")
        async def viewer(self, info: Info) -> Viewer | None:
            caller = await info.context.credential()
            if caller is None:
                return None
            held = await info.context.rights(
                await info.context.services.tables.reads.load(caller.table_id)
            )
            if held.standing != HELD:
                return None  # a token whose table took back what it held
            return Viewer(
                table_id=strawberry.ID(caller.table_id), seat=held.seat, is_host=held.host
            )

        @strawberry.field(description="The loaded plugins and the hooks they implement.")
        def plugins(self, info: Info) -> list[Plugin]:
            return [Plugin.of(p) for p in info.context.services.registry.plugins]

    @strawberry.type
    class Mutation:
        @strawberry.mutation(description="Open a table; the host token is shown once.")
        async def create_table(
            self,
            info: Info,
            game_id: strawberry.ID,
            house_rules: list[strawberry.ID] | None = None,
            options: JSON | None = None,
            seats: int | None = None,
            private: bool = False,
        ) -> CreateTablePayload:
            caller = await info.context.credential()  # a bad token is refused first
            rules = [str(r) for r in house_rules or []]
            if len(rules) > MAX_RULES:
                raise ApiError("BAD_INPUT", f"at most {MAX_RULES} house rules")
            if options is not None and len(json.dumps(options)) > MAX_OPTIONS_BYTES:
                raise ApiError("BAD_INPUT", "options are too large")
            await admit_table(info.context)
            loaded, token = await info.context.services.tables.operations.create(
                str(game_id), rules, options, seats, private
            )
            return CreateTablePayload(
                table=table_of(loaded, rights(caller, loaded.table)),
                host_token=token,
                join_code=loaded.table.join_code,
            )

        @strawberry.mutation(description="Take a seat; the seat token is shown once.")
        async def join_table(
            self,
            info: Info,
            table_id: strawberry.ID,
            name: str,
            seat: int | None = None,
            client_seed: str | None = None,
            code: str | None = None,
        ) -> JoinTablePayload:
            caller = await info.context.credential()
            loaded, index, token = await info.context.services.tables.operations.join(
                caller, str(table_id), name, seat, client_seed, code
            )
            return JoinTablePayload(table=as_token(loaded, token), seat=index, player_token=token)

        @strawberry.mutation(description="Seat a bot (host only, OPEN only).")
        async def add_bot(
            self, info: Info, table_id: strawberry.ID, seat: int | None = None
        ) -> TableType:
            tables = info.context.services.tables
            return await as_caller(
                info, table_id, lambda v, t: tables.operations.add_bot(v, t, seat)
            )

        @strawberry.mutation(
            description="Leave your seat. OPEN: the seat empties. PLAYING: a bot takes it, at "
            "once or after the table's leaveGraceSeconds unless you rejoin."
        )
        async def leave_table(self, info: Info, table_id: strawberry.ID) -> TableType:
            return await as_caller(info, table_id, info.context.services.tables.operations.leave)

        @strawberry.mutation(description="Turn a house rule on or off (host only, OPEN only).")
        async def set_house_rule(
            self, info: Info, table_id: strawberry.ID, rule_id: strawberry.ID, enabled: bool
        ) -> TableType:
            tables = info.context.services.tables
            return await as_caller(
                info, table_id, lambda v, t: tables.operations.set_rule(v, t, str(rule_id), enabled)
            )

        @strawberry.mutation(description="Deal and start playing (host only).")
        async def start_game(self, info: Info, table_id: strawberry.ID) -> TableType:
            return await as_caller(info, table_id, info.context.services.tables.operations.start)

        @strawberry.mutation(
            description="New options for the table, checked like createTable's "
            "(host only, OPEN only)."
        )
        async def set_options(
            self, info: Info, table_id: strawberry.ID, options: JSON
        ) -> TableType:
            await info.context.credential()  # a bad token is refused before anything else
            if len(json.dumps(options)) > MAX_OPTIONS_BYTES:
                raise ApiError("BAD_INPUT", "options are too large")
            tables = info.context.services.tables
            return await as_caller(
                info, table_id, lambda v, t: tables.operations.set_options(v, t, options)
            )

        @strawberry.mutation(
            description="Empty a taken seat; its token stops working (host only, OPEN only)."
        )
        async def kick_seat(self, info: Info, table_id: strawberry.ID, seat: int) -> TableType:
            tables = info.context.services.tables
            return await as_caller(info, table_id, lambda v, t: tables.operations.kick(v, t, seat))

        @strawberry.mutation(
            description="End an OPEN or PLAYING table with no result: CANCELLED (host only)."
        )
        async def cancel_table(self, info: Info, table_id: strawberry.ID) -> TableType:
            return await as_caller(info, table_id, info.context.services.tables.operations.cancel)

        @strawberry.mutation(
            description="Open the rematch of a FINISHED table (a seat or the host), once: "
            "later calls give the same table."
        )
        async def rematch(self, info: Info, table_id: strawberry.ID) -> RematchPayload:
            caller = await info.context.credential()
            (
                loaded,
                seat,
                player_token,
                host_token,
            ) = await info.context.services.tables.rematches.open(caller, str(table_id))
            return RematchPayload(
                table=as_token(loaded, player_token or host_token),
                seat=seat,
                player_token=player_token,
                host_token=host_token,
            )

        @strawberry.mutation(
            description="Say something at a table. A seat's message (`chat.message`) reaches "
            "everyone; anyone else's (`chat.spectator`, `name` required) reaches viewers "
            "without a seat only. Chat never changes the table's version."
        )
        async def send_chat(
            self, info: Info, table_id: strawberry.ID, text: str, name: str | None = None
        ) -> TableEvent:
            caller = await info.context.credential()
            if len(text) > MAX_CHAT_INPUT or (name is not None and len(name) > MAX_CHAT_INPUT):
                raise ApiError("BAD_INPUT", "the message is too long")
            client = info.context.client
            event = await info.context.services.tables.chat.send(
                caller, str(table_id), text, name, client.address if client else ""
            )
            return TableEvent.of(event, str(table_id), event.seat)  # the sender's own view

        @strawberry.mutation(description="Make a move as your seat.")
        async def make_move(
            self,
            info: Info,
            table_id: strawberry.ID,
            move: move_input,  # type: ignore[valid-type]
            expected_version: int | None = None,
            idempotency_key: str | None = None,
        ) -> MovePayload:
            as_json = move_to_json(move, info.schema)
            return await make_move_payload(
                info.context, str(table_id), as_json, expected_version, idempotency_key
            )

        @strawberry.mutation(
            description="Take back your last move, if the table allows undo, nobody has moved "
            "since and the move gave you nothing new (a discard, not a draw or a roll)."
        )
        async def undo_move(self, info: Info, table_id: strawberry.ID) -> MovePayload:
            caller = await info.context.credential()
            loaded, events = await info.context.services.tables.operations.undo(
                caller, str(table_id)
            )
            held = rights(caller, loaded.table)
            return MovePayload(
                table=table_of(loaded, held),
                events=[TableEvent.of(e, loaded.table.id, held.seat) for e in events],
            )

        @strawberry.mutation(
            description="Come back to the seat you left at a playing table, with its token, "
            "before its grace period ends."
        )
        async def rejoin_table(self, info: Info, table_id: strawberry.ID) -> TableType:
            return await as_caller(info, table_id, info.context.services.tables.operations.rejoin)

        @strawberry.mutation(
            description="Hand a seat (a player's, one left, or a bot's) to a new player (host "
            "only, OPEN or PLAYING): the new token is shown once; the old one stops working."
        )
        async def replace_seat(
            self, info: Info, table_id: strawberry.ID, seat: int, name: str
        ) -> JoinTablePayload:
            caller = await info.context.credential()
            loaded, token = await info.context.services.tables.operations.replace_seat(
                caller, str(table_id), seat, name
            )
            # The table as the host sees it: the new player's hand is the new player's.
            return JoinTablePayload(
                table=table_of(loaded, rights(caller, loaded.table)), seat=seat, player_token=token
            )

    @strawberry.type
    class Subscription:
        @strawberry.subscription(
            description="The table's events after `after` (all when null), then live ones."
        )
        async def table_events(
            self, info: Info, table_id: strawberry.ID, after: str | None = None
        ) -> AsyncGenerator[TableEvent, None]:
            async for event in event_stream(info.context, str(table_id), after):
                yield event

        @strawberry.subscription(
            description="The open public tables (of one game, or all): a snapshot "
            "(`table.listed`, then `lobby.live`), then live changes."
        )
        async def lobby_events(
            self, info: Info, game_id: strawberry.ID | None = None
        ) -> AsyncGenerator[LobbyEvent, None]:
            services = info.context.services
            if services.lobby is None:
                services.lobby = LobbyHub(services.tables.store, services.settings.subscriber_queue)
            game = str(game_id) if game_id is not None else None
            async with services.lobby.listen(game) as listening:
                page: str | None = None
                listed = 0
                while listed < LOBBY_SNAPSHOT:
                    found, more = await services.tables.reads.list(game, "OPEN", MAX_PAGE, page)
                    for t in found:
                        listed += 1
                        yield LobbyEvent(
                            type="table.listed",
                            table_id=strawberry.ID(t.table.id),
                            game_id=strawberry.ID(t.table.game_id),
                            status=TableStatus(t.table.status),
                        )
                    page = more.next
                    if page is None:
                        break
                yield LobbyEvent(type="lobby.live", table_id=None, game_id=None, status=None)
                while True:
                    notice = await listening.next()
                    yield LobbyEvent(
                        type=str(notice.get("type")),
                        table_id=strawberry.ID(str(notice.get("tableId"))),
                        game_id=strawberry.ID(str(notice.get("gameId"))),
                        status=TableStatus(notice["status"])
                        if notice.get("status") in TableStatus.__members__
                        else None,
                    )

    state_types: Sequence[type] = sorted(
        (g.state_type for g in registry.games.values() if g.state_type is not None),
        key=lambda t: t.__name__,
    )

    class _Checks(Checks):
        max_tokens = settings.max_tokens
        # The limiters build their validation rules as classes per instance; build them
        # once, so that every request validates with the same rules.
        rules = (
            *QueryDepthLimiter(max_depth=settings.max_depth).validation_rules,
            *MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules,
        )
        max_aliases = settings.max_aliases
        max_cost = settings.max_cost
        max_mutations = settings.max_mutations

    _Checks.metrics = metrics = metrics or Metrics()
    schema = TablestateSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=list(state_types),
        config=StrawberryConfig(auto_camel_case=True),
        execution_context_class=SharingExecutor,  # type: ignore[arg-type]
        extensions=[_Checks],
    )
    schema.metrics = metrics
    # The hottest field takes its arguments as graphql-core coerced them: Strawberry would
    # build the move's input objects only for move_to_json to take them apart again (a
    # sixth of a move's GraphQL time). Same resolver body, same errors.
    schema._schema.mutation_type.fields["makeMove"].resolve = _raw_make_move  # type: ignore[union-attr]
    return schema

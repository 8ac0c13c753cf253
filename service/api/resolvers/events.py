"""The subscriptions: ``tableEvents`` (one implementation, ``table_events``, which
``api/direct.py`` runs too) and ``lobbyEvents``.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

from collections.abc import AsyncGenerator, Callable
from typing import Any

import strawberry

from service.api.context import Context
from service.api.types import LobbyEvent, TableEvent, TableStatus
from service.engine.rights import HELD, LOST, SPECTATOR, lost, rights, visible
from service.errors import ApiError
from service.store.base import BadCursor, cursor_key

Info = strawberry.Info[Context, None]
MAX_PAGE = 100
LOBBY_SNAPSHOT = 500  # open tables at most in a lobbyEvents snapshot


async def event_stream(
    context: Context, table_id: str, after: str | None
) -> AsyncGenerator[TableEvent, None]:
    """``tableEvents``: the table's events after ``after`` as the caller sees them, then
    live ones.

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


async def table_events(
    info: Info, table_id: strawberry.ID, after: str | None = None
) -> AsyncGenerator[TableEvent, None]:
    async for event in event_stream(info.context, str(table_id), after):
        yield event


async def lobby_events(
    info: Info, game_id: strawberry.ID | None = None
) -> AsyncGenerator[LobbyEvent, None]:
    services = info.context.services
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
            status = notice.get("status")
            yield LobbyEvent(
                type=str(notice.get("type")),
                table_id=strawberry.ID(str(notice.get("tableId"))),
                game_id=strawberry.ID(str(notice.get("gameId"))),
                status=TableStatus(status) if status in TableStatus.__members__ else None,
            )


FIELDS: tuple[tuple[Callable[..., Any], str], ...] = (
    (table_events, "The table's events after `after` (all when null), then live ones."),
    (
        lobby_events,
        "The open public tables (of one game, or all): a snapshot (`table.listed`, then "
        "`lobby.live`), then live changes.",
    ),
)

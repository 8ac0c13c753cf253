"""The root queries: games, tables, who the caller is and a signed-in user's tables.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

from collections.abc import Callable
from typing import Any

import strawberry

from service.api.context import Context
from service.api.types import (
    Game,
    PageInfo,
    Plugin,
    Table,
    TableConnection,
    TableStatus,
    User,
    Viewer,
    table_of,
)
from service.engine.rights import HELD, Credential, user_of
from service.errors import ApiError
from service.store.base import BadCursor, Page
from service.tables import Loaded

Info = strawberry.Info[Context, None]
MAX_PAGE = 100


def games(info: Info) -> list[Game]:
    reg = info.context.services.registry
    return [Game.of(g, reg) for g in sorted(reg.games)]


def game(info: Info, id: strawberry.ID) -> Game | None:
    reg = info.context.services.registry
    return Game.of(str(id), reg) if str(id) in reg.games else None


async def table(info: Info, id: strawberry.ID) -> Table | None:
    await info.context.credential()  # a bad token is refused first
    loaded = await info.context.services.tables.reads.load(str(id))
    return table_of(loaded, await info.context.viewing(loaded)) if loaded is not None else None


def _page_args(first: int, after: str | None) -> None:
    if not 0 < first <= MAX_PAGE:
        raise ApiError("BAD_INPUT", f"first is 1 to {MAX_PAGE}")
    if after is not None and len(after) > 200:
        raise ApiError("BAD_INPUT", "malformed cursor")


async def _connection(info: Info, found: list[Loaded], page: Page) -> TableConnection:
    """A page of tables as the caller sees them: those it may not watch left out."""
    shown = [(t, await info.context.watches(t)) for t in found]
    nodes = [table_of(t, held) for t, held in shown if held is not None]
    return TableConnection(
        nodes=nodes, page_info=PageInfo(end_cursor=page.next, has_next_page=bool(page.next))
    )


async def tables(
    info: Info,
    game_id: strawberry.ID | None = None,
    status: TableStatus | None = None,
    first: int = 20,
    after: str | None = None,
) -> TableConnection:
    _page_args(first, after)
    await info.context.credential()
    try:
        found, page = await info.context.services.tables.reads.list(
            str(game_id) if game_id is not None else None,
            status.value if status is not None else None,
            first,
            after,
        )
    except BadCursor as exc:
        raise ApiError("BAD_INPUT", str(exc)) from exc
    return await _connection(info, found, page)


async def my_tables(
    info: Info, status: TableStatus | None = None, first: int = 20, after: str | None = None
) -> TableConnection:
    _page_args(first, after)
    user = user_of(await info.context.credential())
    if user is None:
        raise ApiError("UNAUTHENTICATED", "myTables needs a signed-in user")
    try:
        found, page = await info.context.services.tables.reads.mine(
            user, status.value if status is not None else None, first, after
        )
    except BadCursor as exc:
        raise ApiError("BAD_INPUT", str(exc)) from exc
    return await _connection(info, found, page)


async def viewer(info: Info, table_id: strawberry.ID | None = None) -> Viewer | None:
    caller = await info.context.credential()
    if caller is None:
        return None
    reads = info.context.services.tables.reads
    if isinstance(caller, Credential):
        held = await info.context.rights(await reads.load(str(table_id or caller.table_id)))
        if held.standing != HELD:
            return None  # a token whose table took back what it held, or another table's
        asked = strawberry.ID(str(table_id or caller.table_id))
        return Viewer(table_id=asked, seat=held.seat, is_host=held.host)
    user = user_of(caller)
    if user is None:
        return None  # a sign-in that has ended
    who = User(id=strawberry.ID(user.id), name=user.name)
    if table_id is None:
        return Viewer(table_id=None, seat=None, is_host=False, user=who)
    held = await info.context.rights(await reads.load(str(table_id)))
    return Viewer(table_id=table_id, seat=held.seat, is_host=held.host, user=who)


def plugins(info: Info) -> list[Plugin]:
    return [Plugin.of(p) for p in info.context.services.registry.plugins]


FIELDS: tuple[tuple[Callable[..., Any], str], ...] = (
    (games, "Every installed game."),
    (game, "One game, or null."),
    (table, "One table as you may see it, or null."),
    (tables, "Tables, newest first."),
    (
        viewer,
        "Who the sent token says you are (null: a spectator), at its table or at `tableId`.",
    ),
    (
        my_tables,
        "The tables where the signed-in user holds a seat or the host's rights, newest first "
        "(UNAUTHENTICATED without a sign-in).",
    ),
    (plugins, "The loaded plugins and the hooks they implement."),
)

"""The root queries: games, tables and who the caller is.

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
    Viewer,
    table_of,
)
from service.engine.rights import HELD, rights
from service.errors import ApiError
from service.store.base import BadCursor

Info = strawberry.Info[Context, None]
MAX_PAGE = 100


def games(info: Info) -> list[Game]:
    reg = info.context.services.registry
    return [Game.of(g, reg) for g in sorted(reg.games)]


def game(info: Info, id: strawberry.ID) -> Game | None:
    reg = info.context.services.registry
    return Game.of(str(id), reg) if str(id) in reg.games else None


async def table(info: Info, id: strawberry.ID) -> Table | None:
    caller = await info.context.credential()
    loaded = await info.context.services.tables.reads.load(str(id))
    return table_of(loaded, rights(caller, loaded.table)) if loaded is not None else None


async def tables(
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
    try:
        found, page = await info.context.services.tables.reads.list(
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


async def viewer(info: Info) -> Viewer | None:
    caller = await info.context.credential()
    if caller is None:
        return None
    held = await info.context.rights(await info.context.services.tables.reads.load(caller.table_id))
    if held.standing != HELD:
        return None  # a token whose table took back what it held
    return Viewer(table_id=strawberry.ID(caller.table_id), seat=held.seat, is_host=held.host)


def plugins(info: Info) -> list[Plugin]:
    return [Plugin.of(p) for p in info.context.services.registry.plugins]


FIELDS: tuple[tuple[Callable[..., Any], str], ...] = (
    (games, "Every installed game."),
    (game, "One game, or null."),
    (table, "One table as you may see it, or null."),
    (tables, "Tables, newest first."),
    (viewer, "Who the sent token says you are (null: a spectator)."),
    (plugins, "The loaded plugins and the hooks they implement."),
)

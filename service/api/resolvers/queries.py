"""The root queries: games, tables, who the caller is and a signed-in user's tables.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

from collections.abc import Awaitable, Callable
from typing import Any

import strawberry

from tablestate.api.context import Context
from tablestate.api.types import (
    Game,
    HouseRule,
    Node,
    PageInfo,
    Plugin,
    Table,
    TableConnection,
    TableEdge,
    TableStatus,
    User,
    Viewer,
    seats_of,
    table_of,
)
from tablestate.api.types.ratings import (
    Rating,
    RatingConnection,
    RatingEdge,
    board_cursor,
    parse_board_cursor,
    variant_of,
)
from tablestate.archive.db import ArchiveUnavailable
from tablestate.engine.rights import HELD, Credential, Rights, user_of
from tablestate.engine.schema import parse_global_id
from tablestate.errors import ApiError
from tablestate.store.base import BadCursor, Page, page_cursor, parse_page_cursor
from tablestate.tables import Loaded

Info = strawberry.Info[Context, None]
MAX_PAGE = 100
MAX_NODES = 100  # ids in one nodes(ids:)
MAX_ID = 200  # characters of an id node(id:) looks up
LIST_READS = 5  # store pages read at most for one page of tables (hidden ones use them up)
Read = Callable[[int, str | None], Awaitable[tuple[list[Loaded], Page]]]


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


async def _connection(info: Info, read: Read, first: int, after: str | None) -> TableConnection:
    """A page of tables as the caller sees them: those it may not watch are left out, and
    no cursor names one of them. ``read(n, after)`` reads a page of the store's listing;
    pages are read until ``first`` tables are shown, the listing ends, or ``LIST_READS``
    pages were read. The end is the last table shown, or, past hidden tables read after it,
    a place between rows that names none (``page_cursor`` without a table id)."""
    edges: list[TableEdge] = []
    hidden: list[float] = []  # when each table read after the last one shown was made
    cursor = after
    for _ in range(LIST_READS):
        try:
            found, page = await read(first - len(edges), cursor)
        except BadCursor as exc:
            raise ApiError("BAD_INPUT", str(exc)) from exc
        tables = {t.table.id: t for t in found}
        for table_id, row in zip(page.table_ids, page.cursors, strict=True):
            loaded = tables.get(table_id)
            held = await info.context.watches(loaded) if loaded is not None else None
            if loaded is None or held is None:
                hidden.append(parse_page_cursor(row)[0])
                continue
            edges.append(TableEdge(cursor=row, node=table_of(loaded, held)))
            hidden = []
        cursor = page.next
        if cursor is None or len(edges) >= first:
            break
    end = edges[-1].cursor if edges else None
    if cursor is not None and hidden:
        end = _between(hidden)
    return TableConnection(
        nodes=[e.node for e in edges],
        edges=edges,
        page_info=PageInfo(
            end_cursor=end,
            has_next_page=cursor is not None,
            has_previous_page=after is not None,
            start_cursor=edges[0].cursor if edges else None,
        ),
    )


def _between(made: list[float]) -> str:
    """A place after tables read and hidden (``made``: when each was made, newest first) that
    names none of them: before the oldest of them made at another time than the last, so
    that no table made with the last is skipped (they are read again); when all were made
    at one time, after that time."""
    last = made[-1]
    return page_cursor(min((m for m in made if m > last), default=last))


async def tables(
    info: Info,
    game_id: strawberry.ID | None = None,
    status: TableStatus | None = None,
    first: int = 20,
    after: str | None = None,
) -> TableConnection:
    _page_args(first, after)
    await info.context.credential()
    reads = info.context.services.tables.reads
    game = str(game_id) if game_id is not None else None
    state = status.value if status is not None else None
    return await _connection(info, lambda n, a: reads.list(game, state, n, a), first, after)


async def my_tables(
    info: Info, status: TableStatus | None = None, first: int = 20, after: str | None = None
) -> TableConnection:
    _page_args(first, after)
    user = user_of(await info.context.credential())
    if user is None:
        raise ApiError("UNAUTHENTICATED", "myTables needs a signed-in user")
    reads = info.context.services.tables.reads
    state = status.value if status is not None else None
    return await _connection(info, lambda n, a: reads.mine(user, state, n, a), first, after)


async def viewer(info: Info, table_id: strawberry.ID | None = None) -> Viewer | None:
    caller = await info.context.credential()
    if caller is None:
        return None
    reads = info.context.services.tables.reads
    if isinstance(caller, Credential):
        held = await info.context.rights(await reads.load(str(table_id or caller.table_id)))
        if held.standing != HELD:
            return None  # a token whose table took back what it held, or another table's
        asked = str(table_id or caller.table_id)
        return Viewer.of(asked, held.seat, held.host)
    user = user_of(caller)
    if user is None:
        return None  # a sign-in that has ended
    who = User(id=strawberry.ID(user.id), name=user.name)
    if table_id is None:
        return Viewer.of(None, None, False, who)
    held = await info.context.rights(await reads.load(str(table_id)))
    return Viewer.of(str(table_id), held.seat, held.host, who)


async def node(info: Info, id: strawberry.ID) -> Node | None:
    """The object of an id as the caller may see it now; None for an unknown id, an id
    of no refetchable object, and an object the caller may not see (as ``table(id:)``)."""
    await info.context.credential()  # a bad token is refused first
    text = str(id)
    if len(text) > MAX_ID:
        return None
    reg = info.context.services.registry
    parsed = parse_global_id(text)
    if parsed is not None and parsed[0] == "Seat" and len(parsed[1]) == 2:
        table_id, index = parsed[1]
        loaded = await _visible(info, table_id)
        seats = seats_of(loaded[0], info.context) if loaded is not None else []
        return next((s for s in seats if str(s.index) == index), None)
    if text in reg.games:
        return Game.of(text, reg)
    if text in reg.house_rules:
        return HouseRule.of(reg.house_rules[text], reg)
    found = await _visible(info, text)
    return table_of(*found) if found is not None else None


async def _visible(info: Info, table_id: str) -> tuple[Loaded, Rights] | None:
    """The table and what the caller holds at it, if the caller may watch it."""
    loaded = await info.context.services.tables.reads.load(table_id)
    held = await info.context.watches(loaded) if loaded is not None else None
    return (loaded, held) if loaded is not None and held is not None else None


async def nodes(info: Info, ids: list[strawberry.ID]) -> list[Node | None]:
    if len(ids) > MAX_NODES:
        raise ApiError("BAD_INPUT", f"at most {MAX_NODES} ids")
    return [await node(info, i) for i in ids]


async def leaderboard(
    info: Info,
    game_id: strawberry.ID,
    house_rules: list[strawberry.ID] | None = None,
    first: int = 20,
    after: str | None = None,
) -> RatingConnection:
    _page_args(first, after)
    await info.context.credential()  # a bad token is refused first
    if str(game_id) not in info.context.services.registry.games:
        raise ApiError("NOT_FOUND", "no such game")
    rank, bound = parse_board_cursor(after) if after is not None else (0, None)
    archive = info.context.services.tables.reads.archive
    if archive is None:
        raise ApiError("UNAVAILABLE", "this server keeps no archive, so no ratings")
    variant = variant_of(house_rules or [])
    try:
        found = await archive.leaderboard(str(game_id), variant, first + 1, bound)
    except ArchiveUnavailable as exc:
        raise ApiError("UNAVAILABLE", "the archive is unreachable; retry later") from exc
    page = found[:first]
    edges = [
        RatingEdge(cursor=board_cursor(rank + n, r), rank=rank + n, node=Rating.of(r))
        for n, r in enumerate(page, 1)
    ]
    return RatingConnection(
        nodes=[e.node for e in edges],
        edges=edges,
        page_info=PageInfo(
            end_cursor=edges[-1].cursor if edges else None,
            has_next_page=len(found) > first,
            has_previous_page=after is not None,
            start_cursor=edges[0].cursor if edges else None,
        ),
    )


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
    (
        leaderboard,
        "The signed-in users' ratings in a game, highest ordinal first; `houseRules`: the "
        "variant ([]: the game's own rules). UNAVAILABLE where the server keeps no archive.",
    ),
    (
        node,
        "The object of a global id (a table, a seat, a game, a house rule) as you may see "
        "it now, or null (Relay's refetch).",
    ),
    (nodes, f"The objects of these ids, each as `node(id:)` gives it (at most {MAX_NODES})."),
)

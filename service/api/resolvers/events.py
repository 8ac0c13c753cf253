"""The subscriptions: ``tableEvents`` (one implementation, ``table_events``, which
``api/direct.py`` runs too) and ``lobbyEvents``.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

import strawberry

from tablestate.api.context import Context
from tablestate.api.types import LobbyEvent, TableEvent, TableStatus
from tablestate.engine.options import core
from tablestate.engine.rights import (
    ELSEWHERE,
    EXPIRED,
    HELD,
    LOST,
    SIGNED_IN,
    SPECTATOR,
    Caller,
    Rights,
    User,
    lost,
    may_watch,
    may_watch_with,
    rights,
    watch_refusal,
)
from tablestate.engine.table import OPEN
from tablestate.engine.views import Sight
from tablestate.errors import ApiError
from tablestate.lobby import seen_as
from tablestate.store.base import BadCursor, cursor_key
from tablestate.tables.loading import refuse

Info = strawberry.Info[Context, None]
MAX_PAGE = 100
LOBBY_SNAPSHOT = 500  # open tables at most in a lobbyEvents snapshot
ARCHIVED_PAGE = 1000  # events read at once for a subscription to an archived table
GONE = "this token no longer holds its seat"
_T = TypeVar("_T")


async def _until_expiry(items: AsyncIterator[_T], user: User) -> AsyncGenerator[_T, None]:
    """``items`` until ``user``'s sign-in ends, then ``UNAUTHENTICATED``. The timeout covers
    the wait for each next item only, never the consumer's work between items (a timeout
    spanning a ``yield`` would cancel whatever the consumer awaits then)."""
    deadline = asyncio.get_running_loop().time() + user.remaining()
    async with contextlib.aclosing(items):  # type: ignore[type-var]  # a generator: closable
        while True:
            timer = asyncio.timeout_at(deadline)
            try:
                async with timer:
                    item = await anext(items)
            except StopAsyncIteration:
                return
            except TimeoutError:
                if not timer.expired():
                    raise
                raise ApiError("UNAUTHENTICATED", EXPIRED) from None
            yield item


async def event_stream(
    context: Context,
    table_id: str,
    after: str | None,
    take: Callable[[TableEvent], bool] | None = None,
) -> AsyncGenerator[TableEvent, None]:
    """``tableEvents``: the table's events after ``after`` as the caller sees them, then
    live ones.

    The caller's rights are asked at every event, at the newest table known then: once
    they no longer hold what they held when the subscription began (a seat, host
    rights), it ends with ``UNAUTHENTICATED``, before anything else is sent. A signed-in
    caller's subscription ends so at its sign-in's expiry, events or none. A spectator who
    may not watch the table is refused (``FORBIDDEN``), also later, should the host turn
    spectators off while the table is OPEN.

    ``take``: a live event that finds the stream waiting, judged the same way, is handed to
    ``take`` at once where it is delivered (``Hub.subscribe``'s sink), unless anything
    stands in the way (the table to read, rights that no longer hold: then it comes
    through the stream); ``take`` says whether it took it, and does nothing if not."""
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
        raise ApiError("UNAUTHENTICATED", start.why or GONE)
    policy = services.settings.spectators
    if not may_watch(start, loaded.table, policy):
        raise refuse(watch_refusal(loaded.table, policy))
    watching = start.standing != HELD
    if watching:
        start = SPECTATOR  # a token for another table, or a user without a seat, watches
    seat, sight = start.seat, Sight.of(start)  # what it is shown: engine/views.py
    # A seat asks its rights at every event; a spectator, whether it may still watch,
    # where that can change (the options of an OPEN table).
    follows = not watching or loaded.table.status == OPEN

    def judged(item: Any, table: Any) -> TableEvent | None:
        """The event as the caller sees it now (None: nothing of it is theirs to see)."""
        if follows:
            now = rights(caller, table)
            if lost(start, now):
                raise ApiError("UNAUTHENTICATED", now.why or GONE)
            if watching and table is not None and not may_watch(now, table, policy):
                raise refuse(watch_refusal(table, policy))
        if sight.sees(item.event):
            return TableEvent.delivered(item, table_id, sight)
        return None

    reads = services.tables.reads
    if reads.only_archived(table_id):
        # Only the archive holds it: everything that will ever happen has, so the stream
        # is the archived events after ``after`` that the caller may see, then its end.
        while True:
            found = await reads.events(
                table_id, after, ARCHIVED_PAGE, None, seated=seat is not None
            )
            for stored in found:
                if sight.sees(stored):
                    yield TableEvent.of(stored, table_id, seat)
            if len(found) < ARCHIVED_PAGE:
                return
            after = found[-1].cursor

    sink = None
    if take is not None:

        def sink(item: Any, table: Any) -> bool:
            if follows and table is None:
                return False  # the table is to be read first
            if isinstance(caller, User) and caller.remaining() <= 0:
                return False  # the sign-in ended: the stream ends
            try:
                event = judged(item, table)
            except ApiError:
                return False  # the stream ends with it
            return event is None or take(event)

    items: AsyncIterator[Any] = services.hub.subscribe(table_id, after, seat, follows, sink)
    if isinstance(caller, User):
        items = _until_expiry(items, caller)
    async with services.tables.attendance.present(table_id, seat):
        async for item, table in items:
            if follows and table is None:  # not known to the hub: read it
                table = await services.tables.reads.load_table(table_id)
            event = judged(item, table)
            if event is not None:
                yield event
            del item, table, event  # while it waits, the subscription holds no event


async def table_events(
    info: Info, table_id: strawberry.ID, after: str | None = None
) -> AsyncGenerator[TableEvent, None]:
    async for event in event_stream(info.context, str(table_id), after):
        yield event


async def lobby_events(
    info: Info, game_id: strawberry.ID | None = None
) -> AsyncGenerator[LobbyEvent, None]:
    context = info.context
    services = context.services
    game = str(game_id) if game_id is not None else None
    lobby = services.lobby
    assert lobby is not None  # the app makes one (create_app)
    async with lobby.listen(game) as listening:
        page: str | None = None
        listed = 0
        for _ in range(LOBBY_SNAPSHOT // MAX_PAGE * 2):  # hidden tables use up reads too
            found, more = await services.tables.reads.list(game, "OPEN", MAX_PAGE, page)
            for t in found:
                if listed >= LOBBY_SNAPSHOT or await context.watches(t) is None:
                    continue
                listed += 1
                yield LobbyEvent(
                    type="table.listed",
                    table_id=strawberry.ID(t.table.id),
                    game_id=strawberry.ID(t.table.game_id),
                    status=TableStatus(t.table.status),
                )
            page = more.next
            if page is None or listed >= LOBBY_SNAPSHOT:
                break
        yield LobbyEvent(type="lobby.live", table_id=None, game_id=None, status=None)
        while True:
            heard = await listening.next()
            notice = seen_as(heard, *await _watches(context, heard))
            if notice is None:
                continue  # a table this subscriber may not watch, then or now
            status = notice.get("status")
            yield LobbyEvent(
                type=str(notice.get("type")),
                table_id=strawberry.ID(str(notice.get("tableId"))),
                game_id=strawberry.ID(str(notice.get("gameId"))),
                status=TableStatus(status) if status in TableStatus.__members__ else None,
            )


async def _watches(context: Context, notice: dict[str, Any]) -> tuple[bool, bool]:
    """Whether the caller could watch the table of a lobby notice before its change, and
    may watch it now (``may_watch``): from what the notice says of the table's spectators
    then and now, and from the table's own records where the caller may hold something
    there (a token of that table; a signed-in user, unless it may watch anyway)."""
    policy = context.services.settings.spectators
    caller = await context.credential()
    table_id = str(notice.get("tableId"))
    flags = notice.get("before", False), notice.get("spectators")
    said = isinstance(flags[0], bool) and isinstance(flags[1], bool)  # older replicas: not
    held = _outside(caller, table_id)

    def judged(held: Rights) -> tuple[bool, bool]:
        before, now = flags
        return may_watch_with(held, bool(before), policy), may_watch_with(held, bool(now), policy)

    if said and held is not None:
        seen = judged(held)
        if all(seen) or not isinstance(caller, User):
            return seen
    loaded = await context.services.tables.reads.load(table_id)
    if loaded is None:
        return False, False
    if not said:
        flags = (bool(core(loaded.table.options, "spectators")),) * 2
    return judged(rights(caller, loaded.table))


def _outside(caller: Caller | None, table_id: str) -> Rights | None:
    """What ``caller`` holds at a table, where that is known without reading the table
    (None: the table's records decide; a signed-in user's guess: none but its sign-in)."""
    if caller is None:
        return SPECTATOR
    if isinstance(caller, User):
        return Rights(standing=SIGNED_IN if caller.remaining() > 0 else LOST)
    return Rights(standing=ELSEWHERE) if caller.table_id != table_id else None


FIELDS: tuple[tuple[Callable[..., Any], str], ...] = (
    (table_events, "The table's events after `after` (all when null), then live ones."),
    (
        lobby_events,
        "The open public tables (of one game, or all): a snapshot (`table.listed`, then "
        "`lobby.live`), then live changes.",
    ),
)

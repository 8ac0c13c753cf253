"""Quick play: ``quickPlay``, ``cancelQuickPlay`` and ``quickPlayEvents``
(``service/tables/quickplay.py``).

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import math
from collections.abc import AsyncGenerator, Callable
from typing import Any

import strawberry
from strawberry.scalars import JSON

from tablestate.api.context import Context
from tablestate.api.resolvers.tables import table_wish
from tablestate.api.types.quickplay import (
    QuickPlayBots,
    QuickPlayEvent,
    QuickPlayPlayers,
    QuickPlayStatus,
    QuickPlayTicket,
)
from tablestate.engine.rights import user_of
from tablestate.errors import ApiError
from tablestate.tables.quickplay import Status, Wish

Info = strawberry.Info[Context, None]
# Tickets made per address (and per signed-in user): a burst, refilled at a steady rate.
TICKETS_BURST = 10
TICKETS_PER_MINUTE = 20


async def _admit(info: Info) -> None:
    """Count a ticket against its address and its user (``RATE_LIMITED`` past the limit)."""
    context = info.context
    guard, client = context.services.guard, context.client
    if guard is None or client is None or client.exempt:
        return
    keys = ["qp:a:" + client.address]
    user = user_of(await context.credential())
    if user is not None:
        keys.append("qp:u:" + user.id)
    for key in keys:
        try:
            wait = float(
                await context.services.tables.store.rate_limit(
                    key, TICKETS_PER_MINUTE / 60, TICKETS_BURST
                )
            )
        except Exception:  # fail open, as every limit does: the ticket then meets the store
            return
        if wait > 0:
            raise ApiError(
                "RATE_LIMITED", f"too many quick play tickets; retry in {math.ceil(wait)} s"
            )


async def quick_play(
    info: Info,
    game_id: strawberry.ID,
    house_rules: list[strawberry.ID] | None = None,
    options: JSON | None = None,
    players: QuickPlayPlayers | None = None,
    bots: QuickPlayBots | None = None,
    name: str | None = None,
) -> QuickPlayTicket:
    caller = await info.context.credential()
    rules = table_wish(house_rules, options)
    await _admit(info)
    user = user_of(caller)
    bots = bots or QuickPlayBots()
    wish = Wish(
        game_id=str(game_id),
        house_rules=tuple(rules),
        options=options,
        min=players.min if players is not None else None,
        max=players.max if players is not None else None,
        bots=bots.allowed,
        after=bots.after_seconds,
        name=name if name is not None else (user.name if user and user.name else "Player"),
    )
    client = info.context.client
    address = client.address if client is not None else ""
    ticket = await info.context.services.tables.quick.enqueue(caller, wish, address)
    return QuickPlayTicket.of(ticket)


async def cancel_quick_play(info: Info, ticket: strawberry.ID) -> bool:
    caller = await info.context.credential()
    return await info.context.services.tables.quick.cancel(caller, str(ticket))


def _event(found: Status) -> QuickPlayEvent:
    return QuickPlayEvent(
        status=QuickPlayStatus(found.status),
        ticket=QuickPlayTicket.of(found.ticket),
        ahead=found.ahead,
        estimated_wait_seconds=None if found.estimated_wait is None else int(found.estimated_wait),
        table_id=strawberry.ID(found.table_id) if found.table_id is not None else None,
        seat=found.seat,
        player_token=found.token,
    )


async def quick_play_events(
    info: Info, ticket: strawberry.ID
) -> AsyncGenerator[QuickPlayEvent, None]:
    caller = await info.context.credential()
    async for found in info.context.services.tables.quick.events(caller, str(ticket)):
        yield _event(found)


MUTATIONS: tuple[tuple[Callable[..., Any], str], ...] = (
    (
        quick_play,
        "Play now: a ticket that waits to be matched with other players of the same game, "
        "house rules and options (docs/clients.md, Quick play). Listen with quickPlayEvents "
        "(a ticket nobody listens to expires after 15 s).",
    ),
    (
        cancel_quick_play,
        "End a waiting ticket: true; false when it had ended already (matched: the table is "
        "there to play).",
    ),
)
SUBSCRIPTIONS: tuple[tuple[Callable[..., Any], str], ...] = (
    (
        quick_play_events,
        "A ticket's place while it waits, then MATCHED with the table and the seat (or "
        "CANCELLED, EXPIRED); the stream then ends.",
    ),
)

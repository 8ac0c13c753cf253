"""The table mutations of API.md but moves: tables, seats, the host's, chat, rematch, undo.

Each asks the caller's credential once (a bad token is refused before anything else), runs
the operation of ``service/tables`` (which asks the caller's rights at every version it
tries), and answers with the table as the caller sees it after it.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import json
import math
from collections.abc import Awaitable, Callable
from typing import Any

import strawberry
from strawberry.scalars import JSON

from tablestate.api.context import Context
from tablestate.api.types import (
    BotLevel,
    CreateTablePayload,
    JoinTablePayload,
    MovePayload,
    RematchPayload,
    Table,
    TableEvent,
    table_of,
)
from tablestate.engine.rights import Credential, rights
from tablestate.errors import ApiError
from tablestate.tables import Loaded

Info = strawberry.Info[Context, None]
MAX_OPTIONS_BYTES = 16_384
MAX_RULES = 64
MAX_CHAT_INPUT = 4_000  # characters of sendChat's text before it is even normalized


def as_token(loaded: Loaded, token: str | None) -> Table:
    """The table as the holder of a token just made for it sees it."""
    return table_of(loaded, rights(Credential.of_token(token), loaded.table))


async def as_caller(
    info: Info, table_id: strawberry.ID, op: Callable[[Any, str], Awaitable[Loaded]]
) -> Table:
    """Run a table operation as the caller (``op(credential, table_id)``): the table after
    it, as the caller sees it."""
    caller = await info.context.credential()
    loaded = await op(caller, str(table_id))
    return table_of(loaded, rights(caller, loaded.table))


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


def table_wish(house_rules: list[strawberry.ID] | None, options: Any) -> list[str]:
    """The house rules asked (as ids), within the bounds every table's request keeps, and
    options within their size.

    Raises:
        ApiError: ``BAD_INPUT`` past ``MAX_RULES`` rules or ``MAX_OPTIONS_BYTES`` of options.
    """
    rules = [str(r) for r in house_rules or []]
    if len(rules) > MAX_RULES:
        raise ApiError("BAD_INPUT", f"at most {MAX_RULES} house rules")
    _options_size(options)
    return rules


def _options_size(options: Any) -> None:
    if options is not None and len(json.dumps(options)) > MAX_OPTIONS_BYTES:
        raise ApiError("BAD_INPUT", "options are too large")


async def create_table(
    info: Info,
    game_id: strawberry.ID,
    house_rules: list[strawberry.ID] | None = None,
    options: JSON | None = None,
    seats: int | None = None,
    private: bool = False,
) -> CreateTablePayload:
    caller = await info.context.credential()  # a bad token is refused first
    operations = info.context.services.tables.operations
    operations.check_sign_in(caller, "create a table")
    rules = table_wish(house_rules, options)
    await admit_table(info.context)
    loaded, token = await operations.create(str(game_id), rules, options, seats, private, caller)
    return CreateTablePayload(
        table=table_of(loaded, rights(caller, loaded.table)),
        host_token=token,
        join_code=loaded.table.join_code,
    )


async def join_table(
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


async def add_bot(
    info: Info,
    table_id: strawberry.ID,
    seat: int | None = None,
    level: BotLevel = BotLevel.NORMAL,
) -> Table:
    ops = info.context.services.tables.operations
    return await as_caller(info, table_id, lambda c, t: ops.add_bot(c, t, seat, level.value))


async def leave_table(info: Info, table_id: strawberry.ID) -> Table:
    return await as_caller(info, table_id, info.context.services.tables.operations.leave)


async def set_house_rule(
    info: Info, table_id: strawberry.ID, rule_id: strawberry.ID, enabled: bool
) -> Table:
    ops = info.context.services.tables.operations
    return await as_caller(info, table_id, lambda c, t: ops.set_rule(c, t, str(rule_id), enabled))


async def start_game(info: Info, table_id: strawberry.ID) -> Table:
    return await as_caller(info, table_id, info.context.services.tables.operations.start)


async def set_options(info: Info, table_id: strawberry.ID, options: JSON) -> Table:
    await info.context.credential()  # a bad token is refused before anything else
    _options_size(options)
    ops = info.context.services.tables.operations
    return await as_caller(info, table_id, lambda c, t: ops.set_options(c, t, options))


async def kick_seat(info: Info, table_id: strawberry.ID, seat: int) -> Table:
    ops = info.context.services.tables.operations
    return await as_caller(info, table_id, lambda c, t: ops.kick(c, t, seat))


async def cancel_table(info: Info, table_id: strawberry.ID) -> Table:
    return await as_caller(info, table_id, info.context.services.tables.operations.cancel)


async def rematch(info: Info, table_id: strawberry.ID) -> RematchPayload:
    caller = await info.context.credential()
    opened = await info.context.services.tables.rematches.open(caller, str(table_id))
    loaded, seat, player_token, host_token = opened
    return RematchPayload(
        table=as_token(loaded, player_token or host_token),
        seat=seat,
        player_token=player_token,
        host_token=host_token,
    )


async def send_chat(
    info: Info, table_id: strawberry.ID, text: str, name: str | None = None
) -> TableEvent:
    caller = await info.context.credential()
    if len(text) > MAX_CHAT_INPUT or (name is not None and len(name) > MAX_CHAT_INPUT):
        raise ApiError("BAD_INPUT", "the message is too long")
    client = info.context.client
    event = await info.context.services.tables.chat.send(
        caller, str(table_id), text, name, client.address if client else ""
    )
    return TableEvent.of(event, str(table_id), event.seat)  # the sender's own view


async def undo_move(info: Info, table_id: strawberry.ID) -> MovePayload:
    caller = await info.context.credential()
    loaded, events = await info.context.services.tables.operations.undo(caller, str(table_id))
    held = rights(caller, loaded.table)
    return MovePayload(
        table=table_of(loaded, held),
        events=[TableEvent.of(e, loaded.table.id, held.seat) for e in events],
    )


async def rejoin_table(info: Info, table_id: strawberry.ID) -> Table:
    return await as_caller(info, table_id, info.context.services.tables.operations.rejoin)


async def replace_seat(
    info: Info, table_id: strawberry.ID, seat: int, name: str
) -> JoinTablePayload:
    caller = await info.context.credential()
    loaded, token = await info.context.services.tables.operations.replace_seat(
        caller, str(table_id), seat, name
    )
    # The table as the host sees it: the new player's hand is the new player's.
    held = rights(caller, loaded.table)
    return JoinTablePayload(table=table_of(loaded, held), seat=seat, player_token=token)


BEFORE_MOVES: tuple[tuple[Callable[..., Any], str], ...] = (
    (create_table, "Open a table; the host token is shown once."),
    (join_table, "Take a seat; the seat token is shown once."),
    (add_bot, "Seat a bot of a level, NORMAL by default (host only, OPEN only)."),
    (
        leave_table,
        "Leave your seat. OPEN: the seat empties. PLAYING: a bot takes it, at once or after "
        "the table's leaveGraceSeconds unless you rejoin.",
    ),
    (set_house_rule, "Turn a house rule on or off (host only, OPEN only)."),
    (start_game, "Deal and start playing (host only)."),
    (set_options, "New options for the table, checked like createTable's (host only, OPEN only)."),
    (kick_seat, "Empty a taken seat; its token stops working (host only, OPEN only)."),
    (cancel_table, "End an OPEN or PLAYING table with no result: CANCELLED (host only)."),
    (
        rematch,
        "Open the rematch of a FINISHED table (a seat or the host), once: later calls give "
        "the same table.",
    ),
    (
        send_chat,
        "Say something at a table. A seat's message (`chat.message`) reaches everyone; "
        "anyone else's (`chat.spectator`, `name` required) reaches viewers without a seat "
        "only. Chat never changes the table's version.",
    ),
)
AFTER_MOVES: tuple[tuple[Callable[..., Any], str], ...] = (
    (
        undo_move,
        "Take back your last move, if the table allows undo, nobody has moved since and the "
        "move gave you nothing new (a discard, not a draw or a roll).",
    ),
    (
        rejoin_table,
        "Come back to the seat you left at a playing table, with its token, before its grace "
        "period ends.",
    ),
    (
        replace_seat,
        "Hand a seat (a player's, one left, or a bot's) to a new player (host only, OPEN or "
        "PLAYING): the new token is shown once; the old one stops working.",
    ),
)

"""What a host does to a table before (or instead of) a game, and rematches: pure
functions from a ``Table`` to a new ``Table`` and its events, or a ``Rejected``.

The caller has checked the token and the host's rights, as for ``tablestate.engine.table``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from tablestate.engine.game import Event, GameDef, Rejected
from tablestate.engine.opening import check_options, with_seat
from tablestate.engine.table import (
    BOT,
    CANCELLED,
    EMPTY,
    FINISHED,
    HUMAN,
    OPEN,
    PLAYING,
    Seat,
    Table,
)

EVENT_TYPES: Final = (
    "options.changed",
    "seat.kicked",
    "table.cancelled",
    "table.rematch",
    "chat.message",
    "chat.spectator",
    "seat.connected",
    "seat.away",
)


def set_options(
    table: Table, *, game: GameDef[Any], options: Any, now: str
) -> tuple[Table, list[Event]] | Rejected:
    """New options for an OPEN table, checked like ``createTable``'s (defaults filled in)."""
    if table.status != OPEN:
        return Rejected("TABLE_NOT_OPEN", "options change only while the table is open")
    resolved = check_options(game, options, len(table.seats))
    if isinstance(resolved, Rejected):
        return resolved
    new = replace(table, options=resolved, updated_at=now)
    return new, [Event("options.changed", {"options": dict(resolved)})]


def kick(table: Table, *, seat: int, now: str) -> tuple[Table, list[Event]] | Rejected:
    """Empty a taken seat of an OPEN table; its token stops working."""
    if table.status != OPEN:
        return Rejected("TABLE_NOT_OPEN", "seats change only while the table is open")
    found = table.seat(seat)
    if found is None:
        return Rejected("NOT_FOUND", f"no seat {seat} at this table")
    if found.kind == EMPTY:
        return Rejected("NOT_FOUND", f"seat {seat} is empty")
    return with_seat(table, Seat(seat), now), [
        Event("seat.kicked", {"name": found.name}, seat=seat)
    ]


def cancel(table: Table, *, seed: str, now: str) -> tuple[Table, list[Event]] | Rejected:
    """End an OPEN or PLAYING table with no result; its seed is revealed (nothing more
    will be dealt from it)."""
    if table.status not in (OPEN, PLAYING):
        return Rejected("TABLE_NOT_PLAYING", "the table has already ended")
    # Clocks stop and grace periods end with the game: nothing falls due at it any more.
    seats = tuple(replace(s, turn_started=None, deadline=None, rejoin_by=None) for s in table.seats)
    new = replace(table, seats=seats, status=CANCELLED, revealed_seed=seed, updated_at=now)
    return new, [Event("table.cancelled", {"from": table.status, "shuffleSeed": seed})]


def rematch_table(
    old: Table,
    *,
    table_id: str,
    nonce: str,
    host_hash: str,
    commitment: str,
    seat_hashes: Mapping[int, str],
    join_code: str | None,
    now: str,
) -> tuple[Table, list[Event]]:
    """The OPEN table of a rematch: the same game, options, house rules and seats (humans
    with their new token hashes and their signed-in users, bots as bots), the same host
    user; linked back to ``old``."""
    seats = []
    for s in old.seats:
        if s.kind == HUMAN:
            seats.append(Seat(s.index, HUMAN, s.name, seat_hashes[s.index], s.host, user=s.user))
        elif s.kind == BOT:
            seats.append(Seat(s.index, BOT, s.name, bot_level=s.bot_level))
        else:
            seats.append(Seat(s.index))
    table = Table(
        id=table_id,
        game_id=old.game_id,
        status=OPEN,
        options=old.options,
        house_rules=old.house_rules,
        seats=tuple(seats),
        host_hash=host_hash,
        nonce=nonce,
        commitment=commitment,
        created_at=now,
        updated_at=now,
        private=old.private,
        join_code=join_code,
        rematch_of=old.id,
        host_user=old.host_user,
    )
    data = {
        "gameId": old.game_id,
        "seats": len(seats),
        "houseRules": list(old.house_rules),
        "rematchOf": old.id,
    }
    return table, [Event("table.created", data)]


def link_rematch(
    old: Table, *, table_id: str, private: Mapping[int, Mapping[str, Any]], now: str
) -> tuple[Table, list[Event]] | Rejected:
    """Record on a FINISHED table that ``table_id`` is its rematch; each seat's part of
    ``private`` (its new token) goes to that seat alone."""
    if old.status != FINISHED:
        return Rejected("BAD_INPUT", "only a finished table can have a rematch")
    if old.rematch is not None:
        return Rejected("BAD_INPUT", "this table already has a rematch")
    new = replace(old, rematch=table_id, updated_at=now)
    event = Event("table.rematch", {"tableId": table_id}, private=dict(private))
    return new, [event]

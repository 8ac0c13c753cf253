"""Seats that come and go while a table plays: leaving, rejoining, a bot taking over, the
host handing a seat to a new player.

Pure, like ``table.py``: a ``Table`` in, a new ``Table`` and its events out, or a
``Rejected``. A seat handed to a bot or to a new player loses its token hash and its
signed-in user, so the old token resolves to nothing (``UNAUTHENTICATED``) and the user
holds nothing there any more.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from tablestate.engine.clock import iso
from tablestate.engine.game import Event, Rejected
from tablestate.engine.opening import MAX_NAME, NAME_TAKEN, clean_name, name_taken, with_seat
from tablestate.engine.opening import leave as leave_open
from tablestate.engine.options import core
from tablestate.engine.table import BOT, EMPTY, FINISHED, HUMAN, OPEN, PLAYING, Seat, Table

LEFT: Final = "left"


def to_bot(seat: Seat) -> Seat:
    """The seat played by the bot from now on: no token, no clock, no grace."""
    return replace(
        seat,
        kind=BOT,
        token_hash=None,
        user=None,
        rejoin_by=None,
        turn_started=None,
        deadline=None,
    )


def leave(table: Table, *, seat: int, now: float, at: str) -> tuple[Table, list[Event]] | Rejected:
    """A seated player leaves. OPEN: the seat empties. PLAYING: the seat waits
    ``leaveGraceSeconds`` for the same token to come back, then (or at once when the
    option is 0) a bot takes it."""
    if table.status == OPEN:
        return leave_open(table, seat=seat, now=at)
    if table.status != PLAYING:
        return Rejected(
            "TABLE_NOT_OPEN", "seats can be left only while the table is open or playing"
        )
    s = table.seats[seat]
    if s.rejoin_by is not None:
        return Rejected("BAD_INPUT", "you have already left this table; rejoin it first")
    grace = float(core(table.options, "leaveGraceSeconds"))
    if grace <= 0:
        events = [
            Event("seat.left", {"rejoinBy": None}, seat=seat),
            Event("seat.bot_took_over", {"reason": LEFT, "name": s.name}, seat=seat),
        ]
        return with_seat(table, to_bot(s), at), events
    until = now + grace
    event = Event("seat.left", {"rejoinBy": iso(until)}, seat=seat)
    return with_seat(table, replace(s, rejoin_by=until), at), [event]


def rejoin(table: Table, *, seat: int, at: str) -> tuple[Table, list[Event]] | Rejected:
    """The player who left comes back with the same token, within the grace period."""
    if table.status != PLAYING:
        return Rejected("TABLE_NOT_PLAYING", "the table is not playing")
    s = table.seats[seat]
    if s.rejoin_by is None:
        return Rejected("BAD_INPUT", "you have not left this table")
    return with_seat(table, replace(s, rejoin_by=None), at), [Event("seat.rejoined", {}, seat=seat)]


def grace_over(table: Table, *, now: float, at: str) -> tuple[Table, list[Event]]:
    """Bots take every seat whose grace period has ended."""
    events: list[Event] = []
    for s in table.seats:
        if s.rejoin_by is not None and s.rejoin_by <= now:
            table = with_seat(table, to_bot(s), at)
            events.append(
                Event("seat.bot_took_over", {"reason": LEFT, "name": s.name}, seat=s.index)
            )
    return table, events


def replace_player(
    table: Table, *, seat: int, name: str, token_hash: str, at: str
) -> tuple[Table, list[Event]] | Rejected:
    """The host hands a seat (a human's, one left, or a bot's) to a new player, whose token
    is ``token_hash``'s; the old token (and the user it was bound to) stops working. The
    client seed stays: it is part of the game seed already in use."""
    clean = clean_name(name)
    if clean is None:
        return Rejected("BAD_INPUT", f"a name is 1 to {MAX_NAME} printable characters")
    if table.status == FINISHED:
        return Rejected("TABLE_NOT_PLAYING", "the game is over")
    s = table.seat(seat)
    if s is None:
        return Rejected("NOT_FOUND", f"no seat {seat} at this table")
    if s.kind == EMPTY:
        return Rejected("BAD_INPUT", f"seat {seat} is empty: a new player joins it with joinTable")
    if name_taken(table, clean, but=seat):
        return Rejected("BAD_INPUT", NAME_TAKEN)
    new = replace(
        s,
        kind=HUMAN,
        name=clean,
        token_hash=token_hash,
        user=None,
        host=False,
        rejoin_by=None,
        timeouts=0,
        bot_level=None,
    )
    event = Event("seat.replaced", {"name": clean, "was": s.name, "wasKind": s.kind}, seat=seat)
    return with_seat(table, new, at), [event]

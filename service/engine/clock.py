"""Turn clocks: seconds per move, a reserve per seat, timeouts.

Pure bookkeeping over a ``Table``; the caller passes the time. A seat's clock starts when
it becomes one of the seats to act, and again after each of its own moves while it stays
to act (each move gets ``turnSeconds``). A move that takes longer spends the reserve by
the overrun; the deadline is the start plus ``turnSeconds`` plus the reserve left, so the
reserve is spent only once the time per move is used up. At the deadline the service
plays the game's bot for the seat (a timeout, which empties the reserve) and, after
``timeoutsBeforeBot`` timeouts, hands the seat to the bot for good. Bots have no clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from tablestate.engine.game import Event
from tablestate.engine.options import core
from tablestate.engine.table import BOT, HUMAN, PLAYING, Seat, Table

TIMEOUTS: Final = "timeouts"


_last_iso: tuple[int, str] = (-1, "")


def iso(t: float) -> str:
    """Epoch seconds as the ISO 8601 UTC text tables and events carry, to the millisecond
    (the text of the last millisecond asked for is kept: a busy replica asks several times
    in one)."""
    global _last_iso
    ms = math.floor(t * 1000)
    if _last_iso[0] != ms:
        seconds, millis = divmod(ms, 1000)
        _last_iso = (
            ms,
            time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z",
        )
    return _last_iso[1]


def turn_seconds(table: Table) -> float:
    return float(core(table.options, "turnSeconds"))


def reserve_of(table: Table, seat: Seat) -> float:
    """The reserve a seat has left between its moves."""
    if seat.reserve is None:
        return float(core(table.options, "reserveSeconds"))
    return seat.reserve


def settle(
    table: Table,
    acting_before: Iterable[int],
    acting_after: Iterable[int],
    *,
    movers: Iterable[int],
    now: float,
    timed_out: int | None = None,
) -> tuple[Table, list[Event]]:
    """The table's clocks after a commit: charge the movers' time, start the clocks of the
    seats now to act, stop the others. Returns the table and its ``clock.started`` events.

    Args:
        table: the table after the commit's own change.
        acting_before, acting_after: the seats to act before and after the commit.
        movers: the seats that moved in this commit (their clocks restart if they still act).
        now: epoch seconds.
        timed_out: the seat whose deadline passed (its reserve is spent).
    """
    turn = turn_seconds(table)
    if turn <= 0:
        return table, []
    before, after, moved = set(acting_before), set(acting_after), set(movers)
    playing = table.status == PLAYING
    seats: list[Seat] = []
    events: list[Event] = []
    for s in table.seats:
        reserve = reserve_of(table, s)
        if (
            s.turn_started is not None
            and s.index in before
            and (s.index in moved or s.index not in after)
        ):
            over = max(0.0, now - s.turn_started - turn)
            reserve = max(0.0, reserve - over)
        if s.index == timed_out:
            reserve = 0.0
        running = playing and s.kind == HUMAN and s.index in after
        if not running:
            seats.append(replace(s, reserve=reserve, turn_started=None, deadline=None))
            continue
        if s.turn_started is None or s.index in moved or s.index not in before:
            deadline = now + turn + reserve
            seats.append(replace(s, reserve=reserve, turn_started=now, deadline=deadline))
            events.append(
                Event(
                    "clock.started",
                    {"deadline": iso(deadline), "seconds": turn, "reserve": reserve},
                    seat=s.index,
                )
            )
        else:
            seats.append(replace(s, reserve=reserve))
    return replace(table, seats=tuple(seats)), events


def left(table: Table, seat: Seat, now: float) -> tuple[float | None, float]:
    """``(time left for the current move or None when not running, reserve left)``, now."""
    reserve = reserve_of(table, seat)
    if seat.turn_started is None or seat.deadline is None:
        return None, reserve
    over = max(0.0, now - seat.turn_started - turn_seconds(table))
    return max(0.0, seat.deadline - now), max(0.0, reserve - over)


def next_due(table: Table) -> float | None:
    """The earliest deadline or end of a grace period at the table, if any."""
    if table.status != PLAYING:
        return None
    found = [s.deadline for s in table.seats if s.deadline is not None]
    found += [s.rejoin_by for s in table.seats if s.rejoin_by is not None]
    return min(found) if found else None


def expired(table: Table, acting: Iterable[int], now: float) -> int | None:
    """The first seat to act whose deadline has passed, if any."""
    for i in acting:
        s = table.seat(i)
        if s is not None and s.kind == HUMAN and s.deadline is not None and s.deadline <= now:
            return i
    return None


def time_out(table: Table, seat: int) -> tuple[Table, list[Event], bool]:
    """Count a timeout of ``seat``: the ``clock.timeout`` event and, at the limit, the
    seat handed to the bot (its token stops working). Returns whether it was handed over."""
    s = table.seats[seat]
    count = s.timeouts + 1
    limit = int(core(table.options, "timeoutsBeforeBot"))
    data = {"timeouts": count, "deadline": iso(s.deadline) if s.deadline is not None else None}
    events = [Event("clock.timeout", data, seat=seat)]
    new = replace(s, timeouts=count)
    handed = 0 < limit <= count
    if handed:
        new = replace(new, kind=BOT, token_hash=None, user=None, rejoin_by=None)
        events.append(Event("seat.bot_took_over", {"reason": TIMEOUTS, "name": s.name}, seat=seat))
    seats = list(table.seats)
    seats[seat] = new
    return replace(table, seats=tuple(seats)), events, handed

"""Turn clocks, pure: the time per move first, then the reserve; timeouts; deadlines."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from support.engine import a_table

from tablestate.engine import clock
from tablestate.engine import table as eng

T = 1000.0


def _table(acting: tuple[int, ...] = (), **options: Any) -> eng.Table:
    seats = tuple(eng.Seat(i, eng.HUMAN, f"P{i}", f"h{i}") for i in range(3))
    options = {"turnSeconds": 10, "reserveSeconds": 20, "timeoutsBeforeBot": 2, **options}
    return a_table(seats, options=options)


def _start(table: eng.Table, acting: tuple[int, ...]) -> eng.Table:
    return clock.settle(table, (), acting, movers=(), now=T)[0]


def test_no_clock_without_turn_seconds():
    t = _table(turnSeconds=0)
    assert clock.settle(t, (), (0,), movers=(), now=T) == (t, [])
    assert clock.next_due(t) is None


def test_a_clock_starts_for_the_seats_to_act_with_the_reserve_in_the_deadline():
    t, events = clock.settle(_table(), (), (0, 2), movers=(), now=T)
    assert [s.deadline for s in t.seats] == [T + 30, None, T + 30]
    assert [(e.type, e.seat, e.data["seconds"], e.data["reserve"]) for e in events] == [
        ("clock.started", 0, 10.0, 20.0),
        ("clock.started", 2, 10.0, 20.0),
    ]
    assert clock.next_due(t) == T + 30
    assert clock.left(t, t.seats[0], T + 5) == (25.0, 20.0)
    assert clock.left(t, t.seats[0], T + 15) == (15.0, 15.0)
    assert clock.left(t, t.seats[1], T + 15) == (None, 20.0)


@pytest.mark.parametrize(
    ("used", "reserve"),
    [
        pytest.param(4, 20.0, id="within-the-turn"),
        pytest.param(10, 20.0, id="exactly-the-turn"),
        pytest.param(17, 13.0, id="into-the-reserve"),
        pytest.param(29, 1.0, id="nearly-all"),
    ],
)
def test_a_move_spends_the_reserve_only_past_the_turn_time(used: float, reserve: float):
    t = _start(_table(), (0,))
    after, events = clock.settle(t, (0,), (1,), movers=(0,), now=T + used)
    assert after.seats[0].reserve == reserve and after.seats[0].deadline is None
    assert after.seats[1].deadline == T + used + 30
    assert [e.seat for e in events] == [1]


def test_a_seat_that_moves_and_still_acts_gets_a_new_move_time():
    t = _start(_table(), (0,))
    after, events = clock.settle(t, (0,), (0,), movers=(0,), now=T + 12)
    assert after.seats[0].reserve == 18.0 and after.seats[0].deadline == T + 12 + 28
    assert len(events) == 1


def test_a_seat_still_waiting_keeps_its_deadline_when_another_moves():
    t = _start(_table(), (0, 1))
    after, events = clock.settle(t, (0, 1), (1,), movers=(0,), now=T + 5)
    assert after.seats[1].deadline == T + 30 and events == []


def test_expiry_and_timeouts_hand_the_seat_over_at_the_limit():
    t = _start(_table(), (0,))
    assert clock.expired(t, (0,), T + 29.9) is None
    assert clock.expired(t, (0,), T + 30) == 0
    t, events, handed = clock.time_out(t, 0)
    assert not handed and [e.type for e in events] == ["clock.timeout"]
    assert events[0].data == {"timeouts": 1, "deadline": clock.iso(T + 30)}
    t = clock.settle(t, (0,), (0,), movers=(0,), now=T + 30, timed_out=0)[0]
    assert t.seats[0].reserve == 0.0 and t.seats[0].deadline == T + 40
    t, events, handed = clock.time_out(t, 0)
    assert handed and [e.type for e in events] == ["clock.timeout", "seat.bot_took_over"]
    assert t.seats[0].kind == eng.BOT and t.seats[0].token_hash is None
    t = clock.settle(t, (0,), (0,), movers=(0,), now=T + 40, timed_out=0)[0]
    assert t.seats[0].deadline is None  # bots have no clock


def test_zero_timeouts_before_bot_never_hands_over():
    t = _start(_table(timeoutsBeforeBot=0), (0,))
    for _ in range(5):
        t, _, handed = clock.time_out(t, 0)
        assert not handed
    assert t.seats[0].kind == eng.HUMAN and t.seats[0].timeouts == 5


def test_a_finished_table_stops_every_clock():
    t = _start(_table(), (0,))
    done = replace(t, status=eng.FINISHED)
    after, events = clock.settle(done, (0,), (), movers=(0,), now=T + 1)
    assert all(s.deadline is None for s in after.seats) and events == []
    assert clock.next_due(after) is None


def test_old_snapshots_decode_with_no_clock_and_no_undo():
    t = _table()
    d = json.loads(t.encode())
    for s in d["seats"]:
        for key in ("turn_started", "deadline", "reserve", "timeouts", "rejoin_by"):
            del s[key]
    del d["undo"]
    back = eng.Table.decode(json.dumps(d), 3)
    assert back.undo is None and back.seats[0].timeouts == 0 and back.seats[0].reserve is None


def test_iso_is_the_time_to_the_millisecond():
    import random
    from datetime import UTC, datetime

    rng = random.Random(7)
    times = [0.0, 951782400.5, 1764470000.9999] + [rng.uniform(0, 4e9) for _ in range(2000)]
    for t in sorted(times) + times:  # the kept text is reused only within its millisecond
        want = datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")
        got = clock.iso(t)
        assert (
            got == want.replace("+00:00", "Z")
            or abs(datetime.fromisoformat(got).timestamp() - t) < 0.001
        ), (t, got, want)

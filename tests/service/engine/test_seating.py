"""Seats that come and go while playing, pure."""

from __future__ import annotations

from typing import Any

from support.engine import a_table

from tablestate.engine import Rejected, seating
from tablestate.engine import table as eng

T = 500.0


def _table(status: str = eng.PLAYING, **options: Any) -> eng.Table:
    seats = (
        eng.Seat(0, eng.HUMAN, "Ann", "h0", host=True, client_seed="a"),
        eng.Seat(1, eng.HUMAN, "Bob", "h1"),
        eng.Seat(2, eng.BOT, "Bot 3"),
        eng.Seat(3),
    )
    return a_table(seats, status=status, options=options)


def test_leaving_an_open_table_empties_the_seat():
    out = seating.leave(_table(eng.OPEN), seat=1, now=T, at="y")
    assert not isinstance(out, Rejected)
    assert out[0].seats[1] == eng.Seat(1)


def test_leaving_without_grace_hands_the_seat_to_a_bot_at_once():
    out = seating.leave(_table(), seat=1, now=T, at="y")
    assert not isinstance(out, Rejected)
    table, events = out
    assert table.seats[1].kind == eng.BOT and table.seats[1].token_hash is None
    assert table.seats[1].bot_level is None, "a seat handed to the bot plays normal"
    assert [e.type for e in events] == ["seat.left", "seat.bot_took_over"]


def test_a_seat_left_waits_for_its_player_then_a_bot_takes_it():
    out = seating.leave(_table(leaveGraceSeconds=60), seat=1, now=T, at="y")
    assert not isinstance(out, Rejected)
    table, events = out
    assert table.seats[1].rejoin_by == T + 60 and table.seats[1].token_hash == "h1"
    again = seating.leave(table, seat=1, now=T, at="y")
    assert isinstance(again, Rejected) and again.code == "BAD_INPUT"
    assert seating.grace_over(table, now=T + 59, at="y") == (table, [])
    over, events = seating.grace_over(table, now=T + 60, at="y")
    assert over.seats[1].kind == eng.BOT and over.seats[1].token_hash is None
    assert [(e.type, e.seat, e.data["reason"]) for e in events] == [
        ("seat.bot_took_over", 1, "left")
    ]
    back = seating.rejoin(table, seat=1, at="y")
    assert not isinstance(back, Rejected) and back[0].seats[1].rejoin_by is None
    assert isinstance(seating.rejoin(back[0], seat=1, at="y"), Rejected)


def test_a_finished_table_cannot_be_left():
    out = seating.leave(_table(eng.FINISHED), seat=1, now=T, at="y")
    assert isinstance(out, Rejected) and out.code == "TABLE_NOT_OPEN"


def test_the_host_hands_a_seat_over_keeping_its_client_seed():
    out = seating.replace_player(_table(), seat=0, name=" Zed ", token_hash="new", at="y")
    assert not isinstance(out, Rejected)
    seat = out[0].seats[0]
    assert (seat.name, seat.token_hash, seat.host, seat.client_seed) == ("Zed", "new", False, "a")
    bot = seating.replace_player(_table(), seat=2, name="Amy", token_hash="n2", at="y")
    assert not isinstance(bot, Rejected) and bot[0].seats[2].kind == eng.HUMAN
    for seat_no, status, code in [
        (3, eng.PLAYING, "BAD_INPUT"),
        (9, eng.PLAYING, "NOT_FOUND"),
        (1, eng.FINISHED, "TABLE_NOT_PLAYING"),
    ]:
        refused = seating.replace_player(
            _table(status), seat=seat_no, name="X", token_hash="n", at="y"
        )
        assert isinstance(refused, Rejected) and refused.code == code


def test_a_replacing_player_may_not_take_another_seats_name():
    table = _table()
    other = table.seats[1].name
    assert other is not None
    out = seating.replace_player(table, seat=0, name=other.upper(), token_hash="n", at="y")
    assert isinstance(out, Rejected) and out.code == "BAD_INPUT"
    mine = table.seats[0].name
    assert mine is not None
    same = seating.replace_player(table, seat=0, name=mine, token_hash="n", at="y")
    assert not isinstance(same, Rejected)  # a seat's own name may pass to its new player

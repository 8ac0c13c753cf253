"""What a credential holds at a table, for table tokens and signed-in users, and who may
watch a table without a seat (service/engine/rights.py); seats bound to users as they
come, go and are handed over (opening, seating, clock, lobby)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tablestate.engine import lobby, opening, seating
from tablestate.engine import table as eng
from tablestate.engine.clock import time_out
from tablestate.engine.game import Rejected
from tablestate.engine.rights import (
    ANYONE,
    ELSEWHERE,
    HELD,
    LOST,
    NONE,
    SEATED_ONLY,
    SIGNED_IN,
    SIGNED_IN_ONLY,
    Credential,
    Rights,
    User,
    may_watch,
    rights,
    seat_of,
    sign_in_check,
    token_hash,
    user_of,
)

NOW = 1_000.0
ANN, BOB, CAT = "https://issuer.test#ann", "https://issuer.test#bob", "https://issuer.test#cat"


def user(uid: str, expires: float = NOW + 60) -> User:
    return User(uid, uid.rpartition("#")[2], expires, lambda: NOW)


def make_table(**options: object) -> eng.Table:
    seats = (
        eng.Seat(0, eng.HUMAN, "Ann", token_hash("t1.ann"), host=True, user=ANN),
        eng.Seat(1, eng.HUMAN, "Bob", token_hash("t1.bob"), user=BOB),
        eng.Seat(2, eng.HUMAN, "Dan", token_hash("t1.dan")),
        eng.Seat(3),
    )
    return eng.Table(
        id="t1",
        game_id="lucky-draw",
        status=eng.OPEN,
        options={"spectators": True, **options},
        house_rules=(),
        seats=seats,
        host_hash=token_hash("t1.host"),
        nonce="n",
        commitment="c",
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z",
        host_user=ANN,
    )


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        pytest.param(user(ANN), Rights(0, True, HELD), id="the host's seat, by user"),
        pytest.param(user(BOB), Rights(1, False, HELD), id="a seat, by user"),
        pytest.param(user(CAT), Rights(standing=SIGNED_IN), id="a user holding nothing here"),
        pytest.param(user(BOB, expires=NOW), Rights(standing=LOST), id="a sign-in that ended"),
        pytest.param(Credential("t1", token_hash("t1.bob")), Rights(1, False, HELD), id="token"),
        pytest.param(Credential("t1", token_hash("t1.dan")), Rights(2, False, HELD), id="unbound"),
        pytest.param(Credential("t1", token_hash("t1.host")), Rights(None, True, HELD), id="host"),
        pytest.param(Credential("t2", token_hash("t2.x")), Rights(standing=ELSEWHERE), id="other"),
        pytest.param(None, Rights(standing=NONE), id="nobody"),
    ],
)
def test_rights_of_users_and_tokens(who, expected):
    held = rights(who, make_table())
    assert (held.seat, held.host, held.standing) == (
        expected.seat,
        expected.host,
        expected.standing,
    )


def test_a_user_without_a_seat_holds_the_host_role_bound_to_it():
    table = replace(make_table(), seats=tuple(eng.Seat(i) for i in range(4)))
    assert rights(user(ANN), table) == Rights(None, True, HELD)


def test_the_host_token_and_the_host_user_both_hold_host_rights():
    table = make_table()
    assert rights(Credential("t1", token_hash("t1.host")), table).host
    assert rights(user(ANN), table).host


def test_an_ended_sign_in_is_refused_like_a_seat_that_changed_hands():
    held = rights(user(ANN, expires=NOW - 1), make_table())
    refused = seat_of(held, "move")
    assert isinstance(refused, Rejected) and refused.code == "UNAUTHENTICATED"
    assert "expired" in refused.reason
    assert user_of(user(ANN, expires=NOW - 1)) is None
    assert sign_in_check(user(ANN, expires=NOW), False, "x").code == "UNAUTHENTICATED"  # type: ignore[union-attr]


def test_another_user_is_forbidden_a_seat_it_does_not_hold():
    refused = seat_of(rights(user(CAT), make_table()), "move")
    assert isinstance(refused, Rejected) and refused.code == "FORBIDDEN"


@pytest.mark.parametrize(
    ("required", "who", "code"),
    [
        (False, None, None),
        (True, None, "UNAUTHENTICATED"),
        (True, Credential("t1", token_hash("t1.host")), "UNAUTHENTICATED"),
        (True, user(CAT), None),
        (True, user(CAT, expires=NOW), "UNAUTHENTICATED"),
    ],
)
def test_sign_in_check(required, who, code):
    refused = sign_in_check(who, required, "join a table")
    assert (refused.code if refused else None) == code


@pytest.mark.parametrize(
    ("policy", "spectators", "who", "allowed"),
    [
        (ANYONE, True, None, True),
        (ANYONE, False, None, False),
        (ANYONE, False, user(BOB), True),  # a seat always sees its table
        (ANYONE, False, user(CAT), False),
        (SIGNED_IN_ONLY, True, None, False),
        (SIGNED_IN_ONLY, True, user(CAT), True),
        (SIGNED_IN_ONLY, True, user(CAT, expires=NOW), False),
        (SIGNED_IN_ONLY, True, Credential("t2", token_hash("t2.x")), False),
        (SEATED_ONLY, True, user(CAT), False),
        (SEATED_ONLY, True, Credential("t1", token_hash("t1.dan")), True),
        (SEATED_ONLY, True, Credential("t1", token_hash("t1.host")), True),
    ],
)
def test_who_may_watch(policy, spectators, who, allowed):
    table = make_table(spectators=spectators)
    assert may_watch(rights(who, table), table, policy) is allowed


def test_tables_made_before_the_option_admit_spectators():
    table = replace(make_table(), options={})
    assert may_watch(rights(None, table), table, ANYONE)


# -- seats bound to users ------------------------------------------------------------------


def test_a_user_joins_once_and_its_seat_is_bound_to_it():
    table = replace(make_table(), seats=(*make_table().seats[:3], eng.Seat(3)))
    again = opening.join(
        table, name="Ann2", seat=None, token_hash="h", host=False, client_seed=None, now="x",
        user=ANN,
    )  # fmt: skip
    assert isinstance(again, Rejected) and again.code == "ALREADY_SEATED"
    joined = opening.join(
        table, name="Cat", seat=None, token_hash="h", host=False, client_seed=None, now="x",
        user=CAT,
    )  # fmt: skip
    assert not isinstance(joined, Rejected)
    new, index, _ = joined
    assert index == 3 and new.seats[3].user == CAT
    assert rights(user(CAT), new) == Rights(3, False, HELD)


def test_a_seat_handed_over_or_emptied_holds_no_user_any_more():
    table = replace(make_table(), status=eng.PLAYING)
    handed = seating.replace_player(table, seat=1, name="Eve", token_hash="h2", at="x")
    assert not isinstance(handed, Rejected) and handed[0].seats[1].user is None
    left = seating.leave(table, seat=1, now=NOW, at="x")
    assert not isinstance(left, Rejected) and left[0].seats[1].user is None  # a bot has it
    timed = replace(table, options={**table.options, "timeoutsBeforeBot": 1})
    bot, _, handed_over = time_out(timed, 1)
    assert handed_over and bot.seats[1].user is None
    kicked = lobby.kick(make_table(), seat=1, now="x")
    assert not isinstance(kicked, Rejected) and kicked[0].seats[1].user is None
    for after in (handed[0], left[0], bot, kicked[0]):
        assert rights(user(BOB), after).standing == SIGNED_IN


def test_a_grace_period_keeps_the_user_for_its_return():
    table = replace(
        make_table(), status=eng.PLAYING, options={"spectators": True, "leaveGraceSeconds": 60}
    )
    left = seating.leave(table, seat=1, now=NOW, at="x")
    assert not isinstance(left, Rejected)
    assert rights(user(BOB), left[0]) == Rights(1, False, HELD)  # it may rejoin, any device


def test_a_rematch_keeps_the_users_of_its_seats_and_host():
    old = replace(make_table(), status=eng.FINISHED)
    new, _ = lobby.rematch_table(
        old, table_id="t9", nonce="n", host_hash="h", commitment="c",
        seat_hashes={0: "a", 1: "b", 2: "c"}, join_code=None, now="x",
    )  # fmt: skip
    assert [s.user for s in new.seats] == [ANN, BOB, None, None]
    assert new.host_user == ANN


def test_snapshots_keep_users_and_older_snapshots_decode():
    table = make_table()
    again = eng.Table.decode(table.encode(), 3)
    assert again.host_user == ANN and again.seats[1].user == BOB
    anonymous = replace(
        table, host_user=None, seats=tuple(replace(s, user=None) for s in table.seats)
    )
    text = anonymous.encode()
    assert '"user"' not in text and "host_user" not in text  # as an earlier release wrote it
    old = json.loads(text)
    assert eng.Table.decode(json.dumps(old), 1) == replace(anonymous, version=1)

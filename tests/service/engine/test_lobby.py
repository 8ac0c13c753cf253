"""The pure lobby operations and rematch tables of ``tablestate.engine.lobby``, and chat text."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from tablestate.engine import Rejected, chat, lobby, opening
from tablestate.engine import table as eng
from tablestate.plugins import load
from tablestate_example import GAME

REG = load()
NOW = "2026-01-01T00:00:00.000Z"


def _new(seats: int = 3) -> eng.Table:
    made = opening.create(
        table_id="t1",
        game=GAME,
        options=None,
        rule_ids=["lucky-draw/odd-bonus"],
        seats=seats,
        house_rules=REG.house_rules,
        conflicts=REG.conflicts,
        now=NOW,
        nonce="n",
        host_hash="h",
        commitment="c",
    )
    assert not isinstance(made, Rejected)
    return made[0]


def _ok(out: Any) -> Any:
    assert not isinstance(out, Rejected), out
    return out


def _seated() -> eng.Table:
    t = _new()
    t = _ok(opening.join(t, name="A", seat=0, token_hash="a", host=True, client_seed="s", now=NOW))[
        0
    ]
    t = _ok(opening.add_bot(t, seat=1, now=NOW))[0]
    return t


def test_old_snapshots_decode_with_the_new_fields_defaulted():
    d = json.loads(_new().encode())
    for name in ("private", "join_code", "rematch_of", "rematch"):
        d.pop(name)
    back = eng.Table.decode(json.dumps(d), 3)
    assert (back.private, back.join_code, back.rematch_of, back.rematch) == (
        False,
        None,
        None,
        None,
    )


def test_set_options():
    t, events = _ok(lobby.set_options(_new(), game=GAME, options={"handSize": 4}, now="later"))
    assert t.options["handSize"] == 4 and t.updated_at == "later"
    assert events[0].type == "options.changed" and events[0].data == {"options": dict(t.options)}
    assert _ok(lobby.set_options(_new(), game=GAME, options=None, now=NOW))[0].options == (
        _new().options
    )


@pytest.mark.parametrize(
    ("options", "code"),
    [({"handSize": 0}, "BAD_INPUT"), ("x", "BAD_INPUT"), ({"other": 1}, "BAD_INPUT")],
)
def test_set_options_refusals(options: Any, code: str):
    out = lobby.set_options(_new(), game=GAME, options=options, now=NOW)
    assert isinstance(out, Rejected) and out.code == code


def test_lobby_operations_need_an_open_table():
    playing = replace(_seated(), status=eng.PLAYING)
    for out in (
        lobby.set_options(playing, game=GAME, options={}, now=NOW),
        lobby.kick(playing, seat=0, now=NOW),
    ):
        assert isinstance(out, Rejected) and out.code == "TABLE_NOT_OPEN"


def test_kick():
    t, events = _ok(lobby.kick(_seated(), seat=0, now=NOW))
    assert t.seats[0] == eng.Seat(0) and events[0].seat == 0 and events[0].data == {"name": "A"}
    for seat in (2, 3, -1):
        out = lobby.kick(_seated(), seat=seat, now=NOW)
        assert isinstance(out, Rejected) and out.code == "NOT_FOUND"


def test_cancel():
    running = _seated()
    running = replace(
        running, seats=(replace(running.seats[0], deadline=5.0, rejoin_by=9.0), *running.seats[1:])
    )
    for status in (eng.OPEN, eng.PLAYING):
        t, events = _ok(lobby.cancel(replace(running, status=status), seed="ab", now=NOW))
        assert t.seats[0].deadline is None and t.seats[0].rejoin_by is None
        assert t.status == eng.CANCELLED and t.revealed_seed == "ab" and t.result is None
        assert events[0].data == {"from": status, "shuffleSeed": "ab"}
    for status in (eng.FINISHED, eng.CANCELLED):
        out = lobby.cancel(replace(_seated(), status=status), seed="ab", now=NOW)
        assert isinstance(out, Rejected) and out.code == "TABLE_NOT_PLAYING"


def test_rematch_table_copies_the_game_and_seats():
    old = replace(_seated(), status=eng.FINISHED, private=True, join_code="code")
    new, events = lobby.rematch_table(
        old,
        table_id="t2",
        nonce="m",
        host_hash="h2",
        commitment="c2",
        seat_hashes={0: "new-a"},
        join_code=old.join_code,
        now="later",
    )
    assert new.status == eng.OPEN and new.rematch_of == "t1" and new.rematch is None
    assert (new.game_id, new.options, new.house_rules) == (
        old.game_id,
        old.options,
        old.house_rules,
    )
    assert new.seats == (
        eng.Seat(0, eng.HUMAN, "A", "new-a", True),
        eng.Seat(1, eng.BOT, "Bot 2"),
        eng.Seat(2),
    )
    assert new.private and new.join_code == "code" and new.game is None
    assert events[0].type == "table.created" and events[0].data["rematchOf"] == "t1"


def test_link_rematch_once_and_only_when_finished():
    finished = replace(_seated(), status=eng.FINISHED)
    linked, events = _ok(
        lobby.link_rematch(finished, table_id="t2", private={0: {"playerToken": "x"}}, now=NOW)
    )
    assert linked.rematch == "t2" and events[0].data == {"tableId": "t2"}
    assert events[0].private == {0: {"playerToken": "x"}}
    for table in (linked, _seated()):
        out = lobby.link_rematch(table, table_id="t3", private={}, now=NOW)
        assert isinstance(out, Rejected) and out.code == "BAD_INPUT"


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("  hi  ", "hi"),
        ("e\u0301", "\u00e9"),
        ("x" * chat.MAX_CHAT, "x" * chat.MAX_CHAT),
        ("\U0001f44d\ufe0f", "\U0001f44d\ufe0f"),
        ("x" * (chat.MAX_CHAT + 1), None),
        ("", None),
        ("a\rb", None),
        ("a\u2028b", None),
        ("a\u2066b", None),
        ("\ue000", None),
    ],
)
def test_chat_text(text: str, clean: str | None):
    assert chat.clean_text(text) == clean

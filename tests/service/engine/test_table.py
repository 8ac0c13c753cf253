"""The pure table: lifecycle, seats and refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablestate.engine import Rejected, opening
from tablestate.engine import table as eng
from tablestate.engine.bots import level_of
from tablestate.plugins import load
from tablestate_example import GAME

REG = load()


def _new(**kw: Any) -> eng.Table:
    made = opening.create(
        table_id="t1",
        game=GAME,
        options=kw.get("options"),
        rule_ids=kw.get("rules", []),
        seats=kw.get("seats", 3),
        house_rules=REG.house_rules,
        conflicts=REG.conflicts,
        now="2026-01-01T00:00:00.000Z",
        nonce="n",
        host_hash="h",
        commitment="c",
    )
    assert not isinstance(made, Rejected), made
    return made[0]


def _join(table: eng.Table, seat: int | None = None, name: str | None = None) -> eng.Table:
    name = name or f"P{len(table.seated())}"
    out = opening.join(
        table, name=name, seat=seat, token_hash=f"tok{seat}", host=False, client_seed=None, now="x"
    )
    assert not isinstance(out, Rejected), out
    return out[0]


def test_encode_decode_roundtrip():
    t = _join(_new(), 1)
    back = eng.Table.decode(t.encode(), 7)
    assert back.version == 7 and back.seats == t.seats and back.options == t.options


def test_what_changes_at_every_move_is_encoded_after_the_game():
    """So a game whose state grows at its end changes its snapshot in one stretch, which
    the Redis store writes as a difference (service/store/_deltas.py)."""
    keys = list(json.loads(_join(_new(), 1).encode()))
    assert keys[-2:] == ["chance", "updated_at"] and keys.index("game") < keys.index("chance")


def test_seats_fill_and_refuse():
    t = _join(_join(_join(_new())))
    assert t.seated() == (0, 1, 2)
    full = opening.join(
        t, name="B", seat=None, token_hash="x", host=False, client_seed=None, now="x"
    )
    assert isinstance(full, Rejected) and full.code == "TABLE_FULL"


@pytest.mark.parametrize(
    "second",
    ["Ann", "ANN", "ann", " Ann ", "\uff21\uff4e\uff4e", "\uff41NN"],
    ids=["same", "upper", "lower", "spaced", "fullwidth", "mixed"],
)
def test_names_are_unique_per_table_after_nfkc_case_folding(second: str):
    t = _join(_new(), 0, "Ann")
    out = opening.join(
        t, name=second, seat=1, token_hash="t1", host=False, client_seed=None, now="x"
    )
    assert isinstance(out, Rejected) and out.code == "BAD_INPUT", second
    assert out.reason == opening.NAME_TAKEN


def test_a_name_frees_with_its_seat_and_bots_avoid_taken_names():
    t = _join(_new(), 0, "Bot 2")
    bot = opening.add_bot(t, seat=1, now="x")
    assert not isinstance(bot, Rejected)
    assert bot[0].seats[1].name not in ("Bot 2", None) and bot[1][0].data["name"] == "Bot 2.2"
    left = opening.leave(t, seat=0, now="x")
    assert not isinstance(left, Rejected)
    assert not isinstance(_join(left[0], 2, "bot 2"), Rejected)  # an empty seat has no name


def test_start_drops_empty_seats_and_keeps_indices():
    t = _join(_join(_new(seats=4), 1), 3)
    out = opening.start(
        t,
        game=GAME,
        rules=REG.ruleset("lucky-draw"),
        seed=b"s",
        house_rules=REG.house_rules,
        now="x",
    )
    assert not isinstance(out, Rejected)
    started, events = out
    assert started.play_order == (1, 3) and started.status == eng.PLAYING
    state = eng.decode_state(started, GAME)
    assert eng.to_act(started, GAME, state) == (1,)
    assert events[0].type == "game.started" and events[0].data == {"playOrder": [1, 3]}
    assert started.chance == 1


@pytest.mark.parametrize(
    ("rules", "code"),
    [
        (["lucky-draw/nope"], "NOT_FOUND"),
        (["lucky-draw/double-evens", "lucky-draw/odd-bonus"], "RULE_CONFLICT"),
    ],
)
def test_rule_checks(rules, code):
    out = opening.check_rules(GAME, rules, REG.house_rules, REG.conflicts)
    assert isinstance(out, Rejected) and out.code == code


def test_rule_player_range_checked_at_start():
    t = _join(_join(_join(_join(_new(seats=4)))))
    on = opening.set_rule(
        t,
        game=GAME,
        rule_id="lucky-draw/allow-pass",
        enabled=True,
        house_rules=REG.house_rules,
        conflicts=REG.conflicts,
        now="x",
    )
    assert not isinstance(on, Rejected)
    out = opening.start(
        on[0],
        game=GAME,
        rules=REG.ruleset("lucky-draw"),
        seed=b"s",
        house_rules=REG.house_rules,
        now="x",
    )
    assert isinstance(out, Rejected) and out.code == "RULE_CONFLICT"


def test_moves_before_start_and_shape_errors():
    t = _join(_join(_new(seats=2)))
    started, _ = opening.start(
        t,
        game=GAME,
        rules=REG.ruleset("lucky-draw"),
        seed=b"s",
        house_rules=REG.house_rules,
        now="x",
    )  # type: ignore[misc]
    state = eng.decode_state(started, GAME)
    assert eng.check_move(t, GAME, state, 0, {"draw": True}).code == "TABLE_NOT_PLAYING"  # type: ignore[union-attr]
    assert eng.check_move(started, GAME, state, 0, {"fly": True}).code == "BAD_INPUT"  # type: ignore[union-attr]
    assert eng.check_move(started, GAME, state, 1, {"draw": True}).code == "NOT_YOUR_TURN"  # type: ignore[union-attr]
    assert eng.check_move(started, GAME, state, 0, {"draw": True}) is None


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_a_bot_keeps_its_level_in_the_record_and_older_records_read_as_normal(level: str):
    out = opening.add_bot(_new(), seat=1, now="x", level=level)
    assert not isinstance(out, Rejected)
    stored = eng.Table.decode(out[0].encode(), 1)
    assert level_of(stored.seats[1].bot_level) == level
    # normal is left out of the record, as records from before levels have it
    assert ("bot_level" in out[0].encode()) == (level != "normal")


def test_an_unknown_bot_level_is_bad_input():
    out = opening.add_bot(_new(), seat=1, now="x", level="grandmaster")
    assert isinstance(out, Rejected) and out.code == "BAD_INPUT"

"""Undo, pure: what the core refuses whatever the game says, and what a take-back restores."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from support.engine import a_table

from tablestate.engine import Outcome, Rejected, fairness, undo
from tablestate.engine import table as eng
from tablestate.engine.game import Event
from tablestate.engine.replay import replay
from tablestate.plugins import load
from tablestate_example import GAME

REG = load()


def _table(**options: Any) -> eng.Table:
    seats = (eng.Seat(0, eng.HUMAN, "A", "h0"), eng.Seat(1, eng.HUMAN, "B", "h1"))
    return a_table(
        seats,
        options={"undo": True, **options},
        game_id=GAME.id,
        game={"before": True},
        chance=4,
        version=7,
    )


def _record(before: eng.Table, after: eng.Table, move: Any) -> eng.Table:
    out = Outcome(None, (Event("card.played"),))
    kept = undo.record(before, after, game=GAME, state_before=None, outcome=out, seat=0, move=move)
    return replace(kept, version=before.version + 1)


def _reason(table: eng.Table, seat: int = 0) -> str:
    out = undo.take_back(table, seat=seat, at="y")
    assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE", out
    return out.reason


def test_an_undoable_move_is_taken_back_by_its_mover_only():
    before = _table()
    after = _record(before, replace(before, game={"after": True}), {"play": {"card": "1A"}})
    assert "someone else" in _reason(after, seat=1)
    out = undo.take_back(after, seat=0, at="y")
    assert not isinstance(out, Rejected)
    back, events = out
    assert back.game == {"before": True} and back.chance == 4 and back.undo is None
    assert [(e.type, e.seat, e.data) for e in events] == [("move.undone", 0, {"undoneVersion": 8})]


def test_the_core_refuses_chance_the_end_and_what_the_game_refuses():
    before = _table()
    chance = _record(before, replace(before, chance=5), {"play": {"card": "1A"}})
    assert "chance" in _reason(chance)
    assert chance.undo is not None and "game" not in chance.undo  # no state kept for nothing
    ended = _record(before, replace(before, status=eng.FINISHED), {"play": {"card": "1A"}})
    out = undo.take_back(ended, seat=0, at="y")
    assert isinstance(out, Rejected) and out.code == "TABLE_NOT_PLAYING"
    assert ended.undo is not None and "ended the game" in ended.undo["why"]
    drawn = _record(before, before, {"draw": True})
    assert "new" in _reason(drawn)


def test_nothing_to_take_back_when_the_table_moved_on_or_the_option_is_off():
    before = _table()
    after = _record(before, before, {"play": {"card": "1A"}})
    assert "no move" in _reason(replace(after, version=after.version + 1))
    assert "no move" in _reason(before)
    off = _table(undo=False)
    assert _record(off, off, {"play": {"card": "1A"}}).undo is None
    assert "off" in _reason(off)


def test_a_game_without_the_hook_takes_nothing_back():
    bare = replace(GAME, undoable=eng.GameDef.undoable)  # the default
    out = Outcome(None, ())
    assert bare.undoable(None, 0, {"play": {"card": "1A"}}, out) is False


def test_replay_follows_undo_entries_and_refuses_one_with_nothing_to_undo():
    seed = bytes(32)
    table = replace(
        _table(handSize=3),
        play_order=(0, 1),
        status=eng.FINISHED,
        commitment=fairness.commitment(seed),
        revealed_seed=seed.hex(),
    )
    bogus = replay(table, [{"seat": 0, "undo": True}], GAME, REG.ruleset(GAME.id, ()))
    assert not bogus.ok and "takes back a move that is not there" in bogus.reason

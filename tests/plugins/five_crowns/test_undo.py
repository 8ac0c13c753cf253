"""Which Five Crowns moves may be taken back (undoMove): a discard, a lay-off and taking
the top discard may; a draw from the stock, going out and laying down may not."""

from __future__ import annotations

import pytest
from support.undo_playout import playout

from tablestate.engine.game import Outcome
from tablestate_five_crowns.game import GAME

from .support import LAY_OFF, discard, draw, go_out, lay_off, registry, start


def _undoable(d, seat, move) -> bool:
    before = d.state
    events = d.move(seat, move)
    return GAME.undoable(before, seat, move, Outcome(d.state, events))


def test_a_stock_draw_stands_and_a_discard_may_be_taken_back():
    d = start([["3S", "4S", "9H"], ["5D", "6D", "7D"]], "KC", ["QH", "8C"])
    seat = d.to_act()[0]
    assert not _undoable(d, seat, draw("STOCK"))
    assert _undoable(d, seat, discard("QH"))


def test_taking_the_top_discard_may_be_taken_back():
    d = start([["3S", "4S", "9H"], ["5D", "6D", "7D"]], "KC", ["QH", "8C"])
    seat = d.to_act()[0]
    assert _undoable(d, seat, draw("DISCARD"))


def test_going_out_stands():
    d = start([["4S", "5S", "6S"], ["5D", "6D", "9C"]], "KC", ["7S", "8C"])
    seat = d.to_act()[0]
    d.move(seat, draw("STOCK"))
    assert not _undoable(d, seat, go_out([["4S", "5S", "6S"]], "7S"))


def test_a_lay_off_may_be_taken_back_and_a_scored_last_turn_may_not():
    d = start(
        [["4S", "5S", "6S"], ["7S", "9D", "QC"]], "KC", ["8D", "JH", "10H"], enabled=[LAY_OFF]
    )
    first = d.to_act()[0]
    other = 1 - first
    d.move(first, draw("STOCK"))
    d.move(first, go_out([["4S", "5S", "6S"]], "8D"))
    assert d.to_act() == (other,)
    d.move(other, draw("STOCK"))
    assert _undoable(d, other, lay_off(["7S"], 0))
    # The discard ends the last turn: the hand is scored, the next round dealt.
    assert not _undoable(d, other, discard("JH"))


@pytest.mark.parametrize("seed", [1, 2])
def test_random_games_take_back_only_what_may_be_taken_back(seed: int):
    seen = playout(GAME, registry(), 2, seed, options={"rounds": 2})
    assert seen[("discard", True)] > 0
    assert seen[("draw", False)] > 0
    assert not seen[("goOut", True)] and not seen[("layDown", True)]

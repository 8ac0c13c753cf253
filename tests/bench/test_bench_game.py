"""The benchmark game (bench/bench_game) follows the peer workload's rules exactly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tablestate.engine import Rejected
from tablestate.engine.bots import NORMAL, choose
from tablestate.testing import GameDriver

# Imported by path, and the path dropped again, so that no other test's plugin discovery
# (entry points found on sys.path) can ever see the benchmark game.
_SRC = str(Path(__file__).resolve().parents[2] / "bench" / "bench_game")
sys.path.insert(0, _SRC)
try:
    from tablestate_bench import GAME
finally:
    sys.path.remove(_SRC)


def test_moves_alternate_append_and_carry_n_and_turn():
    d = GameDriver(GAME, players=2)
    assert d.to_act() == (0,) and d.view(None) == {"list": []}
    for k in range(25):
        seat = k % 2
        assert d.to_act() == (seat,)
        (event,) = d.move(seat, {"play": {"n": k % 10}})
        assert (event.type, event.seat, dict(event.data)) == (
            "number.played",
            seat,
            {"n": k % 10, "turn": k + 1},
        )
        d.check_roundtrip()
    assert d.view(1)["list"] == [k % 10 for k in range(25)]
    assert d.result() is None  # never ends


@pytest.mark.parametrize(
    ("seat", "move", "code"),
    [
        (1, {"play": {"n": 3}}, "NOT_YOUR_TURN"),
        (0, {"play": {"n": 10}}, "ILLEGAL_MOVE"),
        (0, {"play": {"n": -1}}, "ILLEGAL_MOVE"),
        (0, {"play": {"n": "3"}}, "BAD_INPUT"),
        (0, {"play": {"n": True}}, "BAD_INPUT"),
        (0, {"pass": True}, "BAD_INPUT"),
    ],
)
def test_refused_moves_change_nothing(seat, move, code):
    d = GameDriver(GAME, players=2)
    out = d.try_move(seat, move)
    assert isinstance(out, Rejected) and out.code == code
    assert d.view(None) == {"list": []} and d.to_act() == (0,)


def test_bots_and_legal_moves():
    d = GameDriver(GAME, players=[0, 1])
    assert d.legal(1) == [] and len(d.legal(0)) == 10
    for _ in range(12):
        (seat,) = d.to_act()
        d.move(seat, choose(GAME, d.state, seat, NORMAL, d.rng, d.rules))
    assert d.view(None)["list"] == [k % 10 for k in range(12)]

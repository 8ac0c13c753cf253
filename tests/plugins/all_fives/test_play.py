"""What only All Fives' random games show: its bot beats random play. (Every game's
random full games, with the invariants checked at every step, are the shared
``tests/plugins/test_conformance.py``.)"""

from __future__ import annotations

import random

from tablestate.engine import Rng
from tablestate.engine.bots import NORMAL, choose
from tablestate.testing import GameDriver
from tablestate_all_fives.game import GAME
from tablestate_all_fives.testing import FAST


def test_bots_beat_random_play():
    wins = 0
    for k in range(30):
        d = GameDriver(GAME, 2, options=FAST, seed=f"duel-{k}")
        pick, rng = random.Random(k), Rng(b"bot")
        while d.result() is None:
            (seat,) = d.to_act()
            move = (
                choose(GAME, d.state, seat, NORMAL, rng, d.rules)
                if seat == 0
                else pick.choice(d.legal(1))
            )
            d.move(seat, move)
        wins += d.result().winners == (0,)
    assert wins >= 18

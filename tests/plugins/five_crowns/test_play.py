"""What only Five Crowns' random games show: the tie-break round is reached and decides.
(Every game's random full games, with the invariants checked at every step, are the
shared ``tests/plugins/test_conformance.py``.)"""

from __future__ import annotations

from support.games import driver

from tablestate.testing import play_checked
from tablestate_five_crowns.testing import FACTS


def test_tie_break_playoff_reached():
    """Random 2-player one-round games with the playoff option: some tie, and the tied
    players then play a 6-card round with 6s wild."""
    for seed in range(200):
        case = {
            "id": "tie",
            "players": 2,
            "seed": f"tie-{seed}",
            "bot_share": 0.9,
            "options": {"rounds": 1, "tieBreak": "playoffRound"},
        }
        d = driver("five-crowns", case)
        play_checked(d, FACTS, case)
        if any(h.playoff for h in d.state.history):
            playoff = d.state.history[-1]
            assert playoff.round == 2
            assert d.result().scores == dict(zip(d.seats, d.state.totals, strict=True))
            return
    raise AssertionError("no tie in 200 games")

"""Helpers for plugin authors: play a game with no server, with fixed or seeded chance,
and check the invariants every game keeps (DESIGN.md) with what the game says of itself.

from tablestate.testing import GameDriver, play_checked
d = GameDriver(MY_GAME, players=3, options={"rounds": 2}, seed="abc")
d.move(d.to_act()[0], {"draw": {"source": "STOCK"}})
d.random_playout()          # plays random legal moves to the end, checking invariants
play_checked(GameDriver(MY_GAME, 3, seed="s"), FACTS, {"seed": "s"})  # and all of DESIGN.md's

A plugin author imports everything from this one package: the driver (``driver``), golden
logs (``golden``), the invariants and the facts a game states for them (``conformance``).
"""

from __future__ import annotations

from tablestate.testing.conformance import (
    BLIND_BUDGET,
    Chooser,
    GameFacts,
    case_driver,
    check_bots_blind,
    check_conserved,
    check_events,
    check_moves,
    check_refusals,
    check_state,
    facts_of,
    play_checked,
    secret,
    strings,
)
from tablestate.testing.driver import (
    FixedRng,
    GameDriver,
    MoveRefused,
)
from tablestate.testing.golden import (
    check_golden,
    golden_record,
    golden_replay,
)

__all__ = [
    "BLIND_BUDGET",
    "Chooser",
    "FixedRng",
    "GameDriver",
    "GameFacts",
    "MoveRefused",
    "case_driver",
    "check_bots_blind",
    "check_conserved",
    "check_events",
    "check_golden",
    "check_moves",
    "check_refusals",
    "check_state",
    "facts_of",
    "golden_record",
    "golden_replay",
    "play_checked",
    "secret",
    "strings",
]

"""Helpers for plugin authors: play a game with no server, with fixed or seeded chance,
and check the invariants every game keeps (docs/architecture.md) with what the game says of itself.

from tablestate.testing import GameDriver, GameFacts, play_checked, ruleset
d = GameDriver(MY_GAME, players=3, options={"rounds": 2}, seed="abc")
d.move(d.to_act()[0], {"draw": {"source": "STOCK"}})
d.random_playout()          # plays random legal moves to the end, checking invariants
play_checked(GameDriver(MY_GAME, 3, seed="s"), GameFacts(), {"seed": "s"})  # all of them

House rules in a test: ``ruleset(game_id, *rules)`` is the rule set of an installed game
with those house rules on (ids with or without ``<game id>/``; unknown or conflicting ones
are refused), as a table with them plays::

    d = GameDriver(MY_GAME, 2, rules=ruleset("my-game", "double-evens"), seed="s")

What ``play_checked`` checks at every step, for any game:

- the contract with the API, as at start-up (``tablestate.engine.contract``): every view
  fits the state type, every legal move the move input, every event a declared type;
- secrecy over values of every type (``secrecy``): each view, and each viewer's copy of
  every move's events (public data and its own private part), stays the same when what
  the viewer may not see is drawn again, by the game's ``determinize`` or the facts'
  ``scramble``; numbers, nested lists and objects are compared like strings;
- conservation, when the game declares it (``GameDef.conserved``: cards, tokens, dice by
  colour) or its facts count items: no move makes or loses one;
- progress, legal moves accepted, refusals, and the game's own invariants.

``GameFacts()`` is enough for a game with its ``GameDef`` alone; a subclass (``FACTS`` in
the plugin's ``testing`` module) adds items named by strings for secrecy by name, the
cases the shared tests play, and invariants of the game's own.

A plugin author imports everything from this one package: the driver (``driver``), golden
logs (``golden``), the invariants and the facts a game states for them (``conformance``),
the scrambles that check secrecy (``secrecy``).
"""

from __future__ import annotations

from tablestate.testing.conformance import (
    BLIND_BUDGET,
    Chooser,
    GameFacts,
    case_driver,
    check_bots_blind,
    check_conserved,
    check_contract,
    check_events,
    check_moves,
    check_refusals,
    check_state,
    counted,
    facts_of,
    play_checked,
    secret,
    strings,
)
from tablestate.testing.driver import (
    FixedRng,
    GameDriver,
    MoveRefused,
    ruleset,
)
from tablestate.testing.golden import (
    check_golden,
    golden_record,
    golden_replay,
)
from tablestate.testing.secrecy import (
    check_events_secret,
    check_view_secret,
    difference,
    scramble,
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
    "check_contract",
    "check_events",
    "check_events_secret",
    "check_golden",
    "check_moves",
    "check_refusals",
    "check_state",
    "check_view_secret",
    "counted",
    "difference",
    "facts_of",
    "golden_record",
    "golden_replay",
    "play_checked",
    "ruleset",
    "scramble",
    "secret",
    "strings",
]

"""Tablestate: a GraphQL game-state service for tabletop games.

The one public import path. A game's author needs only this module::

    from tablestate import Event, GameDef, Move, Rejected, Result, define_game, hookimpl

``hookspec`` declares a game's own hooks; ``tablestate.testing`` is the harness that checks a
game. The folders of the repository map onto packages: ``service/`` is ``tablestate`` and each
bundled game under ``plugins/`` is ``tablestate_<game>``.
"""

from __future__ import annotations

import pluggy

PROJECT = "tablestate"

hookimpl = pluggy.HookimplMarker(PROJECT)
hookspec = pluggy.HookspecMarker(PROJECT)

# The game-definition types, after the markers: the engine's modules import this package.
from tablestate.engine import (  # noqa: E402
    BAD_INPUT,
    ILLEGAL_MOVE,
    BotView,
    Event,
    GameDef,
    HouseRuleDef,
    Move,
    Outcome,
    Rejected,
    Result,
    Rng,
    RuleSet,
    SetupContext,
    define_game,
)

__all__ = [
    "BAD_INPUT",
    "ILLEGAL_MOVE",
    "PROJECT",
    "BotView",
    "Event",
    "GameDef",
    "HouseRuleDef",
    "Move",
    "Outcome",
    "Rejected",
    "Result",
    "Rng",
    "RuleSet",
    "SetupContext",
    "define_game",
    "hookimpl",
    "hookspec",
]

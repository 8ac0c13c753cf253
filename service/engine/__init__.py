"""The pure core: games, rule sets, tables, randomness and redaction. No I/O here."""

from __future__ import annotations

from tablestate.engine.bots import BotView
from tablestate.engine.game import (
    BAD_INPUT,
    ILLEGAL_MOVE,
    Event,
    GameDef,
    HouseRuleDef,
    Move,
    Outcome,
    Rejected,
    Result,
    SetupContext,
)
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet
from tablestate.engine.typed import define_game

__all__ = [
    "BAD_INPUT",
    "ILLEGAL_MOVE",
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
]

"""The pure core: games, rule sets, tables, randomness and redaction. No I/O here."""

from __future__ import annotations

from service.engine.bots import BotView
from service.engine.game import (
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
from service.engine.rng import Rng
from service.engine.ruleset import RuleSet

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
]

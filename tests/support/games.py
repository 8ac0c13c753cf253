"""The installed games, as the shared tests see them: one registry, every game's facts
(``<plugin>.testing.FACTS``) and its cases as pytest parameters."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from tablestate import plugins
from tablestate.engine import GameDef, RuleSet
from tablestate.testing import GameDriver, GameFacts, case_driver, facts_of


@cache
def registry() -> plugins.Registry:
    """Every installed plugin, found through the entry points, as at start-up."""
    return plugins.load()


def ruleset(game_id: str, *rules: str) -> RuleSet:
    """A rule set of ``game_id`` with these house rules on (ids with or without the prefix)."""
    ids = [r if "/" in r else f"{game_id}/{r}" for r in rules]
    return registry().ruleset(game_id, ids)


def game(game_id: str) -> GameDef[Any]:
    return registry().games[game_id]


def facts(game_id: str) -> GameFacts:
    return facts_of(registry(), game_id)


def driver(game_id: str, case: dict[str, Any]) -> GameDriver:
    return case_driver(game(game_id), case, registry())


def installed() -> list[str]:
    return sorted(registry().games)


def cases(attribute: str) -> list[Any]:
    """``pytest.param(game_id, case)`` for every case of every installed game."""
    return [
        pytest.param(game_id, case, id=f"{game_id}:{case['id']}")
        for game_id in installed()
        for case in getattr(facts(game_id), attribute)
    ]

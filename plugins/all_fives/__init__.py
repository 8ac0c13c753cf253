"""The All Fives game plugin (game id ``all-fives``). Hook implementations only."""

from __future__ import annotations

from plugins.all_fives.game import GAME
from service import hookimpl
from service.engine import GameDef


@hookimpl
def tablestate_games() -> list[GameDef]:  # type: ignore[type-arg]
    """All Fives."""
    return [GAME]

"""The Five Crowns game plugin (game id ``five-crowns``). Hook implementations only."""

from __future__ import annotations

from plugins.five_crowns.game import GAME
from service import hookimpl
from service.engine import GameDef


@hookimpl
def tablestate_games() -> list[GameDef]:  # type: ignore[type-arg]
    """Five Crowns."""
    return [GAME]

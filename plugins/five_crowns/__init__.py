"""The Five Crowns game plugin (game id ``five-crowns``). Hook implementations only."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import GameDef
from tablestate_five_crowns.game import GAME
from tablestate_five_crowns.state import State


@hookimpl
def tablestate_games() -> list[GameDef[State]]:
    """Five Crowns."""
    return [GAME]

"""The All Fives game plugin (game id ``all-fives``). Hook implementations only."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import GameDef
from tablestate_all_fives.game import GAME
from tablestate_all_fives.state import State


@hookimpl
def tablestate_games() -> list[GameDef[State]]:
    """All Fives."""
    return [GAME]

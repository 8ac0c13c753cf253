"""The All Fives game plugin (game id ``all-fives``). Hook implementations only."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import GameDef
from tablestate_all_fives.game import GAME


@hookimpl
def tablestate_games() -> list[GameDef]:  # type: ignore[type-arg]
    """All Fives."""
    return [GAME]

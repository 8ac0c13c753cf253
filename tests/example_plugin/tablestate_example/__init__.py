"""The Lucky Draw game plugin (game id ``lucky-draw``). Hook implementations only; the
house rules are plugins of their own, in ``house_rules/``."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import GameDef
from tablestate_example.game import GAME
from tablestate_example.state import State

__all__ = ["GAME", "tablestate_games"]


@hookimpl
def tablestate_games() -> list[GameDef[State]]:
    """Lucky Draw."""
    return [GAME]

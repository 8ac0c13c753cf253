"""Five by Five as a Tablestate game plugin (game id ``five-by-five``).

Its house rules are plugins of their own, in ``house_rules/``.
"""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import GameDef
from tablestate_five_by_five.game import GAME
from tablestate_five_by_five.state import State


@hookimpl
def tablestate_games() -> list[GameDef[State]]:
    """Five by Five."""
    return [GAME]

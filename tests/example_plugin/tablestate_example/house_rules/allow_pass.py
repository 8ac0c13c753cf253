"""House rule ``lucky-draw/allow-pass``: a player may pass (the move kind ``pass``, refused
at tables where this rule is off)."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="lucky-draw/allow-pass",
    game_id="lucky-draw",
    name="Passing",
    description="On your turn you may pass instead of playing or drawing; at most 3 "
    "passes in a row at the table. For 2 or 3 players.",
    min_players=2,
    max_players=3,
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]

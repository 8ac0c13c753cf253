"""House rule: a player may pass (adds the move kind ``pass``)."""

from __future__ import annotations

from service import hookimpl
from service.engine import HouseRuleDef


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    return [
        HouseRuleDef(
            id="lucky-draw/allow-pass",
            game_id="lucky-draw",
            name="Passing",
            description="On your turn you may pass instead of playing or drawing; at most 3 "
            "passes in a row at the table. For 2 or 3 players.",
            min_players=2,
            max_players=3,
        )
    ]

"""House rule ``five-by-five/shared-specials``: every player may score each special once."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/shared-specials",
    game_id="five-by-five",
    name="Shared specials",
    description=(
        "Every player who completes a special objective may claim it and score it once, "
        "whoever claimed it before: no race for the specials."
    ),
    min_players=2,
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_special_shared() -> bool:
    """Any seat that has not scored a special yet may score it."""
    return True

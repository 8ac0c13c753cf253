"""House rule ``five-by-five/open-objectives``: objective hands are public."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/open-objectives",
    game_id="five-by-five",
    name="Open objectives",
    description=(
        "Objective hands are public: every view shows each player's objective cards, and "
        "objective cards dealt, drawn and discarded are public in events. Action hands stay "
        "hidden."
    ),
    min_players=2,
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_objectives_public() -> bool:
    """Objective hands are public."""
    return True

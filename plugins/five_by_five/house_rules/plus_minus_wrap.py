"""House rule ``five-by-five/plus-minus-wrap``: +1 on a 6 gives 1, -1 on a 1 gives 6."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/plus-minus-wrap",
    game_id="five-by-five",
    name="+1/-1 wraps around",
    description="The +1/-1 card wraps: +1 on a 6 makes it a 1, and -1 on a 1 makes it a 6.",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_adjust_value(value: int, delta: int) -> int | None:
    """Wrap around 1..6."""
    return (value - 1 + delta) % 6 + 1

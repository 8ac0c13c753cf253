"""House rule ``all-fives/peg-out``: the first to reach the target wins at once."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="all-fives/peg-out",
    game_id="all-fives",
    name="Peg out",
    description="The first player (or side) whose total reaches the target wins at that "
    "moment, mid-deal. Order within a moment: gift (eldest first when both opponents get "
    "one), turn-up jack, trick honours as tricks complete, then end-of-deal points in the "
    "order High, Low, Jack, Game. The default checks the target only after each deal.",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_peg_out() -> bool:
    """Reaching the target wins at once."""
    return True

"""House rule ``five-crowns/wilds-not-exceed-naturals``: no more wilds than naturals."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_five_crowns.rules import MeldLimits

RULE: Final = HouseRuleDef(
    id="five-crowns/wilds-not-exceed-naturals",
    game_id="five-crowns",
    name="Wilds may not outnumber naturals",
    description="Every book and run holds at most as many wild cards as natural ones (so at "
    "least one natural). Applies to going out, last turns, lay-offs and the solo piles.",
    conflicts_with=(),  # none: it combines with every other rule
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_crowns_meld_limits() -> MeldLimits:
    """Wilds <= naturals, hence one natural at least."""
    return MeldLimits(min_naturals=1, max_wilds_per_natural=1)

"""House rule ``five-crowns/natural-required``: every meld needs a natural card."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_five_crowns.rules import MeldLimits

RULE: Final = HouseRuleDef(
    id="five-crowns/natural-required",
    game_id="five-crowns",
    name="At least one natural card",
    description="Every book and run needs at least one natural (non-wild) card; a card of "
    "the wild rank is always wild, so three 7s in the 7s round are not a meld (FC-7). "
    "Applies to going out, last turns, lay-offs and the solo piles.",
    conflicts_with=(),  # none: it combines with every other rule
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_crowns_meld_limits() -> MeldLimits:
    """One natural per meld at least."""
    return MeldLimits(min_naturals=1)

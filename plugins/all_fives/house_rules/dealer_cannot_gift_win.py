"""House rule ``all-fives/dealer-cannot-gift-win``: no gift may put a player out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_all_fives.state import State

RULE: Final = HouseRuleDef(
    id="all-fives/dealer-cannot-gift-win",
    game_id="all-fives",
    name="Dealer cannot gift a win",
    description="If giving one would bring any recipient to the target, the dealer may not "
    "give one and must run the cards (Foster: the dealer cannot give a player enough to put "
    "him out).",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_may_give(state: State, sides: Sequence[int]) -> bool:
    """No gift that brings a recipient to the target."""
    return all(state.scores[side] + 1 < state.target for side in sides)

"""House rule ``all-fives/turn-up-jack-bonus``: the dealer scores for turning up a jack."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_all_fives import rules as r
from tablestate_all_fives.state import Award, State

RULE: Final = HouseRuleDef(
    id="all-fives/turn-up-jack-bonus",
    game_id="all-fives",
    name="Turn-up jack bonus",
    description="If a turn-up that becomes trump is a jack (the first turn-up on a stand or "
    "a gift, or a run's new turn-up), the dealer (the dealer's side) scores 1 at once, after "
    "any gift.",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_turn_up_awards(state: State, turn_up: str) -> list[Award]:
    """One point to the dealer's side for a jack turned up as trump."""
    if r.rank(turn_up) != "J":
        return []
    return [Award(state.sides[state.dealer], 1, "turnUpJack")]

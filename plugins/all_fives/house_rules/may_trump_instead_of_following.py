"""House rule ``all-fives/may-trump-instead-of-following``: the All Fours rule of play."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="all-fives/may-trump-instead-of-following",
    game_id="all-fives",
    name="May trump instead of following",
    description="When a plain suit is led, a player holding that suit may play either that "
    "suit or a trump; with no card of the suit, any card. When trump is led, a player must "
    "follow with trump if able (the All Fours rule; the default is strict following).",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_may_trump() -> bool:
    """A trump may always be played to a plain suit led."""
    return True

"""House rule ``five-by-five/removed-dice-leave``: removed and painted-over dice leave the game."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/removed-dice-leave",
    game_id="five-by-five",
    name="Removed dice leave the game",
    description=(
        "A die taken off the board by Remove or Paint leaves the game instead of going back "
        "to the supply, so colours run out sooner. So that the board can always be filled, "
        "Remove and Paint are legal only while the supply holds more dice than there are "
        "empty squares."
    ),
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_die_leaves_game(die: str) -> bool:
    """Every die taken off the board leaves."""
    return True

"""House rule ``five-by-five/diagonal-lines``: the two main diagonals count as lines."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_five_by_five.rules import DIAGONALS, Line

RULE = HouseRuleDef(
    id="five-by-five/diagonal-lines",
    game_id="five-by-five",
    name="Diagonal lines",
    description=(
        "The two main diagonals, corner to corner, also count as lines for every line "
        "objective: full-line sums, all even, all odd, full house, the small straight "
        "(4 consecutive squares of a diagonal) and the three line specials. Touching stays "
        "orthogonal."
    ),
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_extra_lines() -> list[Line]:
    """The two main diagonals."""
    return list(DIAGONALS)

"""House rule ``five-by-five/swap-into-empty``: Swap may move a die to an empty square."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/swap-into-empty",
    game_id="five-by-five",
    name="Swap into an empty square",
    description=(
        "Swap may also move a die into an empty square beside it (sharing an edge), leaving "
        "its own square empty. Two empty squares still cannot be swapped."
    ),
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_swap_allowed(first: str | None, second: str | None) -> bool:
    """One die and one empty square may swap."""
    return (first is None) != (second is None)

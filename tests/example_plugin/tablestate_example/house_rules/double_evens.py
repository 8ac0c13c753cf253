"""House rule ``lucky-draw/double-evens``: even ranks score double."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="lucky-draw/double-evens",
    game_id="lucky-draw",
    name="Double evens",
    description="A played card of even rank scores twice its rank.",
    conflicts_with=("lucky-draw/odd-bonus",),
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def lucky_draw_points(card: str, rank: int) -> int | None:
    """Twice an even rank; odd ranks are left to the other rules."""
    return rank * 2 if rank % 2 == 0 else None

"""House rule ``lucky-draw/odd-bonus``: odd ranks score one more."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="lucky-draw/odd-bonus",
    game_id="lucky-draw",
    name="Odd bonus",
    description="A played card of odd rank scores its rank plus one.",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def lucky_draw_points(card: str, rank: int) -> int | None:
    """An odd rank plus one; even ranks are left to the other rules."""
    return rank + 1 if rank % 2 == 1 else None

"""House rule: odd ranks score one more."""

from __future__ import annotations

from service import hookimpl
from service.engine import HouseRuleDef


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    return [
        HouseRuleDef(
            id="lucky-draw/odd-bonus",
            game_id="lucky-draw",
            name="Odd bonus",
            description="A played card of odd rank scores its rank plus one.",
        )
    ]


@hookimpl
def lucky_draw_points(card: str, rank: int) -> int | None:
    return rank + 1 if rank % 2 == 1 else None

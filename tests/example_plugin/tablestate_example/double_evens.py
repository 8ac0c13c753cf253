"""House rule: even ranks score double."""

from __future__ import annotations

from service import hookimpl
from service.engine import HouseRuleDef


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    return [
        HouseRuleDef(
            id="lucky-draw/double-evens",
            game_id="lucky-draw",
            name="Double evens",
            description="A played card of even rank scores twice its rank.",
            conflicts_with=("lucky-draw/odd-bonus",),
        )
    ]


@hookimpl
def lucky_draw_points(card: str, rank: int) -> int | None:
    return rank * 2 if rank % 2 == 0 else None

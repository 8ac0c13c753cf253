"""A house rule loaded by module path (``TABLESTATE_PLUGINS``), not by entry point."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    return [
        HouseRuleDef(
            id="lucky-draw/triple-tens",
            game_id="lucky-draw",
            name="Triple tens",
            description="A played 10 scores 30.",
            conflicts_with=("lucky-draw/double-evens",),
        )
    ]


@hookimpl
def lucky_draw_points(card: str, rank: int) -> int | None:
    return 30 if rank == 10 else None

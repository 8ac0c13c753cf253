"""House rule ``all-fives/beg-gift-to-all-opponents``: Foster's three-hand Seven-up gift."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_all_fives.state import State

RULE: Final = HouseRuleDef(
    id="all-fives/beg-gift-to-all-opponents",
    game_id="all-fives",
    name="Gift to both opponents",
    description="With 3 players, when the dealer gives one, both non-dealers score 1 "
    "(eldest first) instead of eldest alone.",
    conflicts_with=("all-fives/partnerships", "all-fives/bunch-on-agreement"),
    min_players=3,
    max_players=3,
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_gift_sides(state: State) -> tuple[int, ...]:
    """Every side but the dealer's, from eldest clockwise."""
    out: list[int] = []
    for i in range(1, state.n):
        side = state.sides[(state.dealer + i) % state.n]
        if side != state.sides[state.dealer] and side not in out:
            out.append(side)
    return tuple(out)

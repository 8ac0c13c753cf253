"""A third-party house rule for the hook tests: it answers Five by Five's hooks with the
edge cases the game must read right (no answer, empty or foreign choices)."""

from __future__ import annotations

from collections.abc import Sequence

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/test-edge",
    game_id="five-by-five",
    name="Edge answers",
    description="Answers the game's hooks with None, empty and foreign choices.",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_adjust_value() -> None:
    """No opinion: the base rule stands."""
    return None


@hookimpl
def five_by_five_forfeit_discards(hand: Sequence[str]) -> list[list[str]]:
    """An empty choice and a card not in hand (both ignored), and the first card alone."""
    return [[], ["PAINT", "PAINT", "PAINT", "PAINT", "PAINT"], [hand[0]]]

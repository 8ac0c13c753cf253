"""House rule ``five-by-five/partial-action-discard``: forfeit any number of action cards."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/partial-action-discard",
    game_id="five-by-five",
    name="Partial action discard",
    description=(
        "A forfeit of action cards may discard any number of them, at least one, instead "
        "of the whole hand; the player then refills to the action hand size, taking each "
        "card from either deck."
    ),
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_forfeit_discards(hand: Sequence[str]) -> list[list[str]]:
    """Every non-empty part of the hand (copies counted once per choice)."""
    found = {combo for n in range(1, len(hand) + 1) for combo in combinations(hand, n)}
    return [list(c) for c in sorted(found)]

"""House rule ``five-crowns/no-immediate-rediscard``: the card taken from the discard pile
stays in hand this turn."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="five-crowns/no-immediate-rediscard",
    game_id="five-crowns",
    name="No immediate re-discard",
    description="A card taken from the discard pile may not be discarded in the same turn "
    "(nor its twin, which it cannot be told from), going out and laying down included.",
    min_players=2,
    conflicts_with=(),  # none: it combines with every other rule
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_crowns_may_discard(card: str, taken: str | None) -> bool | None:
    """Not the card just taken."""
    return False if card == taken else None

"""House rule ``five-crowns/single-deck-two-players``: two players use one 58-card deck."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_five_crowns.rules import deck

RULE: Final = HouseRuleDef(
    id="five-crowns/single-deck-two-players",
    game_id="five-crowns",
    name="One deck for two",
    description="With exactly 2 players, play with one deck: 58 cards (each card once, 3 jokers).",
    min_players=2,
    max_players=2,
    conflicts_with=(),  # none: it combines with every other rule
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_crowns_deck(players: int) -> tuple[str, ...] | None:
    """One deck for two players."""
    return deck(1) if players == 2 else None

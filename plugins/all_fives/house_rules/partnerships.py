"""House rule ``all-fives/partnerships``: four players in two fixed partnerships."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="all-fives/partnerships",
    game_id="all-fives",
    name="Partnerships",
    description="4 players in 2 fixed partnerships, partners sitting opposite (the 1st and "
    "3rd players in play order against the 2nd and 4th). Scores are per partnership; only "
    "eldest begs; the gift goes to eldest's side. The game needs this rule for 4 players.",
    conflicts_with=("all-fives/beg-gift-to-all-opponents", "all-fives/bunch-on-agreement"),
    min_players=4,
    max_players=4,
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_sides(players: int) -> tuple[int, ...] | None:
    """Partners opposite: positions 0 and 2 against 1 and 3."""
    return (0, 1, 0, 1) if players == 4 else None

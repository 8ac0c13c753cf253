"""House rule ``five-crowns/lay-off-on-others``: on the last turns, cards may go on any
meld on the table."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="five-crowns/lay-off-on-others",
    game_id="five-crowns",
    name="Play on other players' melds",
    description="After someone goes out, each player on a last turn may add cards from hand "
    "to any meld on the table (layOff move): naturals of a book's rank, naturals of a run's "
    "suit that still make one run with it (its wilds move as needed), wilds on any book or "
    "on a run shorter than 11. The engine's "
    "last-turn scoring counts lay-offs too. The player who went out has no turn to do it.",
    min_players=2,
    conflicts_with=(),  # none: it combines with every other rule
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_crowns_may_lay_off(final_turn: bool) -> bool:
    """On last turns only."""
    return final_turn

"""House rule ``five-crowns/declare-final-melds``: on a last turn, what is not laid down
counts."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="five-crowns/declare-final-melds",
    game_id="five-crowns",
    name="Declare last-turn melds",
    description="On a last turn players lay their melds down themselves (layDown, goOut); "
    "every card they keep counts, and a plain discard lays nothing down. By default the "
    "engine lays down the best arrangement for them (FC-12 inverted).",
    min_players=2,
    conflicts_with=(),  # none: it combines with every other rule
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_crowns_declares_final_melds() -> bool:
    """Players declare."""
    return True

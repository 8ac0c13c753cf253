"""House rule ``five-crowns/reshuffle-whole-discard``: the whole discard pile becomes the
new stock."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="five-crowns/reshuffle-whole-discard",
    game_id="five-crowns",
    name="Reshuffle the whole discard pile",
    description="When the stock runs out, the whole discard pile (top card included) is "
    "shuffled into a new stock, so the next player must draw from it (FC-5 inverted).",
    min_players=2,
    conflicts_with=(),  # none: it combines with every other rule
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_crowns_restock(discard: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Keep nothing face up."""
    return (), tuple(discard)

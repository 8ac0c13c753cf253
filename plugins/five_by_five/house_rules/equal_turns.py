"""House rule ``five-by-five/equal-turns``: when the board fills, finish the round."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE = HouseRuleDef(
    id="five-by-five/equal-turns",
    game_id="five-by-five",
    name="Equal turns",
    description=(
        "When the last square fills, the game does not end at once: the turn goes on as "
        "usual and the rest of the round is played (play order from the first player), so "
        "everyone has had the same number of turns. With the board full, colour cards "
        "cannot be played; the other actions and forfeits can. Then every player, from the "
        "first player on, makes the last objective plays."
    ),
    min_players=2,
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def five_by_five_finish_round() -> bool:
    """Play the round out."""
    return True

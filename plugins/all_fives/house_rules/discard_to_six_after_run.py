"""House rule ``all-fives/discard-to-six-after-run``: Foster's "usual practice"."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

RULE: Final = HouseRuleDef(
    id="all-fives/discard-to-six-after-run",
    game_id="all-fives",
    name="Discard to six after a run",
    description="After trump is fixed by running the cards, each player in turn from eldest "
    "discards face down, one card per move, until holding 6 cards; the discards are dead. "
    "Play then begins as usual with 6 tricks.",
)

HAND_LIMIT: Final = 6


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_hand_limit() -> int:
    """Keep six cards."""
    return HAND_LIMIT

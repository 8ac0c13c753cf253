"""House rule ``all-fives/bunch-on-agreement``: a redeal when both players want one."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_all_fives.state import State

RULE: Final = HouseRuleDef(
    id="all-fives/bunch-on-agreement",
    game_id="all-fives",
    name="Bunch on agreement",
    description="2 players only: after trump is fixed by running the cards, eldest may "
    "propose a redeal (move bunch) or pass (move declineBunch); after a pass the dealer may "
    "propose. If the other player agrees (bunch), the same dealer reshuffles and redeals "
    "and no points from the void deal stand (a turn-up jack's point is taken back); a "
    "refusal (declineBunch) starts the play.",
    conflicts_with=("all-fives/beg-gift-to-all-opponents", "all-fives/partnerships"),
    min_players=2,
    max_players=2,
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


@hookimpl
def all_fives_bunch_offered(state: State) -> bool:
    """Open the vote at a two-player table."""
    return state.n == 2

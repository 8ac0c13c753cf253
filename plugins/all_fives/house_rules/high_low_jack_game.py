"""House rule ``all-fives/high-low-jack-game``: Seven-up's four points at the end of a deal."""

from __future__ import annotations

from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_all_fives import rules as r
from tablestate_all_fives.state import Award, State

RULE: Final = HouseRuleDef(
    id="all-fives/high-low-jack-game",
    game_id="all-fives",
    name="High, Low, Jack and Game",
    description="At the end of each deal, 1 point each, in this order: High, to the player "
    "dealt the highest trump in play; Low, to the player dealt the lowest trump in play "
    "(option lowGoesTo=won: to the winner of the trick holding it); Jack, to the winner of "
    "the trick holding the trump jack (nobody if it is not in play); Game, to the largest "
    "count of A 4, K 3, Q 2, J 1, 10 10 in every suit plus 5 for the five of trumps in the "
    "tricks won (a tie per option gameTie; nobody when every count is 0). 'In play' = the "
    "hands as the play begins (after any discards); turn-ups and stock are out of play. One "
    "card can be High and Low; the trump jack keeps its 1-point honour too.",
)


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [RULE]


def _game_award(state: State, trump: str) -> list[Award]:
    counts = [0] * state.n_sides
    for pos, cards in enumerate(state.won):
        counts[state.sides[pos]] += r.game_points(cards, trump)
    best = max(counts)
    if best == 0:
        return []
    # Tied sides in play order from eldest, so a shared point is pegged eldest first.
    order = [state.sides[(state.eldest + i) % state.n] for i in range(state.n)]
    tied = [side for side in dict.fromkeys(order) if counts[side] == best]
    if len(tied) == 1:
        return [Award(tied[0], 1, "game")]
    if state.game_tie == "eldest":
        eldest = state.sides[state.eldest]
        return [Award(eldest, 1, "game")] if eldest in tied else []
    if state.game_tie == "dealerOpponents":
        dealer = state.sides[state.dealer]
        return [Award(side, 1, "game") for side in tied if side != dealer]
    return []


def deal_awards(state: State) -> list[Award]:
    """High, Low, Jack and Game for a deal played out, in scoring order."""
    trump = state.trump
    if trump is None:
        return []
    in_play = [(pos, c) for pos, hand in enumerate(state.held) for c in hand if r.suit(c) == trump]
    awards: list[Award] = []
    if in_play:
        high_pos, _ = max(in_play, key=lambda pc: r.rank_order(pc[1]))
        awards.append(Award(state.sides[high_pos], 1, "high"))
        low_pos, low = min(in_play, key=lambda pc: r.rank_order(pc[1]))
        if state.low_goes_to == "won":
            low_pos = next(p for p, won in enumerate(state.won) if low in won)
        awards.append(Award(state.sides[low_pos], 1, "low"))
        jack = "J" + trump
        for pos, won in enumerate(state.won):
            if jack in won:
                awards.append(Award(state.sides[pos], 1, "jack"))
    return awards + _game_award(state, trump)


@hookimpl
def all_fives_deal_awards(state: State) -> list[Award]:
    """The four points of Seven-up."""
    return deal_awards(state)

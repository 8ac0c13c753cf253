"""Who is to act, and the legal moves of a seat, in the move input's JSON shape. Going out
and laying down are listed once, with a best arrangement filled in; the bot uses the same
helpers."""

from __future__ import annotations

from typing import Any

from tablestate.engine.game import Move
from tablestate.engine.ruleset import RuleSet
from tablestate_five_crowns._house import House, house
from tablestate_five_crowns.rules import (
    CardPoints,
    best_arrangement,
    card_points,
    extend_meld,
    go_out_discards,
    is_wild,
    min_leftover,
    remove_cards,
    sort_cards,
)
from tablestate_five_crowns.state import DISCARD, DRAW, NOBODY, OVER, STOCK, State

Json = dict[str, Any]


def to_act(state: State) -> tuple[int, ...]:
    """The seat to move, or none once the game is over."""
    if state.phase == OVER or state.turn == NOBODY:
        return ()
    return (state.seats[state.turn],)


def allowed_discards(state: State, pos: int, hs: House) -> list[str]:
    """The distinct cards of the hand that may be discarded now."""
    taken = state.drawn if state.drawn_from == DISCARD else None
    return [c for c in sort_cards(set(state.hands[pos])) if hs.may_discard(c, taken)]


def _throw_order(card: str, wild: str, points: CardPoints) -> tuple[bool, int, str]:
    """Which discard to prefer when several are as good: a natural, the dearest."""
    return (not is_wild(card, wild), card_points(card, wild, points), card)


def go_out_move(state: State, pos: int, hs: House) -> Json | None:
    """Going out with a valid arrangement, if the hand can."""
    hand = state.hands[pos]
    allowed = set(allowed_discards(state, pos, hs))
    options = [d for d in go_out_discards(hand, state.wild, hs.limits) if d in allowed]
    if not options:
        return None
    discard = max(options, key=lambda c: _throw_order(c, state.wild, hs.points))
    rest = remove_cards(hand, [discard])
    assert rest is not None
    # the standard points cost every card something, so their best arrangement melds
    # every card (a table where some card costs 0 may leave it out)
    melds = best_arrangement(rest, state.wild, hs.limits).melds
    return {"goOut": {"melds": [list(m.cards) for m in melds], "discard": discard}}


def leftover_after(state: State, pos: int, hs: House, discard: str) -> int:
    """The minimum leftover of the hand less ``discard`` (own melds only)."""
    rest = remove_cards(state.hands[pos], [discard])
    assert rest is not None
    lim = hs.limits
    return min_leftover(
        rest,
        state.wild,
        min_naturals=lim.min_naturals,
        max_wilds_per_natural=lim.max_wilds_per_natural,
        points=hs.points,
    )


def lay_down_move(state: State, pos: int, hs: House) -> Json | None:
    """Laying down the best own melds on a last turn (with the best discard for them),
    if any meld can be laid and something is left over."""
    options = allowed_discards(state, pos, hs)
    if not options:
        return None
    discard = min(
        options,
        key=lambda d: (
            leftover_after(state, pos, hs, d),
            -card_points(d, state.wild, hs.points),
            d,
        ),
    )
    rest = remove_cards(state.hands[pos], [discard])
    assert rest is not None
    best = best_arrangement(rest, state.wild, hs.limits, points=hs.points)
    if not best.melds or not best.leftover:
        return None
    return {"layDown": {"melds": [list(m.cards) for m in best.melds], "discard": discard}}


def lay_off_moves(state: State, pos: int, hs: House) -> list[Json]:
    """Every single card that may go on a meld of the table now."""
    hand = state.hands[pos]
    if len(hand) < 2 or not state.melds or not hs.may_lay_off(final_turn=state.final_turns):
        return []
    out = []
    for index, table_meld in enumerate(state.melds):
        for card in sort_cards(set(hand)):
            if extend_meld(table_meld.meld, [card], state.wild, hs.limits) is not None:
                out.append({"layOff": {"cards": [card], "meld": index}})
    return out


def legal_moves(state: State, seat: int, rules: RuleSet) -> list[Move]:
    """Every legal move of ``seat`` now (none when it is not to act)."""
    if state.turn < 0 or state.seats[state.turn] != seat:
        return []
    hs = house(rules)
    pos = state.turn
    if state.solo is not None:
        solo = state.solo
        assert solo.current is not None
        return [
            {"place": {"pile": i, "discard": card}}
            for i, pile in enumerate(solo.piles)
            if not pile.closed
            for card in sort_cards(set(pile.cards) | {solo.current})
        ]
    if state.phase == DRAW:
        out: list[Move] = []
        if state.stock:
            out.append({"draw": {"source": STOCK}})
        if state.discard:
            out.append({"draw": {"source": DISCARD}})
        return out
    moves: list[Move] = [{"discard": {"card": c}} for c in allowed_discards(state, pos, hs)]
    going = go_out_move(state, pos, hs)
    if going is not None:
        moves.append(going)
    elif state.final_turns:
        laying = lay_down_move(state, pos, hs)
        if laying is not None:
            moves.append(laying)
    moves += lay_off_moves(state, pos, hs)
    return moves

"""What a Lucky Draw move does: ``apply`` plays a well-formed move of the seat to act, or
says why the rules refuse it (ILLEGAL_MOVE); ``flow.end_turn`` then passes the turn."""

from __future__ import annotations

from dataclasses import replace

from tablestate.engine import Event, Move, Outcome, Rejected, Rng, RuleSet
from tablestate_example.flow import end_turn
from tablestate_example.rules import MAX_HAND, MAX_PASSES, PASS_RULE, rank
from tablestate_example.state import State


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    """Play, draw or (house rule) pass."""
    pos = state.turn
    kind, arg = next(iter(move.items()))
    events: list[Event] = []
    if kind == "play":
        card = arg["card"]
        hand = list(state.hands[pos])
        if card not in hand:
            return Rejected("ILLEGAL_MOVE", "that card is not in your hand")
        hand.remove(card)
        got = rules.hook.lucky_draw_points(card=card, rank=rank(card))
        points = rank(card) if got is None else int(got)
        hands = (*state.hands[:pos], tuple(hand), *state.hands[pos + 1 :])
        scores = (*state.scores[:pos], state.scores[pos] + points, *state.scores[pos + 1 :])
        state = replace(state, hands=hands, scores=scores, played=(*state.played, card), passes=0)
        events.append(Event("card.played", {"card": card, "points": points}, seat=seat))
    elif kind == "draw":
        if not state.stock or len(state.hands[pos]) >= MAX_HAND:
            return Rejected("ILLEGAL_MOVE", "you cannot draw now")
        card, stock = state.stock[0], state.stock[1:]
        hands = (*state.hands[:pos], (*state.hands[pos], card), *state.hands[pos + 1 :])
        state = replace(state, hands=hands, stock=stock, passes=0)
        events.append(
            Event("card.drawn", {"stock": len(stock)}, seat=seat, private={seat: {"card": card}})
        )
    else:
        if not rules.is_on(PASS_RULE):
            return Rejected("ILLEGAL_MOVE", "passing is a house rule that is off here")
        if state.passes >= MAX_PASSES:
            return Rejected("ILLEGAL_MOVE", "too many passes in a row")
        state = replace(state, passes=state.passes + 1)
        events.append(Event("turn.passed", {}, seat=seat))
    state, more = end_turn(state)
    return Outcome(state, (*events, *more))

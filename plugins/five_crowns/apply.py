"""What a Five Crowns move does: ``apply`` plays a well-formed move of the seat to act, or
says why the rules refuse it (ILLEGAL_MOVE). The steps a move forces (the next turn,
scoring, the next deal) are in ``flow.py``; the solo game's move in ``_solo.py``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tablestate.engine.game import ILLEGAL_MOVE, Event, Move, Outcome, Rejected
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet
from tablestate_five_crowns import _solo
from tablestate_five_crowns._house import House, house
from tablestate_five_crowns.flow import meld_json, pass_turn, score_final
from tablestate_five_crowns.rules import (
    Meld,
    extend_meld,
    make_meld,
    remove_cards,
    sort_cards,
)
from tablestate_five_crowns.state import DISCARD, DRAW, STOCK, State, TableMeld


def _illegal(reason: str) -> Rejected:
    return Rejected(ILLEGAL_MOVE, reason)


def _with_hand(state: State, pos: int, hand: Sequence[str]) -> State:
    return replace(state, hands=(*state.hands[:pos], sort_cards(hand), *state.hands[pos + 1 :]))


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    """Apply one move of ``seat`` (to act, and well formed)."""
    hs = house(rules)
    pos = state.seats.index(seat)
    kind, body = next(iter(move.items()))
    if state.solo is not None:
        if kind != "place":
            return _illegal("the solo game has one move: place the turned card on a pile")
        return _solo.place(state, body["pile"], body["discard"], rng, hs)
    if kind == "place":
        return _illegal("place is the solo game's move")
    if state.phase == DRAW:
        if kind != "draw":
            return _illegal("start your turn by drawing a card")
        return _draw(state, pos, body["source"])
    if kind == "draw":
        return _illegal("you have drawn this turn already")
    if kind == "layOff":
        return _lay_off(state, pos, body["cards"], body["meld"], hs)
    card = body["card"] if kind == "discard" else body["discard"]
    if card not in state.hands[pos]:
        return _illegal(f"you do not hold {card}")
    if not hs.may_discard(card, state.drawn if state.drawn_from == DISCARD else None):
        return _illegal("a card taken from the discard pile may not be discarded this turn")
    if kind == "discard":
        return _discard(state, pos, card, (), rng, hs)
    melds = _melds(state, body["melds"], hs)
    if isinstance(melds, Rejected):
        return melds
    rest = remove_cards(state.hands[pos], [c for m in body["melds"] for c in m] + [card])
    if rest is None:
        return _illegal("the melds and the discard must be cards of your hand, each used once")
    if kind == "goOut":
        if rest:
            return _illegal("going out lays down every card of your hand but the discard")
        if not state.final_turns:
            return _go_out(state, pos, melds, card, rng, hs)
    elif not state.final_turns:
        return _illegal("melds stay in your hand until you go out (or someone else does)")
    return _discard(_with_hand(state, pos, (*rest, card)), pos, card, melds, rng, hs)


def _melds(state: State, groups: Sequence[Sequence[str]], hs: House) -> list[Meld] | Rejected:
    out = []
    for cards in groups:
        meld = make_meld(list(cards), state.wild, hs.limits)
        if meld is None:
            return _illegal(f"{' '.join(cards)} is not a book or a run this round")
        out.append(meld)
    return out


def _draw(state: State, pos: int, source: str) -> Outcome[State] | Rejected:
    seat = state.seats[pos]
    if source == STOCK:
        if not state.stock:
            return _illegal("the stock is empty")
        card, stock, pile = state.stock[0], state.stock[1:], state.discard
        event = Event("card.drawn", {"source": STOCK}, seat=seat, private={seat: {"card": card}})
    else:
        if not state.discard:
            return _illegal("the discard pile is empty")
        card, stock, pile = state.discard[-1], state.stock, state.discard[:-1]
        event = Event("card.drawn", {"source": DISCARD, "card": card}, seat=seat)
    new = _with_hand(state, pos, (*state.hands[pos], card))
    new = replace(new, stock=stock, discard=pile, phase=DISCARD, drawn=card, drawn_from=source)
    return Outcome(new, (event,))


def _discard(
    state: State, pos: int, card: str, laid: Sequence[Meld], rng: Rng, hs: House
) -> Outcome[State]:
    hand = remove_cards(state.hands[pos], [card])
    assert hand is not None
    state = replace(_with_hand(state, pos, hand), discard=(*state.discard, card))
    events = [Event("card.discarded", {"card": card}, seat=state.seats[pos])]
    if state.final_turns:
        state, scored = score_final(state, pos, hs, tuple(laid))
        events += scored
    state, more = pass_turn(state, rng, hs)
    return Outcome(state, (*events, *more))


def _go_out(
    state: State, pos: int, melds: list[Meld], card: str, rng: Rng, hs: House
) -> Outcome[State]:
    points = list(state.round_points)
    points[pos] = 0
    state = replace(
        _with_hand(state, pos, ()),
        discard=(*state.discard, card),
        melds=state.melds + tuple(TableMeld(pos, m) for m in melds),
        went_out=pos,
        round_points=tuple(points),
    )
    event = Event(
        "player.went_out",
        {"melds": [meld_json(m) for m in melds], "discard": card},
        seat=state.seats[pos],
    )
    state, more = pass_turn(state, rng, hs)
    return Outcome(state, (event, *more))


def _lay_off(
    state: State, pos: int, cards: Sequence[str], index: int, hs: House
) -> Outcome[State] | Rejected:
    if not hs.may_lay_off(final_turn=state.final_turns):
        return _illegal("cards may not be laid off on the table's melds now")
    if index >= len(state.melds):
        return _illegal(f"there is no meld {index} on the table")
    rest = remove_cards(state.hands[pos], cards)
    if rest is None:
        return _illegal("you can lay off only cards of your hand, each once")
    if not rest:
        return _illegal("keep a card to discard")
    target = state.melds[index]
    grown = extend_meld(target.meld, list(cards), state.wild, hs.limits)
    if grown is None:
        return _illegal(f"{' '.join(cards)} cannot go on meld {index}")
    melds = (*state.melds[:index], replace(target, meld=grown), *state.melds[index + 1 :])
    state = replace(_with_hand(state, pos, rest), melds=melds)
    event = Event(
        "cards.laid_off",
        {"meld": index, "cards": list(cards), "result": meld_json(grown)},
        seat=state.seats[pos],
    )
    return Outcome(state, (event,))


__all__ = ["apply"]

"""A Five Crowns bot that plays sensibly, with the exact solver as its eye.

- It goes out as soon as it can.
- It takes the top discard only when keeping it (and throwing the worst card instead)
  leaves fewer points in the best arrangement than the hand holds now. So every take
  lowers the taker's points and no throw raises them: bots never pass cards round in
  circles.
- It discards the card whose loss leaves the fewest points in the best arrangement; among
  equals, the card that builds the fewest melds-to-be (no same rank, no near card of its
  suit), then the dearest. It keeps wilds unless everything else is worse.
- On a last turn it keeps the best arrangement: with the engine scoring (default) it only
  picks the discard; where players declare, it lays off (house rule) and lays down the best
  arrangement itself.
- Solo: it puts the turned card where it lowers that pile's points most and throws the
  card that pile misses least.

It is deterministic: the ``rng`` it is handed is not used. It decides from its own hand
and the cards in sight (``BotView``: the other hands and the stock are guesses).
"""

from __future__ import annotations

from tablestate.engine.bots import BotView
from tablestate.engine.game import Move
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet
from tablestate_five_crowns._house import House, house
from tablestate_five_crowns.legal import (
    allowed_discards,
    go_out_move,
    lay_down_move,
)
from tablestate_five_crowns.rules import (
    best_arrangement,
    card_points,
    is_wild,
    min_leftover,
    parse,
    remove_cards,
    wild_rank,
)
from tablestate_five_crowns.state import DISCARD, DRAW, OVER, STOCK, State


def _points(cards: tuple[str, ...], wild: str, hs: House) -> int:
    lim = hs.limits
    return min_leftover(
        cards,
        wild,
        min_naturals=lim.min_naturals,
        max_wilds_per_natural=lim.max_wilds_per_natural,
        points=hs.points,
    )


def _links(card: str, rest: tuple[str, ...], wild: str) -> int:
    """How many cards of ``rest`` could share a meld with ``card`` (wilds: all of them)."""
    if is_wild(card, wild):
        return 99
    parsed = parse(card)
    assert parsed is not None
    rank, suit = parsed
    n = 0
    for other in rest:
        o = parse(other)
        if o is None or is_wild(other, wild):
            continue
        if o[0] == rank or (o[1] == suit and abs(o[0] - rank) <= 2):
            n += 1
    return n


def _best_discard(hand: tuple[str, ...], options: list[str], wild: str, hs: House) -> str:
    def key(card: str) -> tuple[int, int, int, str]:
        rest = remove_cards(hand, [card])
        assert rest is not None
        dear = -card_points(card, wild, hs.points)
        return (_points(rest, wild, hs), _links(card, rest, wild), dear, card)

    return min(options, key=key)


def _draw(state: State, pos: int, hs: House) -> Move:
    hand = state.hands[pos]
    if not state.discard:
        return {"draw": {"source": STOCK}}
    top = state.discard[-1]
    if not state.stock:
        return {"draw": {"source": DISCARD}}
    taken = (*hand, top)
    options = [c for c in set(taken) if hs.may_discard(c, top)]
    throw = _best_discard(taken, options, state.wild, hs)
    if throw == top:  # it would go straight back: no use taking it
        return {"draw": {"source": STOCK}}
    now = _points(hand, state.wild, hs)
    after = _points(remove_cards(taken, [throw]) or (), state.wild, hs)
    return {"draw": {"source": DISCARD if after < now else STOCK}}


def _last_turn(state: State, pos: int, hs: House) -> Move:
    hand = state.hands[pos]
    options = allowed_discards(state, pos, hs)
    if not hs.declare:
        if hs.may_lay_off(final_turn=True):
            table = tuple(m.meld for m in state.melds)

            def cost(card: str) -> tuple[int, int]:
                rest = remove_cards(hand, [card]) or ()
                return (
                    best_arrangement(rest, state.wild, hs.limits, table, hs.points).points,
                    -card_points(card, state.wild, hs.points),
                )

            return {"discard": {"card": min(options, key=cost)}}
        return {"discard": {"card": _best_discard(hand, options, state.wild, hs)}}
    if hs.may_lay_off(final_turn=True) and state.melds and len(hand) > 1:
        table = tuple(m.meld for m in state.melds)
        discard = _best_discard(hand, options, state.wild, hs)
        rest = remove_cards(hand, [discard]) or ()
        best = best_arrangement(rest, state.wild, hs.limits, table, hs.points)
        if best.lay_offs:
            first = best.lay_offs[0]
            return {"layOff": {"cards": list(first.cards), "meld": first.target}}
    laying = lay_down_move(state, pos, hs)
    if laying is not None:
        return laying
    return {"discard": {"card": _best_discard(hand, options, state.wild, hs)}}


def _solo(state: State, hs: House) -> Move:
    solo = state.solo
    assert solo is not None and solo.current is not None
    best: tuple[int, int, int, str] | None = None
    for i, pile in enumerate(solo.piles):
        if pile.closed:
            continue
        wild = wild_rank(pile.size)
        cards = (*pile.cards, solo.current)
        for card in sorted(set(cards)):
            rest = remove_cards(cards, [card]) or ()
            gain = _points(rest, wild, hs) - pile.points
            key = (gain, -card_points(card, wild, hs.points), i, card)
            if best is None or key < best:
                best = key
    assert best is not None
    return {"place": {"pile": best[2], "discard": best[3]}}


def bot(view: BotView[State], rng: Rng) -> Move:
    """A sensible legal move for ``view.seat``."""
    state, seat = view.state, view.seat
    hs = house(view.rules)
    pos = state.seats.index(seat)
    if state.solo is not None:
        return _solo(state, hs)
    if state.phase == DRAW:
        return _draw(state, pos, hs)
    going = go_out_move(state, pos, hs)
    if going is not None:
        return going
    if state.final_turns:
        return _last_turn(state, pos, hs)
    hand = state.hands[pos]
    return {
        "discard": {"card": _best_discard(hand, allowed_discards(state, pos, hs), state.wild, hs)}
    }


def standing(state: State, seat: int, rules: RuleSet) -> float:
    """How far the seat's total, with what its hand would leave now, is below the mean of
    the others' (lower totals win; the strong bot's judge of a playout)."""
    pos = state.seats.index(seat)
    if state.solo is not None:
        return -float(sum(p.points for p in state.solo.piles))
    hs, totals = house(rules), list(state.totals)
    if state.phase != OVER:
        for p in state.players:
            scored = state.round_points[p]
            totals[p] += _points(state.hands[p], state.wild, hs) if scored is None else scored
    others = [t for p, t in enumerate(totals) if p != pos]
    return sum(others) / max(len(others), 1) - totals[pos]


def stage(state: State) -> int:
    """The round a state is in: a strong bot's playout ends with it, once it is scored."""
    return state.round

"""The solo game (DECISIONS 1.2): eleven face-up piles of 3..13 cards, each with its own
wild rank (its size). Each turn the top card of the stock is turned up; the player adds
it to an open pile and discards a card of that pile (dead for good). A pile that melds
completely closes. The game ends when every pile is closed (a win, score 0) or the stock
is used up; each open pile then scores its minimum leftover."""

from __future__ import annotations

from dataclasses import replace

from tablestate.engine.game import ILLEGAL_MOVE, Event, Outcome, Rejected
from tablestate.engine.rng import Rng
from tablestate_five_crowns._house import House
from tablestate_five_crowns.flow import game_over
from tablestate_five_crowns.rules import (
    best_arrangement,
    can_meld_all,
    min_leftover,
    remove_cards,
    sort_cards,
    wild_rank,
)
from tablestate_five_crowns.state import PLACE, Pile, RoundScore, Solo, State

SIZES = tuple(range(3, 14))


def make_pile(size: int, cards: tuple[str, ...], hs: House) -> Pile:
    """A pile of these cards, closed if they all meld, with what it would score now."""
    lim, wild = hs.limits, wild_rank(size)
    mn, ratio = lim.min_naturals, lim.max_wilds_per_natural
    points = min_leftover(
        cards, wild, min_naturals=mn, max_wilds_per_natural=ratio, points=hs.points
    )
    # where some card costs 0, a leftover of 0 points may still hold cards
    closed = points == 0 and (
        hs.points.positive
        or can_meld_all(cards, wild, min_naturals=mn, max_wilds_per_natural=ratio)
    )
    return Pile(size, cards, closed, points)


def setup(state: State, rng: Rng, hs: House) -> tuple[State, list[Event]]:
    """Deal the eleven piles and turn up the first card."""
    cards = rng.shuffle(sort_cards(state.all_cards()))
    piles = []
    at = 0
    for size in SIZES:
        hand = sort_cards(cards[at : at + size])
        piles.append(make_pile(size, hand, hs))
        at += size
    solo = Solo(tuple(piles), cards[at], (), 0)
    state = replace(state, stock=cards[at + 1 :], discard=(), hands=((),), solo=solo, phase=PLACE)
    events = [
        Event(
            "solo.dealt",
            {
                "piles": [list(p.cards) for p in piles],
                "closed": [i for i, p in enumerate(piles) if p.closed],
                "stockSize": len(state.stock),
            },
        ),
        Event("card.turned", {"card": solo.current}),
    ]
    if all(p.closed for p in piles):
        state, done = _finish(state, events)
        return state, list(done)
    return state, events


def place(state: State, index: int, discard: str, rng: Rng, hs: House) -> Outcome[State] | Rejected:
    """Add the turned card to pile ``index`` and discard ``discard`` from it."""
    solo = state.solo
    assert solo is not None and solo.current is not None
    pile = solo.piles[index]
    if pile.closed:
        return Rejected(ILLEGAL_MOVE, f"pile {index} is closed")
    cards = remove_cards((*pile.cards, solo.current), [discard])
    if cards is None:
        return Rejected(ILLEGAL_MOVE, f"pile {index} and the turned card hold no {discard}")
    cards = sort_cards(cards)
    new_pile = make_pile(pile.size, cards, hs)
    piles = (*solo.piles[:index], new_pile, *solo.piles[index + 1 :])
    events = [Event("card.placed", {"pile": index, "card": solo.current, "discard": discard})]
    if new_pile.closed:
        melds = best_arrangement(cards, wild_rank(pile.size), hs.limits).melds
        events.append(
            Event("pile.closed", {"pile": index, "melds": [list(m.cards) for m in melds]})
        )
    solo = replace(
        solo, piles=piles, dead=(*solo.dead, discard), current=None, turns=solo.turns + 1
    )
    state = replace(state, solo=solo)
    if all(p.closed for p in piles) or not state.stock:
        return Outcome(*_finish(state, events))
    solo = replace(solo, current=state.stock[0])
    state = replace(state, solo=solo, stock=state.stock[1:])
    events.append(Event("card.turned", {"card": solo.current}))
    return Outcome(state, tuple(events))


def _finish(state: State, events: list[Event]) -> tuple[State, tuple[Event, ...]]:
    assert state.solo is not None
    score = sum(p.points for p in state.solo.piles)
    state = replace(
        state,
        totals=(score,),
        round_points=(score,),
        history=(RoundScore(1, False, (score,)),),
    )
    seat = str(state.seats[0])
    scored = Event(
        "round.scored",
        {"round": 1, "playoff": False, "points": {seat: score}, "totals": {seat: score}},
    )
    state, out = game_over(state, (0,) if score == 0 else (), [*events, scored])
    return state, tuple(out)

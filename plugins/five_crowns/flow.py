"""The forced steps of Five Crowns: dealing, passing the turn, restocking, scoring a
round, the tie-break round and the end of the game. They run inside the ``apply`` of the
move that triggers them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tablestate.engine.game import Event
from tablestate.engine.rng import Rng
from tablestate_five_crowns._house import House
from tablestate_five_crowns.rules import (
    Meld,
    best_arrangement,
    extend_meld,
    hand_points,
    sort_cards,
    wild_rank,
)
from tablestate_five_crowns.state import DRAW, NOBODY, OVER, RoundScore, State, TableMeld

PLAYOFF_CARDS = 6
Events = list[Event]


def meld_json(meld: Meld) -> list[str]:
    """A meld as the moves and events write it."""
    return list(meld.cards)


def deal_order(n: int, dealer: int, players: tuple[int, ...]) -> tuple[int, ...]:
    """``players`` clockwise from the dealer's left."""
    return tuple(sorted(players, key=lambda p: (p - dealer - 1) % n))


def deal(
    state: State, rng: Rng, *, round_no: int, playoff: bool, dealer: int, players: tuple[int, ...]
) -> tuple[State, Events]:
    """Shuffle every card and deal a round, one card at a time from the dealer's left."""
    n = len(state.seats)
    size = PLAYOFF_CARDS if playoff else round_no + 2
    order = deal_order(n, dealer, players)
    cards = rng.shuffle(sort_cards(state.all_cards()))
    hands: list[list[str]] = [[] for _ in range(n)]
    for i in range(size * len(order)):
        hands[order[i % len(order)]].append(cards[i])
    top = size * len(order)
    new = replace(
        state,
        round=round_no,
        playoff=playoff,
        cards_dealt=size,
        wild=wild_rank(size),
        dealer=dealer,
        players=order,
        hands=tuple(sort_cards(h) for h in hands),
        stock=cards[top + 1 :],
        discard=cards[top : top + 1],
        melds=(),
        turn=order[0],
        phase=DRAW,
        drawn=None,
        drawn_from=None,
        went_out=NOBODY,
        finished=(),
        round_points=tuple(None for _ in range(n)),
    )
    event = Event(
        "round.dealt",
        {
            "round": round_no,
            "playoff": playoff,
            "cardsDealt": size,
            "wildRank": new.wild,
            "dealer": state.seats[dealer],
            "players": [state.seats[p] for p in order],
            "topDiscard": new.discard[-1],
            "stockSize": len(new.stock),
        },
        private={state.seats[p]: {"hand": list(new.hands[p])} for p in order},
    )
    return new, [event]


def _next_player(state: State, pos: int) -> int:
    order = state.players
    return order[(order.index(pos) + 1) % len(order)]


def restock(state: State, rng: Rng, house: House) -> tuple[State, Events]:
    """When the stock is empty, turn the discard pile into a new one (FC-5)."""
    if state.stock or not state.discard:
        return state, []
    kept, shuffled = house.restock(state.discard)
    if sorted(kept + shuffled) != sorted(state.discard):
        raise ValueError("five_crowns_restock must split the discard pile exactly")
    new = replace(state, stock=rng.shuffle(shuffled), discard=kept)
    data = {
        "stockSize": len(new.stock),
        "topDiscard": new.discard[-1] if new.discard else None,
    }
    return new, [Event("stock.reshuffled", data)]


def pass_turn(state: State, rng: Rng, house: House) -> tuple[State, Events]:
    """End a turn: the next player to draw, or the round's end after the last final turn."""
    pos = state.turn
    if state.final_turns:
        state = replace(state, finished=(*state.finished, pos))
        waiting = [p for p in state.players if p != state.went_out and p not in state.finished]
        if not waiting:
            return end_round(state, rng, house)
        nxt = _next_player(state, pos)
        while nxt not in waiting:
            nxt = _next_player(state, nxt)
    else:
        nxt = _next_player(state, pos)
    # a card was just discarded, so after a restock there is always something to draw
    state, events = restock(state, rng, house)
    return replace(state, turn=nxt, phase=DRAW, drawn=None, drawn_from=None), events


def score_final(
    state: State, pos: int, house: House, laid: tuple[Meld, ...]
) -> tuple[State, Events]:
    """Score a last turn: the player has laid ``laid`` and discarded; by default the
    engine lays down the best of the rest (with lay-offs where allowed, FC-12)."""
    hand = state.hands[pos]
    table = list(state.melds) + [TableMeld(pos, m) for m in laid]
    lay_offs: list[dict[str, Any]] = []
    auto: list[Meld] = []
    if not house.declare and hand:
        may_lay_off = house.may_lay_off(final_turn=True)
        mine = [i for i, m in enumerate(table) if m.owner == pos]
        usable = list(range(len(table))) if may_lay_off else mine
        best = best_arrangement(
            hand, state.wild, house.limits, tuple(table[i].meld for i in usable), house.points
        )
        for lay in best.lay_offs:
            index = usable[lay.target]
            grown = extend_meld(table[index].meld, lay.cards, state.wild, house.limits)
            assert grown is not None
            table[index] = replace(table[index], meld=grown)
            lay_offs.append({"meld": index, "cards": list(lay.cards)})
        auto = list(best.melds)
        table += [TableMeld(pos, m) for m in auto]
        hand = best.leftover
    points = hand_points(hand, state.wild, house.points)
    round_points = list(state.round_points)
    round_points[pos] = points
    state = replace(
        state,
        hands=(*state.hands[:pos], hand, *state.hands[pos + 1 :]),
        melds=tuple(table),
        round_points=tuple(round_points),
    )
    seat = state.seats[pos]
    events = []
    if laid or auto or lay_offs:
        events.append(
            Event(
                "cards.laid_down",
                {
                    "melds": [meld_json(m) for m in (*laid, *auto)],
                    "layOffs": lay_offs,
                    "byEngine": [meld_json(m) for m in auto],
                },
                seat=seat,
            )
        )
    events.append(
        Event(
            "hand.scored",
            {"points": points, "cardsLeft": len(hand)},
            seat=seat,
            private={seat: {"leftover": list(hand)}},
        )
    )
    return state, events


def end_round(state: State, rng: Rng, house: House) -> tuple[State, Events]:
    """Score the round, then deal the next one, the tie-break round, or end the game."""
    points = tuple(
        (p or 0) if i in state.players else None for i, p in enumerate(state.round_points)
    )
    totals = state.totals
    if not state.playoff:
        totals = tuple(t + (p or 0) for t, p in zip(totals, points, strict=True))
    state = replace(
        state,
        totals=totals,
        round_points=points,
        history=(*state.history, RoundScore(state.round, state.playoff, points)),
    )
    seats = state.seats
    scored = Event(
        "round.scored",
        {
            "round": state.round,
            "playoff": state.playoff,
            "points": {str(seats[i]): p for i, p in enumerate(points) if p is not None},
            "totals": {str(s): t for s, t in zip(seats, totals, strict=True)},
            "wentOut": seats[state.went_out] if state.went_out != NOBODY else None,
        },
    )
    n = len(seats)
    dealer = (state.dealer + 1) % n
    if state.playoff:
        low = min(p for p in points if p is not None)
        return game_over(state, tuple(i for i, p in enumerate(points) if p == low), [scored])
    if state.round < state.rounds:
        new, events = deal(
            state,
            rng,
            round_no=state.round + 1,
            playoff=False,
            dealer=dealer,
            players=tuple(range(n)),
        )
        return new, [scored, *events]
    low = min(totals)
    tied = tuple(i for i, t in enumerate(totals) if t == low)
    if len(tied) > 1 and state.tie_break == "playoffRound":
        new, events = deal(
            state, rng, round_no=state.round + 1, playoff=True, dealer=dealer, players=tied
        )
        return new, [scored, *events]
    return game_over(state, tied, [scored])


def game_over(state: State, winners: tuple[int, ...], events: Events) -> tuple[State, Events]:
    """The game ends with these winning positions."""
    state = replace(state, winners=winners, phase=OVER, turn=NOBODY, drawn=None, drawn_from=None)
    seats = state.seats
    over = Event(
        "game.over",
        {
            "winners": [seats[p] for p in winners],
            "totals": {str(s): t for s, t in zip(seats, state.totals, strict=True)},
        },
    )
    return state, [*events, over]

"""What a viewer may see of a Five Crowns game: JSON keyed by the GraphQL field names of
``FiveCrownsState``. A seat sees its own hand; nobody sees another hand, nor what was
drawn from the stock by someone else (FC-19)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tablestate.engine import Rng
from tablestate_five_crowns.rules import rank_name, sort_cards, wild_rank
from tablestate_five_crowns.state import DISCARD, NOBODY, State, TableMeld


def _meld(index: int, table_meld: TableMeld, seats: tuple[int, ...]) -> dict[str, Any]:
    meld = table_meld.meld
    return {
        "index": index,
        "seat": seats[table_meld.owner],
        "kind": meld.kind,
        "cards": list(meld.cards),
        "rank": rank_name(meld.rank) if meld.rank is not None else None,
        "suit": meld.suit,
        "low": rank_name(meld.lo) if meld.lo is not None else None,
        "high": rank_name(meld.hi) if meld.hi is not None else None,
    }


def _solo(state: State) -> dict[str, Any] | None:
    solo = state.solo
    if solo is None:
        return None
    return {
        "piles": [
            {
                "index": i,
                "size": p.size,
                "wildRank": wild_rank(p.size),
                "cards": list(p.cards),
                "closed": p.closed,
                "points": p.points,
            }
            for i, p in enumerate(solo.piles)
        ],
        "current": solo.current,
        "deadCount": len(solo.dead),
        "lastDead": solo.dead[-1] if solo.dead else None,
        "turns": solo.turns,
        "score": sum(p.points for p in solo.piles),
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` (None: a spectator) may see it."""
    seats = state.seats
    pos = seats.index(seat) if seat is not None and seat in seats else None
    acting = state.turn if state.turn != NOBODY else None
    drawn = None
    if state.drawn is not None and (state.drawn_from == DISCARD or pos == acting):
        drawn = state.drawn
    return {
        "mode": "SOLO" if state.solo is not None else "TABLE",
        "phase": state.phase,
        "seats": list(seats),
        "round": state.round,
        "rounds": state.rounds,
        "playoff": state.playoff,
        "cardsDealt": state.cards_dealt,
        "wildRank": state.wild or None,
        "dealer": seats[state.dealer] if state.solo is None else None,
        "turn": seats[acting] if acting is not None else None,
        "finalTurns": state.final_turns,
        "wentOut": seats[state.went_out] if state.went_out != NOBODY else None,
        "topDiscard": state.discard[-1] if state.discard else None,
        "discardSize": len(state.discard),
        "stockSize": len(state.stock),
        "drewFrom": state.drawn_from,
        "drawnCard": drawn,
        "hand": list(state.hands[pos]) if pos is not None else None,
        "players": [
            {
                "seat": s,
                "handSize": len(state.hands[i]),
                "dealtIn": i in state.players,
                "roundPoints": state.round_points[i],
                "total": state.totals[i],
                "wentOut": i == state.went_out,
                "finished": i in state.finished or i == state.went_out,
            }
            for i, s in enumerate(seats)
        ],
        "melds": [_meld(i, m, seats) for i, m in enumerate(state.melds)],
        "history": [
            {
                "round": r.round,
                "playoff": r.playoff,
                "points": [{"seat": s, "points": p} for s, p in zip(seats, r.points, strict=True)],
            }
            for r in state.history
        ],
        "winners": [seats[p] for p in state.winners],
        "solo": _solo(state),
    }


def unseen_dealt(
    state: State, seat: int | None, shuffle: Callable[[Sequence[str]], Sequence[str]]
) -> State:
    """The game with the cards ``seat`` has not seen dealt again in ``shuffle``'s order:
    the other hands and the stock (and the card another player drew from the stock, one
    of that player's new cards)."""
    pos = seat_position(state, seat)
    others = [p for p in range(len(state.hands)) if p != pos]
    pool = list(shuffle([c for p in others for c in state.hands[p]] + list(state.stock)))
    hands = list(state.hands)
    for p in others:
        hands[p], pool = sort_cards(pool[: len(hands[p])]), pool[len(hands[p]) :]
    drawn = state.drawn
    if drawn is not None and state.drawn_from != DISCARD and pos != state.turn:
        drawn = hands[state.turn][0] if hands[state.turn] else None
    return replace(state, hands=tuple(hands), stock=tuple(pool), drawn=drawn)


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A game ``seat`` cannot tell from ``state`` (``GameDef.determinize``)."""
    return unseen_dealt(state, seat, lambda pool: rng.shuffle(sorted(pool)))


def seat_position(state: State, seat: int | None) -> int | None:
    """The position of ``seat`` (None: a spectator or a seat not in play)."""
    return state.seats.index(seat) if seat is not None and seat in state.seats else None

"""What a viewer may see of an All Fives game: the JSON of ``AllFivesState``.

A seat sees its own hand; a spectator sees no hand. The stock, the other hands and the
face-down discards never appear.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tablestate.engine import Rng
from tablestate_all_fives import rules as r
from tablestate_all_fives.state import GAME_OVER, PLAY, State


def _plays(state: State, trick: tuple[tuple[int, str], ...]) -> list[dict[str, Any]]:
    return [{"seat": state.seats[pos], "card": card} for pos, card in trick]


def _last_trick(state: State) -> dict[str, Any] | None:
    if not state.last_trick or state.trump is None:
        return None
    cards = [c for _, c in state.last_trick]
    winner = state.last_trick[r.trick_winner(cards, state.trump)][0]
    return {
        "plays": _plays(state, state.last_trick),
        "winner": state.seats[winner],
        "points": r.trick_points(cards, state.trump),
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The state as ``seat`` (or a spectator, ``None``) may see it; keys are the GraphQL
    field names of ``AllFivesState`` (the engine adds ``gameId`` and ``toAct``)."""
    pos = None if seat is None else state.position(seat)
    players = [
        {
            "seat": state.seats[p],
            "side": state.sides[p],
            "handSize": len(state.hands[p]),
            "tricksWon": state.tricks[p],
            "dealPoints": state.deal_points[state.sides[p]],
            "score": state.scores[state.sides[p]],
        }
        for p in range(state.n)
    ]
    winners = [s for side in state.winners for s in state.side_seats(side)]
    return {
        "phase": state.phase,
        "seats": list(state.seats),
        "dealer": state.seats[state.dealer],
        "eldest": state.seats[state.eldest],
        "dealNumber": state.deal_no,
        "targetScore": state.target,
        "proposedSuit": state.proposed,
        "turnUp": state.turn_up,
        "trump": state.trump,
        "begged": state.begged,
        "runs": state.runs,
        "setAside": list(state.set_aside),
        "stockSize": len(state.stock),
        "discardedCount": len(state.discards),
        "handLimit": state.hand_limit,
        "leader": state.seats[state.leader] if state.phase in (PLAY, GAME_OVER) else None,
        "trick": _plays(state, state.trick),
        "lastTrick": _last_trick(state),
        "players": players,
        "hand": None if pos is None else list(r.sort_cards(state.hands[pos])),
        "bunchProposedBy": None if state.bunch_by is None else state.seats[state.bunch_by],
        "winners": sorted(winners),
    }


def unseen_dealt(
    state: State, seat: int | None, shuffle: Callable[[Sequence[str]], Sequence[str]]
) -> State:
    """The game with the cards ``seat`` has not seen dealt again in ``shuffle``'s order:
    the other hands, the stock and the face-down discards. No hand gets a card of a suit
    its player has shown void in (``State.voids``); each hand held when the play began
    keeps the cards its player has played since."""
    pos = state.position(seat) if seat is not None else None
    others = [p for p in range(state.n) if p != pos]
    pool = list(
        shuffle([c for p in others for c in state.hands[p]] + [*state.stock, *state.discards])
    )
    dealt = _deal_around_voids(pool, [(len(state.hands[p]), state.voids[p]) for p in others])
    hands, held = list(state.hands), list(state.held)
    taken: set[int] = set()
    for p, picks in zip(others, dealt, strict=True):
        new = tuple(pool[i] for i in picks)
        taken.update(picks)
        if held[p]:
            played = Counter(held[p]) - Counter(hands[p])
            held[p] = (*new, *sorted(played.elements()))
        hands[p] = new
    rest = [c for i, c in enumerate(pool) if i not in taken]
    stock, discards = rest[: len(state.stock)], rest[len(state.stock) :]
    return replace(
        state, hands=tuple(hands), held=tuple(held), stock=tuple(stock), discards=tuple(discards)
    )


_Dealt = list[list[int]]  # for each hand, indices into the pool


def _deal_around_voids(pool: Sequence[str], wants: Sequence[tuple[int, str]]) -> _Dealt:
    """For each ``(size, voids)``, ``size`` indices into ``pool`` of cards of no suit in
    ``voids``, each index dealt once: the first free fitting cards in ``pool``'s order,
    moved along (augmenting paths) where an earlier hand took a card a later one needs.
    The true deal is one such dealing, so one always exists."""
    dealt = _dealt_in_order(pool, wants)
    return dealt if dealt is not None else _dealt_by_matching(pool, wants)


def _dealt_in_order(pool: Sequence[str], wants: Sequence[tuple[int, str]]) -> _Dealt | None:
    """``_deal_around_voids``'s dealing when no card needs moving along (nearly always):
    each hand takes the first free fitting cards, one pass over ``pool``; None otherwise."""
    free = list(range(len(pool)))
    dealt = []
    for size, voids in wants:
        hand = [i for i in free if r.suit(pool[i]) not in voids][:size] if voids else free[:size]
        if len(hand) < size:
            return None
        taken = set(hand)
        free = [i for i in free if i not in taken]
        dealt.append(hand)
    return dealt


def _dealt_by_matching(pool: Sequence[str], wants: Sequence[tuple[int, str]]) -> _Dealt:
    owner: dict[int, int] = {}  # pool index -> slot
    slots = [(h, voids) for h, (size, voids) in enumerate(wants) for _ in range(size)]

    def place(slot: int, seen: set[int]) -> bool:
        voids = slots[slot][1]
        fits = [i for i, c in enumerate(pool) if i not in seen and r.suit(c) not in voids]
        for i in [*(i for i in fits if i not in owner), *(i for i in fits if i in owner)]:
            if i in seen:
                continue
            seen.add(i)
            if i not in owner or place(owner[i], seen):
                owner[i] = slot
                return True
        return False

    for slot in range(len(slots)):
        if not place(slot, set()):
            raise ValueError("no dealing agrees with the voids shown")
    dealt: _Dealt = [[] for _ in wants]
    for i in sorted(owner):
        dealt[slots[owner[i]][0]].append(i)
    return dealt


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A game ``seat`` cannot tell from ``state`` (``GameDef.determinize``)."""
    return unseen_dealt(state, seat, lambda pool: rng.shuffle(sorted(pool)))

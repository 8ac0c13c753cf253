"""What a viewer may see of a Lucky Draw game: the JSON of ``LuckyDrawState``. A seat sees
its own hand; nobody sees another hand or the stock."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tablestate.engine import Rng
from tablestate_example.state import State


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` (None: a spectator) may see it."""
    pos = state.seats.index(seat) if seat in state.seats else None
    return {
        "players": [
            {"seat": s, "handSize": len(state.hands[i]), "score": state.scores[i]}
            for i, s in enumerate(state.seats)
        ],
        "stockSize": len(state.stock),
        "played": list(state.played),
        "turn": None if state.over else state.seats[state.turn],
        "myHand": list(state.hands[pos]) if pos is not None else None,
    }


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A game ``seat`` cannot tell from ``state``: its hand and the cards played kept, the
    other hands and the stock dealt again from the cards it has not seen."""
    others = [i for i, s in enumerate(state.seats) if s != seat]
    unseen = [c for i in others for c in state.hands[i]] + list(state.stock)
    pool = list(rng.shuffle(sorted(unseen)))
    hands = list(state.hands)
    for i in others:
        hands[i], pool = tuple(pool[: len(hands[i])]), pool[len(hands[i]) :]
    return replace(state, hands=tuple(hands), stock=tuple(pool))

"""The state of a Lucky Draw game: one frozen dataclass, and its JSON for the store.

Players are kept by *position* in play order; ``seats[p]`` is the table seat of position
``p``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class State:
    """A whole game.

    Args:
        seats: position -> seat index.
        hands: each position's cards (hidden from the others).
        stock: the cards left to draw, top first (hidden).
        played: the cards played, in order (public).
        scores: each position's points.
        turn: the position to act.
        passes: passes in a row at the table (house rule allow-pass).
        over: whether the game has ended.
    """

    seats: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    played: tuple[str, ...]
    scores: tuple[int, ...]
    turn: int
    passes: int = 0
    over: bool = False


def encode(state: State) -> dict[str, Any]:
    """The state as JSON for the store."""
    return {
        "seats": list(state.seats),
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "played": list(state.played),
        "scores": list(state.scores),
        "turn": state.turn,
        "passes": state.passes,
        "over": state.over,
    }


def decode(data: Mapping[str, Any]) -> State:
    """The state ``encode`` wrote."""
    return State(
        tuple(data["seats"]),
        tuple(tuple(h) for h in data["hands"]),
        tuple(data["stock"]),
        tuple(data["played"]),
        tuple(data["scores"]),
        data["turn"],
        data["passes"],
        data["over"],
    )

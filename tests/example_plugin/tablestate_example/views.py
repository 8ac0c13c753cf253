"""What a viewer may see of a Lucky Draw game: the JSON of ``LuckyDrawState``. A seat sees
its own hand; nobody sees another hand or the stock."""

from __future__ import annotations

from typing import Any

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

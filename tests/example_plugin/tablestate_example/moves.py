"""The shape of a Lucky Draw move, checked before the rules see it (a malformed move is
BAD_INPUT): ``{"play": {"card": "7A"}}``, ``{"draw": true}`` or ``{"pass": true}``."""

from __future__ import annotations

from collections.abc import Mapping

from tablestate.engine import Move
from tablestate_example.rules import DECK


def check_move(move: Move) -> str | None:
    """Why ``move`` is malformed, or None."""
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a move has exactly one kind"
    kind, arg = next(iter(move.items()))
    if kind == "play":
        card = arg.get("card") if isinstance(arg, Mapping) else None
        if card not in DECK:
            return "no such card"
        return None
    if kind in ("draw", "pass"):
        return None if arg is True else f"{kind} takes true"
    return f"unknown move {kind!r}"

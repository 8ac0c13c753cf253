"""The shape of a Five Crowns move: the kinds and their fields, checked before the rules
see a move (a malformed move is BAD_INPUT)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tablestate.engine.game import Move
from tablestate_five_crowns.rules import is_card
from tablestate_five_crowns.state import DISCARD, STOCK

SOURCES: Final = (STOCK, DISCARD)
# kind -> {field: shape}; shapes: card, cards, melds, source, index
SHAPES: Final[Mapping[str, Mapping[str, str]]] = {
    "draw": {"source": "source"},
    "discard": {"card": "card"},
    "goOut": {"melds": "melds", "discard": "card"},
    "layDown": {"melds": "melds", "discard": "card"},
    "layOff": {"cards": "cards", "meld": "index"},
    "place": {"pile": "pile", "discard": "card"},
}


def _bad_field(shape: str, value: Any) -> bool:
    if shape == "card":
        return not is_card(value)
    if shape == "source":
        return value not in SOURCES
    if shape in ("index", "pile"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return True
        return shape == "pile" and value > 10
    if not isinstance(value, list | tuple):
        return True
    if shape == "cards":
        return not value or not all(is_card(c) for c in value)
    return not all(isinstance(m, list | tuple) and m and all(is_card(c) for c in m) for m in value)


def check_move(move: Move) -> str | None:
    """Why a move is malformed (BAD_INPUT), or None."""
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a Five Crowns move has exactly one kind: " + ", ".join(SHAPES)
    kind, body = next(iter(move.items()))
    shape = SHAPES.get(kind)
    if shape is None:
        return f"unknown move kind {kind!r}; the kinds are " + ", ".join(SHAPES)
    if not isinstance(body, Mapping) or set(body) != set(shape):
        return f"{kind} takes exactly the fields " + ", ".join(shape)
    for name, what in shape.items():
        if _bad_field(what, body[name]):
            return f"{kind}.{name} is not a valid {what}" + (
                " (cards look like 10H, 7T or JK)" if what in ("card", "cards", "melds") else ""
            )
    return None

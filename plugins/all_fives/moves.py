"""The shape of an All Fives move, checked before the rules see it (a malformed move is
BAD_INPUT).

A move is JSON with exactly one key, as ``AllFivesMoveInput`` names it:
``{"stand": true}``, ``{"beg": true}``, ``{"giveOne": true}``, ``{"run": true}``,
``{"play": {"card": "AS"}}`` and, with house rules, ``{"discard": {"card": "7H"}}``,
``{"bunch": true}``, ``{"declineBunch": true}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tablestate.engine import Move
from tablestate_all_fives import rules as r

FLAG_MOVES: Final = ("stand", "beg", "giveOne", "run", "bunch", "declineBunch")
CARD_MOVES: Final = ("play", "discard")
MOVE_KINDS: Final = FLAG_MOVES + CARD_MOVES


def check_move(move: Move) -> str | None:
    """The shape check: ``None`` for a well-formed move, else why it is malformed."""
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a move has exactly one key, the kind of move"
    ((kind, arg),) = move.items()
    if kind not in MOVE_KINDS:
        return f"unknown kind of move {kind!r}; one of {', '.join(MOVE_KINDS)}"
    if kind in FLAG_MOVES:
        return None if arg is True else f"{kind} takes the value true"
    if not isinstance(arg, Mapping) or set(arg) != {"card"}:
        return f"{kind} takes exactly one field, card"
    if not r.is_card(arg["card"]):
        return f"{arg['card']!r} is not a card (rank then suit, e.g. AS, 10D)"
    return None

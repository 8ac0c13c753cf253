"""The shape of a Five by Five move: its kinds and their fields, checked before the rules
see a move (a malformed move is BAD_INPUT)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from tablestate.engine import Move
from tablestate_five_by_five.rules import (
    ACTION_CARDS,
    COLORS,
    OBJECTIVE_BY_ID,
    PAINT,
    PLUS_MINUS,
    REMOVE,
    REROLL,
    SIZE,
    SWAP,
)

CARD_KINDS: Final[Mapping[str, str]] = {
    "reroll": REROLL,
    "remove": REMOVE,
    "swap": SWAP,
    "plusMinus": PLUS_MINUS,
    "paint": PAINT,
}
ACTION_KINDS: Final = ("playColor", *CARD_KINDS)
MOVE_KINDS: Final = (
    *ACTION_KINDS,
    "place",
    "playObjective",
    "claimSpecial",
    "drawAction",
    "forfeitActions",
    "forfeitObjectives",
    "done",
)


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _square(value: object) -> str | None:
    if not isinstance(value, Mapping) or set(value) != {"row", "col"}:
        return "a square is {row, col}"
    if not all(_int(value[k]) and 0 <= value[k] < SIZE for k in ("row", "col")):
        return f"row and col are whole numbers 0 to {SIZE - 1}"
    return None


def _one_of(allowed: tuple[str, ...], what: str) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        return None if value in allowed else f"{what} must be one of {', '.join(allowed)}"

    return check


def _list_of(item: Callable[[object], str | None]) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        if not isinstance(value, list | tuple):
            return "a list is expected"
        for v in value:
            reason = item(v)
            if reason is not None:
                return reason
        return None

    return check


def _delta(value: object) -> str | None:
    return None if _int(value) and value in (1, -1) else "delta is 1 or -1"


_COLOR = _one_of(COLORS, "a colour")
_OBJECTIVE = _one_of(tuple(OBJECTIVE_BY_ID), "an objective id")
_FIELDS: Final[Mapping[str, Callable[[object], str | None]]] = {
    "square": _square,
    "first": _square,
    "second": _square,
    "card": _COLOR,
    "color": _COLOR,
    "delta": _delta,
    "objective": _OBJECTIVE,
    "deck": _one_of(("A", "B"), "deck"),
    "cards": _list_of(_one_of(ACTION_CARDS, "an action card")),
    "objectives": _list_of(_OBJECTIVE),
}
SHAPES: Final[Mapping[str, tuple[str, ...]]] = {
    "playColor": ("card", "color"),
    "place": ("square",),
    "reroll": ("square",),
    "remove": ("square", "color"),
    "swap": ("first", "second"),
    "plusMinus": ("square", "delta"),
    "paint": ("square", "color"),
    "playObjective": ("objective",),
    "claimSpecial": ("objective",),
    "drawAction": ("deck",),
    "forfeitActions": ("cards",),
    "forfeitObjectives": ("objectives",),
}
assert set(SHAPES) | {"done"} == set(MOVE_KINDS)


def check_move(move: Move) -> str | None:
    """The shape check of a move: None when well formed, else why (a ``BAD_INPUT``)."""
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a move has exactly one key, its kind"
    ((kind, arg),) = move.items()
    if kind == "done":
        return None if arg is True else "done takes the value true"
    fields = SHAPES.get(kind)
    if fields is None:
        return f"unknown kind of move {kind!r}; one of {', '.join(MOVE_KINDS)}"
    if not isinstance(arg, Mapping) or set(arg) != set(fields):
        return f"{kind} takes exactly {', '.join(fields)}"
    for name in fields:
        reason = _FIELDS[name](arg[name])
        if reason is not None:
            return f"{kind}.{name}: {reason}"
    return None

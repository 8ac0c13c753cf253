"""Scenario helpers: a game set up mid-play with scripted dice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tablestate.testing import FixedRng, GameDriver
from tablestate_five_by_five.game import GAME
from tablestate_five_by_five.rules import COLORS, DICE_PER_COLOR
from tablestate_five_by_five.state import sort_actions, sort_objectives

from .helpers import board, ruleset

EMPTY_BOARD = " / ".join([". . . . ."] * 5)


def driver(
    players: int | Sequence[int] = 2,
    rules: Sequence[str] = (),
    ints: Sequence[int] = (),
    options: dict[str, Any] | None = None,
) -> GameDriver:
    """A game whose first seat starts (it rolls a 6, the others 1s); ``ints`` are the
    dice rolled afterwards, in order."""
    n = players if isinstance(players, int) else len(players)
    first = [6] + [1] * (n - 1) if n > 1 else []
    return GameDriver(
        GAME,
        players=players,
        options=options,
        rules=ruleset(*rules),
        seed=FixedRng(ints=[*first, *ints]),
    )


def arrange(
    d: GameDriver,
    grid: str | None = None,
    actions: Mapping[int, Sequence[str]] | None = None,
    objectives: Mapping[int, Sequence[str]] | None = None,
    supply: Mapping[str, int] | None = None,
    **changes: Any,
) -> GameDriver:
    """Set the board (supply follows it unless given), hands and any state field."""
    state = d.state
    if grid is not None:
        cells = board(grid)
        on_board = Counter(c[0] for row in cells for c in row if c is not None)
        counts = [DICE_PER_COLOR - on_board[c] for c in COLORS]
        state = replace(state, board=cells, supply=tuple(counts))
    if supply is not None:
        counts = list(state.supply)
        for color, n in supply.items():
            counts[COLORS.index(color)] = n
        state = replace(state, supply=tuple(counts))
    for seat, cards in (actions or {}).items():
        state = state.with_player(state.position(seat), actions=sort_actions(cards))
    for seat, objs in (objectives or {}).items():
        state = state.with_player(state.position(seat), objectives=sort_objectives(objs))
    d.state = replace(state, **changes)
    return d


def types(events: Sequence[Any]) -> list[str]:
    return [e.type for e in events]

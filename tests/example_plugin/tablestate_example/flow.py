"""The step every Lucky Draw move forces: the turn passes to the next player who can act
(players with no cards and no stock to draw from are skipped), or the game ends."""

from __future__ import annotations

from dataclasses import replace

from tablestate.engine import Event
from tablestate_example.state import State


def _can_act(state: State, pos: int) -> bool:
    return bool(state.hands[pos]) or bool(state.stock)


def end_turn(state: State) -> tuple[State, list[Event]]:
    """The next player to act, or the end of the game (with its ``game.over`` event)."""
    n = len(state.seats)
    for step in range(1, n + 1):
        pos = (state.turn + step) % n
        if _can_act(state, pos):
            return replace(state, turn=pos), []
    state = replace(state, over=True)
    return state, [Event("game.over", {"scores": list(state.scores)})]

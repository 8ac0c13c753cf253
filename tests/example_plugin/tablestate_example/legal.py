"""Who is to act in Lucky Draw, and which moves are legal."""

from __future__ import annotations

from tablestate.engine import Move, RuleSet
from tablestate_example.rules import MAX_HAND, MAX_PASSES, PASS_RULE
from tablestate_example.state import State


def to_act(state: State) -> list[int]:
    """The seat to move, or none once the game is over."""
    return [] if state.over else [state.seats[state.turn]]


def legal_moves(state: State, seat: int, rules: RuleSet) -> list[Move]:
    """Every legal move of ``seat`` now (none when it is not to act)."""
    if state.over or state.seats[state.turn] != seat:
        return []
    pos = state.turn
    moves: list[Move] = [{"play": {"card": c}} for c in sorted(set(state.hands[pos]))]
    if state.stock and len(state.hands[pos]) < MAX_HAND:
        moves.append({"draw": True})
    if rules.is_on(PASS_RULE) and state.passes < MAX_PASSES:
        moves.append({"pass": True})
    return moves

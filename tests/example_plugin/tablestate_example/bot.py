"""A Lucky Draw bot: it plays its highest card, or draws when its hand is empty. It uses
no chance, so a bot game is as reproducible as the deal."""

from __future__ import annotations

from service.engine import Move, Rng, RuleSet
from tablestate_example.rules import rank
from tablestate_example.state import State


def bot(state: State, seat: int, rng: Rng, rules: RuleSet) -> Move:
    """A legal move for a bot in ``seat``."""
    pos = state.turn
    if state.hands[pos]:
        return {"play": {"card": max(state.hands[pos], key=rank)}}
    return {"draw": True}

"""A Lucky Draw bot: it plays its highest card, or draws when its hand is empty. It uses
no chance, so a bot game is as reproducible as the deal. It decides from its own hand
alone (``BotView``: the other hands and the stock are guesses)."""

from __future__ import annotations

from tablestate.engine import Move, Rng, RuleSet
from tablestate.engine.bots import BotView
from tablestate_example.rules import rank
from tablestate_example.state import State


def bot(view: BotView[State], rng: Rng) -> Move:
    """A legal move for a bot in ``view.seat``."""
    state = view.state
    pos = state.turn
    if state.hands[pos]:
        return {"play": {"card": max(state.hands[pos], key=rank)}}
    return {"draw": True}


def standing(state: State, seat: int, rules: RuleSet) -> float:
    """The seat's lead over the best other score (the strong bot's judge of a playout)."""
    pos = state.seats.index(seat)
    others = [s for i, s in enumerate(state.scores) if i != pos]
    return float(state.scores[pos] - max(others, default=0))

"""How a game of Lucky Draw starts: the deck shuffled and ``handSize`` cards dealt to each
player, hidden from the others."""

from __future__ import annotations

from tablestate.engine import Event, SetupContext
from tablestate_example.rules import DECK
from tablestate_example.state import State


def setup(ctx: SetupContext) -> tuple[State, list[Event]]:
    """Shuffle (the one chance step of setup) and deal; the first seat starts."""
    deck = ctx.rng.shuffle(DECK)
    n = len(ctx.seats)
    size = int(ctx.options["handSize"])
    hands = tuple(tuple(deck[i * size : (i + 1) * size]) for i in range(n))
    state = State(ctx.seats, hands, deck[n * size :], (), (0,) * n, 0)
    dealt = Event(
        "cards.dealt",
        {"handSize": size, "stock": len(state.stock)},
        private={seat: {"hand": list(hands[i])} for i, seat in enumerate(ctx.seats)},
    )
    return state, [dealt]

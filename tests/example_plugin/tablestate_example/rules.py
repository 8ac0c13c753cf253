"""Lucky Draw's cards as a pure library: the deck, a card's rank, the limits of a hand.

Cards are strings, rank then suit: ranks 1 to 10 in suits A and B (``"7A"``, ``"10B"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tablestate_example.state import State

DECK: Final[tuple[str, ...]] = tuple(f"{r}{s}" for s in "AB" for r in range(1, 11))
MAX_HAND: Final = 5
MAX_PASSES: Final = 3
PASS_RULE: Final = "lucky-draw/allow-pass"


def rank(card: str) -> int:
    """``rank("7A") == 7``."""
    return int(card[:-1])


def hidden(state: State, seat: int | None) -> Sequence[str]:
    """The cards ``seat`` must not see: other hands and the stock (for secrecy tests)."""
    out = list(state.stock)
    for i, s in enumerate(state.seats):
        if s != seat:
            out.extend(state.hands[i])
    return out

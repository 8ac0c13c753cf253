"""What Tablestate's shared tests need to know of tic-tac-toe (``tablestate.testing``): it
has no items (no card, no die) and hides nothing; the games they play."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tablestate import Move, RuleSet
from tablestate.testing import GameFacts
from tablestate_tic_tac_toe import State


class Facts(GameFacts):
    """Nothing to conserve, nothing secret: the invariants left are progress, events,
    determinism and the legal moves (every empty cell of the seat to mark)."""

    playouts = (
        {"id": "random", "players": 2, "seed": 1, "refusals_every": 1},
        {"id": "seats-with-gap", "seats": [1, 3], "seed": 2, "repeat": 4},
        {"id": "bots", "players": 2, "seed": 3, "bots": "all", "repeat": 2},
    )
    api_games = ({"id": "2p-a-bot", "seats": 2, "seated": [0, 1], "bots": [1], "seed": 1},)

    def deck(
        self, seats: Sequence[int], options: Mapping[str, Any], rules: RuleSet
    ) -> Counter[str]:
        return Counter()

    def items(self, state: State) -> Counter[str]:
        return Counter()

    def is_item(self, name: str) -> bool:
        return False

    def hidden(self, state: State, seat: int | None) -> set[str]:
        return set()

    def visible(self, state: State, seat: int | None) -> set[str]:
        return set()

    def scramble(self, state: State, seat: int | None, rng: random.Random) -> State:
        return state

    def moves(self, state: State, seat: int) -> list[Move]:
        return [{"mark": {"row": r, "col": c}} for r in range(3) for c in range(3)]

    def check_view(self, state: State, seat: int | None, view: Any) -> None:
        assert view["board"] == [list(row) for row in state.board]
        assert view["seats"] == list(state.seats)


FACTS: Final = Facts()

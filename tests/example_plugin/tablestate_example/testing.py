"""What Tablestate's shared tests need to know of Lucky Draw (``tablestate.testing.GameFacts``):
its cards, who may see each, and the games they play. Pure, like the rules."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from tablestate.engine import Event, Move, RuleSet
from tablestate.testing import GameFacts
from tablestate_example.rules import DECK, hidden
from tablestate_example.state import State


class Facts(GameFacts):
    """Lucky Draw's facts: a card is an item; hands and the stock are hidden."""

    playouts = (
        {"id": "2p", "players": 2, "seed": 1, "refusals_every": 1},
        {"id": "3p-allow-pass", "players": 3, "rules": ["allow-pass"], "seed": 2},
        {"id": "4p-bots", "players": 4, "rules": ["double-evens"], "seed": 3, "bots": "all"},
        {"id": "seats-with-gap", "seats": [1, 3], "rules": ["odd-bonus"], "seed": 4},
        {"id": "big-hands", "players": 2, "options": {"handSize": 5}, "seed": 5},
    )
    api_games = (
        {"id": "2p-a-bot", "seats": 2, "seated": [0, 1], "bots": [1], "seed": 1, "rules": "random"},
        {
            "id": "3p-an-empty-seat-random-rules",
            "seats": 4,
            "seated": [0, 2, 3],
            "seed": 2,
            "rules": "random",
            "rules_later": True,
        },
    )

    def deck(
        self, seats: Sequence[int], options: Mapping[str, Any], rules: RuleSet
    ) -> Counter[str]:
        return Counter(DECK)

    def is_item(self, name: str) -> bool:
        return name in DECK

    def hidden(self, state: State, seat: int | None) -> set[str]:
        return set(hidden(state, seat))

    def visible(self, state: State, seat: int | None) -> set[str]:
        own = state.hands[state.seats.index(seat)] if seat in state.seats else ()
        return {*state.played, *own}

    def scramble(self, state: State, seat: int | None, rng: random.Random) -> State:
        others = [i for i, s in enumerate(state.seats) if s != seat]
        pool = [c for i in others for c in state.hands[i]] + list(state.stock)
        rng.shuffle(pool)
        hands = list(state.hands)
        for i in others:
            hands[i], pool = tuple(pool[: len(hands[i])]), pool[len(hands[i]) :]
        return replace(state, hands=tuple(hands), stock=tuple(pool))

    def moves(self, state: State, seat: int) -> list[Move]:
        return [*({"play": {"card": c}} for c in DECK), {"draw": True}, {"pass": True}]

    def options(self, pick: random.Random, players: int) -> dict[str, Any]:
        return {"handSize": pick.randint(1, 5)}

    def check_view(self, state: State, seat: int | None, view: Any) -> None:
        own = list(state.hands[state.seats.index(seat)]) if seat in state.seats else None
        assert view["myHand"] == own, "a seat sees its own hand, a spectator none"
        counted = sum(p["handSize"] for p in view["players"]) + view["stockSize"]
        assert counted + len(view["played"]) == len(DECK), "the view's counts lose cards"

    def check_commit(
        self, before: State | None, after: State, events: Sequence[Event], rules: RuleSet
    ) -> None:
        if before is None:  # the deal gives every seat its hand, and nobody another's
            (dealt,) = events
            assert set(dealt.private) == set(after.seats)


FACTS: Final = Facts()

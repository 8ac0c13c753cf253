"""What only Five Crowns shows through the real API: random play that holds out (never
goes out, mostly draws from the stock) until the stock has run out and been made anew,
then plays on at random. Every game's random full games through the API are the shared
``tests/plugins/test_api.py``."""

from __future__ import annotations

import random
from typing import Any

from support.api_play import Table, choose, play_through, server

from tablestate_five_crowns.state import State

STOCK = {"draw": {"source": "STOCK"}}


async def test_random_play_through_the_api_remakes_the_stock() -> None:
    case = {
        "id": "2p-random-play-restock",
        "seats": 2,
        "seated": [0, 1],
        "seed": 7,
        "rules": "random",
        "prefer": {"goOut": 0.9, "layDown": 0.7, "layOff": 0.5},
    }
    pick, held = random.Random(7), {"out": True, "last": (0, 0)}

    def hold_out(t: Table, state: State, seat: int, moves: list[Any], rules: Any) -> Any:
        if state.round == held["last"][0] and len(state.stock) > held["last"][1]:
            held["out"] = False  # the stock grew within a round: it was made anew
        held["last"] = (state.round, len(state.stock))
        if not held["out"]:
            return choose(t, state, seat, moves, rules)
        if STOCK in moves and pick.random() < 0.8:
            return STOCK
        return pick.choice([m for m in moves if not {"goOut", "layDown"} & set(m)])

    async with server() as srv:
        t = await play_through(srv, "five-crowns", case, hold_out)
        events = await srv.store.events(t.table_id, None, 1000)
    assert any(e.type == "stock.reshuffled" for e in events)

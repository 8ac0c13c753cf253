"""What Tablestate's shared tests need to know of liar's dice (``tablestate.testing``): the
games they play, moves worth trying, and what each viewer's view must hold. Its secrecy
needs no more: the harness draws what a viewer may not see with the game's
``determinize`` and checks that no view and no event changes with it."""

from __future__ import annotations

from typing import Any, Final

from tablestate import Move
from tablestate.testing import GameFacts
from tablestate_liars_dice import State


class Facts(GameFacts):
    """Dice are lost, so nothing is conserved; a refused move is one that does not raise
    the bid, or a challenge with no bid to call."""

    playouts = (
        {"id": "2p-random", "players": 2, "seed": 1, "refusals_every": 1},
        {"id": "3p-seats-with-gap", "seats": [0, 2, 3], "seed": 2, "bot_share": 0.5},
        {"id": "4p-bots", "players": 4, "seed": 3, "bots": "all", "probe_every": 5},
    )
    api_games = (
        {"id": "2p-a-bot", "seats": 2, "seated": [0, 1], "bots": [1], "seed": 1},
        {"id": "3p-an-empty-seat", "seats": 4, "seated": [0, 1, 3], "bots": [3], "seed": 2},
    )

    def moves(self, state: State, seat: int) -> list[Move]:
        q = state.bid.quantity if state.bid else 1
        bids = [{"bid": {"quantity": n, "face": f}} for n in (1, q, q + 1) for f in (1, 3, 6)]
        return [*bids, {"challenge": True}]

    def check_view(self, state: State, seat: int | None, view: Any) -> None:
        mine = state.dice[state.seats.index(seat)] if seat is not None else None
        assert view["myDice"] == (None if mine is None else list(mine))
        players = zip(state.seats, state.dice, state.shown, strict=True)
        counts = [{"seat": s, "dice": len(d), "shown": list(shown)} for s, d, shown in players]
        assert view["players"] == counts  # of the others' dice, only how many


FACTS: Final = Facts()

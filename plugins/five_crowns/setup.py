"""How a game of Five Crowns starts: the players seated, the options read, and round 1
dealt (or, for one player, the solo piles)."""

from __future__ import annotations

from tablestate.engine.game import Event, SetupContext
from tablestate_five_crowns._house import house
from tablestate_five_crowns._solo import setup as solo_setup
from tablestate_five_crowns.flow import deal
from tablestate_five_crowns.rules import sort_cards
from tablestate_five_crowns.state import DRAW, NOBODY, State


def setup(ctx: SetupContext) -> tuple[State, list[Event]]:
    """Seat the players and deal round 1 (or the solo piles)."""
    n = len(ctx.seats)
    hs = house(ctx.rules)
    opts = ctx.options
    base = State(
        seats=tuple(ctx.seats),
        rounds=int(opts.get("rounds", 11)),
        tie_break=str(opts.get("tieBreak", "shared")),
        round=0,
        playoff=False,
        cards_dealt=0,
        wild="",
        dealer=0,
        players=tuple(range(n)),
        hands=tuple(() for _ in range(n)),
        stock=sort_cards(hs.deck(n)),
        discard=(),
        melds=(),
        turn=0,
        phase=DRAW,
        drawn=None,
        drawn_from=None,
        went_out=NOBODY,
        finished=(),
        round_points=tuple(None for _ in range(n)),
        totals=tuple(0 for _ in range(n)),
    )
    if n == 1:
        return solo_setup(base, ctx.rng, hs)
    random_dealer = opts.get("firstDealer", "seat0") == "random"
    dealer = ctx.rng.randint(0, n - 1) if random_dealer else 0
    return deal(base, ctx.rng, round_no=1, playoff=False, dealer=dealer, players=base.players)

"""How a game of All Fives starts: whether the seated players and the enabled rules make
a game, the sides, the options read, and the first deal by a dealer drawn at random."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablestate.engine import Event, RuleSet, SetupContext
from tablestate_all_fives import flow
from tablestate_all_fives.state import STAND_OR_BEG, State


def check_setup(seats: tuple[int, ...], options: Mapping[str, Any], rules: RuleSet) -> str | None:
    """Refuses a start the player range allows but the enabled rules do not."""
    n = len(seats)
    if n == 4 and flow.first(rules.hook.all_fives_sides(players=n)) is None:
        return "All Fives with 4 players needs the all-fives/partnerships rule"
    if not 2 <= n <= 4:
        return "All Fives is for 2 or 3 players (4 in partnerships)"
    return None


def setup(ctx: SetupContext) -> tuple[State, Sequence[Event]]:
    """Seat the players, pick the first dealer at random and deal."""
    n = len(ctx.seats)
    found = flow.first(ctx.rules.hook.all_fives_sides(players=n))
    if found is None and n == 4:
        raise ValueError("All Fives with 4 players needs the all-fives/partnerships rule")
    if not 2 <= n <= 4:
        raise ValueError("All Fives is for 2 or 3 players (4 in partnerships)")
    sides = tuple(found) if found is not None else tuple(range(n))
    n_sides = max(sides) + 1
    opts: dict[str, Any] = dict(ctx.options)
    state = State(
        seats=tuple(ctx.seats),
        sides=sides,
        target=int(opts.get("targetScore", 60)),
        low_goes_to=str(opts.get("lowGoesTo", "dealt")),
        game_tie=str(opts.get("gameTie", "none")),
        dealer=0,
        deal_no=0,
        phase=STAND_OR_BEG,
        turn=0,
        hands=((),) * n,
        stock=(),
        turn_up=None,
        proposed=None,
        set_aside=(),
        discards=(),
        trump=None,
        begged=False,
        runs=0,
        hand_limit=None,
        bunch_by=None,
        leader=0,
        trick=(),
        last_trick=(),
        won=((),) * n,
        tricks=(0,) * n,
        held=((),) * n,
        voids=("",) * n,
        deal_points=(0,) * n_sides,
        scores=(0,) * n_sides,
        winners=(),
    )
    step = flow.Step(state, ctx.rng, ctx.rules)
    flow.start_deal(step, ctx.rng.randint(0, n - 1), reason="first")
    return step.state, step.events

"""All Fives: a trick-taking game of the All Fours family for 2 or 3 players (4 in
partnerships, a house rule), where trump honours score as the tricks holding them are won.

Rules: ``rules/all-fives.source.txt`` made exact by ``rules/DECISIONS.md`` section 2.2
(the default) and 2.3 (house rules and options). See ``plugins/all_fives/README.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from plugins.all_fives import _flow as flow
from plugins.all_fives import hookspecs
from plugins.all_fives.bot import choose
from plugins.all_fives.moves import apply, check_move, legal_moves
from plugins.all_fives.schema import AllFivesMoveInput, AllFivesState
from plugins.all_fives.state import (
    DISCARD,
    GAME_OVER,
    PLAY,
    STAND_OR_BEG,
    State,
    decode,
    encode,
)
from plugins.all_fives.views import view
from service.engine import Event, GameDef, Result, RuleSet, SetupContext

GAME_ID: Final = "all-fives"

OPTIONS: Final = {
    "type": "object",
    "properties": {
        "targetScore": {
            "type": "integer",
            "minimum": 1,
            "maximum": 1000,
            "default": 60,
            "description": "The score that wins (traditional: 61).",
        },
        "lowGoesTo": {
            "type": "string",
            "enum": ["dealt", "won"],
            "default": "dealt",
            "description": "High-low-jack-game: Low goes to the player dealt the lowest "
            "trump, or to the winner of the trick holding it.",
        },
        "gameTie": {
            "type": "string",
            "enum": ["none", "eldest", "dealerOpponents"],
            "default": "none",
            "description": "High-low-jack-game: a tie for Game gives the point to nobody, to "
            "eldest's side if tied, or to each tied side other than the dealer's.",
        },
    },
}

EVENT_TYPES: Final = (
    "deal.started",
    "cards.dealt",
    "card.turned",
    "eldest.stood",
    "eldest.begged",
    "dealer.gave",
    "dealer.ran",
    "card.set-aside",
    "trump.fixed",
    "deal.void",
    "bunch.proposed",
    "bunch.agreed",
    "bunch.declined",
    "card.discarded",
    "card.played",
    "trick.won",
    "points.scored",
    "deal.scored",
    "game.over",
)


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
        deal_points=(0,) * n_sides,
        scores=(0,) * n_sides,
        winners=(),
    )
    step = flow.Step(state, ctx.rng, ctx.rules)
    flow.start_deal(step, ctx.rng.randint(0, n - 1), reason="first")
    return step.state, step.events


def to_act(state: State) -> tuple[int, ...]:
    """The seat whose move is awaited (none once the game is over)."""
    return () if state.phase == GAME_OVER else (state.seats[state.turn],)


def result(state: State) -> Result | None:
    """The winners and each seat's final score (its side's), once the game is over."""
    if state.phase != GAME_OVER:
        return None
    winners = tuple(sorted(s for side in state.winners for s in state.side_seats(side)))
    scores = {seat: state.scores[side] for seat, side in zip(state.seats, state.sides, strict=True)}
    return Result(winners, scores)


# Moves a player may take back (undoMove) while nobody has moved since: a card played to
# a trick it does not complete, and a card discarded down to the hand limit (house rule)
# that does not start the play. A completed trick shows its winner and scores; standing,
# begging, giving, running the cards and redeals are declarations that stand once made
# (running the cards also turns up new cards). This is read off the states, not the
# events: starting play announces nothing, yet it is what makes the last discard stand.


def undoable(before: State, seat: int, move: Any, outcome: Any) -> bool:
    """Whether ``seat`` may take ``move`` back (see the comment above)."""
    kind = next(iter(move))
    after: State = outcome.state
    if kind == "discard":
        return after.phase == DISCARD
    if kind == "play":
        return after.phase == PLAY and len(after.trick) == len(before.trick) + 1
    return False


GAME: Final = GameDef[State](
    id=GAME_ID,
    name="All Fives",
    summary="Trick-taking of the All Fours family: stand or beg, run the cards, and win the "
    "tricks holding trump honours (A 4, K 3, Q 2, J 1, 10 10, 5 5). First to 60.",
    min_players=2,
    max_players=4,
    setup=setup,
    to_act=to_act,
    legal_moves=legal_moves,
    apply=apply,
    view=view,
    result=result,
    bot=choose,
    encode=encode,
    decode=decode,
    options=OPTIONS,
    check_move=check_move,
    check_setup=check_setup,
    event_types=EVENT_TYPES,
    state_type=AllFivesState,
    move_input_type=AllFivesMoveInput,
    hookspecs=hookspecs,
    undoable=undoable,
)

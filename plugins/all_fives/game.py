"""All Fives: a trick-taking game of the All Fours family for 2 or 3 players (4 in
partnerships, a house rule), where trump honours score as the tricks holding them are won.

Rules: ``rules/all-fives.source.txt`` made exact by ``rules/DECISIONS.md`` section 2.2
(the default) and 2.3 (house rules and options). See ``plugins/all_fives/README.md``.
This module puts the ``GameDef`` together from the game's modules (the layout of
``docs/plugins.md``): ``setup.py`` deals, ``moves.py`` checks a move's shape, ``legal.py``
lists the legal moves, ``apply.py`` plays one and ``flow.py`` the steps it forces,
``views.py`` says what each viewer sees and ``bot.py`` plays; ``rules.py`` is the pure
library of cards and tricks.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from tablestate.engine import GameDef, Result
from tablestate_all_fives import hookspecs
from tablestate_all_fives.apply import apply
from tablestate_all_fives.bot import bot, stage, standing
from tablestate_all_fives.legal import legal_moves, to_act
from tablestate_all_fives.moves import check_move
from tablestate_all_fives.schema import AllFivesMoveInput, AllFivesState
from tablestate_all_fives.setup import check_setup, setup
from tablestate_all_fives.state import DISCARD, GAME_OVER, PLAY, State, decode, encode
from tablestate_all_fives.views import determinize, view

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


def conserved(state: State) -> Counter[str]:
    """Every card of the deck, wherever it is: no move makes or loses one."""
    out: Counter[str] = Counter()
    for cards in (*state.hands, *state.won, state.stock, state.set_aside, state.discards):
        out.update(cards)
    out.update(c for _, c in state.trick)
    out.update([state.turn_up] if state.turn_up is not None else [])
    return out


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
    bot=bot,
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
    determinize=determinize,
    standing=standing,
    bot_stage=stage,
    bot_depth=60,
    web_view="tablestate_all_fives:web/view.js",
    conserved=conserved,
)

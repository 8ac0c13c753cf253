"""Five Crowns (game id ``five-crowns``): a rummy game of five suits and rotating wilds,
for 1 to 7 players, as ``shared/rules/five-crowns.source.txt`` and ``DECISIONS.md`` §1 make
it exact. This module puts the ``GameDef`` together from the game's modules (the layout of
``docs/plugins.md``): ``setup.py`` deals, ``moves.py`` checks a move's shape, ``legal.py``
lists the legal moves, ``apply.py`` plays one and ``flow.py`` the steps it forces,
``views.py`` says what each viewer sees and ``bot.py`` plays; ``rules.py`` is the pure
library of cards and melds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from tablestate.engine.game import GameDef, Outcome, Result
from tablestate_five_crowns import hookspecs, schema
from tablestate_five_crowns.apply import apply
from tablestate_five_crowns.bot import bot, stage, standing
from tablestate_five_crowns.legal import legal_moves, to_act
from tablestate_five_crowns.moves import check_move
from tablestate_five_crowns.setup import setup
from tablestate_five_crowns.state import DISCARD as DISCARD_SOURCE
from tablestate_five_crowns.state import OVER, State, decode, encode
from tablestate_five_crowns.views import determinize, view

OPTIONS: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "rounds": {
            "type": "integer",
            "minimum": 1,
            "maximum": 11,
            "default": 11,
            "description": "Rounds to play; round r deals r+2 cards (3s wild, then 4s...).",
        },
        "tieBreak": {
            "type": "string",
            "enum": ["shared", "playoffRound"],
            "default": "shared",
            "description": "A tie for the lowest total: co-winners, or a 6-card round for "
            "the tied players (FC-16).",
        },
        "firstDealer": {
            "type": "string",
            "enum": ["seat0", "random"],
            "default": "seat0",
            "description": "Who deals round 1: the first seat, or a seat drawn at random (FC-1).",
        },
    },
}

EVENT_TYPES: Final = (
    "round.dealt",
    "card.drawn",
    "card.discarded",
    "player.went_out",
    "cards.laid_down",
    "cards.laid_off",
    "hand.scored",
    "stock.reshuffled",
    "round.scored",
    "game.over",
    "solo.dealt",
    "card.turned",
    "card.placed",
    "pile.closed",
)


def result(state: State) -> Result | None:
    """Winners and final totals once the game is over (solo: a win only at 0)."""
    if state.phase != OVER:
        return None
    return Result(
        winners=tuple(state.seats[p] for p in state.winners),
        scores={s: t for s, t in zip(state.seats, state.totals, strict=True)},
    )


# Moves a player may take back (undoMove) while nobody has moved since: those that showed
# the mover nothing new. A draw from the stock shows a hidden card; going out and laying
# down lay the hand open and score it; the solo game's placing turns up the next card.
# Taking the top discard (public already), a discard and a lay-off may be taken back, as
# long as they end no round and score no hand (the core also refuses any move that
# shuffled, as a new deal or a reshuffled stock does).
_FINAL_EVENTS: Final = frozenset({"hand.scored", "round.scored", "round.dealt", "game.over"})


def undoable(before: State, seat: int, move: Any, outcome: Outcome[State]) -> bool:
    """Whether ``seat`` may take ``move`` back (see the comment above)."""
    kind, body = next(iter(move.items()))
    if any(e.type in _FINAL_EVENTS for e in outcome.events):
        return False
    if kind == "draw":
        return bool(body.get("source") == DISCARD_SOURCE)
    return kind in ("discard", "layOff")


def conserved(state: State) -> Counter[str]:
    """Every card of the table's deck, wherever it is: no move makes or loses one."""
    return Counter(state.all_cards())


GAME: Final = GameDef(
    id="five-crowns",
    name="Five Crowns",
    summary="Rummy with five suits and a wild card that changes every round: meld your "
    "whole hand in books and runs to go out; the lowest total after 11 rounds wins.",
    min_players=1,
    max_players=7,
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
    state_format=1,
    event_types=EVENT_TYPES,
    state_type=schema.FiveCrownsState,
    move_input_type=schema.FiveCrownsMoveInput,
    hookspecs=hookspecs,
    undoable=undoable,
    determinize=determinize,
    standing=standing,
    bot_stage=stage,
    bot_depth=80,
    web_view="tablestate_five_crowns:web/view.js",
    conserved=conserved,
)

"""Five by Five (Tim Tender, Red Mitten Games): place and change dice on a shared 5x5
board to complete objective cards; the highest score when the board fills wins.

Rules: ``rules/five-by-five.source.txt`` made exact by DECISIONS.md section 3. A colour
card is a move of its own that rolls the die (``playColor``); placing it is the next move
(``place``). The game's own hooks (``hookspecs.py``) let house rules change the lines,
+1/-1, Swap, where removed dice go, specials, forfeits and the end. This module puts the
``GameDef`` together from the game's modules (the layout of ``docs/plugins.md``):
``setup.py`` deals, ``moves.py`` checks a move's shape, ``legal.py`` lists the legal
moves, ``apply.py`` plays one and ``flow.py`` the steps it forces, ``views.py`` says what
each viewer sees and ``bot.py`` plays; ``rules.py`` is the pure library of the board and
the objectives.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Final

from tablestate.engine import GameDef, Move, Outcome, Result
from tablestate_five_by_five import hookspecs
from tablestate_five_by_five.apply import apply
from tablestate_five_by_five.bot import bot, standing
from tablestate_five_by_five.legal import legal_moves, to_act
from tablestate_five_by_five.moves import check_move
from tablestate_five_by_five.rules import (
    COLORS,
    DEFAULT_POINTS,
    REGULAR_IDS,
    SIZE,
    SPECIAL_IDS,
)
from tablestate_five_by_five.schema import FiveByFiveMoveInput, FiveByFiveState
from tablestate_five_by_five.setup import check_options, setup
from tablestate_five_by_five.state import OVER, State, decode, encode
from tablestate_five_by_five.views import determinize, view

GAME_ID: Final = "five-by-five"

OPTIONS: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "eachColorMin": {
            "type": "integer",
            "enum": [4, 5],
            "default": 5,
            "description": "Dice of each colour that 'At Least 5 of Each Color' needs "
            "(5, the card's title; 4, its text).",
        },
        "objectivePoints": {
            "type": "object",
            "description": "Points of each objective, specials included, by objective id.",
            "properties": {
                oid: {"type": "integer", "minimum": 0, "maximum": 99, "default": points}
                for oid, points in DEFAULT_POINTS.items()
            },
            "default": dict(DEFAULT_POINTS),
        },
        "objectiveCounts": {
            "type": "object",
            "description": "Copies of each regular objective card in the objective deck.",
            "properties": {
                oid: {"type": "integer", "minimum": 0, "maximum": 5, "default": 1}
                for oid in REGULAR_IDS
            },
            "default": dict.fromkeys(REGULAR_IDS, 1),
        },
        "actionHandSize": {
            "type": "integer",
            "minimum": 1,
            "maximum": 8,
            "default": 4,
            "description": "Action cards dealt to each player and refilled to.",
        },
        "prefilledSquares": {
            "type": "integer",
            "minimum": 0,
            "maximum": SIZE * SIZE - 1,
            "default": 0,
            "description": "Squares filled at setup with random dice from the supply (the "
            "table's seeded generator), to shorten a game for demos and tests; 0, the "
            "default, plays the real game.",
        },
        "objectiveHandSize": {
            "type": "integer",
            "minimum": 1,
            "maximum": 5,
            "default": 3,
            "description": "Objective cards dealt to each player and refilled to.",
        },
    },
}


EVENT_TYPES: Final = (
    "hand.dealt",
    "board.prefilled",
    "decks.ready",
    "first.rolled",
    "first.player",
    "turn.started",
    "action.played",
    "die.rolled",
    "die.placed",
    "board.filled",
    "objective.scored",
    "special.claimed",
    "action.drawn",
    "actions.reshuffled",
    "objective.drawn",
    "objectives.reshuffled",
    "actions.forfeited",
    "objectives.forfeited",
    "turn.ended",
    "final.started",
    "player.finished",
    "rolloff.rolled",
    "game.scored",
)


def result(state: State) -> Result | None:
    """The winners and every seat's points, once the game is over."""
    if state.phase != OVER:
        return None
    return Result(winners=state.winners, scores={p.seat: p.score for p in state.players})


# Moves a player may take back (undoMove) while nobody has moved since: placing a die
# already rolled, and the actions that roll nothing (swap, plus/minus, paint), as long
# as they end nothing (no full board). A roll never (colour cards, reroll, remove: the
# core refuses those too, they use chance); scoring an objective or claiming a special
# is final; drawing an action card or new objectives shows new cards.
_TAKE_BACK: Final = frozenset({"place", "swap", "plusMinus", "paint"})
_QUIET: Final = frozenset({"action.played", "die.placed"})


def undoable(before: State, seat: int, move: Move, outcome: Outcome[State]) -> bool:
    """Whether ``seat`` may take ``move`` back (see the comment above)."""
    return next(iter(move)) in _TAKE_BACK and all(e.type in _QUIET for e in outcome.events)


def conserved(state: State) -> Counter[str]:
    """The dice by colour (a roll changes a die's number, never its colour), the action
    cards and the objective cards, wherever they are: no move makes or loses one."""
    dice = [d for row in state.board for d in row if d is not None]
    dice += [state.pending] if state.pending else []
    out = Counter(f"die:{d[0]}" for d in dice)
    for i, color in enumerate(COLORS):
        out[f"die:{color}"] += max(state.supply[i], 0) + max(state.out[i], 0)
    actions = [*state.decks[0], *state.decks[1], *state.action_discard]
    objectives = [*state.objective_deck, *state.objective_discard]
    for p in state.players:
        actions += p.actions
        objectives += [*p.objectives, *(o for o, _ in p.scored if o not in SPECIAL_IDS)]
    out.update(f"action:{a}" for a in actions)
    out.update(f"objective:{o}" for o in objectives)
    return +out


GAME: Final = GameDef(
    id=GAME_ID,
    name="Five by Five",
    summary="Place and change dice on a shared 5x5 board to complete your objective cards; "
    "the most points when the board fills wins.",
    min_players=1,
    max_players=5,
    setup=setup,
    check_options=check_options,
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
    state_type=FiveByFiveState,
    move_input_type=FiveByFiveMoveInput,
    hookspecs=hookspecs,
    undoable=undoable,
    determinize=determinize,
    standing=standing,
    bot_depth=8,
    web_view="tablestate_five_by_five:web/view.js",
    conserved=conserved,
)

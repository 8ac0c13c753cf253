"""Lucky Draw (game id ``lucky-draw``), a tiny hidden-hand card game for 2 to 4 players
that proves the service core and shows a plugin's layout (see ``docs/plugins.md``).

This module puts the ``GameDef`` together from the game's modules: ``setup.py`` deals,
``moves.py`` checks a move's shape, ``legal.py`` lists the legal moves, ``apply.py`` plays
one and ``flow.py`` the steps it forces, ``views.py`` says what each viewer sees and
``bot.py`` plays; ``rules.py`` holds the cards.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from tablestate.engine import GameDef, Move, Outcome, Result
from tablestate_example import hookspecs
from tablestate_example.apply import apply
from tablestate_example.bot import bot, standing
from tablestate_example.legal import legal_moves, to_act
from tablestate_example.moves import check_move
from tablestate_example.schema import LuckyDrawMoveInput, LuckyDrawState
from tablestate_example.setup import setup
from tablestate_example.state import State, decode, encode
from tablestate_example.views import determinize, view

OPTIONS: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "handSize": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
    },
}

EVENT_TYPES: Final = ("cards.dealt", "card.played", "card.drawn", "turn.passed", "game.over")


def result(state: State) -> Result | None:
    """The highest score wins (ties share the win), once every card is played."""
    if not state.over:
        return None
    best = max(state.scores)
    winners = tuple(s for s, score in zip(state.seats, state.scores, strict=True) if score == best)
    return Result(winners, dict(zip(state.seats, state.scores, strict=True)))


def undoable(before: State, seat: int, move: Move, outcome: Outcome[State]) -> bool:
    """A card played may be taken back (undoMove); a card drawn shows the mover a hidden
    card, and a pass needs no taking back."""
    return "play" in move


def conserved(state: State) -> Counter[str]:
    """Every card, in a hand, the stock or played: no move makes or loses one."""
    return Counter([*(c for h in state.hands for c in h), *state.stock, *state.played])


GAME: Final[GameDef[State]] = GameDef(
    id="lucky-draw",
    name="Lucky Draw",
    summary="Play or draw hidden cards; the highest total wins.",
    min_players=2,
    max_players=4,
    options=OPTIONS,
    setup=setup,
    to_act=to_act,
    legal_moves=legal_moves,
    apply=apply,
    view=view,
    result=result,
    bot=bot,
    encode=encode,
    decode=decode,
    check_move=check_move,
    event_types=EVENT_TYPES,
    state_type=LuckyDrawState,
    move_input_type=LuckyDrawMoveInput,
    hookspecs=hookspecs,
    undoable=undoable,
    determinize=determinize,
    standing=standing,
    conserved=conserved,
)

"""The Lucky Draw game plugin."""

from __future__ import annotations

from service import hookimpl
from service.engine import GameDef
from tablestate_example import hookspecs, rules
from tablestate_example.schema import LuckyDrawMoveInput, LuckyDrawState

GAME: GameDef[rules.State] = GameDef(
    id="lucky-draw",
    name="Lucky Draw",
    summary="Play or draw hidden cards; the highest total wins.",
    min_players=2,
    max_players=4,
    options={
        "type": "object",
        "properties": {
            "handSize": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
        },
    },
    setup=rules.setup,
    to_act=rules.to_act,
    legal_moves=rules.legal_moves,
    apply=rules.apply,
    view=rules.view,
    result=rules.result,
    bot=rules.bot,
    encode=rules.encode,
    decode=rules.decode,
    check_move=rules.check_move,
    event_types=("cards.dealt", "card.played", "card.drawn", "turn.passed", "game.over"),
    state_type=LuckyDrawState,
    move_input_type=LuckyDrawMoveInput,
    hookspecs=hookspecs,
    undoable=rules.undoable,
)


@hookimpl
def tablestate_games() -> list[GameDef[rules.State]]:
    return [GAME]

"""The Bench Counter game plugin: the trivial game of the peer benchmark."""

from __future__ import annotations

from tablestate import hookimpl
from tablestate.engine import GameDef
from tablestate_bench import rules
from tablestate_bench.schema import BenchCounterMoveInput, BenchCounterState

GAME: GameDef[rules.State] = GameDef(
    id="bench-counter",
    name="Bench Counter",
    summary="Two players take turns appending a digit to a list; it never ends (benchmarks).",
    min_players=2,
    max_players=2,
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
    event_types=(rules.PLAYED,),
    state_type=BenchCounterState,
    move_input_type=BenchCounterMoveInput,
)


@hookimpl
def tablestate_games() -> list[GameDef[rules.State]]:
    return [GAME]

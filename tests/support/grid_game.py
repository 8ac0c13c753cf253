"""Grid Claim (game id ``grid-claim``), a test game loaded by module path
(``TABLESTATE_PLUGINS=support.grid_game``): a board game with no chance and no view module
of its own, for the page's generic view (a 3x3 board of "", "X" and "O", shown as a grid).

Two players mark empty squares in turn, X first; whoever holds more squares when the board
is full wins (X, with 5 of 9). A player may resign instead: the other wins. One event type
has a sentence of the plugin's own (``event_texts``); the others the page words itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import strawberry

from tablestate import hookimpl
from tablestate.engine import Event, GameDef, Move, Outcome, Rejected, Result, Rng, SetupContext
from tablestate.engine.bots import BotView
from tablestate.engine.schema import GameState

SIZE = 3
MARKS = ("X", "O")


@dataclass(frozen=True, slots=True)
class State:
    seats: tuple[int, ...]
    board: tuple[tuple[str, ...], ...]
    turn: int = 0  # position in seats
    resigned: int | None = None  # the position that resigned

    @property
    def over(self) -> bool:
        return self.resigned is not None or all(all(row) for row in self.board)


@strawberry.type(description="One player of Grid Claim.")
class GridClaimPlayer:
    seat: int = strawberry.field(description="Seat index.")
    mark: str = strawberry.field(description="X or O.")
    squares: int = strawberry.field(description="Squares held.")


@strawberry.type(description="Grid Claim as anyone sees it.")
class GridClaimState(GameState):
    board: list[list[str]] = strawberry.field(description="Rows of squares: '', 'X' or 'O'.")
    players: list[GridClaimPlayer] = strawberry.field(description="Both players.")
    turn: int | None = strawberry.field(description="The seat to mark (null: over).")


@strawberry.input(description="A square.")
class GridClaimSquareInput:
    row: int = strawberry.field(description="0 to 2, top to bottom.")
    col: int = strawberry.field(description="0 to 2, left to right.")


@strawberry.input(one_of=True, description="A move of Grid Claim.")
class GridClaimMoveInput:
    mark: GridClaimSquareInput | None = strawberry.field(
        default=strawberry.UNSET, description="Mark an empty square."
    )
    resign: bool | None = strawberry.field(default=strawberry.UNSET, description="Give up.")


def setup(ctx: SetupContext) -> tuple[State, list[Event]]:
    return State(ctx.seats, tuple(("",) * SIZE for _ in range(SIZE))), []


def to_act(state: State) -> list[int]:
    return [] if state.over else [state.seats[state.turn]]


def legal_moves(state: State, seat: int, rules: object) -> list[Move]:
    if seat not in to_act(state):
        return []
    moves: list[Move] = [
        {"mark": {"row": r, "col": c}}
        for r in range(SIZE)
        for c in range(SIZE)
        if not state.board[r][c]
    ]
    return [*moves, {"resign": True}]


def check_move(move: Move) -> str | None:
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a move has exactly one kind"
    kind, arg = next(iter(move.items()))
    if kind == "mark":
        ok = isinstance(arg, Mapping) and all(
            isinstance(arg.get(k), int) and 0 <= arg[k] < SIZE for k in ("row", "col")
        )
        return None if ok else "a square is a row and a column, 0 to 2"
    if kind == "resign":
        return None if arg is True else "resign takes true"
    return f"unknown move {kind!r}"


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: object
) -> Outcome[State] | Rejected:
    if "resign" in move:
        return Outcome(replace(state, resigned=state.turn), (Event("player.resigned", {}, seat),))
    r, c = move["mark"]["row"], move["mark"]["col"]
    if state.board[r][c]:
        return Rejected("ILLEGAL_MOVE", "that square is taken")
    mark = MARKS[state.turn]
    row = (*state.board[r][:c], mark, *state.board[r][c + 1 :])
    board = (*state.board[:r], row, *state.board[r + 1 :])
    new = replace(state, board=board, turn=1 - state.turn)
    events = [Event("mark.placed", {"mark": mark, "square": r * SIZE + c + 1}, seat)]
    if new.over:
        events.append(Event("board.filled", {"winners": list(result(new).winners)}))  # type: ignore[union-attr]
    return Outcome(new, tuple(events))


def _held(state: State, pos: int) -> int:
    return sum(row.count(MARKS[pos]) for row in state.board)


def result(state: State) -> Result | None:
    if not state.over:
        return None
    scores = {s: _held(state, i) for i, s in enumerate(state.seats)}
    if state.resigned is not None:
        winners: tuple[int, ...] = (state.seats[1 - state.resigned],)
    else:
        best = max(scores.values())
        winners = tuple(s for s in state.seats if scores[s] == best)
    return Result(winners, scores)


def view(state: State, seat: int | None) -> dict[str, Any]:
    return {
        "board": [list(row) for row in state.board],
        "players": [
            {"seat": s, "mark": MARKS[i], "squares": _held(state, i)}
            for i, s in enumerate(state.seats)
        ],
        "turn": None if state.over else state.seats[state.turn],
    }


def bot(view: BotView[State], rng: Rng) -> Move:
    return next(m for m in view.legal if "mark" in m)


def encode(state: State) -> dict[str, Any]:
    return {
        "seats": list(state.seats),
        "board": [list(row) for row in state.board],
        "turn": state.turn,
        "resigned": state.resigned,
    }


def decode(data: Mapping[str, Any]) -> State:
    board = tuple(tuple(row) for row in data["board"])
    return State(tuple(data["seats"]), board, data["turn"], data["resigned"])


GAME: GameDef[State] = GameDef(
    id="grid-claim",
    name="Grid Claim",
    summary="Mark squares of a 3x3 board in turn; the most squares win.",
    min_players=2,
    max_players=2,
    setup=setup,
    to_act=to_act,
    legal_moves=legal_moves,  # type: ignore[arg-type]
    apply=apply,  # type: ignore[arg-type]
    view=view,
    result=result,
    bot=bot,
    encode=encode,
    decode=decode,
    check_move=check_move,
    event_types=("mark.placed", "player.resigned", "board.filled"),
    state_type=GridClaimState,
    move_input_type=GridClaimMoveInput,
    event_texts={"mark.placed": "{player} put {mark} on square {square}"},
    uses_chance=False,
)


@hookimpl
def tablestate_games() -> list[GameDef[State]]:
    return [GAME]

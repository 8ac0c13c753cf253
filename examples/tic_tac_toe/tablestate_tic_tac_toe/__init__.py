"""Tic-tac-toe (game id ``tic-tac-toe``), a game written in its own types: two players mark
the cells of a 3x3 board in turn, X first; three in a row wins, a full board is a draw.

The state is a dataclass whose methods are the rules; ``define_game`` derives the rest: the
GraphQL types, the move checks, the JSON, the view (the whole state: nothing is hidden),
the events and the bots."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from tablestate import GameDef, Result, SetupContext, define_game, hookimpl

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


@dataclass(frozen=True)
class Mark:
    """Mark an empty cell with your letter.

    Args:
        row, col: the cell's row and column, 0 to 2.
    """

    row: Literal[0, 1, 2]
    col: Literal[0, 1, 2]


@dataclass(frozen=True)
class State:
    """A game of tic-tac-toe.

    Args:
        board: three rows of three cells, each "X", "O" or "" (empty).
        seats: the seats of X and O.
    """

    board: tuple[tuple[Literal["X", "O", ""], ...], ...]
    seats: tuple[int, ...]

    @classmethod
    def setup(cls, ctx: SetupContext) -> State:
        return cls((("", "", ""),) * 3, ctx.seats)

    def letter(self) -> str:
        """The letter to mark next: X after an even number of marks."""
        return "XO"[sum(cell != "" for row in self.board for cell in row) % 2]

    def to_act(self) -> list[int]:
        return [] if self.result() else [self.seats["XO".index(self.letter())]]

    def legal(self, seat: int) -> list[Mark]:
        return [Mark(r, c) for r in range(3) for c in range(3) if not self.board[r][c]]

    def apply(self, seat: int, move: Mark) -> State:
        rows = [list(row) for row in self.board]
        rows[move.row][move.col] = self.letter()
        return replace(self, board=tuple(tuple(row) for row in rows))

    def result(self) -> Result | None:
        cells = [cell for row in self.board for cell in row]
        won = [cells[a] for a, b, c in LINES if cells[a] and cells[a] == cells[b] == cells[c]]
        if not won and not all(cells):
            return None
        winners = (self.seats["XO".index(won[0])],) if won else ()
        return Result(winners, {seat: int(seat in winners) for seat in self.seats})


GAME = define_game(
    id="tic-tac-toe", name="Tic-tac-toe", summary="Three in a row wins.", players=2, state=State
)


@hookimpl
def tablestate_games() -> list[GameDef[State]]:
    return [GAME]

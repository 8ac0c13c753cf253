"""GraphQL types of a table's seats and result.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import asyncio
import enum
from datetime import UTC, datetime
from typing import Any

import strawberry

from tablestate.api.types.nodes import NODE_ID, Node
from tablestate.engine import clock
from tablestate.engine.bots import level_of
from tablestate.engine.schema import global_id, resolver


@strawberry.enum(description="Who sits in a seat.")
class SeatKind(enum.Enum):
    EMPTY = "EMPTY"
    HUMAN = "HUMAN"
    BOT = "BOT"


@strawberry.enum(
    description="How well a bot plays (docs/bots.md): EASY half at random, NORMAL the "
    "game's own bot, STRONG a search over what its seat may know."
)
class BotLevel(enum.Enum):
    EASY = "easy"
    NORMAL = "normal"
    STRONG = "strong"


@strawberry.type(description="One seat of a table.")
class Seat(Node):
    id: strawberry.ID = strawberry.field(description=NODE_ID)
    index: int = strawberry.field(description="Seat index, from 0.")
    name: str | None = strawberry.field(description="The player's name (null: empty).")
    kind: SeatKind = strawberry.field(description="Empty, a human or a bot.")
    score: int | None = strawberry.field(description="Final score once finished.")
    is_host: bool = strawberry.field(description="Whether this seat has host rights.")
    time_left: float | None = strawberry.field(
        default=None,
        description="Seconds left for the current move, reserve included (null: no clock "
        "running for this seat).",
    )
    reserve_left: float | None = strawberry.field(
        default=None, description="Seconds of reserve left (null: the table has no clock)."
    )
    deadline: datetime | None = strawberry.field(
        default=None, description="When this seat's time runs out (null: not running)."
    )
    timeouts: int = strawberry.field(default=0, description="How often this seat's time ran out.")
    bot_level: BotLevel | None = strawberry.field(
        default=None,
        description="A bot's level (a seat handed to the bot plays NORMAL; null: no bot).",
    )
    rejoin_by: datetime | None = strawberry.field(
        default=None,
        description="The player left: until then the same token may rejoin, then a bot takes "
        "the seat (null: not left).",
    )

    _kind: strawberry.Private[str] = "EMPTY"
    _present: strawberry.Private[Any] = None

    @resolver(
        description="Whether the seat is connected: a human with a `tableEvents` "
        "subscription open (on any replica), or a bot; away otherwise."
    )
    async def connected(self) -> bool:
        if self._kind == "BOT":
            return True
        if self._kind != "HUMAN" or self._present is None:
            return False
        return self.index in await self._present()


class _Once:
    """One store read shared by every seat of a table in one response."""

    def __init__(self, read: Any) -> None:
        self._read = read
        self._task: Any = None

    async def __call__(self) -> Any:
        if self._task is None:
            self._task = asyncio.ensure_future(self._read())
        return await asyncio.shield(self._task)


def _seat_of(table: Any, s: Any, score: int | None, now: float, present: Any = None) -> "Seat":
    clocked = clock.turn_seconds(table) > 0
    time_left, reserve_left = clock.left(table, s, now)
    return Seat(
        id=strawberry.ID(seat_id(table.id, s.index)),
        index=s.index,
        name=s.name,
        kind=SeatKind(s.kind),
        score=score,
        is_host=s.host,
        time_left=time_left if clocked else None,
        reserve_left=reserve_left if clocked else None,
        deadline=_epoch(s.deadline),
        timeouts=s.timeouts,
        rejoin_by=_epoch(s.rejoin_by),
        bot_level=BotLevel(level_of(s.bot_level)) if s.kind == "BOT" else None,
        _kind=s.kind,
        _present=present,
    )


def seat_id(table_id: str, index: int) -> str:
    """The global id of a table's seat."""
    return global_id("Seat", table_id, index)


def _epoch(t: float | None) -> datetime | None:
    return datetime.fromtimestamp(t, UTC) if t is not None else None


@strawberry.type(description="The outcome of a finished game.")
class GameResult:
    id: strawberry.ID = strawberry.field(description="The result of this table.")
    winners: list[int] = strawberry.field(description="The winning seats.")
    scores: list[int] = strawberry.field(description="Each seat's score, by seat index.")

"""Bench Counter's GraphQL types."""

import strawberry

from tablestate.engine.schema import GameState


@strawberry.type(description="Bench Counter as anyone sees it (nothing is hidden).")
class BenchCounterState(GameState):
    list_: list[int] = strawberry.field(name="list", description="Every number played, in order.")


@strawberry.input(description="Append a number to the list and pass the turn.")
class BenchCounterPlayInput:
    n: int = strawberry.field(description="The number, 0 to 9.")


@strawberry.input(one_of=True, description="A move of Bench Counter.")
class BenchCounterMoveInput:
    play: BenchCounterPlayInput | None = strawberry.field(
        default=strawberry.UNSET, description="Append n (0 to 9) and pass the turn."
    )

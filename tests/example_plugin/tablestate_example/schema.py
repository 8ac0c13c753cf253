"""Lucky Draw's GraphQL types: the state view ``LuckyDrawState`` and the move input
``LuckyDrawMoveInput``. The only module of the game that imports Strawberry."""

import strawberry

from tablestate.engine.schema import GameState


@strawberry.type(description="One player of Lucky Draw.")
class LuckyDrawPlayer:
    seat: int = strawberry.field(description="Seat index.")
    hand_size: int = strawberry.field(description="Cards in hand.")
    score: int = strawberry.field(description="Points so far.")


@strawberry.type(description="Lucky Draw as the viewer may see it.")
class LuckyDrawState(GameState):
    players: list[LuckyDrawPlayer] = strawberry.field(description="Every player.")
    stock_size: int = strawberry.field(description="Cards left to draw.")
    played: list[str] = strawberry.field(description="Cards played, in order.")
    turn: int | None = strawberry.field(description="Whose turn (null: over).")
    my_hand: list[str] | None = strawberry.field(description="Your hand (null: spectator).")


@strawberry.input(description="Play a card.")
class LuckyDrawPlayInput:
    card: str = strawberry.field(description="The card, e.g. 7A.")


@strawberry.input(one_of=True, description="A move of Lucky Draw.")
class LuckyDrawMoveInput:
    play: LuckyDrawPlayInput | None = strawberry.field(
        default=strawberry.UNSET, description="Play a card from your hand."
    )
    draw: bool | None = strawberry.field(
        default=strawberry.UNSET, description="Draw the top card of the stock."
    )
    pass_: bool | None = strawberry.field(
        default=strawberry.UNSET, name="pass", description="Pass (house rule allow-pass)."
    )

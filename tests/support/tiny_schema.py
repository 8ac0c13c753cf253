"""The GraphQL types of the tiny games of ``support.tiny_games`` (as a game's schema.py)."""

import strawberry

from tablestate.engine.schema import GameState


@strawberry.type(description="Count Up as the viewer may see it.")
class CountUpState(GameState):
    total: int = strawberry.field(description="The count so far.")
    turn: int | None = strawberry.field(description="Whose turn (null: over).")


@strawberry.input(description="Add to the count.")
class CountUpAddInput:
    amount: int = strawberry.field(description="1 or 2.")


@strawberry.input(one_of=True, description="A move of Count Up.")
class CountUpMoveInput:
    add: CountUpAddInput | None = strawberry.field(
        default=strawberry.UNSET, description="Add to the count."
    )


@strawberry.input(description="Not a @oneOf input.")
class CountUpPlainInput:
    add: CountUpAddInput | None = strawberry.field(default=None, description="Add.")


@strawberry.type(description="A player of Hidden Dice.")
class HiddenDicePlayer:
    seat: int = strawberry.field(description="The seat.")
    dice_count: int = strawberry.field(description="How many dice it holds.")
    dice: list[int] | None = strawberry.field(description="Its dice, once the game is over.")


@strawberry.type(description="Hidden Dice as the viewer may see it.")
class HiddenDiceState(GameState):
    players: list[HiddenDicePlayer] = strawberry.field(description="Every player.")
    my_dice: list[int] | None = strawberry.field(description="Your dice (null: spectator).")
    moves_left: int = strawberry.field(description="Moves until the game ends.")


@strawberry.input(one_of=True, description="A move of Hidden Dice.")
class HiddenDiceMoveInput:
    reroll: bool | None = strawberry.field(
        default=strawberry.UNSET, description="Roll your dice again."
    )
    stand: bool | None = strawberry.field(default=strawberry.UNSET, description="Keep them.")

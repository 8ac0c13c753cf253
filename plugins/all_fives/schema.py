"""All Fives' GraphQL types: the state view ``AllFivesState`` and the move input
``AllFivesMoveInput``. The only module of the game that imports Strawberry."""

import enum

import strawberry

from tablestate.engine.schema import GameState


@strawberry.enum(description="Where a deal of All Fives stands.")
class AllFivesPhase(enum.Enum):
    STAND_OR_BEG = strawberry.enum_value(
        "STAND_OR_BEG", description="Eldest stands (keeps the turn-up's suit) or begs."
    )
    GIVE_OR_RUN = strawberry.enum_value(
        "GIVE_OR_RUN", description="Eldest begged: the dealer gives one or runs the cards."
    )
    BUNCH = strawberry.enum_value(
        "BUNCH", description="After a run (house rule): the players may agree on a redeal."
    )
    DISCARD = strawberry.enum_value(
        "DISCARD", description="After a run (house rule): each player discards to the limit."
    )
    PLAY = strawberry.enum_value("PLAY", description="Tricks are played.")
    GAME_OVER = strawberry.enum_value("GAME_OVER", description="The game is over.")


@strawberry.type(description="One card played to a trick.")
class AllFivesPlay:
    seat: int = strawberry.field(description="The seat that played it.")
    card: str = strawberry.field(description="The card, e.g. AS, 10D.")


@strawberry.type(description="A completed trick.")
class AllFivesTrick:
    plays: list[AllFivesPlay] = strawberry.field(description="The cards, in play order.")
    winner: int = strawberry.field(description="The seat that won it.")
    points: int = strawberry.field(description="The trump honours it scored for its winner.")


@strawberry.type(description="A player as everyone may see them.")
class AllFivesPlayer:
    seat: int = strawberry.field(description="The seat.")
    side: int = strawberry.field(
        description="The scoring side (partners share one; otherwise one per player)."
    )
    hand_size: int = strawberry.field(description="Cards in hand.")
    tricks_won: int = strawberry.field(description="Tricks won this deal.")
    deal_points: int = strawberry.field(description="The side's points this deal.")
    score: int = strawberry.field(description="The side's total.")


@strawberry.type(description="All Fives as the viewer may see it.")
class AllFivesState(GameState):
    phase: AllFivesPhase = strawberry.field(description="Where the deal stands.")
    seats: list[int] = strawberry.field(description="The seats in play order (clockwise).")
    dealer: int = strawberry.field(description="The dealer's seat.")
    eldest: int = strawberry.field(description="The seat to the dealer's left: stands or begs.")
    deal_number: int = strawberry.field(description="Deals started so far, redeals included.")
    target_score: int = strawberry.field(description="The score that wins (option).")
    proposed_suit: str | None = strawberry.field(
        description="The suit of the deal's first turn-up: the proposed trump (S, H, C, D)."
    )
    turn_up: str | None = strawberry.field(description="The card turned up on the stock.")
    trump: str | None = strawberry.field(description="The trump suit, once fixed.")
    begged: bool = strawberry.field(description="Whether eldest begged this deal.")
    runs: int = strawberry.field(description="How many times the cards were run this deal.")
    set_aside: list[str] = strawberry.field(description="Turn-ups set aside by runs (dead).")
    stock_size: int = strawberry.field(description="Cards left in the stock.")
    discarded_count: int = strawberry.field(
        description="Cards discarded face down this deal (house rule)."
    )
    hand_limit: int | None = strawberry.field(
        description="In the DISCARD phase, the hand size to discard down to."
    )
    leader: int | None = strawberry.field(description="The seat that leads the current trick.")
    trick: list[AllFivesPlay] = strawberry.field(description="The trick in progress.")
    last_trick: AllFivesTrick | None = strawberry.field(description="The last completed trick.")
    players: list[AllFivesPlayer] = strawberry.field(description="Every player, in play order.")
    hand: list[str] | None = strawberry.field(
        description="Your own hand (null for a spectator). Other hands are never shown."
    )
    bunch_proposed_by: int | None = strawberry.field(
        description="In the BUNCH phase, the seat that proposed a redeal."
    )
    winners: list[int] = strawberry.field(description="The winning seats, once the game is over.")


@strawberry.input(description="A card to play or discard.")
class AllFivesCardInput:
    card: str = strawberry.field(description="The card, rank then suit: AS, 10D, 5H.")


@strawberry.input(one_of=True, description="A move in All Fives: set exactly one field.")
class AllFivesMoveInput:
    stand: bool | None = strawberry.field(
        default=strawberry.UNSET, description="Eldest keeps the turn-up's suit as trump (true)."
    )
    beg: bool | None = strawberry.field(
        default=strawberry.UNSET, description="Eldest begs for another trump (true)."
    )
    give_one: bool | None = strawberry.field(
        default=strawberry.UNSET, description="The dealer gives eldest one point (true)."
    )
    run: bool | None = strawberry.field(
        default=strawberry.UNSET,
        description="The dealer runs the cards: 3 more each and a new turn-up (true).",
    )
    play: AllFivesCardInput | None = strawberry.field(
        default=strawberry.UNSET, description="Play a card to the trick."
    )
    discard: AllFivesCardInput | None = strawberry.field(
        default=strawberry.UNSET,
        description="Discard a card face down (house rule discard-to-six-after-run).",
    )
    bunch: bool | None = strawberry.field(
        default=strawberry.UNSET,
        description="Propose, or agree to, a redeal (house rule bunch-on-agreement) (true).",
    )
    decline_bunch: bool | None = strawberry.field(
        default=strawberry.UNSET,
        description="Do not propose, or refuse, a redeal (house rule bunch-on-agreement) (true).",
    )

"""Five Crowns' GraphQL types: the state view ``FiveCrownsState`` and the move input
``FiveCrownsMoveInput``. The only module of the game that imports Strawberry."""

import enum

import strawberry

from tablestate.engine.schema import GameState


@strawberry.enum(description="Where a Five Crowns turn stands.")
class FiveCrownsPhase(enum.Enum):
    DRAW = strawberry.enum_value("DRAW", description="The player to act draws a card.")
    DISCARD = strawberry.enum_value(
        "DISCARD",
        description="The player has drawn: discard, go out, lay down or lay off.",
    )
    PLACE = strawberry.enum_value(
        "PLACE", description="Solo: place the turned card on a pile and discard from it."
    )
    GAME_OVER = strawberry.enum_value("GAME_OVER", description="The game is over.")


@strawberry.enum(description="A table of 2 to 7 players, or the solo game.")
class FiveCrownsMode(enum.Enum):
    TABLE = strawberry.enum_value("TABLE", description="2 to 7 players.")
    SOLO = strawberry.enum_value("SOLO", description="One player and eleven piles.")


@strawberry.enum(description="Where a card is drawn from.")
class FiveCrownsDrawSource(enum.Enum):
    STOCK = strawberry.enum_value("STOCK", description="The top of the draw pile.")
    DISCARD = strawberry.enum_value("DISCARD", description="The top of the discard pile.")


@strawberry.enum(description="The kind of a meld.")
class FiveCrownsMeldKind(enum.Enum):
    BOOK = strawberry.enum_value("BOOK", description="Three or more cards of one rank.")
    RUN = strawberry.enum_value("RUN", description="Three or more consecutive ranks of one suit.")
    WILD = strawberry.enum_value("WILD", description="Wild cards only (FC-11).")


@strawberry.type(description="A player as everyone may see them.")
class FiveCrownsPlayer:
    seat: int = strawberry.field(description="The seat.")
    hand_size: int = strawberry.field(description="Cards in hand (after a last turn: left).")
    dealt_in: bool = strawberry.field(
        description="Whether the player plays this round (a tie-break round deals only the tied)."
    )
    round_points: int | None = strawberry.field(
        description="Points scored this round so far (null: not yet scored)."
    )
    total: int = strawberry.field(description="The running total.")
    went_out: bool = strawberry.field(description="Whether this player went out this round.")
    finished: bool = strawberry.field(
        description="Whether the player's round is over (went out, or took the last turn)."
    )


@strawberry.type(description="A meld on the table.")
class FiveCrownsMeld:
    index: int = strawberry.field(description="Its index: the target of a layOff move.")
    seat: int = strawberry.field(description="The seat that laid it.")
    kind: FiveCrownsMeldKind = strawberry.field(description="Book, run or all-wild.")
    cards: list[str] = strawberry.field(
        description="Its cards; for a run, in rank order from low (wilds in their places)."
    )
    rank: str | None = strawberry.field(description="A book's rank.")
    suit: str | None = strawberry.field(description="A run's suit (S, H, C, D, T).")
    low: str | None = strawberry.field(description="A run's lowest rank.")
    high: str | None = strawberry.field(description="A run's highest rank.")


@strawberry.type(description="A seat's points in one round.")
class FiveCrownsSeatPoints:
    seat: int = strawberry.field(description="The seat.")
    points: int | None = strawberry.field(description="Its points (null: not dealt in).")


@strawberry.type(description="One scored round.")
class FiveCrownsRoundScore:
    round: int = strawberry.field(description="The round number.")
    playoff: bool = strawberry.field(description="Whether it was the tie-break round.")
    points: list[FiveCrownsSeatPoints] = strawberry.field(description="Each seat's points.")


@strawberry.type(description="A solo pile (face up).")
class FiveCrownsPile:
    index: int = strawberry.field(description="Its index: the target of a place move.")
    size: int = strawberry.field(description="Cards it holds.")
    wild_rank: str = strawberry.field(description="Its wild rank (its size).")
    cards: list[str] = strawberry.field(description="Its cards.")
    closed: bool = strawberry.field(description="Whether it melds completely (closed).")
    points: int = strawberry.field(description="What it would score now (0 once closed).")


@strawberry.type(description="The solo game's table.")
class FiveCrownsSolo:
    piles: list[FiveCrownsPile] = strawberry.field(description="The eleven piles.")
    current: str | None = strawberry.field(description="The turned-up card to place.")
    dead_count: int = strawberry.field(description="Cards discarded (dead).")
    last_dead: str | None = strawberry.field(description="The last card discarded.")
    turns: int = strawberry.field(description="Turns played.")
    score: int = strawberry.field(description="The score now: the open piles' points.")


@strawberry.type(description="Five Crowns as the viewer may see it.")
class FiveCrownsState(GameState):
    mode: FiveCrownsMode = strawberry.field(description="A table, or the solo game.")
    phase: FiveCrownsPhase = strawberry.field(description="Where the turn stands.")
    seats: list[int] = strawberry.field(description="The seats in play order (clockwise).")
    round: int = strawberry.field(description="The round (the tie-break round is rounds + 1).")
    rounds: int = strawberry.field(description="Rounds in the game (option rounds).")
    playoff: bool = strawberry.field(description="Whether this is the 6-card tie-break round.")
    cards_dealt: int = strawberry.field(description="Cards dealt to each player this round.")
    wild_rank: str | None = strawberry.field(
        description="This round's wild rank (jokers are always wild); solo: per pile."
    )
    dealer: int | None = strawberry.field(description="The dealer's seat.")
    turn: int | None = strawberry.field(description="The seat whose turn it is.")
    final_turns: bool = strawberry.field(
        description="Whether someone went out: everyone else is taking a last turn."
    )
    went_out: int | None = strawberry.field(description="The seat that went out this round.")
    top_discard: str | None = strawberry.field(description="The top card of the discard pile.")
    discard_size: int = strawberry.field(description="Cards in the discard pile.")
    stock_size: int = strawberry.field(description="Cards in the draw pile.")
    drew_from: FiveCrownsDrawSource | None = strawberry.field(
        description="Where the player to act drew from this turn (null: not yet)."
    )
    drawn_card: str | None = strawberry.field(
        description="The card drawn this turn: shown to its drawer, or to all if it came "
        "from the discard pile."
    )
    hand: list[str] | None = strawberry.field(description="Your own hand (null: spectator).")
    players: list[FiveCrownsPlayer] = strawberry.field(description="Every player, by seat.")
    melds: list[FiveCrownsMeld] = strawberry.field(description="The melds laid this round.")
    history: list[FiveCrownsRoundScore] = strawberry.field(description="Every scored round.")
    winners: list[int] = strawberry.field(description="The winning seats once the game is over.")
    solo: FiveCrownsSolo | None = strawberry.field(description="The solo game's piles.")


@strawberry.input(description="Draw a card.")
class FiveCrownsDrawInput:
    source: FiveCrownsDrawSource = strawberry.field(description="STOCK or DISCARD.")


@strawberry.input(description="Discard a card, ending the turn.")
class FiveCrownsDiscardInput:
    card: str = strawberry.field(description="The card, e.g. KH, 10T, JK.")


@strawberry.input(description="Lay melds down and discard the last card.")
class FiveCrownsMeldsInput:
    melds: list[list[str]] = strawberry.field(
        description="Books and runs, each a list of cards, in any order."
    )
    discard: str = strawberry.field(description="The card to discard.")


@strawberry.input(description="Add cards from hand to a meld on the table (house rule).")
class FiveCrownsLayOffInput:
    cards: list[str] = strawberry.field(description="The cards to add to that one meld.")
    meld: int = strawberry.field(description="The meld's index on the table.")


@strawberry.input(description="Solo: add the turned card to a pile, then discard from it.")
class FiveCrownsPlaceInput:
    pile: int = strawberry.field(description="The pile's index, 0..10.")
    discard: str = strawberry.field(description="A card of that pile or the turned card itself.")


@strawberry.input(one_of=True, description="A Five Crowns move: exactly one field.")
class FiveCrownsMoveInput:
    draw: FiveCrownsDrawInput | None = strawberry.field(
        default=strawberry.UNSET, description="Draw from the stock or the discard pile."
    )
    discard: FiveCrownsDiscardInput | None = strawberry.field(
        default=strawberry.UNSET, description="Discard a card (on a last turn: and score)."
    )
    go_out: FiveCrownsMeldsInput | None = strawberry.field(
        default=strawberry.UNSET, description="Lay the whole hand down in melds and discard."
    )
    lay_down: FiveCrownsMeldsInput | None = strawberry.field(
        default=strawberry.UNSET, description="On a last turn: lay melds down and discard."
    )
    lay_off: FiveCrownsLayOffInput | None = strawberry.field(
        default=strawberry.UNSET,
        description="House rule lay-off-on-others: add cards to a meld on the table.",
    )
    place: FiveCrownsPlaceInput | None = strawberry.field(
        default=strawberry.UNSET, description="Solo: place the turned card and discard."
    )

"""Five by Five's GraphQL types: the state view ``FiveByFiveState`` and the ``@oneOf``
move input ``FiveByFiveMoveInput``. The only module of the game that imports Strawberry."""

import enum

import strawberry

from tablestate.engine.schema import GameState


@strawberry.enum(description="A die colour: R red, Y yellow, B blue, G green.")
class FiveByFiveColor(enum.Enum):
    R = "R"
    Y = "Y"
    B = "B"
    G = "G"


@strawberry.enum(description="An action card: a colour card (R, Y, B, G) or a special action card.")
class FiveByFiveAction(enum.Enum):
    R = "R"
    Y = "Y"
    B = "B"
    G = "G"
    REROLL = "REROLL"
    REMOVE = "REMOVE"
    SWAP = "SWAP"
    PLUS_MINUS = "PLUS_MINUS"
    PAINT = "PAINT"


@strawberry.enum(description="One of the two face-up action decks.")
class FiveByFiveDeck(enum.Enum):
    A = "A"
    B = "B"


@strawberry.enum(description="Where the game is within a turn.")
class FiveByFivePhase(enum.Enum):
    TURN = "TURN"
    PLACE = "PLACE"
    ACTED = "ACTED"
    REFILL = "REFILL"
    FINAL = "FINAL"
    OVER = "OVER"


@strawberry.type(description="Dice of one colour.")
class FiveByFiveDiceCount:
    color: FiveByFiveColor = strawberry.field(description="The colour.")
    count: int = strawberry.field(description="How many dice.")


@strawberry.type(description="An action deck: its size and its face-up card.")
class FiveByFiveActionDeck:
    deck: FiveByFiveDeck = strawberry.field(description="Which deck.")
    size: int = strawberry.field(description="Cards in the deck, the face-up one included.")
    face_up: FiveByFiveAction | None = strawberry.field(
        description="The face-up top card (null when the deck is empty)."
    )


@strawberry.type(description="An objective a player scored.")
class FiveByFiveScoredObjective:
    objective: str = strawberry.field(description="The objective id.")
    name: str = strawberry.field(description="The card's name.")
    points: int = strawberry.field(description="The points it scored.")


@strawberry.type(description="A public special objective.")
class FiveByFiveSpecial:
    objective: str = strawberry.field(description="The special's id.")
    name: str = strawberry.field(description="The card's name.")
    points: int = strawberry.field(description="Its points.")
    claimed_by: list[int] = strawberry.field(description="The seats that scored it.")
    satisfied: bool = strawberry.field(description="Whether the board satisfies it now.")


@strawberry.type(description="What everyone sees of one player.")
class FiveByFivePlayer:
    seat: int = strawberry.field(description="The seat.")
    score: int = strawberry.field(description="Points scored so far.")
    scored: list[FiveByFiveScoredObjective] = strawberry.field(
        description="The objectives scored, specials included, in order."
    )
    action_count: int = strawberry.field(description="Action cards in hand.")
    objective_count: int = strawberry.field(description="Objective cards in hand.")
    objectives: list[str] | None = strawberry.field(
        description="The objective cards in hand, only where objective hands are public."
    )


@strawberry.type(description="The viewer's own cards.")
class FiveByFiveHand:
    actions: list[FiveByFiveAction] = strawberry.field(description="Your action cards.")
    objectives: list[str] = strawberry.field(description="Your objective cards (ids).")
    satisfied: list[str] = strawberry.field(
        description="Which of your objectives the board satisfies now."
    )


@strawberry.type(description="One player's dice in a roll-off.")
class FiveByFiveRoll:
    seat: int = strawberry.field(description="The seat.")
    dice: list[int] = strawberry.field(description="The five dice rolled.")
    total: int = strawberry.field(description="Their sum.")


@strawberry.type(description="One round of the final tie-break roll-off.")
class FiveByFiveRollOff:
    round: int = strawberry.field(description="The round, from 1.")
    rolls: list[FiveByFiveRoll] = strawberry.field(description="Each tied player's roll.")


@strawberry.type(description="A game of Five by Five as the viewer may see it.")
class FiveByFiveState(GameState):
    board: list[list[str | None]] = strawberry.field(
        description="5 rows of 5 squares: a die, colour then value (R3), or null when empty."
    )
    supply: list[FiveByFiveDiceCount] = strawberry.field(
        description="Dice of each colour left in the supply."
    )
    out_of_game: list[FiveByFiveDiceCount] = strawberry.field(
        description="Dice of each colour out of the game (house rule removed-dice-leave)."
    )
    decks: list[FiveByFiveActionDeck] = strawberry.field(
        description="The two action decks with their face-up cards."
    )
    action_discard_size: int = strawberry.field(description="Cards in the action discard.")
    objective_deck_size: int = strawberry.field(description="Cards in the objective deck.")
    objective_discard_size: int = strawberry.field(
        description="Forfeited objective cards waiting to be reshuffled."
    )
    specials: list[FiveByFiveSpecial] = strawberry.field(
        description="The three special objectives and who claimed them."
    )
    players: list[FiveByFivePlayer] = strawberry.field(
        description="Every player, in play order: scores, scored objectives, hand sizes."
    )
    hand: FiveByFiveHand | None = strawberry.field(
        description="Your own cards (null for a spectator)."
    )
    phase: FiveByFivePhase = strawberry.field(description="Where the game is within a turn.")
    current: int | None = strawberry.field(
        description="The seat whose turn it is (null once the game is over)."
    )
    turn: int = strawberry.field(description="The turn number, from 1.")
    order: list[int] = strawberry.field(description="The seats in play order.")
    pending_die: str | None = strawberry.field(
        description="The rolled colour die waiting to be placed (phase PLACE)."
    )
    draws_left: int = strawberry.field(
        description="Action cards the turn's player still takes (phases ACTED and REFILL)."
    )
    scored_this_turn: bool = strawberry.field(
        description="Whether the turn's player has scored an objective this turn."
    )
    final_queue: list[int] = strawberry.field(
        description="Seats still to make their last objective plays (phase FINAL)."
    )
    board_satisfies: list[str] = strawberry.field(
        description="Every objective id the board satisfies now, specials included."
    )
    objectives_open: bool = strawberry.field(
        description="Whether objective hands are public at this table."
    )
    winners: list[int] = strawberry.field(description="The winning seats, once it is over.")
    rolloffs: list[FiveByFiveRollOff] = strawberry.field(
        description="The roll-off rounds of the final tie-break, if any."
    )


@strawberry.input(description="A square of the board.")
class FiveByFiveSquareInput:
    row: int = strawberry.field(description="Row 0-4, from the top.")
    col: int = strawberry.field(description="Column 0-4, from the left.")


@strawberry.input(description="Play a colour card: its die is rolled; place it next.")
class FiveByFivePlayColorInput:
    card: FiveByFiveColor = strawberry.field(description="The colour card played.")
    color: FiveByFiveColor = strawberry.field(
        description="The die's colour: the card's own, or any colour with dice once the "
        "card's colour has run out (the card is then wild)."
    )


@strawberry.input(description="A square to act on.")
class FiveByFiveSquareMoveInput:
    square: FiveByFiveSquareInput = strawberry.field(description="The square.")


@strawberry.input(description="A square and a colour (Remove, Paint).")
class FiveByFiveSquareColorInput:
    square: FiveByFiveSquareInput = strawberry.field(description="The die's square.")
    color: FiveByFiveColor = strawberry.field(description="The colour of the new die.")


@strawberry.input(description="Swap two side-by-side squares.")
class FiveByFiveSwapInput:
    first: FiveByFiveSquareInput = strawberry.field(description="One square.")
    second: FiveByFiveSquareInput = strawberry.field(description="The square beside it.")


@strawberry.input(description="+1/-1 on a die.")
class FiveByFivePlusMinusInput:
    square: FiveByFiveSquareInput = strawberry.field(description="The die's square.")
    delta: int = strawberry.field(description="1 or -1.")


@strawberry.input(description="An objective to score.")
class FiveByFiveObjectiveInput:
    objective: str = strawberry.field(description="The objective id.")


@strawberry.input(description="Take the face-up card of an action deck.")
class FiveByFiveDrawActionInput:
    deck: FiveByFiveDeck = strawberry.field(
        description="The deck (an empty deck gives the other's card)."
    )


@strawberry.input(description="Forfeit the turn, discarding action cards and refilling.")
class FiveByFiveForfeitActionsInput:
    cards: list[FiveByFiveAction] = strawberry.field(
        description="The cards discarded: the whole hand (any subset with the house rule "
        "partial-action-discard)."
    )


@strawberry.input(description="Forfeit the turn, discarding objective cards and refilling.")
class FiveByFiveForfeitObjectivesInput:
    objectives: list[str] = strawberry.field(description="The objective cards discarded (1+).")


@strawberry.input(one_of=True, description="One Five by Five move: exactly one field.")
class FiveByFiveMoveInput:
    play_color: FiveByFivePlayColorInput | None = strawberry.field(
        default=strawberry.UNSET, description="Play a colour card and roll its die."
    )
    place: FiveByFiveSquareMoveInput | None = strawberry.field(
        default=strawberry.UNSET, description="Place the rolled die on an empty square."
    )
    reroll: FiveByFiveSquareMoveInput | None = strawberry.field(
        default=strawberry.UNSET, description="Play Reroll on a die."
    )
    remove: FiveByFiveSquareColorInput | None = strawberry.field(
        default=strawberry.UNSET,
        description="Play Remove: the die goes, a rolled die of the colour takes its square.",
    )
    swap: FiveByFiveSwapInput | None = strawberry.field(
        default=strawberry.UNSET, description="Play Swap on two side-by-side dice."
    )
    plus_minus: FiveByFivePlusMinusInput | None = strawberry.field(
        default=strawberry.UNSET, description="Play +1/-1 on a die."
    )
    paint: FiveByFiveSquareColorInput | None = strawberry.field(
        default=strawberry.UNSET, description="Play Paint: same value, another colour."
    )
    play_objective: FiveByFiveObjectiveInput | None = strawberry.field(
        default=strawberry.UNSET, description="Score an objective card from your hand."
    )
    claim_special: FiveByFiveObjectiveInput | None = strawberry.field(
        default=strawberry.UNSET, description="Claim a special objective."
    )
    draw_action: FiveByFiveDrawActionInput | None = strawberry.field(
        default=strawberry.UNSET, description="Take an action card (ends a played turn)."
    )
    forfeit_actions: FiveByFiveForfeitActionsInput | None = strawberry.field(
        default=strawberry.UNSET, description="Forfeit the turn: discard action cards."
    )
    forfeit_objectives: FiveByFiveForfeitObjectivesInput | None = strawberry.field(
        default=strawberry.UNSET, description="Forfeit the turn: discard objective cards."
    )
    done: bool | None = strawberry.field(
        default=strawberry.UNSET,
        description="Send true to end your last objective plays once the board is full.",
    )

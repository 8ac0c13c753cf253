"""How a game of Five by Five starts: the table's configuration read from its options and
rules, the hands dealt, the decks laid out, squares pre-filled if the table asks, and the
roll for the first player."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from tablestate.engine import Event, Rng, RuleSet, SetupContext
from tablestate_five_by_five import _cards
from tablestate_five_by_five.rules import (
    ACTION_COUNTS,
    COLORS,
    DICE_PER_COLOR,
    LINES,
    OBJECTIVE_BY_ID,
    REGULAR_IDS,
    SIZE,
    SQUARES,
    Line,
    die,
)
from tablestate_five_by_five.state import (
    TURN,
    Config,
    Grid,
    Player,
    State,
    sort_actions,
    sort_objectives,
)

# A scripted generator could tie forever; real dice settle the first player at once.
MAX_FIRST_ROLLS: Final = 50


def _config(options: Mapping[str, Any], rules: RuleSet) -> Config:
    lines: list[Line] = list(LINES)
    for answer in rules.hook.five_by_five_extra_lines():
        for line in answer:
            extra = tuple((r, c) for r, c in line)
            if extra not in lines:
                lines.append(extra)
    return Config(
        each_color_min=options["eachColorMin"],
        points=tuple((oid, options["objectivePoints"][oid]) for oid in OBJECTIVE_BY_ID),
        action_hand_size=options["actionHandSize"],
        objective_hand_size=options["objectiveHandSize"],
        lines=tuple(lines),
        open_objectives=any(rules.hook.five_by_five_objectives_public()),
    )


def check_options(options: Mapping[str, Any], seats: int) -> str | None:
    """Refuses options whose objective deck cannot deal every seat a full hand (the deck of
    ``objectiveCounts`` against ``objectiveHandSize`` cards to each of ``seats``)."""
    deck = sum(options["objectiveCounts"][oid] for oid in REGULAR_IDS)
    each = options["objectiveHandSize"]
    if deck < seats * each:
        return (
            f"objectiveCounts make an objective deck of {deck} cards, too few to deal "
            f"objectiveHandSize {each} to each of {seats} seats ({seats * each} needed): "
            "raise objectiveCounts or lower objectiveHandSize"
        )
    return None


def _deal(cards: Sequence[str], players: int, each: int) -> tuple[list[list[str]], list[str]]:
    """One card at a time to each player in turn; the hands and what is left."""
    dealt = min(len(cards), players * each)
    hands = [list(cards[i:dealt:players]) for i in range(players)]
    return hands, list(cards[dealt:])


def _first_player(seats: Sequence[int], rng: Rng) -> tuple[int, list[Event]]:
    """Each player rolls a die; the highest starts; the tied roll again."""
    events: list[Event] = []
    tied = list(seats)
    rounds = 0
    while len(tied) > 1 and rounds < MAX_FIRST_ROLLS:
        rounds += 1
        values = rng.roll(len(tied))
        rolls = [{"seat": seat, "value": v} for seat, v in zip(tied, values, strict=True)]
        events.append(Event("first.rolled", {"round": rounds, "rolls": rolls}))
        top = max(values)
        tied = [seat for seat, v in zip(tied, values, strict=True) if v == top]
    return tied[0], events


def _prefill(count: int, rng: Rng) -> tuple[Grid, tuple[int, ...], list[Event]]:
    """The board and supply with ``count`` random dice from the supply on random squares
    (option ``prefilledSquares``); no chance step at all for 0, the real game."""
    board: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    supply = [DICE_PER_COLOR] * len(COLORS)
    events: list[Event] = []
    if count:
        colors = rng.shuffle([c for c in COLORS for _ in range(DICE_PER_COLOR)])[:count]
        squares = rng.shuffle(SQUARES)[:count]
        values = rng.roll(count)
        placed = []
        for (r, c), color, value in zip(squares, colors, values, strict=True):
            board[r][c] = die(color, value)
            supply[COLORS.index(color)] -= 1
            placed.append({"square": {"row": r, "col": c}, "die": board[r][c]})
        events.append(Event("board.prefilled", {"dice": placed}))
    return tuple(tuple(row) for row in board), tuple(supply), events


def setup(ctx: SetupContext) -> tuple[State, list[Event]]:
    """Deal the action and objective hands, lay out the decks, pre-fill squares if the
    table asks for it and roll for the first player."""
    opts, rng, seats = ctx.options, ctx.rng, ctx.seats
    config = _config(opts, ctx.rules)
    actions = [card for card, n in ACTION_COUNTS.items() for _ in range(n)]
    hands, rest = _deal(rng.shuffle(actions), len(seats), config.action_hand_size)
    objectives = [oid for oid in REGULAR_IDS for _ in range(opts["objectiveCounts"][oid])]
    held, deck = _deal(rng.shuffle(objectives), len(seats), config.objective_hand_size)
    events: list[Event] = []
    for seat, hand, objs in zip(seats, hands, held, strict=True):
        data: dict[str, Any] = {"actionCount": len(hand), "objectiveCount": len(objs)}
        if config.open_objectives:
            data["objectives"] = list(sort_objectives(objs))
        private = {"actions": list(sort_actions(hand)), "objectives": list(sort_objectives(objs))}
        events.append(Event("hand.dealt", data, seat=seat, private={seat: private}))
    board, supply, prefilled = _prefill(opts["prefilledSquares"], rng)
    events += prefilled
    first, rolled = _first_player(seats, rng)
    events += rolled
    start = seats.index(first)
    order = [*range(start, len(seats)), *range(start)]
    state = State(
        config=config,
        players=tuple(
            Player(
                seat=seats[i], actions=sort_actions(hands[i]), objectives=sort_objectives(held[i])
            )
            for i in order
        ),
        board=board,
        supply=supply,
        out=(0,) * len(COLORS),
        decks=_cards.split_decks(rest),
        action_discard=(),
        objective_deck=tuple(deck),
        objective_discard=(),
        phase=TURN,
        current=0,
    )
    events.append(
        Event(
            "decks.ready",
            {
                "deckSizes": [len(d) for d in state.decks],
                "faceUp": _cards.face_up(state),
                "objectiveDeckSize": len(deck),
            },
        )
    )
    events.append(Event("first.player", {"order": list(state.seats)}, seat=first))
    events.append(Event("turn.started", {"turn": 1}, seat=first))
    return state, events

"""The state of a Five by Five game: frozen dataclasses of tuples, and their JSON form.

Players are kept in play order (the first player first); ``Player.seat`` is the table seat.
The action decks keep their face-up card at index 0. Dice are strings (``"R3"``); the
supply and the dice out of the game are counts per colour, in ``rules.COLORS`` order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from tablestate_five_by_five.rules import ACTION_CARDS, OBJECTIVE_BY_ID, Line

# Phases of play.
TURN: Final = "TURN"  # the turn's player has not played an action yet
PLACE: Final = "PLACE"  # a colour card's die is rolled and waits for its square
ACTED: Final = "ACTED"  # the action is played: objectives, then take an action card
REFILL: Final = "REFILL"  # after forfeiting actions: take cards until the hand is full
FINAL: Final = "FINAL"  # the board is full: last objective plays, seat by seat
OVER: Final = "OVER"
PHASES: Final = (TURN, PLACE, ACTED, REFILL, FINAL, OVER)

Grid = tuple[tuple[str | None, ...], ...]

_OBJECTIVE_ORDER: Final = {oid: i for i, oid in enumerate(OBJECTIVE_BY_ID)}


@dataclass(frozen=True, slots=True)
class Config:
    """What the table options and the house rules fix at setup.

    Args:
        each_color_min: the threshold of ``five-of-each-color``.
        points: objective id -> points, specials included.
        action_hand_size, objective_hand_size: the hand sizes to refill to.
        lines: the lines that count for line objectives (rows, columns, and any a house
            rule adds).
        open_objectives: whether objective hands are public.
    """

    each_color_min: int
    points: tuple[tuple[str, int], ...]
    action_hand_size: int
    objective_hand_size: int
    lines: tuple[Line, ...]
    open_objectives: bool

    def points_of(self, objective: str) -> int:
        """The points an objective scores at this table."""
        return dict(self.points)[objective]


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's hands and scored objectives (``(objective id, points)``, in order)."""

    seat: int
    actions: tuple[str, ...]
    objectives: tuple[str, ...]
    scored: tuple[tuple[str, int], ...] = ()

    @property
    def score(self) -> int:
        """The points scored so far."""
        return sum(points for _, points in self.scored)

    def has_scored(self, objective: str) -> bool:
        """Whether this seat scored this objective already."""
        return any(oid == objective for oid, _ in self.scored)


@dataclass(frozen=True, slots=True)
class State:
    """A whole game.

    Args:
        config: fixed at setup.
        players: in play order; ``current`` and ``final_queue`` index into it.
        board: 5 rows of 5 squares, None or a die.
        supply, out: dice per colour in the supply and out of the game.
        decks: the two action decks, the face-up card first.
        action_discard: played and forfeited action cards.
        objective_deck, objective_discard: face down; the discard holds forfeited cards.
        phase: one of ``PHASES``.
        current: the position whose turn it is.
        turn: turns started so far (1 for the first turn).
        pending: a rolled colour die waiting for its square (phase PLACE).
        draws_left: action cards still to take (phases ACTED and REFILL).
        scored_this_turn: the turn's player has scored an objective this turn.
        final_queue: positions still to make their last objective plays (phase FINAL).
        winners: the winning seats once the game is over.
        rolloffs: the roll-off rounds of the last tie-break, each ``(seat, dice)`` pairs.
    """

    config: Config
    players: tuple[Player, ...]
    board: Grid
    supply: tuple[int, ...]
    out: tuple[int, ...]
    decks: tuple[tuple[str, ...], tuple[str, ...]]
    action_discard: tuple[str, ...]
    objective_deck: tuple[str, ...]
    objective_discard: tuple[str, ...]
    phase: str
    current: int
    turn: int = 1
    pending: str | None = None
    draws_left: int = 0
    scored_this_turn: bool = False
    final_queue: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    rolloffs: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...] = ()

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats in play order."""
        return tuple(p.seat for p in self.players)

    def position(self, seat: int) -> int:
        """The play-order position of a seat."""
        return self.seats.index(seat)

    def acting(self) -> int | None:
        """The position awaited now, or None once the game is over."""
        if self.phase == OVER:
            return None
        if self.phase == FINAL:
            return self.final_queue[0]
        return self.current

    def with_player(self, position: int, **changes: Any) -> State:
        """A copy with one player changed."""
        players = list(self.players)
        players[position] = replace(players[position], **changes)
        return replace(self, players=tuple(players))

    def claimed_by(self, special: str) -> tuple[int, ...]:
        """The seats that scored a special objective."""
        return tuple(p.seat for p in self.players if p.has_scored(special))


def sort_actions(cards: Sequence[str]) -> tuple[str, ...]:
    """Action cards in the canonical order (colours, then the specials)."""
    return tuple(sorted(cards, key=ACTION_CARDS.index))


def sort_objectives(objectives: Sequence[str]) -> tuple[str, ...]:
    """Objective ids in the canonical order of ``rules.OBJECTIVES``."""
    return tuple(sorted(objectives, key=_OBJECTIVE_ORDER.__getitem__))


# --- JSON ------------------------------------------------------------------------------


def encode(state: State) -> dict[str, Any]:
    """The state as JSON for the store."""
    cfg = state.config
    return {
        "config": {
            "eachColorMin": cfg.each_color_min,
            "points": [[oid, pts] for oid, pts in cfg.points],
            "actionHandSize": cfg.action_hand_size,
            "objectiveHandSize": cfg.objective_hand_size,
            "lines": [[list(sq) for sq in line] for line in cfg.lines],
            "openObjectives": cfg.open_objectives,
        },
        "players": [
            {
                "seat": p.seat,
                "actions": list(p.actions),
                "objectives": list(p.objectives),
                "scored": [[oid, pts] for oid, pts in p.scored],
            }
            for p in state.players
        ],
        "board": [list(row) for row in state.board],
        "supply": list(state.supply),
        "out": list(state.out),
        "decks": [list(d) for d in state.decks],
        "actionDiscard": list(state.action_discard),
        "objectiveDeck": list(state.objective_deck),
        "objectiveDiscard": list(state.objective_discard),
        "phase": state.phase,
        "current": state.current,
        "turn": state.turn,
        "pending": state.pending,
        "drawsLeft": state.draws_left,
        "scoredThisTurn": state.scored_this_turn,
        "finalQueue": list(state.final_queue),
        "winners": list(state.winners),
        "rolloffs": [[[seat, list(dice)] for seat, dice in rnd] for rnd in state.rolloffs],
    }


def decode(data: Mapping[str, Any]) -> State:
    """The state from its JSON form (``encode``)."""
    c = data["config"]
    config = Config(
        each_color_min=c["eachColorMin"],
        points=tuple((oid, pts) for oid, pts in c["points"]),
        action_hand_size=c["actionHandSize"],
        objective_hand_size=c["objectiveHandSize"],
        lines=tuple(tuple((r, col) for r, col in line) for line in c["lines"]),
        open_objectives=c["openObjectives"],
    )
    deck_a, deck_b = data["decks"]
    return State(
        config=config,
        players=tuple(
            Player(
                seat=p["seat"],
                actions=tuple(p["actions"]),
                objectives=tuple(p["objectives"]),
                scored=tuple((oid, pts) for oid, pts in p["scored"]),
            )
            for p in data["players"]
        ),
        board=tuple(tuple(row) for row in data["board"]),
        supply=tuple(data["supply"]),
        out=tuple(data["out"]),
        decks=(tuple(deck_a), tuple(deck_b)),
        action_discard=tuple(data["actionDiscard"]),
        objective_deck=tuple(data["objectiveDeck"]),
        objective_discard=tuple(data["objectiveDiscard"]),
        phase=data["phase"],
        current=data["current"],
        turn=data["turn"],
        pending=data["pending"],
        draws_left=data["drawsLeft"],
        scored_this_turn=data["scoredThisTurn"],
        final_queue=tuple(data["finalQueue"]),
        winners=tuple(data["winners"]),
        rolloffs=tuple(
            tuple((seat, tuple(dice)) for seat, dice in rnd) for rnd in data["rolloffs"]
        ),
    )

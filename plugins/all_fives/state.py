"""The state of an All Fives game: immutable, JSON round-trippable.

Players are kept by *position* (0 = the first seat in play order, then clockwise); the
public functions translate to and from the table's seat indices. Scores belong to
*sides*: each player is a side of its own, except with the partnerships house rule, where
positions 0 and 2 form side 0 and positions 1 and 3 side 1.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

# Phases, in the order a deal goes through them.
STAND_OR_BEG: Final = "STAND_OR_BEG"
GIVE_OR_RUN: Final = "GIVE_OR_RUN"
BUNCH: Final = "BUNCH"
DISCARD: Final = "DISCARD"
PLAY: Final = "PLAY"
GAME_OVER: Final = "GAME_OVER"
PHASES: Final = (STAND_OR_BEG, GIVE_OR_RUN, BUNCH, DISCARD, PLAY, GAME_OVER)


@dataclass(frozen=True, slots=True)
class Award:
    """Points handed to one side, by the game or by a house rule.

    Args:
        side: the side that scores.
        points: how many.
        reason: a word for the event log: ``gift``, ``trick``, ``turnUpJack``, ``high``,
            ``low``, ``jack``, ``game``.
    """

    side: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class State:
    """One All Fives game.

    Args:
        seats: the table's seat indices in play order; ``seats[p]`` is position ``p``.
        sides: the side of each position.
        target: the table option ``targetScore``.
        low_goes_to: the table option ``lowGoesTo`` (``dealt`` or ``won``).
        game_tie: the table option ``gameTie`` (``none``, ``eldest``, ``dealerOpponents``).
        dealer: the dealer's position.
        deal_no: deals started so far (redeals included).
        phase: one of ``PHASES``.
        turn: the position to act.
        hands: each position's cards.
        stock: the undealt cards, top first (hidden).
        turn_up: the turn-up on the stock, or None.
        proposed: the suit of the deal's first turn-up (the proposed trump).
        set_aside: turn-ups set aside by runs (face up, dead).
        discards: cards discarded down to the hand limit (face down, dead).
        trump: the trump suit once fixed.
        begged: whether eldest begged this deal.
        runs: how many times the cards were run this deal.
        hand_limit: the hand size to discard down to in the DISCARD phase, or None.
        bunch_by: the position that proposed a redeal in the BUNCH phase, or None.
        leader: the position that led (or will lead) the trick in progress.
        trick: the trick in progress as ``(position, card)`` pairs, in play order.
        last_trick: the last completed trick, the same way.
        won: the cards in the tricks each position has won this deal.
        tricks: how many tricks each position has won this deal.
        held: each position's hand when the play began (for High and Low).
        voids: the suits each position has shown it holds none of this deal (it played
            another suit where the rules of play would have had it follow): public, read
            off the cards played, and kept so that a bot's draws of the other hands agree
            with them.
        deal_points: each side's points this deal.
        scores: each side's total.
        winners: the winning sides once the game is over.
    """

    seats: tuple[int, ...]
    sides: tuple[int, ...]
    target: int
    low_goes_to: str
    game_tie: str
    dealer: int
    deal_no: int
    phase: str
    turn: int
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    turn_up: str | None
    proposed: str | None
    set_aside: tuple[str, ...]
    discards: tuple[str, ...]
    trump: str | None
    begged: bool
    runs: int
    hand_limit: int | None
    bunch_by: int | None
    leader: int
    trick: tuple[tuple[int, str], ...]
    last_trick: tuple[tuple[int, str], ...]
    won: tuple[tuple[str, ...], ...]
    tricks: tuple[int, ...]
    held: tuple[tuple[str, ...], ...]
    voids: tuple[str, ...]
    deal_points: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]

    @property
    def n(self) -> int:
        """The number of players."""
        return len(self.seats)

    @property
    def n_sides(self) -> int:
        """The number of sides."""
        return max(self.sides) + 1

    @property
    def eldest(self) -> int:
        """The position to the dealer's left."""
        return (self.dealer + 1) % self.n

    def after(self, position: int) -> int:
        """The next position clockwise."""
        return (position + 1) % self.n

    def position(self, seat: int) -> int | None:
        """The position of a seat, or None for a seat not in play."""
        return self.seats.index(seat) if seat in self.seats else None

    def side_seats(self, side: int) -> tuple[int, ...]:
        """The seats of one side, in play order."""
        return tuple(s for s, sd in zip(self.seats, self.sides, strict=True) if sd == side)


def _tuples(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    return value


def _lists(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_lists(v) for v in value]
    return value


def encode(state: State) -> dict[str, Any]:
    """The state as JSON for the store."""
    return {f.name: _lists(getattr(state, f.name)) for f in fields(State)}


def decode(data: Any) -> State:
    """A state from ``encode``'s JSON (lists come back as tuples); a snapshot from before
    ``voids`` was kept reads as no void shown."""
    if "voids" not in data:
        data = {**data, "voids": [""] * len(data["seats"])}
    return State(**{f.name: _tuples(data[f.name]) for f in fields(State)})

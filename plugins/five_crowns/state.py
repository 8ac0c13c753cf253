"""The state of a Five Crowns game: frozen dataclasses of tuples, and their JSON codec.

Players are kept by *position* (0..n-1, in play order); ``State.seats`` maps positions to
the table's seat indices, and the game's functions convert at the edge.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Final, Union

from tablestate_five_crowns._melds import Meld

DRAW: Final = "DRAW"
DISCARD: Final = "DISCARD"
PLACE: Final = "PLACE"
OVER: Final = "GAME_OVER"
STOCK: Final = "STOCK"
NOBODY: Final = -1


@dataclasses.dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld laid on the table, and who laid it (a position)."""

    owner: int
    meld: Meld


@dataclasses.dataclass(frozen=True, slots=True)
class RoundScore:
    """One scored round: each position's points (None: not dealt in, in a playoff)."""

    round: int
    playoff: bool
    points: tuple[int | None, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Pile:
    """A solo pile: dealt ``size`` cards, so ``size``'s rank is its wild rank; ``points``
    is what it would score now (its minimum leftover; 0 once closed)."""

    size: int
    cards: tuple[str, ...]
    closed: bool = False
    points: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Solo:
    """The solo game (DECISIONS 1.2): eleven face-up piles, a turned-up card, dead discards."""

    piles: tuple[Pile, ...]
    current: str | None
    dead: tuple[str, ...] = ()
    turns: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class State:
    """A whole game.

    Args:
        seats: position -> seat index.
        rounds: rounds to play (option ``rounds``); round r deals r+2 cards.
        tie_break: ``shared`` or ``playoffRound`` (option ``tieBreak``).
        round: the round being played (the playoff round is ``rounds + 1``).
        playoff: whether this is the 6-card tie-break round (FC-16).
        cards_dealt: the hand size of this round.
        wild: this round's wild rank.
        dealer: the dealer's position.
        players: the positions dealt in this round, in play order from the dealer's left.
        hands: each position's hand (sorted; after a final turn, what it left over).
        stock: the draw pile, top first.
        discard: the discard pile, top last.
        melds: the melds on the table this round.
        turn: the position to act, or NOBODY once the game is over.
        phase: DRAW, DISCARD, PLACE (solo) or GAME_OVER.
        drawn: the card drawn this turn (private to its drawer when from the stock).
        drawn_from: STOCK or DISCARD this turn.
        went_out: the position that went out this round, or NOBODY.
        finished: positions whose final turn is over.
        round_points: this round's points per position so far (None: not yet scored).
        totals: running totals per position (the playoff round adds nothing).
        history: the scored rounds.
        winners: the winning positions once the game is over.
        solo: the solo game's piles, for one player; None otherwise.
    """

    seats: tuple[int, ...]
    rounds: int
    tie_break: str
    round: int
    playoff: bool
    cards_dealt: int
    wild: str
    dealer: int
    players: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    discard: tuple[str, ...]
    melds: tuple[TableMeld, ...]
    turn: int
    phase: str
    drawn: str | None
    drawn_from: str | None
    went_out: int
    finished: tuple[int, ...]
    round_points: tuple[int | None, ...]
    totals: tuple[int, ...]
    history: tuple[RoundScore, ...] = ()
    winners: tuple[int, ...] = ()
    solo: Solo | None = None

    @property
    def final_turns(self) -> bool:
        """Whether someone went out: the others are taking their last turns."""
        return self.went_out != NOBODY

    def all_cards(self) -> list[str]:
        """Every card of the game, wherever it is (for conservation checks and deals)."""
        out = [c for hand in self.hands for c in hand]
        out += self.stock
        out += self.discard
        out += [c for m in self.melds for c in m.meld.cards]
        if self.solo is not None:
            out += [c for p in self.solo.piles for c in p.cards]
            out += self.solo.dead
            if self.solo.current is not None:
                out.append(self.solo.current)
        return out


def to_json(value: Any) -> Any:
    """A state (or any part of it) as JSON: dataclasses become objects, tuples lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    return value


@functools.cache
def _hints(tp: type) -> dict[str, Any]:
    # resolving a dataclass's annotations is the dearest part of a decode: once per type
    return typing.get_type_hints(tp)


def _from(tp: Any, data: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        if data is None:
            return None
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return _from(inner, data)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from(args[0], v) for v in data)
        return tuple(_from(a, v) for a, v in zip(args, data, strict=True))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        return tp(**{f.name: _from(hints[f.name], data[f.name]) for f in dataclasses.fields(tp)})
    return data


def encode(state: State) -> Any:
    """The state as JSON for the store."""
    return to_json(state)


def decode(data: Any) -> State:
    """The state from the store's JSON (what ``encode`` wrote)."""
    state: State = _from(State, data)
    return state

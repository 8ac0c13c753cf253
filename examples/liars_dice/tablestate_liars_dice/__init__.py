"""Liar's dice (game id ``liars-dice``), a game of hidden dice and bluff. Each player rolls
five dice under a cup and sees only their own. In turn, each bids that at least so many of
all the dice show a face ("four 5s"), higher than the last bid, until one calls the last
bid a lie. Then, as at a real table, every die is shown: if fewer show the face than bid,
the bidder loses a die, else the challenger does; all roll again and the loser opens. A
player without dice is out; the last with dice wins.

Simplified from the common rules: ones are not wild, and no bid names more dice than are
in play. Each player's dice have a colour of their own (``"R3"``: a red 3). Written with
``define_game``: a seat sees its own dice and how many the others hold, a spectator the
counts only; ``determinize`` draws the dice a seat cannot see, for the bots."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from tablestate import (
    BotView,
    Event,
    GameDef,
    Outcome,
    Result,
    Rng,
    SetupContext,
    define_game,
    hookimpl,
)

DICE = 5
COLOURS = "RYBG"  # by place in turn order
Face = Literal[1, 2, 3, 4, 5, 6]


@dataclass(frozen=True)
class Bid:
    """Bid that at least `quantity` of all the dice in play show `face`.

    Args:
        quantity: how many dice, at least.
        face: the face, 1 to 6.
    """

    quantity: int
    face: Face


@dataclass(frozen=True)
class Challenge:
    """Call the last bid a lie: every die is shown."""


@dataclass(frozen=True)
class Player:
    """A player as everyone sees them.

    Args:
        seat: the player's seat.
        dice: how many dice the player has left.
        shown: the player's dice as shown at the last challenge (none before the first).
    """

    seat: int
    dice: int
    shown: tuple[str, ...]


@dataclass(frozen=True)
class View:
    """Liar's dice as one seat sees it: its own dice, and of the others' only how many.

    Args:
        my_dice: your dice, which only you see (null: a spectator's view).
        players: every player, in turn order.
        bid: the bid to beat (null: the round is to be opened).
        bidder_seat: the seat that made it.
    """

    my_dice: tuple[str, ...] | None
    players: tuple[Player, ...]
    bid: Bid | None
    bidder_seat: int | None


def roll(counts: Sequence[int], rng: Rng) -> tuple[tuple[str, ...], ...]:
    """Each place's dice, rolled: ``counts[p]`` dice of place ``p``'s colour."""
    return tuple(tuple(f"{COLOURS[p]}{f}" for f in rng.roll(n)) for p, n in enumerate(counts))


@dataclass(frozen=True)
class State:
    """A game of liar's dice.

    Args:
        seats: the players' seats, in turn order.
        dice: each player's dice, by place in `seats`; each sees its own only.
        shown: each player's dice as shown at the last challenge.
        turn: the place of the player to act.
        bid: the bid to beat (null: none yet this round).
        bidder: the place of the player who made it.
    """

    seats: tuple[int, ...]
    dice: tuple[tuple[str, ...], ...]
    shown: tuple[tuple[str, ...], ...]
    turn: int = 0
    bid: Bid | None = None
    bidder: int = 0

    @classmethod
    def setup(cls, ctx: SetupContext) -> tuple[State, list[Event]]:
        state = cls(ctx.seats, roll([DICE] * len(ctx.seats), ctx.rng), ((),) * len(ctx.seats))
        return state, [state.rolled()]

    def rolled(self) -> Event:
        """A new round: how many dice are in play, and each seat its own dice, privately."""
        mine = {s: {"rolled": list(d)} for s, d in zip(self.seats, self.dice, strict=True) if d}
        return Event("round.started", {"dice": sum(map(len, self.dice))}, private=mine)

    def count(self, face: int) -> int:
        return sum(int(die[1:]) == face for dice in self.dice for die in dice)

    def after(self, place: int) -> int:
        """The next place after ``place`` in turn order that still has dice."""
        n = len(self.seats)
        return next(p % n for p in range(place + 1, place + n + 1) if self.dice[p % n])

    def to_act(self) -> list[int]:
        return [] if self.result() else [self.seats[self.turn]]

    def legal(self, seat: int) -> list[Bid | Challenge]:
        last = (self.bid.quantity, self.bid.face) if self.bid else (0, 0)
        total = sum(map(len, self.dice))
        faces: tuple[Face, ...] = (1, 2, 3, 4, 5, 6)
        bids = [Bid(q, f) for q in range(1, total + 1) for f in faces if (q, f) > last]
        return [*bids, Challenge()] if self.bid else [*bids]

    def apply(self, seat: int, move: Bid | Challenge, rng: Rng) -> Outcome[State]:
        if isinstance(move, Bid):
            made = Event("bid.made", {"quantity": move.quantity, "face": move.face}, seat=seat)
            return Outcome(replace(self, bid=move, bidder=self.turn, turn=self.after(self.turn)),
                           (made,))  # fmt: skip
        bid = self.bid
        assert bid is not None  # a challenge is legal only against a bid
        found = self.count(bid.face)
        loser = self.turn if found >= bid.quantity else self.bidder
        shown = [{"seat": s, "dice": list(d)} for s, d in zip(self.seats, self.dice, strict=True)]
        said = {"quantity": bid.quantity, "face": bid.face, "count": found}
        called = Event("bid.challenged", {**said, "loserSeat": self.seats[loser], "shown": shown},
                       seat=seat)  # fmt: skip
        counts = [len(d) - (p == loser) for p, d in enumerate(self.dice)]
        if sum(n > 0 for n in counts) == 1:  # the game is over: nobody rolls again
            dice = tuple(d[:n] for d, n in zip(self.dice, counts, strict=True))
            return Outcome(State(self.seats, dice, self.dice), (called,))
        after = State(self.seats, roll(counts, rng), self.dice, turn=loser)
        after = after if counts[loser] else replace(after, turn=after.after(loser))
        return Outcome(after, (called, after.rolled()))

    def result(self) -> Result | None:
        left = [s for s, d in zip(self.seats, self.dice, strict=True) if d]
        scores = {s: len(d) for s, d in zip(self.seats, self.dice, strict=True)}
        return Result((left[0],), scores) if len(left) == 1 else None


def view(state: State, seat: int | None) -> View:
    mine = state.dice[state.seats.index(seat)] if seat in state.seats else None
    players = zip(state.seats, state.dice, state.shown, strict=True)
    bidder = state.seats[state.bidder] if state.bid else None
    return View(mine, tuple(Player(s, len(d), shown) for s, d, shown in players), state.bid, bidder)


def determinize(state: State, seat: int, rng: Rng) -> State:
    """The state as ``seat`` may believe it: its own dice kept, everyone else's rolled anew
    (their number is all it knows of them)."""
    drawn, me = roll([len(d) for d in state.dice], rng), state.seats.index(seat)
    return replace(state, dice=tuple(d if p == me else drawn[p] for p, d in enumerate(state.dice)))


def bot(view: BotView[State], rng: Rng) -> Bid | Challenge:
    """The normal level: it takes the dice it cannot see to be as ``determinize`` drew them,
    calls a bid that makes a lie, and else makes the highest bid that is true."""
    s = view.state
    if s.bid and s.count(s.bid.face) < s.bid.quantity:
        return Challenge()
    true = [m for m in s.legal(view.seat) if isinstance(m, Bid) and s.count(m.face) >= m.quantity]
    return true[-1] if true else Challenge()


GAME = define_game(
    id="liars-dice",
    name="Liar's dice",
    summary="Bid on the dice under everyone's cups; call a bluff, or lose a die.",
    players=(2, 4),
    state=State,
    view=view,
    hidden=True,
    determinize=determinize,
    bot=bot,
    standing=lambda s, seat, rules: len(s.dice[s.seats.index(seat)]) / sum(map(len, s.dice)),
    events=("round.started", "bid.made", "bid.challenged"),
    event_texts={
        "round.started": "New round: {dice} dice in play; you rolled {rolled}",
        "bid.made": "{player} bid {quantity} dice showing {face}",
        "bid.challenged": "{player} called liar on {quantity} dice showing {face}: {count} found, "
        "so {loserSeat} lost a die",
    },
)


@hookimpl
def tablestate_games() -> list[GameDef[State]]:
    return [GAME]

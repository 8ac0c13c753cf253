"""The steps a Five by Five move forces: the end of a turn, the last objective plays and
the winner (DECISIONS.md 3.3 steps 3, 6, 7). They run inside the ``apply`` of the move
that triggers them."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from tablestate.engine import Event, Rng
from tablestate_five_by_five import _cards
from tablestate_five_by_five._table import Table
from tablestate_five_by_five.rules import is_full
from tablestate_five_by_five.state import FINAL, OVER, TURN, Player, State

# Real dice settle a roll-off at once; this only stops a scripted generator that ties forever.
MAX_ROLLOFF_ROUNDS: Final = 100


def end_turn(t: Table, rng: Rng) -> tuple[State, list[Event]]:
    """Refill the turn player's objectives, then start the next turn or the last plays."""
    state, events = _cards.refill_objectives(t.state, t.state.current, rng)
    position = state.current
    events.append(Event("turn.ended", {}, seat=state.players[position].seat))
    following = (position + 1) % len(state.players)
    if is_full(state.board):
        # Reached only when a house rule plays the round out after the board filled.
        if following == 0 or not any(t.rules.hook.five_by_five_finish_round()):
            state, more = start_final(Table(state, t.rules), following, rng)
            return state, events + more
    state = replace(
        state,
        phase=TURN,
        current=following,
        turn=state.turn + 1,
        draws_left=0,
        scored_this_turn=False,
    )
    seat = state.players[following].seat
    events.append(Event("turn.started", {"turn": state.turn}, seat=seat))
    return state, events


def start_final(t: Table, first: int, rng: Rng) -> tuple[State, list[Event]]:
    """The board is full: every player, in play order from ``first``, makes the last
    objective plays; players with nothing to play are passed over at once."""
    n = len(t.state.players)
    queue = tuple((first + i) % n for i in range(n))
    state = replace(t.state, phase=FINAL, final_queue=queue, draws_left=0, pending=None)
    seats = [state.players[p].seat for p in queue]
    events = [Event("final.started", {"order": seats})]
    state, more = advance_final(Table(state, t.rules), rng)
    return state, events + more


def advance_final(t: Table, rng: Rng) -> tuple[State, list[Event]]:
    """Pass over every queued player with nothing left to play; end the game when no one
    is left."""
    state = t.state
    events: list[Event] = []
    while state.final_queue:
        head = state.final_queue[0]
        if Table(state, t.rules).final_plays(head):
            return state, events
        events.append(Event("player.finished", {}, seat=state.players[head].seat))
        state = replace(state, final_queue=state.final_queue[1:])
    state, more = finish(state, rng)
    return state, events + more


def ranking_key(player: Player) -> tuple[int, int, list[int]]:
    """Total, then the number of objectives scored, then the scored values from the
    highest down (compared in order)."""
    values = sorted((points for _, points in player.scored), reverse=True)
    return (player.score, len(player.scored), values)


def finish(state: State, rng: Rng) -> tuple[State, list[Event]]:
    """Decide the winner: ranking key, then roll-offs of 5 dice among the tied."""
    events: list[Event] = []
    best = max(ranking_key(p) for p in state.players)
    tied = [p.seat for p in state.players if ranking_key(p) == best]
    rounds: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
    while len(tied) > 1 and len(rounds) < MAX_ROLLOFF_ROUNDS:
        rolls = tuple((seat, rng.roll(5)) for seat in tied)
        rounds.append(rolls)
        events.append(
            Event(
                "rolloff.rolled",
                {
                    "round": len(rounds),
                    "rolls": [
                        {"seat": seat, "dice": list(dice), "total": sum(dice)}
                        for seat, dice in rolls
                    ],
                },
            )
        )
        top = max(sum(dice) for _, dice in rolls)
        tied = [seat for seat, dice in rolls if sum(dice) == top]
    state = replace(
        state, phase=OVER, final_queue=(), winners=tuple(sorted(tied)), rolloffs=tuple(rounds)
    )
    scores = [{"seat": p.seat, "score": p.score} for p in state.players]
    events.append(Event("game.scored", {"winners": list(state.winners), "scores": scores}))
    return state, events

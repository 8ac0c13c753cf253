"""Bench Counter: the game of bench/peers/WORKLOAD.md, as pure functions.

Two seats alternate; a move ``{"play": {"n": n}}`` with 0 <= n <= 9 appends n to the
list and passes the turn. The game never ends and the list is never truncated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from tablestate.engine import Event, Move, Outcome, Rejected, Result, Rng, RuleSet, SetupContext
from tablestate.engine.bots import BotView

PLAYED: Final = "number.played"


@dataclass(frozen=True, slots=True)
class State:
    seats: tuple[int, ...]  # play order
    list: tuple[int, ...]


def setup(ctx: SetupContext) -> tuple[State, list[Event]]:
    return State(tuple(ctx.seats), ()), []


def to_act(state: State) -> list[int]:
    return [state.seats[len(state.list) % len(state.seats)]]


def legal_moves(state: State, seat: int, rules: RuleSet) -> list[Move]:
    if seat not in to_act(state):
        return []
    return [{"play": {"n": n}} for n in range(10)]


def check_move(move: Move) -> str | None:
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a move has exactly one kind"
    kind, arg = next(iter(move.items()))
    if kind != "play":
        return f"unknown move {kind!r}"
    n = arg.get("n") if isinstance(arg, Mapping) else None
    if not isinstance(n, int) or isinstance(n, bool):
        return "play takes an integer n"
    return None


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    n = move["play"]["n"]
    if not 0 <= n <= 9:
        return Rejected("ILLEGAL_MOVE", "n must be 0 to 9")
    new = State(state.seats, (*state.list, n))
    return Outcome(new, (Event(PLAYED, {"n": n, "turn": len(new.list)}, seat=seat),))


def view(state: State, seat: int | None) -> dict[str, Any]:
    return {"list": list(state.list)}


def result(state: State) -> Result | None:
    return None


def bot(view: BotView[State], rng: Rng) -> Move:
    return {"play": {"n": len(view.state.list) % 10}}


def encode(state: State) -> dict[str, Any]:
    return {"seats": list(state.seats), "list": list(state.list)}


def decode(data: Mapping[str, Any]) -> State:
    return State(tuple(data["seats"]), tuple(data["list"]))

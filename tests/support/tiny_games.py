"""Two tiny games for the start-up check and the harness, and broken copies of them.

Count Up: two seats add 1 or 2 to a count in turn; who reaches 5 wins. Nothing hidden.
Hidden Dice: each seat holds two dice only it sees; in turn a seat re-rolls them or
stands, four moves in all; the highest sum wins. Its broken copies leak another seat's
dice as numbers: in the view, or in an event's public data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

from support import tiny_schema as schema
from tablestate import (
    Event,
    GameDef,
    Move,
    Outcome,
    Rejected,
    Result,
    Rng,
    RuleSet,
    SetupContext,
    hookimpl,
)


# -- Count Up ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Count:
    seats: tuple[int, ...]
    total: int = 0
    turn: int = 0


def _count_setup(ctx: SetupContext) -> tuple[Count, list[Event]]:
    return Count(ctx.seats), [Event("game.started")]


def _count_to_act(state: Count) -> tuple[int, ...]:
    return () if state.total >= 5 else (state.seats[state.turn],)


def _count_legal(state: Count, seat: int, rules: RuleSet) -> list[Move]:
    if seat not in _count_to_act(state):
        return []
    return [{"add": {"amount": 1}}, {"add": {"amount": 2}}]


def _count_apply(state: Count, seat: int, move: Move, rng: Rng, rules: RuleSet) -> Any:
    amount = move.get("add", {}).get("amount")
    if amount not in (1, 2):
        return Rejected("ILLEGAL_MOVE", "add 1 or 2")
    new = replace(state, total=state.total + amount, turn=1 - state.turn)
    return Outcome(new, (Event("count.added", {"amount": amount}, seat=seat),))


def _count_view(state: Count, seat: int | None) -> dict[str, Any]:
    over = state.total >= 5
    return {"total": state.total, "turn": None if over else state.seats[state.turn]}


def _count_result(state: Count) -> Result | None:
    if state.total < 5:
        return None
    winner = state.seats[1 - state.turn]
    return Result((winner,), {s: int(s == winner) for s in state.seats})


COUNT_UP: GameDef[Count] = GameDef(
    id="count-up",
    name="Count Up",
    summary="Add 1 or 2 in turn; who reaches 5 wins.",
    min_players=2,
    max_players=2,
    setup=_count_setup,
    to_act=_count_to_act,
    legal_moves=_count_legal,
    apply=_count_apply,
    view=_count_view,
    result=_count_result,
    bot=lambda view, rng: view.legal[0],
    encode=lambda s: {"seats": list(s.seats), "total": s.total, "turn": s.turn},
    decode=lambda d: Count(tuple(d["seats"]), d["total"], d["turn"]),
    event_types=("game.started", "count.added"),
    state_type=schema.CountUpState,
    move_input_type=schema.CountUpMoveInput,
)


def _legal_with_skip(state: Count, seat: int, rules: RuleSet) -> list[Move]:
    moves = _count_legal(state, seat, rules)
    return [*moves, {"skip": True}] if moves else []


BROKEN_COUNT_UP: Mapping[str, GameDef[Count]] = {
    "view-key-not-in-state-type": replace(
        COUNT_UP, view=lambda s, seat: {**_count_view(s, seat), "secret": 1}
    ),
    "view-value-of-another-type": replace(
        COUNT_UP, view=lambda s, seat: {**_count_view(s, seat), "total": str(s.total)}
    ),
    "legal-move-the-input-lacks": replace(COUNT_UP, legal_moves=_legal_with_skip),
    "no-state-type": replace(COUNT_UP, state_type=None),
    "no-move-input-type": replace(COUNT_UP, move_input_type=None),
    "move-input-not-one-of": replace(COUNT_UP, move_input_type=schema.CountUpPlainInput),
    "undeclared-event": replace(COUNT_UP, event_types=("game.started",)),
}


def plugin_of(game: GameDef[Any]) -> SimpleNamespace:
    """A plugin object that gives ``game``."""

    @hookimpl
    def tablestate_games() -> list[GameDef[Any]]:
        return [game]

    return SimpleNamespace(tablestate_games=tablestate_games)


# -- Hidden Dice ---------------------------------------------------------------------------
MOVES = 4


@dataclass(frozen=True)
class Dice:
    seats: tuple[int, ...]
    dice: tuple[tuple[int, ...], ...]
    moves: int = 0


def _dice_setup(ctx: SetupContext) -> tuple[Dice, list[Event]]:
    dice = tuple(ctx.rng.roll(2) for _ in ctx.seats)
    private = {s: {"dice": list(d)} for s, d in zip(ctx.seats, dice, strict=True)}
    return Dice(ctx.seats, dice), [Event("dice.rolled", {"count": 2}, private=private)]


def _dice_to_act(state: Dice) -> tuple[int, ...]:
    return () if state.moves >= MOVES else (state.seats[state.moves % len(state.seats)],)


def _dice_legal(state: Dice, seat: int, rules: RuleSet) -> list[Move]:
    return [{"reroll": True}, {"stand": True}] if seat in _dice_to_act(state) else []


def _rolled(seat: int, dice: Sequence[int]) -> Event:
    return Event("dice.rolled", {"count": len(dice)}, seat, {seat: {"dice": list(dice)}})


def _dice_apply(
    state: Dice, seat: int, move: Move, rng: Rng, rules: RuleSet, leak: bool = False
) -> Outcome[Dice]:
    pos, events = state.seats.index(seat), []
    dice = list(state.dice)
    if "reroll" in move:
        dice[pos] = rng.roll(2)
        event = _rolled(seat, dice[pos])
        if leak:  # the dice a seat rolled, told everyone
            event = replace(event, data={**event.data, "dice": list(dice[pos])})
        events.append(event)
    else:
        events.append(Event("turn.stood", seat=seat))
    return Outcome(replace(state, dice=tuple(dice), moves=state.moves + 1), tuple(events))


def _dice_view(state: Dice, seat: int | None, leak: bool = False) -> dict[str, Any]:
    over = state.moves >= MOVES
    return {
        "players": [
            {"seat": s, "diceCount": len(d), "dice": list(d) if over or leak else None}
            for s, d in zip(state.seats, state.dice, strict=True)
        ],
        "myDice": list(state.dice[state.seats.index(seat)]) if seat in state.seats else None,
        "movesLeft": MOVES - state.moves,
    }


def _dice_determinize(state: Dice, seat: int, rng: Rng) -> Dice:
    """The other seats' dice rolled again: all a seat cannot see (nothing, once over)."""
    if state.moves >= MOVES:
        return state
    dice = tuple(
        d if s == seat else rng.roll(len(d)) for s, d in zip(state.seats, state.dice, strict=True)
    )
    return replace(state, dice=dice)


def _dice_result(state: Dice) -> Result | None:
    if state.moves < MOVES:
        return None
    sums = {s: sum(d) for s, d in zip(state.seats, state.dice, strict=True)}
    best = max(sums.values())
    return Result(tuple(s for s, v in sums.items() if v == best), sums)


HIDDEN_DICE: GameDef[Dice] = GameDef(
    id="hidden-dice",
    name="Hidden Dice",
    summary="Re-roll your hidden dice or stand; the highest sum wins.",
    min_players=2,
    max_players=3,
    setup=_dice_setup,
    to_act=_dice_to_act,
    legal_moves=_dice_legal,
    apply=_dice_apply,
    view=_dice_view,
    result=_dice_result,
    bot=lambda view, rng: view.legal[-1],
    encode=lambda s: {"seats": list(s.seats), "dice": [list(d) for d in s.dice], "moves": s.moves},
    decode=lambda d: Dice(tuple(d["seats"]), tuple(map(tuple, d["dice"])), d["moves"]),
    event_types=("dice.rolled", "turn.stood"),
    state_type=schema.HiddenDiceState,
    move_input_type=schema.HiddenDiceMoveInput,
    determinize=_dice_determinize,
    conserved=lambda s: {"dice": sum(len(d) for d in s.dice)},
)

DICE_IN_THE_VIEW = replace(HIDDEN_DICE, view=lambda s, seat: _dice_view(s, seat, leak=True))
DICE_IN_AN_EVENT = replace(
    HIDDEN_DICE, apply=lambda s, seat, m, rng, rules: _dice_apply(s, seat, m, rng, rules, True)
)

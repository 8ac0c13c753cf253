"""Lucky Draw, a tiny hidden-hand card game used to prove the service core.

Pure: state in, state and events out; chance only from the ``Rng`` handed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from service.engine import Event, Move, Outcome, Rejected, Result, Rng, RuleSet, SetupContext

DECK: tuple[str, ...] = tuple(f"{r}{s}" for s in "AB" for r in range(1, 11))
MAX_HAND = 5
MAX_PASSES = 3
PASS_RULE = "lucky-draw/allow-pass"


@dataclass(frozen=True, slots=True)
class State:
    seats: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    played: tuple[str, ...]
    scores: tuple[int, ...]
    turn: int  # position in seats
    passes: int = 0
    over: bool = False


def rank(card: str) -> int:
    return int(card[:-1])


def setup(ctx: SetupContext) -> tuple[State, list[Event]]:
    deck = ctx.rng.shuffle(DECK)
    n = len(ctx.seats)
    size = int(ctx.options["handSize"])
    hands = tuple(tuple(deck[i * size : (i + 1) * size]) for i in range(n))
    state = State(ctx.seats, hands, deck[n * size :], (), (0,) * n, 0)
    dealt = Event(
        "cards.dealt",
        {"handSize": size, "stock": len(state.stock)},
        private={seat: {"hand": list(hands[i])} for i, seat in enumerate(ctx.seats)},
    )
    return state, [dealt]


def _can_act(state: State, pos: int) -> bool:
    return bool(state.hands[pos]) or bool(state.stock)


def to_act(state: State) -> list[int]:
    return [] if state.over else [state.seats[state.turn]]


def legal_moves(state: State, seat: int, rules: RuleSet) -> list[Move]:
    if state.over or state.seats[state.turn] != seat:
        return []
    pos = state.turn
    moves: list[Move] = [{"play": {"card": c}} for c in sorted(set(state.hands[pos]))]
    if state.stock and len(state.hands[pos]) < MAX_HAND:
        moves.append({"draw": True})
    if rules.is_on(PASS_RULE) and state.passes < MAX_PASSES:
        moves.append({"pass": True})
    return moves


def check_move(move: Move) -> str | None:
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a move has exactly one kind"
    kind, arg = next(iter(move.items()))
    if kind == "play":
        card = arg.get("card") if isinstance(arg, Mapping) else None
        if card not in DECK:
            return "no such card"
        return None
    if kind in ("draw", "pass"):
        return None if arg is True else f"{kind} takes true"
    return f"unknown move {kind!r}"


def _next(state: State) -> State:
    n = len(state.seats)
    for step in range(1, n + 1):
        pos = (state.turn + step) % n
        if _can_act(state, pos):
            return replace(state, turn=pos)
    return replace(state, over=True)


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    pos = state.turn
    kind, arg = next(iter(move.items()))
    events: list[Event] = []
    if kind == "play":
        card = arg["card"]
        hand = list(state.hands[pos])
        if card not in hand:
            return Rejected("ILLEGAL_MOVE", "that card is not in your hand")
        hand.remove(card)
        got = rules.hook.lucky_draw_points(card=card, rank=rank(card))
        points = rank(card) if got is None else int(got)
        hands = (*state.hands[:pos], tuple(hand), *state.hands[pos + 1 :])
        scores = (*state.scores[:pos], state.scores[pos] + points, *state.scores[pos + 1 :])
        state = replace(state, hands=hands, scores=scores, played=(*state.played, card), passes=0)
        events.append(Event("card.played", {"card": card, "points": points}, seat=seat))
    elif kind == "draw":
        if not state.stock or len(state.hands[pos]) >= MAX_HAND:
            return Rejected("ILLEGAL_MOVE", "you cannot draw now")
        card, stock = state.stock[0], state.stock[1:]
        hands = (*state.hands[:pos], (*state.hands[pos], card), *state.hands[pos + 1 :])
        state = replace(state, hands=hands, stock=stock, passes=0)
        events.append(
            Event("card.drawn", {"stock": len(stock)}, seat=seat, private={seat: {"card": card}})
        )
    else:
        if not rules.is_on(PASS_RULE):
            return Rejected("ILLEGAL_MOVE", "passing is a house rule that is off here")
        if state.passes >= MAX_PASSES:
            return Rejected("ILLEGAL_MOVE", "too many passes in a row")
        state = replace(state, passes=state.passes + 1)
        events.append(Event("turn.passed", {}, seat=seat))
    state = _next(state)
    if state.over:
        events.append(Event("game.over", {"scores": list(state.scores)}))
    return Outcome(state, tuple(events))


def undoable(before: State, seat: int, move: Move, outcome: Outcome[State]) -> bool:
    """A card played may be taken back (undoMove); a card drawn shows the mover a hidden
    card, and a pass needs no taking back."""
    return "play" in move


def view(state: State, seat: int | None) -> dict[str, Any]:
    pos = state.seats.index(seat) if seat in state.seats else None
    return {
        "players": [
            {"seat": s, "handSize": len(state.hands[i]), "score": state.scores[i]}
            for i, s in enumerate(state.seats)
        ],
        "stockSize": len(state.stock),
        "played": list(state.played),
        "turn": None if state.over else state.seats[state.turn],
        "myHand": list(state.hands[pos]) if pos is not None else None,
    }


def result(state: State) -> Result | None:
    if not state.over:
        return None
    best = max(state.scores)
    return Result(
        tuple(s for i, s in enumerate(state.seats) if state.scores[i] == best),
        {s: state.scores[i] for i, s in enumerate(state.seats)},
    )


def bot(state: State, seat: int, rng: Rng, rules: RuleSet) -> Move:
    pos = state.turn
    if state.hands[pos]:
        return {"play": {"card": max(state.hands[pos], key=rank)}}
    return {"draw": True}


def encode(state: State) -> dict[str, Any]:
    return {
        "seats": list(state.seats),
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "played": list(state.played),
        "scores": list(state.scores),
        "turn": state.turn,
        "passes": state.passes,
        "over": state.over,
    }


def decode(data: Mapping[str, Any]) -> State:
    return State(
        tuple(data["seats"]),
        tuple(tuple(h) for h in data["hands"]),
        tuple(data["stock"]),
        tuple(data["played"]),
        tuple(data["scores"]),
        data["turn"],
        data["passes"],
        data["over"],
    )


def hidden(state: State, seat: int | None) -> Sequence[str]:
    """The cards ``seat`` must not see: other hands and the stock (for secrecy tests)."""
    out = list(state.stock)
    for i, s in enumerate(state.seats):
        if s != seat:
            out.extend(state.hands[i])
    return out

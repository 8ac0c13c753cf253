"""All Fives' moves: their shape, which are legal, and what each does.

A move is JSON with exactly one key, as ``AllFivesMoveInput`` names it:
``{"stand": true}``, ``{"beg": true}``, ``{"giveOne": true}``, ``{"run": true}``,
``{"play": {"card": "AS"}}`` and, with house rules, ``{"discard": {"card": "7H"}}``,
``{"bunch": true}``, ``{"declineBunch": true}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from plugins.all_fives import _flow as flow
from plugins.all_fives import rules as r
from plugins.all_fives.state import (
    BUNCH,
    DISCARD,
    GIVE_OR_RUN,
    PLAY,
    STAND_OR_BEG,
    Award,
    State,
)
from service.engine import ILLEGAL_MOVE, Move, Outcome, Rejected, Rng, RuleSet

FLAG_MOVES: Final = ("stand", "beg", "giveOne", "run", "bunch", "declineBunch")
CARD_MOVES: Final = ("play", "discard")
MOVE_KINDS: Final = FLAG_MOVES + CARD_MOVES


def check_move(move: Move) -> str | None:
    """The shape check: ``None`` for a well-formed move, else why it is malformed."""
    if not isinstance(move, Mapping) or len(move) != 1:
        return "a move has exactly one key, the kind of move"
    ((kind, arg),) = move.items()
    if kind not in MOVE_KINDS:
        return f"unknown kind of move {kind!r}; one of {', '.join(MOVE_KINDS)}"
    if kind in FLAG_MOVES:
        return None if arg is True else f"{kind} takes the value true"
    if not isinstance(arg, Mapping) or set(arg) != {"card"}:
        return f"{kind} takes exactly one field, card"
    if not r.is_card(arg["card"]):
        return f"{arg['card']!r} is not a card (rank then suit, e.g. AS, 10D)"
    return None


def may_trump(state: State, position: int, rules: RuleSet) -> bool:
    """Whether this player may trump instead of following (a house rule)."""
    return any(rules.hook.all_fives_may_trump(state=state, position=position))


def playable(state: State, position: int, rules: RuleSet) -> set[str]:
    """The cards this player may play to the trick in progress."""
    led = state.trick[0][1] if state.trick else None
    assert state.trump is not None
    return r.legal_plays(
        state.hands[position], led, state.trump, may_trump=may_trump(state, position, rules)
    )


def gift_sides(state: State, rules: RuleSet) -> tuple[int, ...]:
    """The sides that score 1 if the dealer gives one."""
    found = flow.first(rules.hook.all_fives_gift_sides(state=state))
    return tuple(found) if found is not None else (state.sides[state.eldest],)


def may_give(state: State, rules: RuleSet) -> bool:
    """Whether the dealer may give one now."""
    sides = gift_sides(state, rules)
    return False not in rules.hook.all_fives_may_give(state=state, sides=sides)


def legal_moves(state: State, seat: int, rules: RuleSet) -> list[Move]:
    """Every legal move of ``seat`` now (none when it is not that seat's turn)."""
    pos = state.position(seat)
    if pos is None or pos != state.turn or state.phase not in _HANDLERS_BY_PHASE:
        return []
    if state.phase == STAND_OR_BEG:
        return [{"stand": True}, {"beg": True}]
    if state.phase == GIVE_OR_RUN:
        gift: list[Move] = [{"giveOne": True}] if may_give(state, rules) else []
        return [*gift, {"run": True}]
    if state.phase == BUNCH:
        return [{"bunch": True}, {"declineBunch": True}]
    if state.phase == DISCARD:
        return [{"discard": {"card": c}} for c in state.hands[pos]]
    cards = playable(state, pos, rules)
    return [{"play": {"card": c}} for c in r.sort_cards(cards)]


# -- the moves -------------------------------------------------------------------------


def _without(
    hands: tuple[tuple[str, ...], ...], pos: int, card: str
) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(c for c in h if c != card) if p == pos else h for p, h in enumerate(hands))


def _stand(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    step.emit("eldest.stood", {"suit": step.state.proposed}, pos)
    assert step.state.turn_up is not None
    flow.fix_trump(step, step.state.turn_up, "stand")
    return None


def _beg(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    st = step.set(begged=True, phase=GIVE_OR_RUN, turn=step.state.dealer)
    step.emit("eldest.begged", {"suit": st.proposed}, pos)
    return None


def _give_one(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    st = step.state
    if not may_give(st, step.rules):
        return Rejected(ILLEGAL_MOVE, "the dealer may not give a point that wins; run the cards")
    sides = gift_sides(st, step.rules)
    step.emit("dealer.gave", {"seats": [s for sd in sides for s in st.side_seats(sd)]}, pos)
    for side in sides:
        flow.award(step, Award(side, 1, "gift"))
        if step.over:
            return None
    assert st.turn_up is not None
    flow.fix_trump(step, st.turn_up, "gift")
    return None


def _run(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    step.emit("dealer.ran", {}, pos)
    flow.run_cards(step)
    return None


def _bunch(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    st = step.state
    if st.bunch_by is None:
        step.set(bunch_by=pos, turn=st.after(pos))
        step.emit("bunch.proposed", {}, pos)
        return None
    step.emit("bunch.agreed", {}, pos)
    flow.void_for_bunch(step)
    return None


def _decline_bunch(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    st = step.state
    step.emit("bunch.declined", {"proposed": st.bunch_by is not None}, pos)
    if st.bunch_by is None and pos == st.eldest:
        step.set(turn=st.after(pos))
        return None
    step.set(bunch_by=None)
    flow.after_bunch(step, "run")
    return None


def _discard(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    st = step.state
    card = arg["card"]
    if card not in st.hands[pos]:
        return Rejected(ILLEGAL_MOVE, f"you do not hold {card}")
    hands = _without(st.hands, pos, card)
    hand = hands[pos]
    st = step.set(hands=hands, discards=(*st.discards, card))
    step.emit("card.discarded", {"handSize": len(hand)}, pos, {st.seats[pos]: {"card": card}})
    assert st.hand_limit is not None
    if len(hand) > st.hand_limit:
        return None
    nxt = st.after(pos)
    if nxt != st.eldest:
        step.set(turn=nxt)
        return None
    flow.start_play(step)
    return None


def _play(step: flow.Step, pos: int, arg: Any) -> Rejected | None:
    st = step.state
    card = arg["card"]
    if card not in st.hands[pos]:
        return Rejected(ILLEGAL_MOVE, f"you do not hold {card}")
    if card not in playable(st, pos, step.rules):
        led = r.suit(st.trick[0][1])
        return Rejected(ILLEGAL_MOVE, f"you must follow suit ({led}) while you can")
    hands = _without(st.hands, pos, card)
    st = step.set(hands=hands, trick=(*st.trick, (pos, card)))
    step.emit("card.played", {"card": card, "trickIndex": len(st.trick) - 1}, pos)
    if len(st.trick) < st.n:
        step.set(turn=st.after(pos))
        return None
    _complete_trick(step)
    return None


def _complete_trick(step: flow.Step) -> None:
    st = step.state
    assert st.trump is not None
    cards = [c for _, c in st.trick]
    winner = st.trick[r.trick_winner(cards, st.trump)][0]
    points = r.trick_points(cards, st.trump)
    won = list(st.won)
    won[winner] = won[winner] + tuple(cards)
    tricks = list(st.tricks)
    tricks[winner] += 1
    st = step.set(
        won=tuple(won),
        tricks=tuple(tricks),
        last_trick=st.trick,
        trick=(),
        leader=winner,
        turn=winner,
    )
    step.emit("trick.won", {"cards": cards, "points": points}, winner)
    flow.award(step, Award(st.sides[winner], points, "trick"))
    if step.over:
        return
    if not st.hands[winner]:
        flow.end_deal(step)


_Handler = Callable[[flow.Step, int, Any], Rejected | None]

_HANDLERS: Final[Mapping[str, tuple[str, _Handler, str]]] = {
    "stand": (STAND_OR_BEG, _stand, "only eldest, before trump is fixed, may stand"),
    "beg": (STAND_OR_BEG, _beg, "only eldest, before trump is fixed, may beg"),
    "giveOne": (GIVE_OR_RUN, _give_one, "the dealer gives one only after eldest begs"),
    "run": (GIVE_OR_RUN, _run, "the dealer runs the cards only after eldest begs"),
    "bunch": (BUNCH, _bunch, "no redeal by agreement is open now"),
    "declineBunch": (BUNCH, _decline_bunch, "no redeal by agreement is open now"),
    "discard": (DISCARD, _discard, "there is nothing to discard now"),
    "play": (PLAY, _play, "cards are played only once trump is fixed"),
}
_HANDLERS_BY_PHASE: Final = frozenset(phase for phase, _, _ in _HANDLERS.values())


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    """Apply a well-formed move of the seat to act, with every step it forces."""
    pos = state.position(seat)
    if pos is None or pos != state.turn or state.phase not in _HANDLERS_BY_PHASE:
        return Rejected(ILLEGAL_MOVE, "it is not your turn")
    ((kind, arg),) = move.items()
    phase, handler, wrong_phase = _HANDLERS[kind]
    if phase != state.phase:
        return Rejected(ILLEGAL_MOVE, wrong_phase)
    step = flow.Step(state, rng, rules)
    refused = handler(step, pos, arg)
    if refused is not None:
        return refused
    return Outcome(step.state, tuple(step.events))

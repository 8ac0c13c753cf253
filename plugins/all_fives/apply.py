"""What an All Fives move does: ``apply`` plays a well-formed move of the seat to act,
with every step it forces (``flow.py``), or says why the rules refuse it (ILLEGAL_MOVE).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from tablestate.engine import ILLEGAL_MOVE, Move, Outcome, Rejected, Rng, RuleSet
from tablestate_all_fives import flow
from tablestate_all_fives import rules as r
from tablestate_all_fives.legal import (
    MOVE_PHASES,
    PHASE_OF,
    gift_sides,
    may_give,
    may_trump,
    playable,
)
from tablestate_all_fives.state import GIVE_OR_RUN, Award, State


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
    voids = _voids(st, pos, card, step.rules)
    st = step.set(hands=hands, trick=(*st.trick, (pos, card)), voids=voids)
    step.emit("card.played", {"card": card, "trickIndex": len(st.trick) - 1}, pos)
    if len(st.trick) < st.n:
        step.set(turn=st.after(pos))
        return None
    _complete_trick(step)
    return None


def _voids(st: State, pos: int, card: str, rules: RuleSet) -> tuple[str, ...]:
    """``st.voids`` with the suit led added for ``pos`` if playing ``card`` shows it holds
    none: the card could not be played from a hand that held one."""
    if not st.trick:
        return st.voids
    led = st.trick[0][1]
    led_suit = r.suit(led)
    assert st.trump is not None
    if led_suit in st.voids[pos] or card in r.legal_plays(
        (card, led), led, st.trump, may_trump=may_trump(st, pos, rules)
    ):
        return st.voids
    voids = list(st.voids)
    voids[pos] = "".join(sorted(voids[pos] + led_suit))
    return tuple(voids)


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

_HANDLERS: Final[Mapping[str, _Handler]] = {
    "stand": _stand,
    "beg": _beg,
    "giveOne": _give_one,
    "run": _run,
    "bunch": _bunch,
    "declineBunch": _decline_bunch,
    "discard": _discard,
    "play": _play,
}


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    """Apply a well-formed move of the seat to act, with every step it forces."""
    pos = state.position(seat)
    if pos is None or pos != state.turn or state.phase not in MOVE_PHASES:
        return Rejected(ILLEGAL_MOVE, "it is not your turn")
    ((kind, arg),) = move.items()
    phase, wrong_phase = PHASE_OF[kind]
    if phase != state.phase:
        return Rejected(ILLEGAL_MOVE, wrong_phase)
    step = flow.Step(state, rng, rules)
    refused = _HANDLERS[kind](step, pos, arg)
    if refused is not None:
        return refused
    return Outcome(step.state, tuple(step.events))

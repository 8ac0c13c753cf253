"""Who is to act in All Fives and which moves are legal: the phase each kind of move
belongs to, and what the house rules let a player do in it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tablestate.engine import Move, RuleSet
from tablestate_all_fives import flow
from tablestate_all_fives import rules as r
from tablestate_all_fives.state import (
    BUNCH,
    DISCARD,
    GAME_OVER,
    GIVE_OR_RUN,
    PLAY,
    STAND_OR_BEG,
    State,
)

# The phase each kind of move is made in, and why it is refused in any other.
PHASE_OF: Final[Mapping[str, tuple[str, str]]] = {
    "stand": (STAND_OR_BEG, "only eldest, before trump is fixed, may stand"),
    "beg": (STAND_OR_BEG, "only eldest, before trump is fixed, may beg"),
    "giveOne": (GIVE_OR_RUN, "the dealer gives one only after eldest begs"),
    "run": (GIVE_OR_RUN, "the dealer runs the cards only after eldest begs"),
    "bunch": (BUNCH, "no redeal by agreement is open now"),
    "declineBunch": (BUNCH, "no redeal by agreement is open now"),
    "discard": (DISCARD, "there is nothing to discard now"),
    "play": (PLAY, "cards are played only once trump is fixed"),
}
MOVE_PHASES: Final = frozenset(phase for phase, _ in PHASE_OF.values())


def to_act(state: State) -> tuple[int, ...]:
    """The seat whose move is awaited (none once the game is over)."""
    return () if state.phase == GAME_OVER else (state.seats[state.turn],)


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
    if pos is None or pos != state.turn or state.phase not in MOVE_PHASES:
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

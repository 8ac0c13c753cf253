"""Action decks, the objective deck and their refills (DECISIONS.md 3.3 steps 1, 3, 4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from tablestate.engine import Event, Rng
from tablestate_five_by_five.state import State, sort_actions, sort_objectives

T = TypeVar("T")
DECK_NAMES = ("A", "B")


def split_decks(cards: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Deck A gets the first half (rounded up), deck B the rest; index 0 is face up."""
    half = (len(cards) + 1) // 2
    return tuple(cards[:half]), tuple(cards[half:])


def without(items: Sequence[T], taken: Sequence[T]) -> tuple[T, ...]:
    """``items`` minus one copy of each of ``taken`` (all must be there)."""
    out = list(items)
    for item in taken:
        out.remove(item)
    return tuple(out)


def is_sub_multiset(part: Sequence[str], whole: Sequence[str]) -> bool:
    """Whether every card of ``part`` can be taken from ``whole``, copies counted."""
    rest = list(whole)
    for item in part:
        if item not in rest:
            return False
        rest.remove(item)
    return True


def face_up(state: State) -> list[str | None]:
    """The face-up card of each action deck (None for an empty deck)."""
    return [deck[0] if deck else None for deck in state.decks]


def actions_available(state: State) -> bool:
    """Whether an action card can still be taken (from a deck or a reshuffled discard)."""
    return bool(state.decks[0] or state.decks[1] or state.action_discard)


def draw_action(state: State, position: int, deck: int, rng: Rng) -> tuple[State, list[Event]]:
    """The player at ``position`` takes the face-up card of ``deck`` (0 = A, 1 = B).

    An empty chosen deck gives the other one's card; with both empty, the discard pile is
    shuffled and split into two new decks first. With nothing anywhere, nothing happens.
    """
    events: list[Event] = []
    seat = state.players[position].seat
    if not state.decks[0] and not state.decks[1]:
        if not state.action_discard:
            return state, events
        state = replace(
            state, decks=split_decks(rng.shuffle(state.action_discard)), action_discard=()
        )
        events.append(
            Event(
                "actions.reshuffled",
                {"deckSizes": [len(d) for d in state.decks], "faceUp": face_up(state)},
            )
        )
    if not state.decks[deck]:
        deck = 1 - deck
    card, rest = state.decks[deck][0], state.decks[deck][1:]
    decks = (rest, state.decks[1]) if deck == 0 else (state.decks[0], rest)
    state = replace(state, decks=decks)
    player = state.players[position]
    state = state.with_player(position, actions=sort_actions((*player.actions, card)))
    events.append(
        Event(
            "action.drawn",
            {"deck": DECK_NAMES[deck], "faceUp": face_up(state)[deck]},
            seat=seat,
            private={seat: {"card": card}},
        )
    )
    return state, events


def refill_objectives(state: State, position: int, rng: Rng) -> tuple[State, list[Event]]:
    """Draw objectives until the player holds the hand size, reshuffling the discarded
    (never the scored) objectives into a new deck when the deck runs out."""
    events: list[Event] = []
    player = state.players[position]
    need = state.config.objective_hand_size - len(player.objectives)
    drawn: list[str] = []
    deck = state.objective_deck
    while need > 0:
        if not deck:
            if not state.objective_discard:
                break
            deck = rng.shuffle(state.objective_discard)
            state = replace(state, objective_discard=())
            events.append(Event("objectives.reshuffled", {"deckSize": len(deck)}))
        drawn.append(deck[0])
        deck = deck[1:]
        need -= 1
    state = replace(state, objective_deck=deck)
    if drawn:
        state = state.with_player(
            position, objectives=sort_objectives((*player.objectives, *drawn))
        )
        data: dict[str, object] = {"count": len(drawn)}
        if state.config.open_objectives:
            data["objectives"] = list(drawn)
        events.append(
            Event(
                "objective.drawn",
                data,
                seat=player.seat,
                private={player.seat: {"objectives": list(drawn)}},
            )
        )
    return state, events

"""Helpers for the All Fives tests: the registry, stacked decks, invariant checks."""

from __future__ import annotations

import importlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import plugins.all_fives as all_fives_plugin
from plugins.all_fives import rules as r
from plugins.all_fives.game import GAME
from plugins.all_fives.presets import HOUSE_RULE_MODULES
from plugins.all_fives.state import State
from service.engine import Event, RuleSet
from service.plugins import Registry, load
from service.testing import FixedRng, GameDriver

PEG_OUT = "all-fives/peg-out"
MAY_TRUMP = "all-fives/may-trump-instead-of-following"
HLJG = "all-fives/high-low-jack-game"
JACK_BONUS = "all-fives/turn-up-jack-bonus"
GIFT_ALL = "all-fives/beg-gift-to-all-opponents"
NO_GIFT_WIN = "all-fives/dealer-cannot-gift-win"
DISCARD_SIX = "all-fives/discard-to-six-after-run"
PARTNERS = "all-fives/partnerships"
BUNCH = "all-fives/bunch-on-agreement"
ALL_RULES = (
    PEG_OUT,
    MAY_TRUMP,
    HLJG,
    JACK_BONUS,
    GIFT_ALL,
    NO_GIFT_WIN,
    DISCARD_SIX,
    PARTNERS,
    BUNCH,
)


def plugin_objects() -> list[tuple[str, object]]:
    """The game and every house rule, named like their entry points."""
    out: list[tuple[str, object]] = [("all-fives", all_fives_plugin)]
    for path in HOUSE_RULE_MODULES:
        name = "all-fives." + path.rsplit(".", 1)[1].replace("_", "-")
        out.append((name, importlib.import_module(path)))
    return out


@cache
def registry() -> Registry:
    return load(use_entry_points=False, objects=plugin_objects())


def ruleset(*rule_ids: str) -> RuleSet:
    return registry().ruleset("all-fives", rule_ids)


def stack(hands: Sequence[Sequence[str]], turn_up: str, *runs: Any) -> list[str]:
    """A deck order that deals ``hands`` (from eldest clockwise, 6 cards each) and
    ``turn_up``; each run is ``(packets from eldest clockwise, new turn-up)``. The other
    cards follow in deck order."""
    n = len(hands)
    order: list[str] = []
    for packet in (0, 1):
        for hand in hands:
            order += list(hand[packet * 3 : packet * 3 + 3])
    order.append(turn_up)
    for packets, up in runs:
        assert len(packets) == n
        for p in packets:
            order += list(p)
        order.append(up)
    assert len(set(order)) == len(order), "a card is stacked twice"
    return order + [c for c in r.DECK if c not in order]


def driver(
    hands: Sequence[Sequence[str]],
    turn_up: str,
    *runs: Any,
    rules: Iterable[str] = (),
    players: int | Sequence[int] | None = None,
    dealer: int | None = None,
    options: dict[str, Any] | None = None,
    more: Sequence[Sequence[str]] = (),
) -> GameDriver:
    """A game whose first deal is stacked. ``dealer`` is a position (default: the last,
    so that eldest is position 0 and ``hands[i]`` is position ``i``'s); ``more`` gives
    the orders of later shuffles (redeals)."""
    shuffles = [stack(hands, turn_up, *runs), *more]
    dealer = len(hands) - 1 if dealer is None else dealer
    return GameDriver(
        GAME,
        players=players if players is not None else len(hands),
        options=options,
        rules=ruleset(*rules),
        seed=FixedRng(shuffles=shuffles, ints=[dealer]),
    )


def play_all(d: GameDriver, *cards: str) -> None:
    """Play these cards, each by the seat to act."""
    for card in cards:
        d.move(d.to_act()[0], {"play": {"card": card}})


def types(events: Iterable[Event]) -> list[str]:
    return [e.type for e in events]


def places(state: State) -> Counter[str]:
    """Every card of the table, counted once per place it is in."""
    out: Counter[str] = Counter()
    for hand in state.hands:
        out.update(hand)
    for won in state.won:
        out.update(won)
    out.update(state.stock)
    out.update(state.set_aside)
    out.update(state.discards)
    out.update(c for _, c in state.trick)
    if state.turn_up is not None:
        out.update([state.turn_up])
    return out


def assert_conserved(state: State) -> None:
    counted = places(state)
    assert counted == Counter(r.DECK), "a card vanished, appeared or is in two places"


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value."""
    found: set[str] = set()
    if isinstance(value, str):
        if r.is_card(value):
            found.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            found |= cards_in(k) | cards_in(v)
    elif isinstance(value, list | tuple):
        for v in value:
            found |= cards_in(v)
    return found


def assert_views_secret(state: State) -> None:
    """No view shows a hidden card: another hand, the stock, a face-down discard."""
    hidden = set(state.stock) | set(state.discards)
    for seat in (None, *state.seats):
        own = set() if seat is None else set(state.hands[state.seats.index(seat)])
        others = {c for hand in state.hands for c in hand} - own
        shown = cards_in(GAME.view(state, seat))
        leak = shown & (others | hidden)
        assert not leak, f"the view of seat {seat} shows {sorted(leak)}"
        if seat is not None:
            assert set(GAME.view(state, seat)["hand"]) == own


class Tracker:
    """Follows the hands from the events alone, to check that public data never names
    a card in a hand and that the events tell each seat exactly its own hand."""

    def __init__(self, seats: Sequence[int]) -> None:
        self.seats = tuple(seats)
        self.hands: dict[int, set[str]] = {s: set() for s in self.seats}

    def feed(self, event: Event) -> None:
        assert set(event.private) <= set(self.seats), "a private part for no seat"
        if event.type == "deal.started":
            self.hands = {s: set() for s in self.seats}
        elif event.type == "cards.dealt":
            assert not cards_in(event.data)
            assert set(event.private) == set(self.seats)
            for seat, part in event.private.items():
                self.hands[seat] |= set(part["cards"])
        elif event.type == "card.played":
            assert event.seat is not None
            self.hands[event.seat].remove(event.data["card"])
        elif event.type == "card.discarded":
            assert event.seat is not None and set(event.private) == {event.seat}
            self.hands[event.seat].remove(event.private[event.seat]["card"])
        in_hands = set().union(*self.hands.values())
        leak = cards_in(event.data) & in_hands
        assert not leak, f"public data of {event.type} names {sorted(leak)}, in a hand"
        for seat, part in event.private.items():
            others = in_hands - self.hands[seat]
            assert not cards_in(part) & others, f"{event.type} shows seat {seat} another hand"

    def check(self, state: State) -> None:
        for pos, seat in enumerate(state.seats):
            assert self.hands[seat] == set(state.hands[pos]), "events and state disagree"


def event_json(event: Event) -> str:
    return json.dumps(
        {
            "type": event.type,
            "seat": event.seat,
            "data": event.data,
            "private": {str(k): v for k, v in event.private.items()},
        },
        sort_keys=True,
    )

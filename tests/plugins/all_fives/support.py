"""Helpers of the All Fives tests: rule sets, stacked deals, moves. The invariants every
game keeps are checked by the shared harness (``tablestate_all_fives.testing`` tells it what
All Fives' cards are and who may see them)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from support.games import registry
from support.games import ruleset as game_ruleset

from tablestate.engine import Event, RuleSet
from tablestate.testing import FixedRng, GameDriver, check_conserved
from tablestate_all_fives import rules as r
from tablestate_all_fives.game import GAME
from tablestate_all_fives.testing import (
    ALL_RULES,
    BUNCH,
    DISCARD_SIX,
    FACTS,
    GIFT_ALL,
    HLJG,
    JACK_BONUS,
    MAY_TRUMP,
    NO_GIFT_WIN,
    PARTNERS,
    PEG_OUT,
)

__all__ = [
    "ALL_RULES",
    "BUNCH",
    "DISCARD_SIX",
    "GIFT_ALL",
    "HLJG",
    "JACK_BONUS",
    "MAY_TRUMP",
    "NO_GIFT_WIN",
    "PARTNERS",
    "PEG_OUT",
    "registry",
]


def ruleset(*rule_ids: str) -> RuleSet:
    return game_ruleset("all-fives", *rule_ids)


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


def assert_conserved(d: GameDriver) -> None:
    """The 52 cards, each in exactly one place."""
    check_conserved(d, FACTS)

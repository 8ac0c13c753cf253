"""Helpers of the Five Crowns tests: the registry, stacked decks, invariant checks."""

from __future__ import annotations

import importlib
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import plugins.five_crowns as five_crowns
from plugins.five_crowns import rules
from plugins.five_crowns.game import GAME
from plugins.five_crowns.state import NOBODY, State
from service.engine.game import Outcome
from service.engine.rng import Rng
from service.engine.ruleset import RuleSet
from service.plugins import Registry, load
from service.testing import FixedRng, GameDriver

RULE_MODULES = (
    "natural_required",
    "wilds_not_exceed_naturals",
    "lay_off_on_others",
    "no_immediate_rediscard",
    "single_deck_two_players",
    "reshuffle_whole_discard",
    "declare_final_melds",
)
RULE_IDS = tuple("five-crowns/" + m.replace("_", "-") for m in RULE_MODULES)
NATURAL = "five-crowns/natural-required"
RATIO = "five-crowns/wilds-not-exceed-naturals"
LAY_OFF = "five-crowns/lay-off-on-others"
NO_REDISCARD = "five-crowns/no-immediate-rediscard"
SINGLE_DECK = "five-crowns/single-deck-two-players"
WHOLE_DISCARD = "five-crowns/reshuffle-whole-discard"
DECLARE = "five-crowns/declare-final-melds"

_REGISTRY: Registry | None = None


def registry() -> Registry:
    """The game and its house rules, registered as the entry points would."""
    global _REGISTRY
    if _REGISTRY is None:
        objects: list[tuple[str, object]] = [("five-crowns", five_crowns)]
        for name in RULE_MODULES:
            module = importlib.import_module(f"plugins.five_crowns.house_rules.{name}")
            objects.append(("five-crowns." + name.replace("_", "-"), module))
        _REGISTRY = load(use_entry_points=False, objects=objects)
    return _REGISTRY


def ruleset(*enabled: str) -> RuleSet:
    return registry().ruleset("five-crowns", enabled)


def stacked(first: Sequence[str], copies: int = 2) -> list[str]:
    """A whole deck whose first cards are ``first`` (deal order), the rest after them."""
    rest = Counter(rules.deck(copies))
    rest.subtract(first)
    assert all(v >= 0 for v in rest.values()), "more copies than the deck holds"
    return list(first) + sorted(rest.elements(), key=rules.sort_key)


def deal_cards(hands: Sequence[Sequence[str]], top: str, stock: Sequence[str] = ()) -> list[str]:
    """The first cards of a deck that deals ``hands`` (in deal order, one card at a time
    to each player from the dealer's left), turns ``top`` up and has ``stock`` on top."""
    size = len(hands[0])
    out = [hands[p][i] for i in range(size) for p in range(len(hands))]
    return [*out, top, *stock]


def driver(
    players: int | Sequence[int] = 2,
    enabled: Iterable[str] = (),
    seed: Any = b"seed",
    **options: Any,
) -> GameDriver:
    return GameDriver(GAME, players=players, options=options, rules=ruleset(*enabled), seed=seed)


def start(
    hands: Sequence[Sequence[str]],
    top: str,
    stock: Sequence[str] = (),
    enabled: Iterable[str] = (),
    players: int | Sequence[int] | None = None,
    shuffles: Sequence[Sequence[str]] = (),
    ints: Sequence[int] = (),
    copies: int = 2,
    **options: Any,
) -> GameDriver:
    """A game whose round 1 deals ``hands`` (in deal order: the dealer's left first),
    turns ``top`` up and has ``stock`` on top of the draw pile."""
    first = deal_cards(hands, top, stock)
    rng = FixedRng(shuffles=[stacked(first, copies), *shuffles], ints=ints)
    return driver(players or len(hands), enabled, seed=rng, **options)


def draw(source: str = "STOCK") -> dict[str, Any]:
    return {"draw": {"source": source}}


def discard(card: str) -> dict[str, Any]:
    return {"discard": {"card": card}}


def go_out(melds: Sequence[Sequence[str]], card: str) -> dict[str, Any]:
    return {"goOut": {"melds": [list(m) for m in melds], "discard": card}}


def lay_down(melds: Sequence[Sequence[str]], card: str) -> dict[str, Any]:
    return {"layDown": {"melds": [list(m) for m in melds], "discard": card}}


def lay_off(cards: Sequence[str], meld: int) -> dict[str, Any]:
    return {"layOff": {"cards": list(cards), "meld": meld}}


def table_deck(enabled: Iterable[str], players: int) -> Counter[str]:
    copies = 1 if SINGLE_DECK in set(enabled) and players == 2 else 2
    return Counter(rules.deck(copies))


def check_conservation(state: State, deck: Counter[str]) -> None:
    assert Counter(state.all_cards()) == deck, "a card appeared or vanished"


def scramble(state: State, pos: int | None, rng: random.Random) -> State:
    """The same state with every card ``pos`` may not see shuffled among those places."""
    hidden_hands = [p for p in range(len(state.hands)) if p != pos]
    pool = [c for p in hidden_hands for c in state.hands[p]] + list(state.stock)
    rng.shuffle(pool)
    hands = list(state.hands)
    at = 0
    for p in hidden_hands:
        size = len(hands[p])
        hands[p] = rules.sort_cards(pool[at : at + size])
        at += size
    return replace(state, hands=tuple(hands), stock=tuple(pool[at:]))


def check_secrecy(d: GameDriver, rng: random.Random, new_events: Sequence[Any]) -> None:
    """Views do not change when hidden cards move; events keep hands private."""
    state: State = d.state
    for seat in (None, *d.seats):
        pos = state.seats.index(seat) if seat is not None else None
        view = GAME.view(state, seat)
        if pos is None:
            assert view["hand"] is None
        else:
            assert view["hand"] == list(state.hands[pos])
        assert GAME.view(scramble(state, pos, rng), seat) == view, f"view of {seat} leaks"
    for event in new_events:
        assert "hand" not in event.data and "leftover" not in event.data
        if event.type == "card.drawn" and event.data["source"] == "STOCK":
            assert "card" not in event.data
        for key in event.private:
            assert key in d.seats
            if event.type != "round.dealt":
                assert key == event.seat


def check_legal_moves_accepted(d: GameDriver) -> None:
    """Every listed move passes the shape check and applies (on a copy of the rng)."""
    for seat in d.to_act():
        for move in d.legal(seat):
            assert GAME.check_move(move) is None, move
            out = GAME.apply(d.state, seat, move, Rng(b"probe"), d.rules)
            assert isinstance(out, Outcome), (move, out)


def check_turn(state: State) -> None:
    if state.phase != "GAME_OVER":
        assert state.turn != NOBODY

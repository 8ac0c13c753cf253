"""Helpers of the Five Crowns tests: rule sets, stacked decks, moves as JSON. The
invariants every game keeps are checked by the shared harness (``tablestate_five_crowns.testing``
tells it what Five Crowns' cards are and who may see them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from support.five_crowns_points import JOKERS_25, PointsRule
from support.games import registry
from support.games import ruleset as game_ruleset

from tablestate import plugins
from tablestate.engine.ruleset import RuleSet
from tablestate.testing import FixedRng, GameDriver
from tablestate_five_crowns import rules
from tablestate_five_crowns.game import GAME
from tablestate_five_crowns.testing import (
    DECLARE,
    LAY_OFF,
    NATURAL,
    NO_REDISCARD,
    RATIO,
    SINGLE_DECK,
    WHOLE_DISCARD,
)

__all__ = [
    "DECLARE",
    "JOKERS_25",
    "LAY_OFF",
    "NATURAL",
    "NO_REDISCARD",
    "RATIO",
    "RULE_IDS",
    "RULE_MODULES",
    "SINGLE_DECK",
    "WHOLE_DISCARD",
    "registry",
]

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


def ruleset(*enabled: str) -> RuleSet:
    return game_ruleset("five-crowns", *enabled)


# test-only house rules on card points (``support/five_crowns_points.py``)
JOKERS_15 = "five-crowns/jokers-count-15"
KINGS_0 = "five-crowns/kings-count-0"
BAD_KEY = "five-crowns/bad-points-key"
BAD_VALUE = "five-crowns/bad-points-value"
POINTS_RULES = {
    JOKERS_15: {"JK": 15},
    KINGS_0: {"K": 0},
    BAD_KEY: {"A": 1},
    BAD_VALUE: {"JK": -5},
}


@cache
def points_registry() -> plugins.Registry:
    """The installed plugins and the test-only points rules."""
    rules = [(rid, PointsRule(rid, table)) for rid, table in POINTS_RULES.items()]
    return plugins.load(["support.five_crowns_points"], objects=rules)


def points_ruleset(*enabled: str) -> RuleSet:
    """A Five Crowns rule set of ``points_registry`` (bundled and test-only rules)."""
    return points_registry().ruleset("five-crowns", enabled)


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
    rules: RuleSet | None = None,
    **options: Any,
) -> GameDriver:
    """A game with the ``enabled`` bundled rules (or the rule set ``rules``)."""
    chosen = rules if rules is not None else ruleset(*enabled)
    return GameDriver(GAME, players=players, options=options, rules=chosen, seed=seed)


def start(
    hands: Sequence[Sequence[str]],
    top: str,
    stock: Sequence[str] = (),
    enabled: Iterable[str] = (),
    players: int | Sequence[int] | None = None,
    shuffles: Sequence[Sequence[str]] = (),
    ints: Sequence[int] = (),
    copies: int = 2,
    rules: RuleSet | None = None,
    **options: Any,
) -> GameDriver:
    """A game whose round 1 deals ``hands`` (in deal order: the dealer's left first),
    turns ``top`` up and has ``stock`` on top of the draw pile."""
    first = deal_cards(hands, top, stock)
    rng = FixedRng(shuffles=[stacked(first, copies), *shuffles], ints=ints)
    return driver(players or len(hands), enabled, seed=rng, rules=rules, **options)


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

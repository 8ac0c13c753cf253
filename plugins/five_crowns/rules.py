"""Five Crowns as a pure library: cards, points, melds and the exact leftover solver.

Usable without the server. Cards are strings, rank then suit: ``"3S"`` .. ``"10H"`` ..
``"KT"`` (``T`` = stars) and ``"JK"`` for a joker. Both decks hold every card, so a hand
is a multiset and ``"7T"`` names either copy. ``wild`` is the wild rank of the round
(``"3"`` .. ``"K"``): every card of that rank is wild (FC-7: never natural, even where it
could stand for itself), and so is every joker.

Meld rules follow ``DECISIONS.md`` §1.1 and §1.4 (book: ≥3 cards of one rank; run: ≥3
consecutive ranks of one suit from 3 to K, no wrap; wilds stand for anything, with no
limit). House rules narrow them only through ``MeldLimits`` (or the keyword arguments
``min_naturals`` and ``max_wilds_per_natural``): natural-required is ``min_naturals=1``,
wilds-not-exceed-naturals is ``max_wilds_per_natural=1``. What a card left in hand
costs is a ``CardPoints`` table (``STANDARD``: the publisher's points), which house
rules may change; the functions that count points take it as ``points``. The whole-hand
problems
(``min_leftover``, ``can_go_out``, ``best_arrangement``) are solved exactly by
``plugins/five_crowns/_solver.py`` (with lay-offs on the table's melds: ``_layoff.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from tablestate_five_crowns import _layoff, _solver
from tablestate_five_crowns._melds import (
    BOOK,
    HIGH,
    JOKER,
    JOKER_POINTS,
    LOW,
    MAX_CARD_POINTS,
    MAX_RUN,
    NO_LIMITS,
    RANKS,
    RUN,
    STANDARD,
    SUITS,
    WILD,
    WILD_POINTS,
    Arrangement,
    CardPoints,
    LayOff,
    Meld,
    MeldLimits,
    card_points,
    deck,
    extend_meld,
    hand_points,
    is_card,
    is_wild,
    make_meld,
    parse,
    rank_name,
    remove_cards,
    sort_cards,
    sort_key,
    wild_rank,
)

__all__ = [
    "BOOK",
    "HIGH",
    "JOKER",
    "JOKER_POINTS",
    "LOW",
    "MAX_CARD_POINTS",
    "MAX_RUN",
    "NO_LIMITS",
    "RANKS",
    "RUN",
    "STANDARD",
    "SUITS",
    "WILD",
    "WILD_POINTS",
    "Arrangement",
    "CardPoints",
    "LayOff",
    "Meld",
    "MeldLimits",
    "best_arrangement",
    "can_go_out",
    "can_meld_all",
    "card_points",
    "deck",
    "extend_meld",
    "go_out_discards",
    "hand_points",
    "is_card",
    "is_meld",
    "is_wild",
    "make_meld",
    "min_leftover",
    "parse",
    "rank_name",
    "remove_cards",
    "sort_cards",
    "sort_key",
    "wild_rank",
]


def is_meld(
    cards: Sequence[str],
    wild: str,
    *,
    min_naturals: int = 0,
    max_wilds_per_natural: int | None = None,
) -> bool:
    """Whether ``cards`` form one book or run (or an all-wild meld, where allowed)."""
    return make_meld(cards, wild, MeldLimits(min_naturals, max_wilds_per_natural)) is not None


def min_leftover(
    cards: Sequence[str],
    wild: str,
    *,
    min_naturals: int = 0,
    max_wilds_per_natural: int | None = None,
    points: CardPoints = STANDARD,
) -> int:
    """The fewest points that can be left after melding ``cards`` as well as possible
    (exact: DECISIONS 1.4), counted with ``points``. Unused wilds left over are the
    cheapest ones."""
    limits = MeldLimits(min_naturals, max_wilds_per_natural)
    return _solver.min_points(cards, wild, limits, points)


def can_meld_all(
    cards: Sequence[str],
    wild: str,
    *,
    min_naturals: int = 0,
    max_wilds_per_natural: int | None = None,
) -> bool:
    """Whether all of ``cards`` can be laid down as disjoint books and runs."""
    return _solver.meld_all(cards, wild, MeldLimits(min_naturals, max_wilds_per_natural))


def can_go_out(
    hand: Sequence[str],
    wild: str,
    discard: str,
    *,
    min_naturals: int = 0,
    max_wilds_per_natural: int | None = None,
) -> bool:
    """Whether the hand after the draw (n+1 cards, ``discard`` among them) can go out by
    discarding ``discard``: the other n cards all meld (FC-15)."""
    rest = remove_cards(hand, [discard])
    if rest is None:
        return False
    return _solver.meld_all(rest, wild, MeldLimits(min_naturals, max_wilds_per_natural))


def go_out_discards(
    hand: Sequence[str], wild: str, limits: MeldLimits = NO_LIMITS
) -> tuple[str, ...]:
    """Every distinct card whose discard lets ``hand`` go out, in display order."""
    return _solver.out_discards(hand, wild, limits)


def best_arrangement(
    cards: Sequence[str],
    wild: str,
    limits: MeldLimits = NO_LIMITS,
    table: Sequence[Meld] = (),
    points: CardPoints = STANDARD,
) -> Arrangement:
    """A best way to lay ``cards`` down: the fewest points left over (counted with
    ``points``), counting lay-offs on the ``table`` melds where given (lay-off house
    rule). Among equal ways, the first the search finds; where some cards cost 0, a
    best way may leave such a card unmelded though it could meld."""
    if table:
        return _layoff.arrange(cards, wild, limits, tuple(table), points)
    return _solver.arrange(cards, wild, limits, points)

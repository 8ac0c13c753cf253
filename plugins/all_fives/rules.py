"""All Fives' card rules as pure functions: ranks, suits, the trick, its points.

Cards are strings, rank then suit: ``"AS"``, ``"10D"``, ``"5H"`` (suits ``S`` ``H`` ``C``
``D``; ranks ``2``-``10``, ``J``, ``Q``, ``K``, ``A``, ace high). A trump is any card of the
trump suit. Source: ``rules/DECISIONS.md`` section 2.2 (rules 2, 6, 7 and 8).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

SUITS: Final = ("S", "H", "C", "D")
RANKS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
DECK: Final = tuple(rank + suit for suit in SUITS for rank in RANKS)
#: What a trump scores for the winner of the trick holding it (DECISIONS 2.2 rule 8).
HONOURS: Final[Mapping[str, int]] = {"A": 4, "K": 3, "Q": 2, "J": 1, "10": 10, "5": 5}
#: What a card of any suit counts towards the point for Game (house rule high-low-jack-game).
GAME_VALUES: Final[Mapping[str, int]] = {"A": 4, "K": 3, "Q": 2, "J": 1, "10": 10}

_ORDER: Final = {rank: i for i, rank in enumerate(RANKS)}
_CARDS: Final = frozenset(DECK)


def is_card(text: object) -> bool:
    """Whether ``text`` names one of the 52 cards."""
    return isinstance(text, str) and text in _CARDS


def suit(card: str) -> str:
    """The suit letter of a card: ``suit("10D") == "D"``."""
    return card[-1]


def rank(card: str) -> str:
    """The rank of a card: ``rank("10D") == "10"``."""
    return card[:-1]


def rank_order(card: str) -> int:
    """0 for a two up to 12 for an ace: the order of cards within a suit."""
    return _ORDER[rank(card)]


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards grouped by suit (S, H, C, D), highest first within a suit: how a hand is shown."""
    return tuple(sorted(cards, key=lambda c: (SUITS.index(suit(c)), -rank_order(c))))


def _beats(challenger: str, holder: str, trump: str) -> bool:
    # The holder is always of the suit led or a trump, so an off-suit card never beats it.
    if suit(challenger) == suit(holder):
        return rank_order(challenger) > rank_order(holder)
    return suit(challenger) == trump


def trick_winner(plays: Sequence[str], trump: str) -> int:
    """The index in ``plays`` of the card that wins the trick: the highest trump if any
    trump was played, else the highest card of the suit led (``plays[0]`` was led).

    Raises:
        ValueError: no card was played.
    """
    if not plays:
        raise ValueError("a trick needs at least one card")
    best = 0
    for i in range(1, len(plays)):
        if _beats(plays[i], plays[best], trump):
            best = i
    return best


def legal_plays(
    hand: Sequence[str], led: str | None, trump: str, *, may_trump: bool = False
) -> set[str]:
    """The cards of ``hand`` that may be played.

    Args:
        hand: the player's cards.
        led: the card led to this trick, or ``None`` when the player leads.
        trump: the trump suit letter.
        may_trump: the All Fours rule (house rule may-trump-instead-of-following): a
            player holding the plain suit led may play that suit or a trump.

    Returns:
        Any card when leading or when holding no card of the suit led; otherwise the
        cards of the suit led (and the trumps, with ``may_trump`` and a plain suit led).
    """
    cards = set(hand)
    if led is None:
        return cards
    led_suit = suit(led)
    following = {c for c in cards if suit(c) == led_suit}
    if not following:
        return cards
    if may_trump and led_suit != trump:
        return following | {c for c in cards if suit(c) == trump}
    return following


def trick_points(cards: Sequence[str], trump: str) -> int:
    """What the winner of a trick holding ``cards`` scores: each trump honour counts
    A 4, K 3, Q 2, J 1, 10 10, 5 5; every other card 0."""
    return sum(HONOURS.get(rank(c), 0) for c in cards if suit(c) == trump)


def game_points(cards: Iterable[str], trump: str) -> int:
    """The count towards the point for Game: A 4, K 3, Q 2, J 1, 10 10 in every suit,
    and 5 for the five of trumps."""
    total = 0
    for c in cards:
        total += GAME_VALUES.get(rank(c), 0)
        if c == "5" + trump:
            total += 5
    return total

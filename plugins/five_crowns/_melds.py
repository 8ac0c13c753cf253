"""Cards, points and single melds of Five Crowns (the part of ``rules`` the solver needs).

See ``plugins/five_crowns/rules.py`` for the card notation; this module is re-exported there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

RANKS: Final = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final = ("S", "H", "C", "D", "T")
JOKER: Final = "JK"
BOOK: Final = "BOOK"
RUN: Final = "RUN"
WILD: Final = "WILD"
LOW: Final = 3
HIGH: Final = 13
MAX_RUN: Final = HIGH - LOW + 1
WILD_POINTS: Final = 20
JOKER_POINTS: Final = 50
MAX_CARD_POINTS: Final = 1000

_RANK_VALUE: Final = {name: LOW + i for i, name in enumerate(RANKS)}
_SUIT_INDEX: Final = {s: i for i, s in enumerate(SUITS)}


def rank_name(value: int) -> str:
    """``11`` -> ``"J"``: the name of a rank value (3..13)."""
    return RANKS[value - LOW]


def parse(card: str) -> tuple[int, str] | None:
    """A card's ``(rank value, suit)``; ``(0, "")`` for a joker; None if not a card."""
    if card == JOKER:
        return (0, "")
    if not isinstance(card, str) or len(card) < 2:
        return None
    value = _RANK_VALUE.get(card[:-1])
    suit = card[-1]
    if value is None or suit not in _SUIT_INDEX:
        return None
    return (value, suit)


def is_card(card: object) -> bool:
    """Whether ``card`` is a Five Crowns card string."""
    return isinstance(card, str) and parse(card) is not None


def wild_rank(cards_dealt: int) -> str:
    """The wild rank of a round that deals ``cards_dealt`` cards (3 -> ``"3"``, 13 -> ``"K"``)."""
    return RANKS[cards_dealt - LOW]


def is_wild(card: str, wild: str) -> bool:
    """A joker, or a card of the wild rank."""
    return card == JOKER or card[:-1] == wild


@dataclass(frozen=True, slots=True)
class CardPoints:
    """What each card left in hand costs (house rules may change it; STANDARD by default).

    Args:
        naturals: the points of a natural card of each rank, 3 to K (11 values).
        wild: the points of a card of the round's wild rank.
        joker: the points of a joker.

    Every value is an int from 0 to ``MAX_CARD_POINTS``. The exact solver is exact under
    any such table: the points are a parameter of its search.
    """

    naturals: tuple[int, ...] = tuple(range(LOW, HIGH + 1))
    wild: int = WILD_POINTS
    joker: int = JOKER_POINTS
    _by_rank: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "naturals", tuple(self.naturals))
        values = (*self.naturals, self.wild, self.joker)
        if len(self.naturals) != len(RANKS):
            raise ValueError(f"card points need {len(RANKS)} natural ranks, not {self.naturals}")
        for v in values:
            if type(v) is not int or not 0 <= v <= MAX_CARD_POINTS:
                raise ValueError(f"card points must be ints from 0 to {MAX_CARD_POINTS}, not {v!r}")
        object.__setattr__(self, "_by_rank", dict(zip(RANKS, self.naturals, strict=True)))

    @classmethod
    def from_overrides(cls, answers: Iterable[Mapping[str, int]]) -> CardPoints:
        """The standard points with these overrides, keyed by a rank name (``"3"`` ..
        ``"10"``, ``"J"``, ``"Q"``, ``"K"``), ``"WILD"`` (a card of the round's wild rank)
        or ``"JK"`` (a joker). Where answers give one key different values, the highest
        counts (so the order of the answers does not matter)."""
        table: dict[str, int] = {}
        for answer in answers:
            for key, value in answer.items():
                if key not in _POINT_KEYS:
                    raise ValueError(
                        f"unknown card points key {key!r} (one of {', '.join(_POINT_KEYS)})"
                    )
                if type(value) is not int or not 0 <= value <= MAX_CARD_POINTS:
                    raise ValueError(
                        f"card points of {key!r} must be an int from 0 to {MAX_CARD_POINTS}, "
                        f"not {value!r}"
                    )
                table[key] = max(value, table.get(key, value))
        std = STANDARD
        found = cls(
            tuple(table.get(r, v) for r, v in zip(RANKS, std.naturals, strict=True)),
            table.get(WILD, std.wild),
            table.get(JOKER, std.joker),
        )
        return std if found == std else found  # the solver's fast path knows STANDARD

    def of(self, card: str, wild: str) -> int:
        """What ``card`` left in hand costs in a round whose wild rank is ``wild``."""
        if card == JOKER:
            return self.joker
        rank = card[:-1]
        if rank == wild:
            return self.wild
        return self._by_rank[rank]

    @property
    def positive(self) -> bool:
        """Whether every card costs something (then a leftover of 0 points is no card)."""
        return min(*self.naturals, self.wild, self.joker) > 0


_POINT_KEYS: Final = (*RANKS, WILD, JOKER)
STANDARD: Final = CardPoints()


def card_points(card: str, wild: str, points: CardPoints = STANDARD) -> int:
    """What a card left in hand costs: by default face value 3..10, J 11, Q 12, K 13, a
    card of the wild rank 20, a joker 50 (``points``: a house rule's table)."""
    return points.of(card, wild)


def hand_points(cards: Iterable[str], wild: str, points: CardPoints = STANDARD) -> int:
    """The points of cards left in hand."""
    total, of = 0, points.of
    for c in cards:  # a loop, not a generator: no closure cells on every call
        total += of(c, wild)
    return total


def deck(copies: int = 2) -> tuple[str, ...]:
    """The cards of ``copies`` Five Crowns decks (58 cards each: 5 suits x 11 ranks and
    3 jokers), in a fixed order."""
    one = [r + s for s in SUITS for r in RANKS] + [JOKER] * 3
    return tuple(one * copies)


def sort_key(card: str) -> tuple[int, int]:
    """Display order: by suit (S H C D T), then rank; jokers last."""
    if card == JOKER:
        return (len(SUITS), 0)
    return (_SUIT_INDEX[card[-1]], _RANK_VALUE[card[:-1]])


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards in display order."""
    return tuple(sorted(cards, key=sort_key))


def remove_cards(hand: Sequence[str], cards: Iterable[str]) -> tuple[str, ...] | None:
    """``hand`` less one copy of each of ``cards``, or None if the hand lacks one of them."""
    left = Counter(hand)
    for c in cards:
        if left[c] <= 0:
            return None
        left[c] -= 1
    out: list[str] = []
    for c in hand:
        if left[c] > 0:
            out.append(c)
            left[c] -= 1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class MeldLimits:
    """What a meld needs beyond the publisher's rules (house rules set these).

    Args:
        min_naturals: natural (non-wild) cards every meld must hold; 0 allows all-wild melds.
        max_wilds_per_natural: at most this many wilds per natural in a meld (None: no limit).
    """

    min_naturals: int = 0
    max_wilds_per_natural: int | None = None

    def allows(self, naturals: int, wilds: int) -> bool:
        """Whether a meld of ``naturals`` naturals and ``wilds`` wilds respects the limits."""
        if naturals < self.min_naturals:
            return False
        ratio = self.max_wilds_per_natural
        return ratio is None or wilds <= ratio * naturals

    def combine(self, other: MeldLimits) -> MeldLimits:
        """The stricter of two sets of limits."""
        mine, theirs = self.max_wilds_per_natural, other.max_wilds_per_natural
        ratio = theirs if mine is None else mine if theirs is None else min(mine, theirs)
        return MeldLimits(max(self.min_naturals, other.min_naturals), ratio)


NO_LIMITS: Final = MeldLimits()


@dataclass(frozen=True, slots=True)
class Meld:
    """A valid book, run or all-wild meld, normalized.

    Args:
        kind: ``BOOK``, ``RUN`` or ``WILD`` (only wilds: FC-11).
        cards: the cards; for a run, ``cards[i]`` stands for rank ``lo + i``.
        rank: a book's rank value (3..13).
        suit: a run's suit.
        lo, hi: a run's lowest and highest rank value.
    """

    kind: str
    cards: tuple[str, ...]
    rank: int | None = None
    suit: str | None = None
    lo: int | None = None
    hi: int | None = None

    def naturals(self, wild: str) -> int:
        """How many of its cards are natural."""
        return sum(1 for c in self.cards if not is_wild(c, wild))


def _split(cards: Iterable[str], wild: str) -> tuple[list[str], list[str]]:
    nat: list[str] = []
    wilds: list[str] = []
    for c in cards:
        (wilds if is_wild(c, wild) else nat).append(c)
    return nat, wilds


def _place_run(
    suit: str, lo: int, hi: int, fixed: dict[int, str], wilds: list[str]
) -> tuple[str, ...]:
    pool = sorted(wilds, key=lambda c: (c == JOKER, c))
    out = []
    for rank in range(lo, hi + 1):
        out.append(fixed[rank] if rank in fixed else pool.pop())
    return tuple(out)


def _widen(lo: int, hi: int, extra: int) -> tuple[int, int]:
    """FC-10: extra wilds extend a run upward until K, then downward."""
    up = min(extra, HIGH - hi)
    return lo - (extra - up), hi + up


def _run(suit: str, nat: Sequence[str], ranks: Sequence[int], wilds: list[str]) -> Meld | None:
    """The run of one suit that these naturals (of distinct ``ranks``) and wilds make,
    normalized (FC-10), or None if they make none."""
    if len(set(ranks)) != len(ranks):
        return None
    length = len(nat) + len(wilds)
    lo, hi = min(ranks), max(ranks)
    if length > MAX_RUN or hi - lo + 1 > length:
        return None
    lo, hi = _widen(lo, hi, length - (hi - lo + 1))
    fixed = dict(zip(ranks, nat, strict=True))
    return Meld(RUN, _place_run(suit, lo, hi, fixed, wilds), suit=suit, lo=lo, hi=hi)


def make_meld(cards: Sequence[str], wild: str, limits: MeldLimits = NO_LIMITS) -> Meld | None:
    """The normalized meld these cards form, or None if they form none.

    Cards of one rank (or one natural and wilds) make a book; one suit with distinct ranks
    makes a run, whose wilds fill the gaps first, then extend upward until K, then down
    (FC-10); only wilds make a ``WILD`` meld.
    """
    if len(cards) < 3 or not all(is_card(c) for c in cards):
        return None
    nat, wilds = _split(cards, wild)
    if not limits.allows(len(nat), len(wilds)):
        return None
    if not nat:
        return Meld(WILD, tuple(sorted(wilds)))
    parsed = [parse(c) for c in nat]
    ranks = [p[0] for p in parsed if p is not None]
    suits = {p[1] for p in parsed if p is not None}
    if len(set(ranks)) == 1:
        return Meld(BOOK, sort_cards(nat) + tuple(sorted(wilds)), rank=ranks[0])
    if len(suits) != 1:
        return None
    return _run(suits.pop(), nat, ranks, wilds)


def extend_meld(
    meld: Meld, cards: Sequence[str], wild: str, limits: MeldLimits = NO_LIMITS
) -> Meld | None:
    """The meld after laying ``cards`` off on it, or None if they cannot go there.

    A book takes naturals of its rank and wilds; an all-wild meld takes wilds only (FC-11).
    A run is the set of its cards: it takes any naturals of its suit and any wilds that
    make one run with them (at most 11, within 3..K). Its naturals keep their ranks, its
    wilds stand wherever the grown run needs them, and the result is normalized afresh
    as ``make_meld`` places wilds (FC-10), so ``lo``/``hi`` may move. A natural may thus
    take the rank a wild stood for, the wild moving to an end (DECISIONS 1.6.8).
    """
    if not cards or not all(is_card(c) for c in cards):
        return None
    nat, wilds = _split(cards, wild)
    old_nat = meld.naturals(wild)
    if not limits.allows(old_nat + len(nat), len(meld.cards) - old_nat + len(wilds)):
        return None
    if meld.kind == WILD:
        return None if nat else Meld(WILD, tuple(sorted(meld.cards + tuple(wilds))))
    parsed = [p for p in (parse(c) for c in nat) if p is not None]
    old_nat_cards, old_wilds = _split(meld.cards, wild)
    if meld.kind == BOOK:
        if any(rank != meld.rank for rank, _ in parsed):
            return None
        return Meld(
            BOOK,
            sort_cards(old_nat_cards + nat) + tuple(sorted(old_wilds + wilds)),
            rank=meld.rank,
        )
    assert meld.suit is not None
    if any(s != meld.suit for _, s in parsed):
        return None
    naturals = old_nat_cards + nat
    ranks = [p[0] for p in (parse(c) for c in naturals) if p is not None]
    return _run(meld.suit, naturals, ranks, old_wilds + wilds)


@dataclass(frozen=True, slots=True)
class LayOff:
    """Cards laid off on one meld on the table (``target`` is its index there)."""

    target: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The best way to lay down a hand: its melds, lay-offs on the table's melds, what is
    left and what that costs."""

    melds: tuple[Meld, ...]
    lay_offs: tuple[LayOff, ...]
    leftover: tuple[str, ...]
    points: int

"""Brute-force references for the Five Crowns solver: slow, simple and independent of it."""

from __future__ import annotations

import random
from functools import cache, lru_cache

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "C", "D", "T")
VALUE = {r: 3 + i for i, r in enumerate(RANKS)}


def points(card: str, wild: str, table=None) -> int:
    """A card's points; ``table`` overrides them as the points hook does (keys: a rank
    name, ``"WILD"``, ``"JK"``)."""
    table = table or {}
    if card == "JK":
        return table.get("JK", 50)
    if card[:-1] == wild:
        return table.get("WILD", 20)
    return table.get(card[:-1], VALUE[card[:-1]])


def ref_is_meld(cards, wild, min_naturals=0, ratio=None) -> bool:
    """Some assignment of the wilds makes a natural book or run: the naturals share one
    rank, or they fit, one suit and no rank twice, in some window of ``len(cards)``
    consecutive ranks from 3 to K (tried one by one)."""
    if len(cards) < 3:
        return False
    nat = [(VALUE[c[:-1]], c[-1]) for c in cards if c != "JK" and c[:-1] != wild]
    w = len(cards) - len(nat)
    if len(nat) < min_naturals or (ratio is not None and w > ratio * len(nat)):
        return False
    ranks = sorted(r for r, _ in nat)
    if len(set(ranks)) <= 1:  # a book of that rank (or only wilds)
        return True
    if len({s for _, s in nat}) != 1 or len(set(ranks)) != len(ranks):
        return False
    return any(
        lo <= ranks[0] and ranks[-1] <= lo + len(cards) - 1 for lo in range(3, 14 - len(cards) + 1)
    )


@lru_cache(maxsize=64)
def _meld_masks(cards: tuple[str, ...], wild: str) -> tuple[tuple[int, int, int], ...]:
    """Every submask of three cards or more that ``ref_is_meld`` accepts with no limits,
    with its counts of naturals and wilds (the limits depend on nothing else)."""
    n = len(cards)
    out = []
    for mask in range(1, 1 << n):
        if bin(mask).count("1") >= 3:
            sub = [cards[i] for i in range(n) if mask >> i & 1]
            if ref_is_meld(sub, wild):
                nat = sum(1 for c in sub if c != "JK" and c[:-1] != wild)
                out.append((mask, nat, len(sub) - nat))
    return tuple(out)


def ref_leftovers(cards, wild, min_naturals=0, ratio=None, table=None):
    """The minimum leftover of every sub-multiset of ``cards``, as a function of its mask:
    every submask of three cards or more is checked with ``ref_is_meld``, then a DP over
    submasks tries, for the lowest card left, every meld holding it (or leaves it).
    ``table``: points overrides, as for ``points``."""
    cards = tuple(cards)
    n = len(cards)
    by_low: list[list[int]] = [[] for _ in range(n)]  # melds by their lowest card
    for mask, nat, w in _meld_masks(cards, wild):
        if nat >= min_naturals and (ratio is None or w <= ratio * nat):
            by_low[(mask & -mask).bit_length() - 1].append(mask)

    @cache
    def f(mask: int) -> int:
        if not mask:
            return 0
        low = mask & -mask
        i = low.bit_length() - 1
        best = points(cards[i], wild, table) + f(mask ^ low)
        for g in by_low[i]:
            if g & mask == g:
                best = min(best, f(mask ^ g))
        return best

    return f


def ref_min_leftover(cards, wild, min_naturals=0, ratio=None, table=None) -> int:
    """The fewest points left after melding ``cards`` as well as possible."""
    return ref_leftovers(cards, wild, min_naturals, ratio, table)((1 << len(cards)) - 1)


def random_hand(rng: random.Random, n: int, wild: str, wild_bias: float = 0.0) -> list[str]:
    deck = [r + s for s in SUITS for r in RANKS] * 2 + ["JK"] * 6
    hand = rng.sample(deck, n)
    if wild_bias:
        hand = [
            ("JK" if rng.random() < 0.5 else wild + rng.choice(SUITS))
            if rng.random() < wild_bias
            else c
            for c in hand
        ]
    return hand


def suited_hand(rng: random.Random, n: int, wild: str, suits: int = 1) -> list[str]:
    """Hands crowded into few suits and near ranks: hard cases for runs."""
    pool = [r + s for s in SUITS[:suits] for r in RANKS] * 2 + ["JK"] * 2
    return rng.sample(pool, min(n, len(pool)))


def ref_extend_ok(kind, meld_cards, added, wild, min_naturals=0, ratio=None) -> bool:
    """Whether ``added`` can be laid off on a table meld of ``kind``: the cards of the meld
    and ``added`` together are one meld of the same kind (``ref_is_meld`` tries every
    window, so a run's wilds may stand anywhere). A book stays a book of its rank (one
    natural and wilds included: DECISIONS 1.6.8), an all-wild meld takes only wilds."""

    def natural(c):
        return c != "JK" and c[:-1] != wild

    grown = list(meld_cards) + list(added)
    if not ref_is_meld(grown, wild, min_naturals, ratio):
        return False
    ranks = {VALUE[c[:-1]] for c in grown if natural(c)}
    if kind == "WILD":
        return not ranks
    if kind == "BOOK":
        return len(ranks) == 1
    return len(ranks) > 1


def ref_min_leftover_table(cards, wild, table, min_naturals=0, ratio=None, points=None) -> int:
    """Every way to send each card to a table meld or keep it, then ``ref_min_leftover``.

    ``table``: tuples ``(kind, cards)``; ``points``: points overrides."""
    import itertools

    cards = list(cards)
    best = None
    memo: dict = {}
    for homes in itertools.product(range(len(table) + 1), repeat=len(cards)):
        groups = [
            [c for c, h in zip(cards, homes, strict=True) if h == j + 1] for j in range(len(table))
        ]
        if not all(
            not g or ref_extend_ok(*table[j], g, wild, min_naturals, ratio)
            for j, g in enumerate(groups)
        ):
            continue
        own = tuple(sorted(c for c, h in zip(cards, homes, strict=True) if h == 0))
        if own not in memo:
            memo[own] = ref_min_leftover(own, wild, min_naturals, ratio, points)
        if best is None or memo[own] < best:
            best = memo[own]
    return best

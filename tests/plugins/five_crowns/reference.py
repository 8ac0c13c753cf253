"""Brute-force references for the Five Crowns solver: slow, simple and independent of it."""

from __future__ import annotations

import random
from functools import cache

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "C", "D", "T")
VALUE = {r: 3 + i for i, r in enumerate(RANKS)}


def points(card: str, wild: str) -> int:
    if card == "JK":
        return 50
    if card[:-1] == wild:
        return 20
    return VALUE[card[:-1]]


def ref_is_meld(cards, wild, min_naturals=0, ratio=None) -> bool:
    """Some assignment of the wilds makes a natural book or run (by trying every one)."""
    if len(cards) < 3:
        return False
    nat = [(VALUE[c[:-1]], c[-1]) for c in cards if c != "JK" and c[:-1] != wild]
    w = len(cards) - len(nat)
    if len(nat) < min_naturals or (ratio is not None and w > ratio * len(nat)):
        return False
    for rank in range(3, 14):  # a book of this rank
        if all(r == rank for r, _ in nat):
            return True
    for suit in SUITS:  # a run of this suit starting at lo
        for lo in range(3, 14):
            hi = lo + len(cards) - 1
            if hi > 13:
                break
            ranks = [r for r, s in nat if s == suit and lo <= r <= hi]
            if len(ranks) == len(nat) and len(set(ranks)) == len(ranks):
                return True
    return False


def ref_min_leftover(cards, wild, min_naturals=0, ratio=None) -> int:
    """Subset DP over every submask, each checked with ``ref_is_meld``."""
    cards = tuple(cards)
    n = len(cards)
    meld = [False] * (1 << n)
    for mask in range(1, 1 << n):
        if bin(mask).count("1") >= 3:
            meld[mask] = ref_is_meld(
                [cards[i] for i in range(n) if mask >> i & 1], wild, min_naturals, ratio
            )

    @cache
    def f(mask: int) -> int:
        if not mask:
            return 0
        low = mask & -mask
        i = low.bit_length() - 1
        best = points(cards[i], wild) + f(mask ^ low)
        rest = mask ^ low
        sub = rest
        while True:
            g = sub | low
            if meld[g]:
                best = min(best, f(mask ^ g))
            if not sub:
                break
            sub = (sub - 1) & rest
        return best

    return f((1 << n) - 1)


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


def ref_extend_ok(kind, meld_cards, lo, hi, suit, rank, added, wild, min_naturals=0, ratio=None):
    """Whether ``added`` can be laid off on a table meld, by trying every new interval."""

    def natural(c):
        return c != "JK" and c[:-1] != wild

    nat = [(VALUE[c[:-1]], c[-1]) for c in added if natural(c)]
    total_nat = len(nat) + sum(1 for c in meld_cards if natural(c))
    total_w = len(meld_cards) + len(added) - total_nat
    if total_nat < min_naturals or (ratio is not None and total_w > ratio * total_nat):
        return False
    if kind == "WILD":
        return not nat
    if kind == "BOOK":
        return all(r == rank for r, _ in nat)
    length = len(meld_cards) + len(added)
    for new_lo in range(3, lo + 1):
        new_hi = new_lo + length - 1
        if new_hi < hi or new_hi > 13:
            continue
        ranks = [r for r, s in nat if s == suit and new_lo <= r <= new_hi and not lo <= r <= hi]
        if len(ranks) == len(nat) and len(set(ranks)) == len(ranks):
            return True
    return False


def ref_min_leftover_table(cards, wild, table, min_naturals=0, ratio=None) -> int:
    """Every way to send each card to a table meld or keep it, then ``ref_min_leftover``.

    ``table``: tuples ``(kind, cards, lo, hi, suit, rank)``."""
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
            memo[own] = ref_min_leftover(own, wild, min_naturals, ratio)
        if best is None or memo[own] < best:
            best = memo[own]
    return best

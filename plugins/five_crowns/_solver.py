"""The exact meld partition of DECISIONS 1.4, fast enough for bots and hints.

A hand's naturals are one integer, a multiset: two bits (a count 0..2) per card at field
``f = (rank - 3) * 5 + suit``, so the lowest set bit is the lowest card, rank first. Wilds
are only counted: ``k`` left, ``t`` of them of the cheaper kind (by default the wild-rank
cards at 20 points; the rest are the dearer kind, by default 50-point jokers).
The search takes the lowest natural ``c`` left and either leaves it (its points), or makes
it the lowest card of a *core*, the naturals of one meld, which absorbs an interval
``[need, hi]`` of wilds. Each core takes its ``need`` at once; ``s``, the slack, counts how
many more the cores made so far could take. At the end the ``k`` wilds left go into the
slack, or form their own meld (3 or more, where all-wild melds stand), or are left over:
the cheapest ones, since the dearest are always the ones to use. Every wild stands for
any card, so which wilds a meld takes never changes what melds stand: the points table
(``CardPoints``, a house rule's) is a parameter of the search only through the natural
cards' costs and the two wild kinds' costs, and the search stays exact under any table.

Cores stay small, which keeps the search fast: a book of 6+ naturals is two books, and a
run whose naturals span 6+ ranks is two runs needing no more wilds and taking no fewer
(cut before the first natural at offset >= 3: ``max(a+1, 3) + max(S-b, 3) <= S``). So a
book core has at most 5 naturals and a run core spans at most 5 ranks, except where
``max_wilds_per_natural`` (or ``min_naturals`` above 1) forbids such cuts; then every run
core is tried. Results are memoized by (multiset, wilds, slack), across calls, in one
solver per meld limits and points table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from tablestate_five_crowns._melds import (
    JOKER,
    RANKS,
    STANDARD,
    SUITS,
    Arrangement,
    CardPoints,
    MeldLimits,
    hand_points,
    is_wild,
    make_meld,
    parse,
    sort_cards,
)

INF: Final = 1024  # "no limit": more than any hand has wilds (at most 255)
_MEMO_LIMIT: Final = 100_000
_SOLVER_LIMIT: Final = 16  # solvers kept for points tables other than the standard one
_SUIT_INDEX: Final = {s: i for i, s in enumerate(SUITS)}

Option = tuple[
    int, int, int
]  # (multiset to remove, relative to the core's lowest card), need, gain


def field_of(card: str) -> int:
    """The two-bit field of a natural card in the multiset integer."""
    parsed = parse(card)
    assert parsed is not None and parsed[1]
    return (parsed[0] - 3) * 5 + _SUIT_INDEX[parsed[1]]


def card_of(field: int) -> str:
    """The card string of a field."""
    return RANKS[field // 5] + SUITS[field % 5]


def encode(cards: Sequence[str], wild: str, points: CardPoints = STANDARD) -> tuple[int, list[str]]:
    """The naturals as a multiset integer, and the wilds, dearest first (jokers first
    among equals)."""
    multiset = 0
    wilds: list[str] = []
    for c in cards:
        if is_wild(c, wild):
            wilds.append(c)
        else:
            f = field_of(c) << 1
            if (multiset >> f) & 3 == 3:
                raise ValueError(f"more than 3 copies of {c}")
            multiset += 1 << f
    if len(wilds) > 255:
        raise ValueError("more than 255 wild cards")
    # the standard table's order needs no points (and, like the other helpers here, no
    # closure: a function whose variables a lambda captures pays for cells on every call)
    wilds.sort(key=_jokers_first if points is STANDARD else _dearest_first(points, wild))
    return multiset, wilds


def _jokers_first(card: str) -> tuple[bool, str]:
    return (card != JOKER, card)


def _dearest_first(points: CardPoints, wild: str) -> Callable[[str], tuple[int, bool, str]]:
    return lambda c: (-points.of(c, wild), c != JOKER, c)


def wild_costs(points: CardPoints) -> tuple[int, int]:
    """The points of the cheaper and of the dearer kind of wild (wild-rank card, joker)."""
    return min(points.wild, points.joker), max(points.wild, points.joker)


def cheap_wilds(wilds: Sequence[str], wild: str, points: CardPoints) -> int:
    """How many of ``wilds`` are of the cheaper kind (all of them when both cost the same)."""
    if points is STANDARD:
        return len(wilds) - wilds.count(JOKER)
    return _count_cheap(wilds, wild, points)


def _count_cheap(wilds: Sequence[str], wild: str, points: CardPoints) -> int:
    cheap = min(points.wild, points.joker)
    return sum(1 for c in wilds if points.of(c, wild) == cheap)


def leftover_cost(x: int, t: int, cheap: int = 20, dear: int = 50) -> int:
    """The points of the ``x`` cheapest of the wilds left, ``t`` of which cost ``cheap``
    (the others ``dear``)."""
    return cheap * x if x <= t else cheap * t + dear * (x - t)


class Solver:
    """The search for one set of meld limits and one points table; its tables and memo
    are shared by all calls."""

    def __init__(self, limits: MeldLimits, points: CardPoints = STANDARD) -> None:
        self.limits = limits
        self.points = points
        self.naturals = points.naturals  # by rank index: what leaving a natural costs
        self.cheap, self.dear = wild_costs(points)
        ratio = limits.max_wilds_per_natural
        self.ratio = ratio
        self.all_wild = limits.allows(0, 3)
        self.book_max = 5 if limits.min_naturals <= 3 else 10
        self.run_span = 5 if limits.min_naturals <= 1 and ratio is None else 11
        self._book: dict[int, tuple[Option, ...]] = {}
        self._run: dict[tuple[int, int], tuple[Option, ...]] = {}
        # keys are one int (multiset and counts packed) so the memo holds no GC-tracked
        # objects and stays cheap to keep and to clear
        self.memo: dict[int, int] = {}
        self.can_memo: dict[int, bool] = {}
        self.best = self._make_best()
        self.can = self._make_can()

    def _cap(self, naturals: int, hi: int) -> int:
        return hi if self.ratio is None else min(hi, self.ratio * naturals)

    def book_options(self, seg: int) -> tuple[Option, ...]:
        """Books with the lowest card: ``seg`` holds the other counts of its rank."""
        found = self._book.get(seg)
        if found is not None:
            return found
        subs = [(0, 0)]
        for suit in range(5):
            have = (seg >> (2 * suit)) & 3
            subs = [(m + (j << (2 * suit)), n + j) for m, n in subs for j in range(have + 1)]
        out = []
        for sub, extra in sorted(subs, key=lambda x: -x[1]):
            n = 1 + extra
            need = max(0, 3 - n)
            hi = self._cap(n, INF)
            if extra < self.book_max and n >= self.limits.min_naturals and need <= hi:
                out.append((sub, need, min(INF, hi - need)))
        self._book[seg] = result = tuple(out)
        return result

    def run_options(self, avail: int, span: int) -> tuple[Option, ...]:
        """Runs with the lowest card: bit ``q-1`` of ``avail`` says its suit has rank +q."""
        key = (avail, span)
        found = self._run.get(key)
        if found is not None:
            return found
        out = []
        sub = avail
        while sub:
            qs = [q + 1 for q in range(10) if sub >> q & 1]
            n = 1 + len(qs)
            width = qs[-1] + 1
            need = max(width, 3) - n
            hi = self._cap(n, 11 - n)
            if width <= span and n >= self.limits.min_naturals and need <= hi:
                out.append((sum(1 << (10 * q) for q in qs), need, hi - need))
            sub = (sub - 1) & avail
        out.sort(key=lambda o: o[1])
        self._run[key] = result = tuple(out)
        return result

    def avail(self, rest: int, field: int) -> tuple[int, int]:
        """The higher ranks of the field's suit present in ``rest``, within a run core."""
        rank = field // 5
        top = min(self.run_span, 11 - rank)
        x = rest >> (field << 1)
        bits = 0
        for q in range(1, top):
            if (x >> (10 * q)) & 3:
                bits |= 1 << (q - 1)
        return bits, top

    def _make_best(self) -> Callable[[int, int, int, int], int]:
        memo = self.memo
        all_wild = self.all_wild
        book_options, run_options, avail = self.book_options, self.run_options, self.avail
        naturals, cheap, dear = self.naturals, self.cheap, self.dear

        def best(m: int, k: int, t: int, s: int) -> int:
            if not m:
                if k <= s or (all_wild and k >= 3):
                    return 0
                x = k - s  # the x cheapest wilds are left (leftover_cost, inlined)
                return cheap * x if x <= t else cheap * t + dear * (x - t)
            key = (((m << 8 | k) << 8 | t) << 8) | s
            res = memo.get(key)
            if res is not None:
                return res
            low = m & -m
            f = (low.bit_length() - 1) >> 1
            unit = 1 << (f << 1)
            m1 = m - unit
            rank = f // 5
            res = naturals[rank] + best(m1, k, t, s)
            base = 10 * rank
            for sub, need, gain in book_options((m1 >> base) & 1023):
                if need <= k:
                    k2 = k - need
                    s2 = s + gain
                    v = best(m1 - (sub << base), k2, t if t < k2 else k2, s2 if s2 < k2 else k2)
                    if v < res:
                        res = v
                        if not v:
                            break
            if res:
                bits, top = avail(m1, f)
                if bits:
                    for mult, need, gain in run_options(bits, top):
                        if need <= k:
                            k2 = k - need
                            s2 = s + gain
                            v = best(m1 - unit * mult, k2, t if t < k2 else k2, min(s2, k2))
                            if v < res:
                                res = v
                                if not v:
                                    break
            if len(memo) > _MEMO_LIMIT:
                memo.clear()
            memo[key] = res
            return res

        return best

    def _make_can(self) -> Callable[[int, int, int], bool]:
        memo = self.can_memo
        all_wild = self.all_wild
        book_options, run_options, avail = self.book_options, self.run_options, self.avail

        def can(m: int, k: int, s: int) -> bool:
            if not m:
                return k <= s or (all_wild and k >= 3)
            key = ((m << 8 | k) << 8) | s
            res = memo.get(key)
            if res is not None:
                return res
            low = m & -m
            f = (low.bit_length() - 1) >> 1
            unit = 1 << (f << 1)
            m1 = m - unit
            base = 10 * (f // 5)
            res = False
            for sub, need, gain in book_options((m1 >> base) & 1023):
                if need <= k:
                    k2 = k - need
                    if can(m1 - (sub << base), k2, min(s + gain, k2)):
                        res = True
                        break
            if not res:
                bits, top = avail(m1, f)
                if bits:
                    for mult, need, gain in run_options(bits, top):
                        if need <= k:
                            k2 = k - need
                            if can(m1 - unit * mult, k2, min(s + gain, k2)):
                                res = True
                                break
            if len(memo) > _MEMO_LIMIT:
                memo.clear()
            memo[key] = res
            return res

        return can

    def choices(self, m: int) -> list[tuple[str, tuple[int, ...], int, int, int]]:
        """Every core with the lowest card of ``m``: (kind, fields, need, gain, rest)."""
        f = ((m & -m).bit_length() - 1) >> 1
        unit = 1 << (f << 1)
        m1 = m - unit
        base = 10 * (f // 5)
        out = []
        for sub, need, gain in self.book_options((m1 >> base) & 1023):
            fields = [f] + [
                (f // 5) * 5 + su for su in range(5) for _ in range((sub >> (2 * su)) & 3)
            ]
            out.append(("BOOK", tuple(fields), need, gain, m1 - (sub << base)))
        bits, top = self.avail(m1, f)
        if bits:
            for mult, need, gain in self.run_options(bits, top):
                fields = [f] + [f + 5 * q for q in range(1, 11) if (mult >> (10 * q)) & 1]
                out.append(("RUN", tuple(fields), need, gain, m1 - unit * mult))
        return out


_SOLVERS: dict[tuple[MeldLimits, CardPoints], Solver] = {}
_STANDARD: dict[MeldLimits, Solver] = {}  # the same solvers by limits: one hash less


def solver(limits: MeldLimits, points: CardPoints = STANDARD) -> Solver:
    """The shared solver of one set of limits and one points table (the standard one by
    default; whether a hand melds completely does not depend on the points)."""
    if points is STANDARD:
        found = _STANDARD.get(limits)
        if found is not None:
            return found
    key = (limits, points)
    found = _SOLVERS.get(key)
    if found is None:
        if points == STANDARD:  # kept for good, as before points tables existed
            found = _STANDARD[limits] = Solver(limits, STANDARD)
        else:  # the oldest other table's goes: tables come from house rules
            tables = [k for k in _SOLVERS if k[1] != STANDARD]
            if len(tables) >= _SOLVER_LIMIT:
                del _SOLVERS[tables[0]]
            found = Solver(limits, points)
        _SOLVERS[key] = found
    return found


def min_points(
    cards: Sequence[str], wild: str, limits: MeldLimits, points: CardPoints = STANDARD
) -> int:
    """``rules.min_leftover``."""
    multiset, wilds = encode(cards, wild, points)
    cheap = cheap_wilds(wilds, wild, points)
    return solver(limits, points).best(multiset, len(wilds), cheap, 0)


def meld_all(cards: Sequence[str], wild: str, limits: MeldLimits) -> bool:
    """``rules.can_meld_all``."""
    multiset, wilds = encode(cards, wild)
    return solver(limits).can(multiset, len(wilds), 0)


def out_discards(hand: Sequence[str], wild: str, limits: MeldLimits) -> tuple[str, ...]:
    """``rules.go_out_discards``."""
    multiset, wilds = encode(hand, wild)
    can = solver(limits).can
    out = []
    for card in sort_cards(set(hand)):
        if is_wild(card, wild):
            ok = can(multiset, len(wilds) - 1, 0)
        else:
            ok = can(multiset - (1 << (field_of(card) << 1)), len(wilds), 0)
        if ok:
            out.append(card)
    return tuple(out)


def _trace(
    sv: Solver, m: int, k: int, t: int, s: int
) -> tuple[list[tuple[str, tuple[int, ...], int, int]], list[int], int, int]:
    """Follow the memo down one best path: cores, naturals left, wilds and slack at the end."""
    cores: list[tuple[str, tuple[int, ...], int, int]] = []
    left: list[int] = []
    while m:
        target = sv.best(m, k, t, s)
        f = ((m & -m).bit_length() - 1) >> 1
        rest = m - (1 << (f << 1))
        if sv.naturals[f // 5] + sv.best(rest, k, t, s) == target:
            left.append(f)
            m = rest
            continue
        for kind, fields, need, gain, after in sv.choices(m):
            if need > k:
                continue
            k2 = k - need
            t2, s2 = min(t, k2), min(s + gain, k2)
            if sv.best(after, k2, t2, s2) == target:
                cores.append((kind, fields, need, gain))
                m, k, t, s = after, k2, t2, s2
                break
        else:  # pragma: no cover - the memo always holds one of the options
            raise AssertionError("solver trace lost its way")
    return cores, left, k, s


def arrange(
    cards: Sequence[str], wild: str, limits: MeldLimits, points: CardPoints = STANDARD
) -> Arrangement:
    """``rules.best_arrangement`` with no melds on the table (``_layoff`` does it with)."""
    sv = solver(limits, points)
    multiset, wilds = encode(cards, wild, points)
    cores, left, k, s = _trace(sv, multiset, len(wilds), cheap_wilds(wilds, wild, points), 0)
    groups = [[card_of(f) for f in fields] for _, fields, _, _ in cores]
    room = [gain for _, _, _, gain in cores]
    pool = list(wilds)
    for group, (_, _, need, _) in zip(groups, cores, strict=True):
        group.extend(pool.pop(0) for _ in range(need))
    extra = k if k <= s else (0 if sv.all_wild and k >= 3 else s)
    for i, group in enumerate(groups):
        take = min(extra, room[i])
        group.extend(pool.pop(0) for _ in range(take))
        extra -= take
    if pool and sv.all_wild and len(pool) >= 3 and k > s:
        groups.append(pool)
        pool = []
    melds = []
    for group in groups:
        meld = make_meld(group, wild, limits)
        assert meld is not None, group
        melds.append(meld)
    leftover = sort_cards([card_of(f) for f in left] + pool)
    return Arrangement(tuple(melds), (), leftover, hand_points(leftover, wild, points))

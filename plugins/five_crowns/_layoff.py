"""The exact leftover when cards may also be laid off on the table's melds (house rule).

The same search as ``_solver``, with three more homes for the lowest natural ``c``: a
book of its rank on the table (no limit, so one card at a time will do), or, once per
table run of its suit, a set of naturals of that suit (``c`` the lowest) that make one
run with the run's cards, exactly as ``rules.extend_meld`` lays them: a run is the set of
its cards, its naturals keep their ranks and its wilds stand wherever the grown run needs
them, so a natural may take a rank a wild stood for. A table book or all-wild meld also
takes any number of wilds (unless the meld limits say otherwise) and a run takes wilds
up to 11 cards, so the slack starts with the table's room. Table melds differ at every
call, so this memo lives for one call only. Points come from the solver's table, as
there.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablestate_five_crowns._melds import (
    BOOK,
    STANDARD,
    SUITS,
    WILD,
    Arrangement,
    CardPoints,
    LayOff,
    Meld,
    MeldLimits,
    extend_meld,
    hand_points,
    is_wild,
    make_meld,
    parse,
    sort_cards,
)
from tablestate_five_crowns._solver import (
    INF,
    Solver,
    card_of,
    cheap_wilds,
    encode,
    leftover_cost,
    solver,
)

Step = tuple[str, int, tuple[int, ...], int, int]  # (what, table index, fields, need, room)


class TableSearch:
    """One minimum-leftover search with lay-offs on ``table``."""

    def __init__(
        self, sv: Solver, cards: Sequence[str], wild: str, table: tuple[Meld, ...]
    ) -> None:
        self.sv, self.wild, self.table = sv, wild, table
        self.inf = INF
        self.multiset, self.wilds = encode(cards, wild, sv.points)
        self.card_of = card_of
        self.leftover_cost = leftover_cost
        self.room: list[int] = []  # wilds each table meld can still take
        self.books: dict[int, int] = {}  # rank index -> table index
        # index, suit, ranks of its naturals (a bitmask of rank - 3), naturals, wilds
        self.runs: list[tuple[int, int, int, int, int]] = []
        for i, meld in enumerate(table):
            nat = meld.naturals(wild)
            w = len(meld.cards) - nat
            if meld.kind == BOOK:
                assert meld.rank is not None
                self.books.setdefault(meld.rank - 3, i)
                self.room.append(self._cap(nat, self.inf) - w)
            elif meld.kind == WILD:
                self.room.append(self.inf if sv.limits.allows(0, w + 1) else 0)
            else:
                assert meld.suit is not None
                held = 0
                for c in meld.cards:
                    parsed = parse(c)
                    if not is_wild(c, wild) and parsed is not None:
                        held |= 1 << (parsed[0] - 3)
                self.runs.append((i, SUITS.index(meld.suit), held, nat, w))
                self.room.append(min(11 - len(meld.cards), self._cap(nat, self.inf) - w))
        self.s0 = min(self.inf, sum(r for i, r in enumerate(self.room) if i not in self._run_ix()))
        self.memo: dict[tuple[int, int, int, int, tuple[int, ...]], int] = {}

    def _run_ix(self) -> set[int]:
        return {r[0] for r in self.runs}

    def _cap(self, naturals: int, hi: int) -> int:
        ratio = self.sv.ratio
        return hi if ratio is None else min(hi, ratio * naturals)

    def _book_gain(self) -> int:
        return self.inf if self.sv.ratio is None else self.sv.ratio

    def steps(self, m: int, k: int, used: tuple[int, ...]) -> list[tuple[Step, int]]:
        """Every home for the lowest card of ``m`` (with the multiset left after it)."""
        f = ((m & -m).bit_length() - 1) >> 1
        rank, suit = f // 5, f % 5
        m1 = m - (1 << (f << 1))
        out: list[tuple[Step, int]] = [(("leave", -1, (f,), 0, 0), m1)]
        for kind, fields, need, gain, after in self.sv.choices(m):
            if need <= k:
                out.append(((kind, -1, fields, need, gain), after))
        if rank in self.books:
            out.append((("book", self.books[rank], (f,), 0, self._book_gain()), m1))
        for j, (index, rsuit, held, nat, w) in enumerate(self.runs):
            if used[j] >= 0 or rsuit != suit or held >> rank & 1:
                continue
            higher = [
                q
                for q in range(rank + 1, 11)
                if not held >> q & 1 and (m1 >> (2 * (q * 5 + suit))) & 3
            ]
            lo, hi = (held & -held).bit_length() - 1, held.bit_length() - 1
            for pick in range(1 << len(higher)):
                ranks = [rank] + [q for b, q in enumerate(higher) if pick >> b & 1]
                naturals = nat + len(ranks)
                span = max(hi, ranks[-1]) - min(lo, ranks[0]) + 1
                need = max(0, span - naturals - w)  # the old wilds fill gaps first
                length = naturals + w + need
                room = min(11 - length, self._cap(naturals, self.inf) - w - need)
                if room < 0 or need > k:
                    continue
                fields = tuple(q * 5 + suit for q in ranks)
                rest = m - sum(1 << (2 * x) for x in fields)
                out.append((("run", index, fields, need, room), rest))
        return out

    def _after(
        self, step: Step, k: int, s: int, used: tuple[int, ...]
    ) -> tuple[int, int, tuple[int, ...]]:
        what, index, _, need, room = step
        k2 = k - need
        if what == "run":
            j = next(j for j, r in enumerate(self.runs) if r[0] == index)
            used = (*used[:j], min(room, k2), *used[j + 1 :])
            return k2, min(s, k2), used
        if what == "leave":
            return k2, s, used
        return k2, min(s + room, k2), used

    def best(self, m: int, k: int, t: int, s: int, used: tuple[int, ...]) -> int:
        """The fewest points left of naturals ``m`` and ``k`` wilds (``t`` worth 20)."""
        if not m:
            room = s + sum(
                self.room[r[0]] if u < 0 else u for r, u in zip(self.runs, used, strict=True)
            )
            if k <= room or (self.sv.all_wild and k >= 3):
                return 0
            return self.leftover_cost(k - room, t, self.sv.cheap, self.sv.dear)
        key = (m, k, t, s, used)
        found = self.memo.get(key)
        if found is not None:
            return found
        res = self.inf * 1000
        for step, rest in self.steps(m, k, used):
            k2, s2, used2 = self._after(step, k, s, used)
            cost = self.sv.naturals[step[2][0] // 5] if step[0] == "leave" else 0
            res = min(res, cost + self.best(rest, k2, min(t, k2), s2, used2))
            if not res:
                break
        self.memo[key] = res
        return res

    def arrangement(self) -> Arrangement:
        """The best arrangement: own melds, lay-offs and the leftover."""
        m, k = self.multiset, len(self.wilds)
        t = cheap_wilds(self.wilds, self.wild, self.sv.points)
        s, used = self.s0, tuple(-1 for _ in self.runs)
        plan: list[Step] = []
        while m:
            target = self.best(m, k, t, s, used)
            for step, rest in self.steps(m, k, used):
                k2, s2, used2 = self._after(step, k, s, used)
                cost = self.sv.naturals[step[2][0] // 5] if step[0] == "leave" else 0
                if cost + self.best(rest, k2, min(t, k2), s2, used2) == target:
                    plan.append(step)
                    m, k, t, s, used = rest, k2, min(t, k2), s2, used2
                    break
            else:  # pragma: no cover - the memo always holds one of the steps
                raise AssertionError("lay-off trace lost its way")
        return self._build(plan, k, s, used)

    def _build(self, plan: list[Step], k: int, s: int, used: tuple[int, ...]) -> Arrangement:
        pool = list(self.wilds)
        own: list[tuple[list[str], int]] = []  # cards, room left
        laid: dict[int, list[str]] = {}
        room = list(self.room)
        for j, r in enumerate(self.runs):
            if used[j] >= 0:
                room[r[0]] = used[j]
        left: list[str] = []
        for what, index, fields, need, gain in plan:
            cards = [self.card_of(f) for f in fields] + [pool.pop(0) for _ in range(need)]
            if what == "leave":
                left.extend(cards)
            elif what in ("BOOK", "RUN"):
                own.append((cards, gain))
            else:
                laid.setdefault(index, []).extend(cards)
                if what == "book":
                    room[index] = min(self.inf, room[index] + gain)
        total = s + sum(room[r[0]] for r in self.runs)
        extra = k if k <= total else (0 if self.sv.all_wild and k >= 3 else total)
        for cards, gain in own:
            take = min(extra, gain)
            cards.extend(pool.pop(0) for _ in range(take))
            extra -= take
        for index in range(len(self.table)):
            take = min(extra, max(0, room[index]))
            if take:
                laid.setdefault(index, []).extend(pool.pop(0) for _ in range(take))
                extra -= take
        melds = [make_meld(cards, self.wild, self.sv.limits) for cards, _ in own]
        if pool and self.sv.all_wild and len(pool) >= 3 and k > total:
            melds.append(make_meld(pool, self.wild, self.sv.limits))
            pool = []
        lay_offs = []
        for index in sorted(laid):
            given = tuple(laid[index])
            assert extend_meld(self.table[index], given, self.wild, self.sv.limits) is not None
            lay_offs.append(LayOff(index, given))
        assert all(m is not None for m in melds)
        leftover = sort_cards(left + pool)
        return Arrangement(
            tuple(m for m in melds if m is not None),
            tuple(lay_offs),
            leftover,
            hand_points(leftover, self.wild, self.sv.points),
        )


def arrange(
    cards: Sequence[str],
    wild: str,
    limits: MeldLimits,
    table: tuple[Meld, ...],
    points: CardPoints = STANDARD,
) -> Arrangement:
    """``rules.best_arrangement`` with lay-offs on the ``table`` melds."""
    return TableSearch(solver(limits, points), cards, wild, table).arrangement()

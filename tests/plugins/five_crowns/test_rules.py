"""The rules library, table-driven: DECISIONS.md §1 (worked checks, FC-*), and the exact
solver against brute force."""

from __future__ import annotations

import itertools
import random

import pytest

from tablestate_five_crowns import rules
from tablestate_five_crowns.rules import MeldLimits

from .reference import (
    RANKS,
    SUITS,
    random_hand,
    ref_extend_ok,
    ref_is_meld,
    ref_leftovers,
    ref_min_leftover,
    ref_min_leftover_table,
    suited_hand,
)

NAT = MeldLimits(min_naturals=1)
RATIO = MeldLimits(min_naturals=1, max_wilds_per_natural=1)


@pytest.mark.parametrize(
    "card, wild, points",
    [
        pytest.param("3S", "K", 3, id="three"),
        pytest.param("10H", "K", 10, id="ten"),
        pytest.param("JD", "K", 11, id="jack"),
        pytest.param("QC", "K", 12, id="queen"),
        pytest.param("KT", "Q", 13, id="king"),
        pytest.param("KT", "K", 20, id="wild-king"),
        pytest.param("7C", "7", 20, id="wild-seven"),
        pytest.param("JK", "3", 50, id="joker"),
    ],
)
def test_card_points(card, wild, points):
    assert rules.card_points(card, wild) == points


@pytest.mark.parametrize(
    "cards, points",
    [
        pytest.param(["KS", "5H", "7C"], 38, id="ben"),
        pytest.param(["JK", "3D", "9S"], 62, id="cy"),
        pytest.param(["JH", "10D", "4C"], 25, id="dee"),
        pytest.param([], 0, id="ana-went-out"),
    ],
)
def test_worked_example_leftovers(cards, points):
    """Seed's round 5 (7s wild): the leftovers score 38, 62, 25 and 0, and none melds."""
    assert rules.hand_points(cards, "7") == points
    assert rules.min_leftover(cards, "7") == points


def test_worked_example_totals():
    before = [40, 31, 47, 35]
    round_points = [0, 38, 62, 25]
    assert [b + p for b, p in zip(before, round_points, strict=True)] == [40, 69, 109, 60]


@pytest.mark.parametrize(
    "cards, wild, kind",
    [
        pytest.param(["9D", "7C", "JD"], "7", rules.RUN, id="official-9D-7C-JD"),
        pytest.param(["6D", "7T", "7H", "9D"], "7", rules.RUN, id="official-6D-7T-7H-9D"),
        pytest.param(["8S", "QS", "QH"], "8", rules.BOOK, id="official-8S-QS-QH"),
    ],
)
def test_official_meld_examples(cards, wild, kind):
    meld = rules.make_meld(cards, wild)
    assert meld is not None and meld.kind == kind
    assert rules.is_meld(cards, wild)


@pytest.mark.parametrize(
    "cards, wild, limits, ok",
    [
        pytest.param(["8H", "8S", "8C"], "K", {}, True, id="book"),
        pytest.param(["8H", "8H", "8S"], "K", {}, True, id="book-twins"),
        pytest.param(["KS", "KD", "KH", "KH"], "Q", {}, True, id="book-of-four-twins"),
        pytest.param(["5C", "6C", "7C"], "K", {}, True, id="run"),
        pytest.param(["9T", "10T", "JT", "QT"], "K", {}, True, id="run-stars"),
        pytest.param(["5C", "6C", "6C", "7C"], "K", {}, False, id="FC-9-twin-in-run"),
        pytest.param(["QH", "KH", "3H"], "5", {}, False, id="no-wrap"),
        pytest.param(["5C", "6D", "7C"], "K", {}, False, id="two-suits"),
        pytest.param(["5C", "5D"], "K", {}, False, id="two-cards"),
        pytest.param(["5C", "JK", "JK"], "K", {}, True, id="one-natural"),
        pytest.param(["JK", "JK", "JK"], "K", {}, True, id="FC-6-all-wild"),
        pytest.param(["JK", "JK", "KS"], "K", {}, True, id="FC-6-all-wild-with-wild-rank"),
        pytest.param(["JK", "JK", "JK"], "K", {"min_naturals": 1}, False, id="natural-required"),
        pytest.param(["7C", "7H", "7S"], "7", {}, True, id="FC-7-three-sevens"),
        pytest.param(["7C", "7H", "7S"], "7", {"min_naturals": 1}, False, id="FC-7-all-wild"),
        pytest.param(["7C", "7H", "7S"], "8", {"min_naturals": 1}, True, id="FC-7-natural-sevens"),
        pytest.param(
            ["5C", "JK", "JK"], "K", {"max_wilds_per_natural": 1}, False, id="ratio-2-to-1"
        ),
        pytest.param(
            ["5C", "5D", "JK"], "K", {"max_wilds_per_natural": 1}, True, id="ratio-1-to-2"
        ),
        pytest.param(["3H", "JK", "JK", "JK", "7H"], "K", {}, True, id="wilds-side-by-side"),
        pytest.param(["3H", "KH"] + ["JK"] * 9, "Q", {}, True, id="FC-9-eleven-long"),
        pytest.param(["3H", "QH"] + ["JK"] * 9, "K", {}, True, id="eleven-with-extra-wild"),
        pytest.param(["3H", "QH"] + ["JK"] * 10, "K", {}, False, id="FC-9-twelve-too-long"),
        pytest.param(["3H", "JH"] + ["JK"] * 2, "K", {}, False, id="gap-too-wide"),
        pytest.param(["XX", "5H", "6H"], "K", {}, False, id="not-a-card"),
    ],
)
def test_is_meld(cards, wild, limits, ok):
    assert rules.is_meld(cards, wild, **limits) is ok
    assert ref_is_meld(
        cards if "XX" not in cards else ["5H"],
        wild,
        limits.get("min_naturals", 0),
        limits.get("max_wilds_per_natural"),
    ) is (ok if "XX" not in cards else False)


@pytest.mark.parametrize(
    "cards, wild, lo, hi, placed",
    [
        pytest.param(["5H", "7H", "JK"], "K", 5, 7, ["5H", "JK", "7H"], id="fill-gap"),
        pytest.param(["5H", "6H", "JK"], "K", 5, 7, ["5H", "6H", "JK"], id="extend-up"),
        pytest.param(
            ["JH", "QH", "JK", "JK"], "5", 10, 13, ["JK", "JH", "QH", "JK"], id="up-then-down"
        ),
        pytest.param(["QH", "KH", "JK"], "5", 11, 13, ["JK", "QH", "KH"], id="from-king-down"),
    ],
)
def test_FC_10_run_placement(cards, wild, lo, hi, placed):
    meld = rules.make_meld(cards, wild)
    assert meld is not None and meld.kind == rules.RUN
    assert (meld.lo, meld.hi) == (lo, hi)
    assert [("JK" if c == "JK" else c) for c in meld.cards] == placed


def test_one_natural_makes_a_book():
    meld = rules.make_meld(["KH", "JK", "JK"], "5")
    assert meld is not None and meld.kind == rules.BOOK and meld.rank == 13


def test_FC_11_all_wild_kind():
    meld = rules.make_meld(["JK", "KS", "JK"], "K")
    assert meld is not None and meld.kind == rules.WILD
    assert rules.extend_meld(meld, ["JK"], "K") is not None
    assert rules.extend_meld(meld, ["5H"], "K") is None


@pytest.mark.parametrize(
    "meld, add, wild, result",
    [
        pytest.param(["5H", "6H", "7H"], ["8H"], "K", (5, 8), id="natural-high"),
        pytest.param(["5H", "6H", "7H"], ["4H"], "K", (4, 7), id="natural-low"),
        pytest.param(["5H", "6H", "7H"], ["9H"], "K", None, id="not-adjacent"),
        pytest.param(["5H", "6H", "7H"], ["9H", "JK"], "K", (5, 9), id="natural-and-wild"),
        pytest.param(["5H", "6H", "7H"], ["6H"], "K", None, id="rank-taken"),
        pytest.param(["5H", "6H", "7H"], ["8S"], "K", None, id="wrong-suit"),
        pytest.param(["5H", "6H", "7H"], ["JK"], "K", (5, 8), id="wild-high-end"),
        pytest.param(["JH", "QH", "KH"], ["JK"], "5", (10, 13), id="wild-low-end-at-king"),
        pytest.param(["3H", "KH"] + ["JK"] * 9, ["JK"], "Q", None, id="run-of-eleven-full"),
        pytest.param(["5H", "6H", "JK"], ["7H"], "K", (5, 8), id="wild-moves-for-a-natural"),
        pytest.param(["8H", "9H", "JK"], ["10H"], "4", (8, 11), id="issue-17-round-two"),
        pytest.param(["QH", "KH", "JK"], ["JH"], "5", (10, 13), id="wild-moves-below-the-jack"),
        pytest.param(["JK", "6H", "7H"], ["5H"], "K", (5, 8), id="wild-moves-up-for-a-low-card"),
        pytest.param(["5H", "JK", "7H"], ["6H"], "K", (5, 8), id="gap-wild-moves-out"),
        pytest.param(["5H", "JK", "7H"], ["6H", "8H"], "K", (5, 9), id="gap-wild-moves-two"),
        pytest.param(["5H", "JK", "JK", "8H"], ["6H", "7H"], "K", (5, 10), id="both-wilds-move"),
        pytest.param(["5H", "6H", "JK"], ["5H"], "K", None, id="natural-rank-stays-taken"),
        pytest.param(["5H", "6H", "JK"], ["9H"], "K", None, id="too-far-even-moving-the-wild"),
        pytest.param(["5H", "6H", "JK"], ["8H"], "K", (5, 8), id="wild-fills-the-gap-it-made"),
        pytest.param(["8H", "JK", "JK"], ["9H"], "K", None, id="one-natural-book-is-no-run"),
        pytest.param(["8S", "8H", "8C"], ["8D", "JK"], "K", "BOOK", id="book"),
        pytest.param(["8S", "8H", "8C"], ["9D"], "K", None, id="book-wrong-rank"),
    ],
)
def test_extend_meld(meld, add, wild, result):
    base = rules.make_meld(meld, wild)
    assert base is not None
    grown = rules.extend_meld(base, add, wild)
    if result is None:
        assert grown is None
    elif result == "BOOK":
        assert grown is not None and grown.kind == rules.BOOK and len(grown.cards) == 5
    else:
        assert grown is not None and (grown.lo, grown.hi) == result
    assert ref_extend_ok(base.kind, base.cards, add, wild) is (grown is not None)
    if grown is not None:
        assert sorted(grown.cards) == sorted(base.cards + tuple(add))
        assert rules.make_meld(grown.cards, wild) == grown  # the same meld, normalized


def test_extend_meld_respects_limits():
    base = rules.make_meld(["5H", "6H", "JK"], "K", RATIO)
    assert base is not None
    assert rules.extend_meld(base, ["JK"], "K", RATIO) is not None
    assert rules.extend_meld(base, ["JK", "JK"], "K", RATIO) is None
    assert rules.extend_meld(base, ["8H", "JK", "JK"], "K", RATIO) is not None


@pytest.mark.parametrize(
    "cards, wild, limits, points",
    [
        pytest.param(["3H", "4H", "JK", "9S", "9D"], "7", {}, 7, id="greedy-wild-fails"),
        pytest.param(["3H", "4H", "5H", "6H", "6S", "6D"], "K", {}, 0, id="run-and-book"),
        pytest.param(["3H", "4H", "5H", "5S", "5D"], "K", {}, 7, id="shared-five-book-wins"),
        pytest.param(["JK", "JK"], "K", {}, 100, id="two-jokers-alone"),
        pytest.param(["JK", "KS", "9H"], "K", {}, 0, id="one-natural-two-wilds"),
        pytest.param(["JK", "KS", "9H"], "K", {"min_naturals": 1}, 0, id="natural-required-ok"),
        pytest.param(
            ["JK", "KS", "KD"], "K", {"min_naturals": 1}, 90, id="natural-required-all-wild"
        ),
        pytest.param(
            ["JK", "KS", "9H"], "K", {"max_wilds_per_natural": 1}, 79, id="ratio-cheapest-left"
        ),
        pytest.param(["8H", "9H", "10H", "JK", "JK", "KS", "KD"], "K", {}, 0, id="wilds-dumped"),
        pytest.param(["8H", "8S", "8C", "QD", "QS", "QC"], "5", {}, 0, id="FC-15-six-meld"),
    ],
)
def test_min_leftover(cards, wild, limits, points):
    assert rules.min_leftover(cards, wild, **limits) == points
    best = rules.best_arrangement(
        cards, wild, MeldLimits(limits.get("min_naturals", 0), limits.get("max_wilds_per_natural"))
    )
    assert best.points == points


def test_FC_15_melding_all_is_not_going_out():
    hand = ["8H", "8S", "8C", "QD", "QS", "QC"]
    assert rules.can_meld_all(hand, "5")
    assert not any(rules.can_go_out(hand, "5", d) for d in hand)
    assert rules.go_out_discards(hand, "5") == ()


@pytest.mark.parametrize(
    "hand, wild, discard, ok",
    [
        pytest.param(["5H", "6H", "7H", "KS"], "3", "KS", True, id="run-plus-discard"),
        pytest.param(["5H", "6H", "7H", "KS"], "3", "5H", False, id="wrong-discard"),
        pytest.param(["5H", "6H", "7H", "7H"], "3", "7H", True, id="playable-discard"),
        pytest.param(["JK", "JK", "3S", "QD"], "3", "QD", True, id="FC-6-all-wild-out"),
        pytest.param(["5H", "6H", "7H", "KS"], "3", "9C", False, id="discard-not-held"),
    ],
)
def test_can_go_out(hand, wild, discard, ok):
    assert rules.can_go_out(hand, wild, discard) is ok


def test_go_out_all_wild_needs_natural_with_house_rule():
    hand = ["JK", "JK", "3S", "QD"]
    assert not rules.can_go_out(hand, "3", "QD", min_naturals=1)


def test_meld_limits_combine():
    assert MeldLimits().combine(NAT) == NAT
    assert NAT.combine(RATIO) == RATIO
    assert MeldLimits(0, 2).combine(MeldLimits(0, 1)) == MeldLimits(0, 1)


@pytest.mark.parametrize(
    "card, parsed",
    [
        pytest.param("10H", (10, "H"), id="ten"),
        pytest.param("KT", (13, "T"), id="king-stars"),
        pytest.param("JK", (0, ""), id="joker"),
        pytest.param("1H", None, id="no-ones"),
        pytest.param("AS", None, id="no-aces"),
        pytest.param("5X", None, id="bad-suit"),
        pytest.param("", None, id="empty"),
    ],
)
def test_parse(card, parsed):
    assert rules.parse(card) == parsed


def test_deck():
    assert len(rules.deck()) == 116 and rules.deck().count("JK") == 6
    assert len(rules.deck(1)) == 58 and rules.deck(1).count("7T") == 1
    assert [rules.wild_rank(n) for n in (3, 10, 13)] == ["3", "10", "K"]


LIMITS = [(0, None), (1, None), (0, 1), (1, 1)]


def _random_case(rng: random.Random, size: int) -> tuple[list[str], str]:
    wild = rng.choice(RANKS)
    kind = rng.random()
    if kind < 0.35:
        return random_hand(rng, size, wild), wild
    if kind < 0.7:
        return random_hand(rng, size, wild, 0.3), wild
    return suited_hand(rng, size, wild, rng.randint(1, 2)), wild


def test_exact_against_brute_force():
    """3000 random hands of 3 to 9 cards, each under the 4 sets of meld limits: the
    solver, its arrangement and the full-meld test agree with a subset DP over every
    submask (``reference.py``)."""
    rng = random.Random(2024)
    for _ in range(3000):
        hand, wild = _random_case(rng, rng.randint(3, 9))
        for mn, ratio in LIMITS:
            expect = ref_min_leftover(hand, wild, mn, ratio)
            assert (
                rules.min_leftover(hand, wild, min_naturals=mn, max_wilds_per_natural=ratio)
                == expect
            ), (hand, wild, mn, ratio)
            assert rules.can_meld_all(hand, wild, min_naturals=mn, max_wilds_per_natural=ratio) is (
                expect == 0
            )
            best = rules.best_arrangement(hand, wild, MeldLimits(mn, ratio))
            laid = [c for m in best.melds for c in m.cards]
            assert sorted(laid + list(best.leftover)) == sorted(hand)
            assert best.points == expect
            assert all(ref_is_meld(m.cards, wild, mn, ratio) for m in best.melds)


def test_can_go_out_against_brute_force():
    """1500 random hands after the draw (4 to 10 cards), every discard, under the 4 sets
    of meld limits: ``can_go_out`` and ``go_out_discards`` say yes exactly when the
    reference melds the other cards completely."""
    rng = random.Random(4048)
    for _ in range(1500):
        hand, wild = _random_case(rng, rng.randint(4, 10))
        for mn, ratio in LIMITS:
            kw = {"min_naturals": mn, "max_wilds_per_natural": ratio}
            left = ref_leftovers(hand, wild, mn, ratio)
            outs = []
            for d in rules.sort_cards(set(hand)):
                ok = left(((1 << len(hand)) - 1) ^ (1 << hand.index(d))) == 0
                assert rules.can_go_out(hand, wild, d, **kw) is ok, (hand, wild, d, mn, ratio)
                if ok:
                    outs.append(d)
            assert rules.go_out_discards(hand, wild, MeldLimits(mn, ratio)) == tuple(outs)


def test_go_out_discards_match_can_go_out():
    rng = random.Random(7)
    for _ in range(200):
        hand, wild = _random_case(rng, rng.randint(4, 14))
        wild = "K"
        listed = rules.go_out_discards(hand, wild)
        assert listed == tuple(
            d for d in rules.sort_cards(set(hand)) if rules.can_go_out(hand, wild, d)
        )


def test_round_eleven_turns_against_brute_force():
    """Whole round-11 turns (14 cards, K wild), ordinary and wild-heavy: the 13-card
    leftover and every discard's going out, under the 4 sets of meld limits, against the
    reference (2^14 submasks each, so only a few dozen hands)."""
    rng = random.Random(1111)
    for i in range(24):
        hand = random_hand(rng, 14, "K", (0.0, 0.15, 0.3)[i % 3])
        full = (1 << 14) - 1
        for mn, ratio in LIMITS:
            kw = {"min_naturals": mn, "max_wilds_per_natural": ratio}
            left = ref_leftovers(hand, "K", mn, ratio)
            assert rules.min_leftover(hand[:13], "K", **kw) == left(full >> 1), (hand, mn, ratio)
            for d in set(hand):
                ok = left(full ^ (1 << hand.index(d))) == 0
                assert rules.can_go_out(hand, "K", d, **kw) is ok, (hand, d, mn, ratio)


def _table(rng: random.Random, wild: str, limits: MeldLimits) -> list[rules.Meld]:
    out: list[rules.Meld] = []
    for _ in range(rng.randint(1, 3)):
        n = rng.randint(3, 6)
        kind = rng.random()
        if kind < 0.4:
            rank = rng.choice([r for r in RANKS if r != wild])
            cards = [rank + rng.choice(SUITS) for _ in range(n)]
        elif kind < 0.9:
            suit = rng.choice(SUITS)
            lo = rng.randint(3, 14 - n)
            cards = [RANKS[q - 3] + suit for q in range(lo, lo + n)]
        else:
            cards = ["JK"] * 3
        cards = [c if rng.random() > 0.2 else "JK" for c in cards]
        meld = rules.make_meld(cards, wild, limits)
        if meld is not None:
            out.append(meld)
    return out


def test_lay_off_leftover_against_brute_force():
    """The minimum leftover with lay-offs on the table's melds (house rule) is exact."""
    rng = random.Random(11)
    for _ in range(300):
        wild = rng.choice(RANKS)
        limits = rng.choice([MeldLimits(), NAT, RATIO])
        table = _table(rng, wild, limits)
        hand = (
            suited_hand(rng, rng.randint(2, 6), wild, 2)
            if rng.random() < 0.5
            else random_hand(rng, rng.randint(2, 6), wild, 0.2)
        )
        best = rules.best_arrangement(hand, wild, limits, table)
        expect = ref_min_leftover_table(
            hand,
            wild,
            [(m.kind, m.cards) for m in table],
            limits.min_naturals,
            limits.max_wilds_per_natural,
        )
        assert best.points == expect, (hand, wild, table)
        used = [c for m in best.melds for c in m.cards]
        used += [c for lay in best.lay_offs for c in lay.cards] + list(best.leftover)
        assert sorted(used) == sorted(hand)
        for lay in best.lay_offs:
            assert rules.extend_meld(table[lay.target], lay.cards, wild, limits) is not None


def _runs_with_wilds() -> list[tuple[list[str], str, tuple[int, ...]]]:
    """Every run of 3 to 5 hearts, from every start, with wilds for one or two of its
    ranks (any of them: the lowest, inside, the highest), laid as ``make_meld`` lays them:
    its cards, the wild rank of the round (never one of its natural ranks) and where the
    wilds stood."""
    out = []
    for length in (3, 4, 5):
        for lo in range(3, 14 - length + 1):
            ranks = list(range(lo, lo + length))
            for count in (1, 2):
                for spots in itertools.combinations(range(length), count):
                    if length - count < 2:
                        continue
                    natural = [r for i, r in enumerate(ranks) if i not in spots]
                    wild = next(
                        r for r in ("K", "3", "7") if rules.parse(r + "S")[0] not in natural
                    )
                    wilds = ["JK", wild + "S"][:count]
                    cards = [RANKS[r - 3] + "H" for r in natural] + wilds
                    out.append((cards, wild, spots))
    return out


@pytest.mark.parametrize("limits", [MeldLimits(), NAT, RATIO], ids=["publisher", "nat", "ratio"])
def test_lay_offs_on_runs_with_wilds_against_brute_force(limits):
    """Lay-offs on a run whose wilds stand at any of its ranks, under each meld limit:
    ``extend_meld`` agrees with the reference for every single card and every pair of
    cards near the run, and the minimum leftover with lay-offs on it is exact."""
    rng = random.Random(17)
    seen = set()
    for cards, wild, spots in _runs_with_wilds():
        meld = rules.make_meld(cards, wild, limits)
        if meld is None:
            assert not ref_is_meld(cards, wild, limits.min_naturals, limits.max_wilds_per_natural)
            continue
        assert meld.kind == rules.RUN and meld.lo is not None and meld.hi is not None
        length = len(cards)
        seen.update(("low" if s == 0 else "high" if s == length - 1 else "inside") for s in spots)
        near = [RANKS[q - 3] + "H" for q in range(max(3, meld.lo - 2), min(13, meld.hi + 2) + 1)]
        near = [c for c in near if rules.parse(c)[0] != rules.parse(wild + "S")[0]]
        singles = [*near, "JK", wild + "D", "5S"]
        limit_args = (limits.min_naturals, limits.max_wilds_per_natural)
        for add in [[c] for c in singles] + [list(p) for p in itertools.combinations(singles, 2)]:
            grown = rules.extend_meld(meld, add, wild, limits)
            assert ref_extend_ok(meld.kind, meld.cards, add, wild, *limit_args) is (
                grown is not None
            ), (meld.cards, add, wild, limits)
            if grown is not None:
                assert sorted(grown.cards) == sorted(meld.cards + tuple(add))
        for _ in range(4):
            hand = rng.sample([*near, *near, "JK", wild + "D", "9S", "9C"], rng.randint(2, 6))
            best = rules.best_arrangement(hand, wild, limits, [meld])
            expect = ref_min_leftover_table(hand, wild, [(meld.kind, meld.cards)], *limit_args)
            assert best.points == expect, (hand, wild, meld.cards, limits)
            for lay in best.lay_offs:
                assert rules.extend_meld(meld, lay.cards, wild, limits) is not None
    assert seen == {"low", "inside", "high"}


@pytest.mark.parametrize(
    "hand",
    [
        pytest.param(
            ["5T", "8C", "8H", "3T", "JS", "JK", "3D", "JK", "6S", "JK", "10C", "4T", "9H", "KS"],
            id="four-wilds",
        ),
        pytest.param(
            ["10S", "9S", "5S", "9S", "JS", "KS", "10S", "8S", "6S", "JK", "QS", "JK", "3S", "6S"],
            id="one-suit",
        ),
        pytest.param(
            ["4C", "4C", "4D", "4D", "4H", "4H", "4S", "4S", "4T", "4T", "5D", "7H", "9S", "JK"],
            id="one-rank",
        ),
        pytest.param(
            ["JK"] * 6 + ["KS", "KH", "3H", "5D", "7C", "9S", "JT", "QH"], id="eight-wilds"
        ),
    ],
)
def test_hard_hands_are_solved_in_few_states(hand):
    """A whole round-11 turn (13-card leftover, every discard) of a hard hand, memo cold,
    for every rule set, explores a bounded number of states (about 1,000 at most today; an
    exponential search would make millions). Its time is ``bench/five_crowns_meld.py``'s:
    a timing is never a test's assertion."""
    from tablestate_five_crowns import _solver

    for limits in (MeldLimits(), NAT, RATIO):
        solver = _solver.solver(limits)
        solver.memo.clear()
        solver.can_memo.clear()
        rules.min_leftover(
            hand[:13],
            "K",
            min_naturals=limits.min_naturals,
            max_wilds_per_natural=limits.max_wilds_per_natural,
        )
        rules.go_out_discards(hand, "K", limits)
        assert len(solver.memo) + len(solver.can_memo) <= 2_000


def test_random_round_eleven_turns_are_solved_in_few_states():
    """Ordinary round-11 turns explore a few hundred states at most (231 over these 300
    hands today); the time they take is ``bench/five_crowns_meld.py``'s."""
    from tablestate_five_crowns import _solver

    solver = _solver.solver(MeldLimits())
    rng = random.Random(5)
    for _ in range(300):
        hand = random_hand(rng, 14, "K")
        solver.memo.clear()
        solver.can_memo.clear()
        rules.min_leftover(hand[:13], "K")
        for d in hand:
            rules.can_go_out(hand, "K", d)
        assert len(solver.memo) + len(solver.can_memo) <= 1_000, hand

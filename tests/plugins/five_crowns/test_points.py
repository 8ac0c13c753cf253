"""Card points other than the publisher's (the ``five_crowns_card_points`` hook): the exact
solver under any points table against brute force, and the bot, the legal moves and the
solo piles counting with the table's points."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablestate.engine.bots import NORMAL, choose
from tablestate_five_crowns import rules
from tablestate_five_crowns._house import house
from tablestate_five_crowns._solo import make_pile
from tablestate_five_crowns.game import GAME
from tablestate_five_crowns.rules import STANDARD, CardPoints, MeldLimits

from .reference import ref_is_meld, ref_min_leftover, ref_min_leftover_table
from .support import JOKERS_15, JOKERS_25, KINGS_0, RATIO, discard, draw, points_ruleset, start
from .test_rules import LIMITS, _table

KEYS = (*rules.RANKS, "WILD", "JK")
# wide enough for every order of the kinds (a joker cheaper than a wild-rank card, a
# natural dearer than both, ties, zeros), small enough for many ties
TABLES = st.dictionaries(st.sampled_from(KEYS), st.integers(0, 60), max_size=len(KEYS))
# two decks, more jokers, and a third copy of each wild-rank card ("*" is the wild rank)
POOL = (*rules.deck(2), *["JK"] * 4, *("*" + s for s in rules.SUITS))
EXACT = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _hand(indices: list[int], wild: str) -> list[str]:
    return [POOL[i].replace("*", wild) for i in indices]


def _points(table: dict[str, int]) -> CardPoints:
    return CardPoints.from_overrides([table])


@EXACT
@given(
    table=TABLES,
    wild=st.sampled_from(rules.RANKS),
    indices=st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=8, unique=True),
    limits=st.sampled_from(LIMITS),
)
def test_exact_under_any_points_table(table, wild, indices, limits) -> None:
    """The minimum leftover and the best arrangement under a random points table agree
    with the brute-force reference counting the same points."""
    hand = _hand(indices, wild)
    points = _points(table)
    mn, ratio = limits
    expect = ref_min_leftover(hand, wild, mn, ratio, table)
    kw = {"min_naturals": mn, "max_wilds_per_natural": ratio}
    assert rules.min_leftover(hand, wild, points=points, **kw) == expect
    best = rules.best_arrangement(hand, wild, MeldLimits(mn, ratio), points=points)
    assert best.points == expect == rules.hand_points(best.leftover, wild, points)
    laid = [c for m in best.melds for c in m.cards]
    assert sorted(laid + list(best.leftover)) == sorted(hand)
    assert all(ref_is_meld(m.cards, wild, mn, ratio) for m in best.melds)


@EXACT
@given(
    table=TABLES,
    wild=st.sampled_from(rules.RANKS),
    indices=st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=5, unique=True),
    limits=st.sampled_from([MeldLimits(), MeldLimits(1), MeldLimits(1, 1)]),
    seed=st.integers(0, 2**16),
)
def test_exact_with_lay_offs_under_any_points_table(table, wild, indices, limits, seed) -> None:
    """The same with lay-offs on the table's melds (house rule)."""
    hand = _hand(indices, wild)
    melds = _table(random.Random(seed), wild, limits)
    best = rules.best_arrangement(hand, wild, limits, melds, _points(table))
    args = (limits.min_naturals, limits.max_wilds_per_natural)
    on_table = [(m.kind, m.cards) for m in melds]
    assert best.points == ref_min_leftover_table(hand, wild, on_table, *args, table)
    used = [c for m in best.melds for c in m.cards]
    used += [c for lay in best.lay_offs for c in lay.cards] + list(best.leftover)
    assert sorted(used) == sorted(hand)


@pytest.mark.parametrize(
    "table, left",
    [
        pytest.param({}, ("3S",), id="standard: the wild-rank card"),
        pytest.param({"JK": 25}, ("3S",), id="jokers-25: still the wild-rank card"),
        pytest.param({"JK": 15}, ("JK",), id="jokers-15: the joker"),
        pytest.param({"WILD": 60}, ("JK",), id="wild-60: the joker"),
    ],
)
def test_the_cheaper_wild_is_left_over(table, left) -> None:
    """3s wild, wilds-not-exceed-naturals: 5H 5D take two of the three wilds; the one
    left is the cheapest under the table."""
    hand, limits, points = ["JK", "3S", "3D", "5H", "5D"], MeldLimits(1, 1), _points(table)
    best = rules.best_arrangement(hand, "3", limits, points=points)
    assert best.leftover == left
    kw = {"min_naturals": 1, "max_wilds_per_natural": 1}
    assert best.points == rules.min_leftover(hand, "3", points=points, **kw)
    assert best.points == points.of(left[0], "3")


def test_standard_table_is_the_default() -> None:
    assert CardPoints.from_overrides([]) is CardPoints.from_overrides([{"K": 13}]) is STANDARD
    assert [STANDARD.of(r + "S", "K") for r in rules.RANKS] == [*range(3, 13), 20]
    assert (STANDARD.of("JK", "K"), STANDARD.positive) == (50, True)
    assert not CardPoints.from_overrides([{"K": 0}]).positive


@pytest.mark.parametrize("bad", [{"A": 1}, {"JK": -1}, {"JK": 1001}, {"JK": True}, {"K": 2.5}])
def test_bad_points_are_refused(bad) -> None:
    with pytest.raises(ValueError, match="card points"):
        CardPoints.from_overrides([bad])


def test_solvers_are_kept_per_table_up_to_a_bound() -> None:
    """One solver per meld limits and points table, the oldest dropped past 16 tables
    other than the standard one (whose solvers stay)."""
    from tablestate_five_crowns import _solver

    rules.min_leftover(["5H"], "3")
    for joker in range(40):
        points = CardPoints(joker=joker)
        assert rules.min_leftover(["JK", "5H", "9C"], "3", points=points) == joker + 14
        assert sum(1 for _, p in _solver._SOLVERS if p != STANDARD) <= 16
    assert (MeldLimits(), points) in _solver._SOLVERS
    assert (MeldLimits(), STANDARD) in _solver._SOLVERS


def _go_out_game(*enabled: str):
    """3s wild, wilds-not-exceed-naturals: seat 1 holds 5H 5D JK and draws 3S; it goes
    out by discarding either wild (not a 5: one natural cannot hold two wilds)."""
    d = start(
        [["5H", "5D", "JK"], ["9C", "9D", "QS"]],
        "KD",
        ["3S"],
        rules=points_ruleset(RATIO, *enabled),
    )
    d.move(1, draw())
    return d


@pytest.mark.parametrize(
    "enabled, thrown",
    [((), "JK"), ((JOKERS_25,), "JK"), ((JOKERS_15,), "3S")],
    ids=["standard", "jokers-count-25", "jokers-count-15"],
)
def test_going_out_throws_the_dearer_wild(enabled, thrown) -> None:
    """The listed ``goOut`` and the bot's both throw the wild that the table makes dearer."""
    d = _go_out_game(*enabled)
    outs = [m["goOut"] for m in d.legal(1) if "goOut" in m]
    assert [o["discard"] for o in outs] == [thrown]
    move = choose(GAME, d.state, 1, NORMAL, d.rng, d.rules)
    assert move["goOut"]["discard"] == thrown


@pytest.mark.parametrize("enabled, thrown", [((), "KS"), ((KINGS_0,), "QD")], ids=["std", "k-0"])
def test_the_bot_discards_by_the_table(enabled, thrown) -> None:
    """3s wild, nothing melds: the bot throws the card that leaves the fewest points, the
    king unless kings cost nothing."""
    d = start(
        [["KS", "QD", "9C"], ["9D", "9H", "QS"]], "4H", ["5T"], rules=points_ruleset(*enabled)
    )
    d.move(1, draw())
    assert choose(GAME, d.state, 1, NORMAL, d.rng, d.rules) == discard(thrown)


def test_a_solo_pile_whose_leftover_costs_nothing_stays_open() -> None:
    """4s wild: 5H 5D 5C meld and KS is left. Where kings cost 0 the pile scores 0 but is
    not closed: a pile closes when all its cards meld."""
    cards = ("5H", "5D", "5C", "KS")
    std = make_pile(4, cards, house(points_ruleset()))
    free = make_pile(4, cards, house(points_ruleset(KINGS_0)))
    assert (std.points, std.closed) == (13, False)
    assert (free.points, free.closed) == (0, False)
    assert make_pile(4, ("5H", "5D", "5C", "5S"), house(points_ruleset(KINGS_0))).closed
